//! `codegen sandbox-gaps`: per product, the tools the embedded sandbox cannot execute. A tool has
//! sandbox behaviour when its `operation` says what it does to records, or when a handler other
//! than `unavailable_template` (which only ever answers `not_available`) serves it. The sandbox
//! is what a new user meets first, so the test suite requires this list to be empty.

use crate::load::Loaded;
use crate::model::{OperationKind, Tool};

/// The handler that answers `not_available` and nothing else.
pub const NOT_AVAILABLE_HANDLER: &str = "unavailable_template";

/// Whether the sandbox can execute `tool`.
pub fn has_sandbox_behaviour(tool: &Tool) -> bool {
    match (&tool.handler, &tool.http) {
        (Some(h), _) => h != NOT_AVAILABLE_HANDLER,
        (None, _) => tool
            .operation
            .as_ref()
            .is_some_and(|o| o.kind != OperationKind::Custom),
    }
}

/// Per product (in catalog order, fixtures left out), the names of its tools without sandbox
/// behaviour; products with none are omitted.
pub fn report(loaded: &[Loaded]) -> Vec<(String, Vec<String>)> {
    loaded
        .iter()
        .filter(|l| !l.catalog.product.fixture)
        .filter_map(|l| {
            let missing: Vec<String> = l
                .catalog
                .tools
                .iter()
                .filter(|t| !has_sandbox_behaviour(t))
                .map(|t| t.name.clone())
                .collect();
            (!missing.is_empty()).then(|| (l.catalog.product.name.clone(), missing))
        })
        .collect()
}
