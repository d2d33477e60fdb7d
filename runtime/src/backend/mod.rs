//! Backends that live in the runtime crate (the sandbox backend is `runtime-sandbox`):
//! - [`upstream`]: the Kobana API proxy (`kobana-mcp serve --upstream …`);
//! - [`recent`]: the concurrent `resources/list` fan-out over any backend;
//! - [`records`]: answer helpers (numeric-id stripping for resources, list/record shapes).

pub mod recent;
pub mod records;
pub mod upstream;

pub use recent::{recent_resources, Missing, Recent, RecentOptions};
pub use records::{list_items, strip_numeric_id};
pub use upstream::{Upstream, UpstreamConfig};
