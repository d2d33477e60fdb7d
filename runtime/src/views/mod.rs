//! Interactive views, the MCP Apps extension (`io.modelcontextprotocol/ui`), whole, on the
//! protocol's extension seam: [`extension::ViewsExtension`] (capability, listings, the views'
//! pages, the codes drawn into tool results) and [`codes`] (Interleaved 2 of 5 and QR codes as
//! modules). The views themselves are the generated tables of `runtime_model::views`, which the
//! server is given ([`crate::server::ServerConfig::views`]).

pub mod codes;
pub mod extension;

pub use extension::{negotiated, ViewsExtension};
