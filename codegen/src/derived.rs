//! Derived data kept beside the hand-written catalogs.
//!
//! A catalog holds only what people write. What a command computes from other sources lives in a
//! generated sidecar under `catalog/derived/` (`catalog/fixtures/derived/` for fixtures), which
//! starts with a preamble naming the command that writes it. Today that is the output schemas
//! `codegen-tools output-schemas --write` derives from the OpenAPI answers:
//! `catalog/derived/<product>.output-schemas.yaml`, a map from tool name to `{operation, status,
//! schema}`.
//!
//! [`crate::load::attach_output_schemas`] merges a sidecar into its loaded catalog, so everything downstream (validation, the
//! Rust tables, the docs) sees one catalog. A tool that declares `output_schema` by hand in the
//! catalog and also has an entry in the sidecar is an error naming both places; so is an entry for
//! a tool the catalog does not have.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::locate::{key_path, PositionIndex};

/// The folder of sidecars, beside the catalog files it belongs to.
pub const DERIVED_DIR: &str = "derived";

/// How an output-schemas sidecar's file name ends (after the product name).
pub const OUTPUT_SCHEMAS_SUFFIX: &str = ".output-schemas.yaml";

/// The command that writes the output-schemas sidecars.
pub const OUTPUT_SCHEMAS_COMMAND: &str = "cargo run -p codegen-tools -- output-schemas --write";

/// One derived output schema: the operation and 2xx status whose answer it comes from.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DerivedOutputSchema {
    /// `GET /v2/charge/pix/{uid}`, as the tool's binding writes it.
    pub operation: String,
    /// The HTTP status of the answer, e.g. `200`.
    pub status: String,
    /// The JSON Schema declared as the tool's `outputSchema`.
    pub schema: serde_yaml::Value,
}

/// A sidecar read from disk, kept for diagnostics.
#[derive(Debug, Clone)]
pub struct OutputSchemasFile {
    /// `catalog/derived/banking.output-schemas.yaml`.
    pub display: String,
    pub text: String,
    /// Tools whose `output_schema` came from this file.
    pub tools: BTreeSet<String>,
}

impl OutputSchemasFile {
    /// A diagnostic pointing at the value of `path` in the sidecar.
    pub fn at_value(&self, path: &str, message: String, hint: Option<String>) -> Diagnostic {
        let pos = PositionIndex::build(&self.text).value(path);
        Diagnostic {
            file: self.display.clone(),
            line: pos.line,
            column: pos.column,
            path: path.to_string(),
            message,
            hint,
        }
    }
}

/// The output-schemas sidecar of a catalog file: `<dir>/derived/<stem>.output-schemas.yaml`.
pub fn output_schemas_path(catalog_file: &Path) -> PathBuf {
    let stem = catalog_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = catalog_file.parent().unwrap_or(Path::new(""));
    dir.join(DERIVED_DIR)
        .join(format!("{stem}{OUTPUT_SCHEMAS_SUFFIX}"))
}

/// How a sidecar is named to people: its catalog's display name with the sidecar's file name.
pub fn output_schemas_display(catalog_display: &str) -> String {
    let (dir, file) = catalog_display
        .rsplit_once('/')
        .unwrap_or(("", catalog_display));
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    format!("{dir}{DERIVED_DIR}/{stem}{OUTPUT_SCHEMAS_SUFFIX}")
}

/// The first lines of every output-schemas sidecar.
pub fn output_schemas_preamble(catalog_display: &str) -> String {
    format!(
        "# generated from the OpenAPI specs named in {catalog_display} (`product.openapi`); do not edit by hand — run `{OUTPUT_SCHEMAS_COMMAND}`\n\
         #\n\
         # Each tool's output schema, derived from the 2xx JSON answer of the operation it binds (the\n\
         # rule is in catalog/README.md, \"Output schemas\"). The loader merges it into the catalog; a\n\
         # tool that declares `output_schema` by hand in the catalog is left out of this file.\n"
    )
}

