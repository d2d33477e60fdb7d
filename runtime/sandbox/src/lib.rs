//! The embedded sandbox: a SQLite store whose behaviour comes from the catalogs.
