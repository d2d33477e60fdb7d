//! The runtime's text table (`catalog/texts/runtime.yaml`): the generator refuses an entry
//! without one of its locales, with placeholders that differ between locales, with a stray
//! brace, or that no runtime source names, each naming the table's file, line and key; a sound
//! table becomes `generated/runtime/texts.rs`.

use std::path::Path;

const TINY: &str = include_str!("data/tiny.yaml");

/// A repository with the tiny catalog, `table` as the runtime's text table and `source` as the
/// one runtime source (`runtime/src/lib.rs`).
fn repo(table: &str, source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("catalog/texts")).unwrap();
    std::fs::create_dir_all(root.join("runtime/src")).unwrap();
    std::fs::write(root.join("catalog/tiny.yaml"), TINY).unwrap();
    std::fs::write(root.join("catalog/texts/runtime.yaml"), table).unwrap();
    std::fs::write(root.join("runtime/src/lib.rs"), source).unwrap();
    dir
}

fn refusal(root: &Path) -> String {
    codegen::generate(&root.join("catalog"))
        .map(|_| ())
        .expect_err("refused")
        .to_string()
}

const SOUND: &str = "\
# The runtime's texts.
unknown_tool:
  pt-BR: \"Ferramenta desconhecida: {name}\"
  es: \"Herramienta desconocida: {name}\"
  en: \"Unknown tool: {name}\"
form_yes:
  pt-BR: sim
  es: sí
  en: yes
";

const USES_BOTH: &str = "fn f() { Text::UnknownTool; Text::FormYes; }\n";

#[test]
fn a_missing_translation_names_file_line_and_key() {
    let table = SOUND.replace("  es: sí\n", "");
    let dir = repo(&table, USES_BOTH);
    let err = refusal(dir.path());
    assert!(
        err.contains("catalog/texts/runtime.yaml:6:1: error at `form_yes`: `es` is missing"),
        "{err}"
    );
    // The sound entry is not blamed.
    assert!(!err.contains("unknown_tool"), "{err}");
}

#[test]
fn placeholders_must_agree_between_locales() {
    let table = SOUND.replace(
        "Herramienta desconocida: {name}",
        "Herramienta desconocida: {tool}",
    );
    let dir = repo(&table, USES_BOTH);
    let err = refusal(dir.path());
    assert!(
        err.contains("catalog/texts/runtime.yaml:4:")
            && err.contains(
                "error at `unknown_tool`: the placeholder `{name}` is in pt-BR, en but not in es"
            ),
        "{err}"
    );
    assert!(
        err.contains("the placeholder `{tool}` is in es but not in pt-BR, en"),
        "{err}"
    );
    let table = SOUND.replace("Unknown tool: {name}", "Unknown tool: {name} {");
    let err = refusal(repo(&table, USES_BOTH).path());
    assert!(
        err.contains("catalog/texts/runtime.yaml:5:")
            && err.contains("error at `unknown_tool.en`: a `{` that opens no placeholder"),
        "{err}"
    );
}

#[test]
fn a_text_no_runtime_source_names_is_refused() {
    let dir = repo(
        SOUND,
        "fn f() { Text::UnknownTool; }\n// Text::FormYes in a comment\n",
    );
    let err = refusal(dir.path());
    assert!(
        err.contains(
            "catalog/texts/runtime.yaml:6:1: error at `form_yes`: no runtime source says `Text::FormYes`"
        ),
        "{err}"
    );
    assert!(!err.contains("UnknownTool"), "{err}");
}

#[test]
fn a_sound_table_becomes_the_text_enum() {
    let dir = repo(SOUND, USES_BOTH);
    let files = codegen::generate(&dir.path().join("catalog")).unwrap_or_else(|e| panic!("{e}"));
    let table = &files
        .iter()
        .find(|f| f.path == "runtime/texts.rs")
        .expect("generated/runtime/texts.rs")
        .contents;
    assert!(
        table.starts_with("// generated from catalog/texts/runtime.yaml; do not edit by hand"),
        "{table}"
    );
    assert!(table.contains("pub enum Text {"), "{table}");
    assert!(table.contains("    UnknownTool,\n") && table.contains("    FormYes,\n"));
    assert!(
        table.contains(
            "        \"Ferramenta desconhecida: {name}\",\n        \"Herramienta desconocida: {name}\",\n        \"Unknown tool: {name}\",\n"
        ),
        "the versions in Locale::ALL order: {table}"
    );
    assert!(table.contains("    &[\"name\"],\n    &[],\n"), "{table}");
    // Without a table (a test catalog), no file.
    std::fs::remove_file(dir.path().join("catalog/texts/runtime.yaml")).unwrap();
    let files = codegen::generate(&dir.path().join("catalog")).unwrap();
    assert!(files.iter().all(|f| f.path != "runtime/texts.rs"));
}
