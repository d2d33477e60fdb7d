//! The JSON Schema of the catalog format, for editors (`catalog/catalog.schema.json`).
//!
//! A catalog that starts with `# yaml-language-server: $schema=./catalog.schema.json` gets
//! completion, hover docs and errors while typing. It is derived from the model's types by
//! `schemars` (descriptions from their doc comments, defaults from their serde defaults, the rest
//! from the `schemars` attributes in `model.rs`); `cargo run -p codegen-tools` writes it and its
//! `--check` fails when the file differs. `codegen/tools/tests/schema.rs` keeps it honest: every struct of
//! `model.rs` has an object here with exactly the same keys, and the catalogs codegen accepts
//! validate against it.

use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

use codegen::model::Catalog;

/// Where the schema lives, relative to the repository root.
pub const SCHEMA_PATH: &str = "catalog/catalog.schema.json";

/// The schema, as JSON: draft-07 (what editors' YAML language servers read best), derived from
/// [`Catalog`] and the types it holds.
pub fn catalog_schema() -> Value {
    let schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<Catalog>();
    let mut derived = match schema.to_value() {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    // Say first what the file is and where it comes from; the rest is schemars' output.
    let mut out = serde_json::Map::new();
    out.insert(
        "$schema".into(),
        derived
            .remove("$schema")
            .unwrap_or_else(|| json!("http://json-schema.org/draft-07/schema#")),
    );
    out.insert(
        "$comment".into(),
        json!(format!(
            "generated from the catalog model (codegen/src/model.rs) by schemars; do not edit by hand — run `{}`",
            crate::command::FIX_COMMAND
        )),
    );
    out.insert(
        "$id".into(),
        json!("https://kobana.com.br/schemas/kobana-mcp-catalog.json"),
    );
    out.insert("title".into(), json!("kobana-mcp product catalog"));
    derived.remove("title");
    out.extend(derived);
    Value::Object(out)
}

/// The file's text: pretty JSON with a trailing newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&catalog_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the schema file under `root` when its content differs; says whether it wrote.
pub fn write_schema(root: &std::path::Path) -> std::io::Result<bool> {
    let path = root.join(SCHEMA_PATH);
    let text = schema_text();
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        return Ok(false);
    }
    std::fs::write(&path, text)?;
    Ok(true)
}

/// The drift of the schema file under `root`, if any.
pub fn check_schema(root: &std::path::Path) -> Option<String> {
    let path = root.join(SCHEMA_PATH);
    match std::fs::read_to_string(&path) {
        Ok(text) if text == schema_text() => None,
        Ok(_) => Some(format!(
            "{SCHEMA_PATH} is stale (differs from what the catalog model gives); run `{}`",
            crate::command::FIX_COMMAND
        )),
        Err(_) => Some(format!(
            "{SCHEMA_PATH} is missing; run `{}`",
            crate::command::FIX_COMMAND
        )),
    }
}
