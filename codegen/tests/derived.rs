//! The generated output-schemas sidecar (`catalog/derived/<product>.output-schemas.yaml`) is
//! merged into its catalog by the loader, and every problem with it names the file it is in.

use std::path::Path;

const TINY: &str = include_str!("data/tiny.yaml");

fn catalog_dir(sidecar: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(catalog.join("derived")).unwrap();
    std::fs::write(catalog.join("tiny.yaml"), TINY).unwrap();
    std::fs::write(catalog.join("derived/tiny.output-schemas.yaml"), sidecar).unwrap();
    dir
}

fn load(dir: &Path) -> Result<Vec<codegen::load::Loaded>, String> {
    codegen::load_all(&dir.join("catalog")).map_err(|e| e.to_string())
}

const LIST_ENTRY: &str = "# generated
tiny_orders_list:
  operation: GET /orders
  status: '200'
  schema:
    type: object
    properties:
      data: {type: array, items: {type: object}}
";

#[test]
fn a_sidecar_schema_becomes_the_tools_output_schema() {
    let dir = catalog_dir(LIST_ENTRY);
    let loaded = load(dir.path()).unwrap();
    let tool = loaded[0]
        .catalog
        .tools
        .iter()
        .find(|t| t.name == "tiny_orders_list")
        .unwrap();
    let schema = serde_json::to_value(tool.output_schema.as_ref().unwrap()).unwrap();
    assert_eq!(schema["properties"]["data"]["type"], "array");
    // and it reaches the generated tables and the tool descriptor
    let files = codegen::generate(&dir.path().join("catalog")).unwrap();
    let module = files.iter().find(|f| f.path == "src/tiny.rs").unwrap();
    // (as a raw literal: its quotes as they are)
    assert!(
        module
            .contents
            .contains(r#""data":{"type":"array","items":{"type":"object"}}"#),
        "the derived schema is in the generated module"
    );
}

#[test]
fn a_schema_written_in_both_places_is_an_error_naming_both() {
    let sidecar = LIST_ENTRY.replace("tiny_orders_list", "tiny_orders_get");
    let dir = catalog_dir(&sidecar);
    let err = load(dir.path()).unwrap_err();
    assert!(err.contains("catalog/tiny.yaml:69:"), "{err}");
    assert!(
        err.contains("tool `tiny_orders_get` declares `output_schema` here and also in catalog/derived/tiny.output-schemas.yaml"),
        "{err}"
    );
}

#[test]
fn an_entry_for_an_unknown_tool_is_an_error_in_the_sidecar() {
    let sidecar = LIST_ENTRY.replace("tiny_orders_list", "tiny_orders_gone");
    let dir = catalog_dir(&sidecar);
    let err = load(dir.path()).unwrap_err();
    assert!(
        err.contains("catalog/derived/tiny.output-schemas.yaml:2:"),
        "{err}"
    );
    assert!(err.contains("has no tool `tiny_orders_gone`"), "{err}");
    assert!(err.contains("output-schemas --write"), "{err}");
}

#[test]
fn a_bad_derived_schema_is_reported_in_the_sidecar() {
    let sidecar = LIST_ENTRY.replace(
        "    type: object\n    properties",
        "    type: array\n    properties",
    );
    let dir = catalog_dir(&sidecar);
    let err = load(dir.path()).unwrap_err();
    assert!(
        err.contains("catalog/derived/tiny.output-schemas.yaml:"),
        "{err}"
    );
    assert!(err.contains("tiny_orders_list.schema"), "{err}");
    assert!(err.contains("not `type: object`"), "{err}");
}