/// The sidecar's text: the preamble, then `tool: {operation, status, schema}` in the given order.
pub fn render_output_schemas(
    catalog_display: &str,
    entries: &[(String, DerivedOutputSchema)],
) -> String {
    let mut map = serde_yaml::Mapping::new();
    for (tool, entry) in entries {
        map.insert(
            serde_yaml::Value::String(tool.clone()),
            serde_yaml::to_value(entry).unwrap_or(serde_yaml::Value::Null),
        );
    }
    let body = if map.is_empty() {
        "{}\n".to_string()
    } else {
        serde_yaml::to_string(&map).unwrap_or_default()
    };
    format!("{}{body}", output_schemas_preamble(catalog_display))
}

/// Parses a sidecar's text into its entries, in file order.
pub fn parse_output_schemas(
    display: &str,
    text: &str,
) -> Result<Vec<(String, DerivedOutputSchema)>, Diagnostic> {
    let error = |path: String, message: String| {
        let pos = PositionIndex::build(text).key(&path);
        Diagnostic {
            file: display.to_string(),
            line: pos.line,
            column: pos.column,
            path,
            message,
            hint: Some(format!(
                "this file is generated: run `{OUTPUT_SCHEMAS_COMMAND}` to write it again"
            )),
        }
    };
    let doc: serde_yaml::Value = serde_yaml::from_str(text)
        .map_err(|e| error(String::new(), format!("YAML syntax: {e}")))?;
    let map = match doc {
        serde_yaml::Value::Mapping(m) => m,
        serde_yaml::Value::Null => serde_yaml::Mapping::new(),
        _ => {
            return Err(error(
                String::new(),
                "not a map from tool name to `{operation, status, schema}`".into(),
            ))
        }
    };
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        let Some(tool) = k.as_str().map(str::to_string) else {
            return Err(error(String::new(), "a key that is not a tool name".into()));
        };
        let entry: DerivedOutputSchema = serde_yaml::from_value(v)
            .map_err(|e| error(key_path("", &tool), format!("`{tool}`: {e}")))?;
        out.push((tool, entry));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecars_sit_in_the_derived_folder_beside_their_catalog() {
        assert_eq!(
            output_schemas_path(Path::new("/r/catalog/banking.yaml")),
            PathBuf::from("/r/catalog/derived/banking.output-schemas.yaml")
        );
        assert_eq!(
            output_schemas_display("catalog/fixtures/conformance.yaml"),
            "catalog/fixtures/derived/conformance.output-schemas.yaml"
        );
    }

    #[test]
    fn rendered_sidecars_read_back_and_name_their_command() {
        let entry = DerivedOutputSchema {
            operation: "GET /v2/things/{uid}".into(),
            status: "200".into(),
            schema: serde_yaml::from_str("{type: object, properties: {uid: {type: string}}}")
                .unwrap(),
        };
        let text = render_output_schemas(
            "catalog/demo.yaml",
            &[("demo_thing_get".to_string(), entry.clone())],
        );
        assert!(text.starts_with("# generated from the OpenAPI specs named in catalog/demo.yaml"));
        assert!(text.contains(OUTPUT_SCHEMAS_COMMAND));
        let back = parse_output_schemas("x", &text).unwrap();
        assert_eq!(back, vec![("demo_thing_get".to_string(), entry)]);
        assert!(parse_output_schemas("x", &render_output_schemas("c", &[]))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_malformed_entry_names_the_file_and_the_tool() {
        let d = parse_output_schemas(
            "catalog/derived/demo.output-schemas.yaml",
            "demo_thing_get:\n  operation: GET /x\n  schema: {type: object}\n",
        )
        .unwrap_err();
        assert_eq!(d.file, "catalog/derived/demo.output-schemas.yaml");
        assert!(d.message.contains("demo_thing_get"), "{}", d.message);
        assert!(d.message.contains("status"), "{}", d.message);
        assert_eq!(d.line, 1);
    }
}
