//! `codegen-tools --check` refuses an input schema that does not compile as JSON Schema 2020-12,
//! naming the catalog, the line and the key: the check the catalog compiler leaves to this crate
//! (compiling needs `jsonschema`, which the server build does not compile).

const TINY: &str = include_str!("../../tests/data/tiny.yaml");

/// `TINY` with the one input schema `{type: object}` replaced by `schema`, loaded from a fresh
/// `catalog/`; the input-schema diagnostics.
fn check_with(schema: &str) -> (String, Vec<codegen::diag::Diagnostic>) {
    let from = "    input_schema: {type: object}\n";
    assert_eq!(TINY.matches(from).count(), 1, "test bug: tiny.yaml changed");
    let text = TINY.replacen(from, schema, 1);
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::write(catalog.join("tiny.yaml"), &text).unwrap();
    let loaded = codegen::load_all(&catalog).unwrap_or_else(|e| panic!("{e}"));
    (text, codegen_tools::input_schemas::check(&loaded))
}

#[test]
fn an_input_schema_that_does_not_compile_is_refused_naming_its_line() {
    let broken = "    input_schema:\n      type: object\n      properties:\n        code: {type: string, pattern: '(['}\n";
    let (text, found) = check_with(broken);
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.file, "catalog/tiny.yaml");
    assert_eq!(d.path, "tools[5].input_schema");
    assert!(
        d.message
            .contains("does not compile as JSON Schema 2020-12"),
        "{d}"
    );
    let line = text[..text.find(broken).unwrap()].matches('\n').count() + 1;
    assert_eq!(d.line, line, "{d}");
}

#[test]
fn schemas_that_compile_pass() {
    let (_, found) = check_with(
        "    input_schema:\n      type: object\n      properties:\n        code: {type: string, pattern: '^[0-9]+$'}\n",
    );
    assert!(found.is_empty(), "{found:?}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let loaded = codegen::load_all(&root.join("catalog")).unwrap_or_else(|e| panic!("{e}"));
    let found = codegen_tools::input_schemas::check(&loaded);
    assert!(found.is_empty(), "the repository's catalogs: {found:?}");
}
