//! See the module map in lib.rs.
