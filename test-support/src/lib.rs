//! Fixtures shared by the tests of several crates, kept out of the product: this crate is only
//! ever a dev-dependency, so nothing here is compiled into the `kobana-mcp` binary.
//!
//! - [`backends`]: backends for protocol and transport tests.
//! - [`calls`]: the context a backend test calls tools with.
//! - [`demo`]: two small hand-written catalogs for the sandbox and proxy tests.
//! - [`otlp`]: an OTLP/HTTP collector that keeps what the server exports.
//! - [`policies`]: four-tool products under the two confirmation policy families, for the
//!   runtime's auth and confirmation tests.
//! - [`process`]: the `kobana-mcp` binary as a child process of a test.

pub mod backends;
pub mod calls;
pub mod demo;
pub mod otlp;
pub mod policies;
pub mod process;
