//! The kobana-mcp generator: YAML catalogs in, checked-in Rust tables and Markdown docs out.

pub mod model;
pub mod openapi;
