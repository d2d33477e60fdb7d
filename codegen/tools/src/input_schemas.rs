//! Every input schema of every catalog compiles as JSON Schema 2020-12.
//!
//! The catalog compiler checks what it can read itself (`$schema` names 2020-12, every `$ref`
//! stays inside the schema, no conditional at a product schema's root: `codegen::validate`);
//! compiling a schema needs the `jsonschema` crate, which the build script of `generated/` does
//! not build, so this check runs in `cargo run -p codegen-tools -- --check` (CI) instead.

use codegen::diag::Diagnostic;
use codegen::load::Loaded;
use codegen::locate::{index_path, key_path};

/// One diagnostic per input schema that does not compile, naming its catalog, line and key.
pub fn check(loaded: &[Loaded]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for l in loaded {
        for (i, t) in l.catalog.tools.iter().enumerate() {
            let Ok(json) = serde_json::to_value(&t.input_schema) else {
                continue; // reported by the catalog compiler
            };
            if let Err(e) = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&json)
            {
                out.push(l.at_value(
                    &key_path(&index_path("tools", i), "input_schema"),
                    format!("the input schema does not compile as JSON Schema 2020-12: {e}"),
                    None,
                ));
            }
        }
    }
    out
}
