//! The name budget: the generator reports tool names over it, refuses them unless the product
//! documents name the tool, and accepts a shortened name with the old one as an alias (issue 13).

use std::path::Path;

const TINY: &str = include_str!("data/tiny.yaml");
/// 52 characters: over the default budget of 48, within MCP's 64.
const LONG: &str = "tiny_orders_cancel_with_a_name_far_too_long_for_most";

fn catalog(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    std::fs::write(dir.path().join("catalog/tiny.yaml"), text).unwrap();
    dir
}

fn load(dir: &Path) -> Result<Vec<codegen::load::Loaded>, String> {
    codegen::load_all(&dir.join("catalog")).map_err(|e| e.to_string())
}

#[test]
fn a_name_over_the_budget_is_refused_with_the_way_out() {
    assert!(LONG.len() > codegen::names::DEFAULT_NAME_BUDGET);
    let dir = catalog(&TINY.replace("name: tiny_orders_cancel", &format!("name: {LONG}")));
    let err = load(dir.path()).unwrap_err();
    assert!(
        err.contains(&format!(
            "tool name `{LONG}` is 52 characters, over the name budget of 48"
        )),
        "{err}"
    );
    assert!(err.contains("aliases:"), "{err}");
}

#[test]
fn the_budget_is_configurable_and_documented_names_keep_their_length() {
    let long = TINY.replace("name: tiny_orders_cancel", &format!("name: {LONG}"));
    let wider = long.replace(
        "  tool_prefix: tiny_\n",
        "  tool_prefix: tiny_\n  tool_name_budget: 60\n",
    );
    let dir = catalog(&wider);
    let loaded = load(dir.path()).unwrap();
    assert!(codegen::names::over_budget(&loaded[0]).is_empty());
    // The product documents write the name: it keeps it, and the report says so.
    let dir = catalog(&long);
    let facts = dir.path().join("catalog/facts/product-docs");
    std::fs::create_dir_all(&facts).unwrap();
    std::fs::write(
        facts.join("tiny.json"),
        format!("{{\"identifiers\": [\"{LONG}\"]}}"),
    )
    .unwrap();
    let loaded = load(dir.path()).unwrap();
    assert_eq!(
        codegen::names::over_budget(&loaded[0]),
        vec![(LONG.to_string(), true)]
    );
}

#[test]
fn an_alias_is_generated_and_must_not_clash() {
    let aliased = TINY.replace(
        "  - name: tiny_orders_cancel\n",
        &format!("  - name: tiny_orders_cancel\n    aliases: [{LONG}]\n"),
    );
    let dir = catalog(&aliased);
    let files = codegen::generate(&dir.path().join("catalog")).unwrap();
    let module = files.iter().find(|f| f.path == "src/tiny.rs").unwrap();
    let c = &module.contents;
    let table = &c[c.find("tool_aliases").unwrap()..c.find("resources: RESOURCES").unwrap()];
    assert!(
        table.contains(&format!("\"{LONG}\"")) && table.contains("\"tiny_orders_cancel\""),
        "the alias is in the generated table: {table}"
    );
    // The listing entries are the `tool_…` constants, after the tables.
    let listing = &c[c.find("const tool_").unwrap()..];
    assert!(listing.contains("\"name\":\"tiny_orders_cancel\""));
    assert!(!listing.contains(LONG), "an alias is never listed");

    let clash = TINY.replace(
        "  - name: tiny_orders_cancel\n",
        "  - name: tiny_orders_cancel\n    aliases: [tiny_orders_get]\n",
    );
    let err = load(catalog(&clash).path()).unwrap_err();
    assert!(
        err.contains("alias `tiny_orders_get` is already the name of tool `tiny_orders_get`"),
        "{err}"
    );
    let bad = TINY.replace(
        "  - name: tiny_orders_cancel\n",
        "  - name: tiny_orders_cancel\n    aliases: [Orders-Cancel]\n",
    );
    let err = load(catalog(&bad).path()).unwrap_err();
    assert!(
        err.contains("alias `Orders-Cancel` is not a valid tool name"),
        "{err}"
    );
}
