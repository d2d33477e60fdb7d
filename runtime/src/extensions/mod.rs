//! Hand-written handler bodies, looked up by the name a catalog gives (`Binding::Extension(name)`).
//!
//! A catalog describes a tool's name, schema, annotations and permission; when its behaviour cannot
//! be an HTTP binding, the catalog names a handler and the body lives here. Handlers are plain
//! functions over an [`ExtCtx`](crate::contract::ExtCtx) (the handler contract lives in
//! [`crate::contract`]): they can send progress and log notifications through `ctx.call`, and ask
//! the client for input by answering [`ExtOutcome::Input`](crate::contract::ExtOutcome::Input). The protocol
//! engine turns that into a 2026 `input_required` result (sealed `requestState`) or into real
//! server→client requests on the 2025 wire, and calls the handler again with the answers, so a
//! handler never knows which era it serves.
//!
//! A product may also replace the rendering of a prompt (`ProductExtension::prompts`) and
//! declare the rare capability a fixture needs (`ProductExtension::resource_subscribe`).
//!
//! Only the handlers of real products live here. The conformance fixture's are test code, in the
//! `runtime-fixtures` crate (`runtime/fixtures/`), which adds them to [`ALL`] with
//! [`Extensions::with`].

pub mod catalog;

use crate::contract::Extensions;

/// Every extension module of this crate: what `ServerConfig::new` serves by default.
pub static ALL: Extensions = Extensions::new(&[&catalog::EXTENSION]);
