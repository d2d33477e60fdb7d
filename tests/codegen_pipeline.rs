//! The catalog → generated pipeline, end to end.
//!
//! - "Adding a resource is: edit YAML, build": a template added to a copy of a small catalog shows
//!   up in the generated table and in the docs table after regenerating.
//! - The drift gates on this repository: `generated/` is exactly what `catalog/` produces, through
//!   the catalog compiler and codegen-tools.
//! - The compiled `generated` crate exposes every catalog with consistent tables.

use std::path::{Path, PathBuf};

const TINY: &str = include_str!("../codegen/tests/data/tiny.yaml");

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn regenerate(root: &Path) -> codegen::WriteReport {
    let layout = codegen::Layout::from_root(root);
    let files = codegen::generate(&layout.catalog_dir).unwrap_or_else(|e| panic!("{e}"));
    codegen::write(&layout.generated_dir, &files).unwrap()
}

#[test]
fn adding_a_resource_is_edit_yaml_and_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("catalog")).unwrap();
    std::fs::create_dir_all(root.join("generated")).unwrap();
    let catalog = root.join("catalog/tiny.yaml");
    std::fs::write(&catalog, TINY).unwrap();
    regenerate(root);
    let table = || std::fs::read_to_string(root.join("generated/src/tiny.rs")).unwrap();
    let docs = || std::fs::read_to_string(root.join("generated/docs/tiny.md")).unwrap();
    let uri = "kobana://tiny/orders/{uid}/receipt";
    assert!(!table().contains(uri));

    // The edit: one template, in YAML.
    let added = "  - uri_template: kobana://tiny/orders/{uid}/receipt\n    name: order_receipt\n    title: Order receipt\n    description: The order's receipt, as text.\n    mime_type: text/plain\n    read_by: tiny_orders_get\n    content: text\n\nprompts:\n";
    std::fs::write(&catalog, TINY.replacen("prompts:\n", added, 1)).unwrap();
    let report = regenerate(root);
    assert_eq!(
        report.written,
        ["docs/README.md", "docs/tiny.md", "src/tiny.rs"],
        "only the product's files (and the index counts) change"
    );

    let table = table();
    let templates = &table[table.find("static TEMPLATES").unwrap()..];
    assert!(
        templates.contains(&format!("uri_template: \"{uri}\"")),
        "the new template is in the generated TEMPLATES table"
    );
    assert!(templates.contains("args: &[(\"uid\", \"uid\")]"));
    assert!(templates.contains("content: ContentKind::Text"));
    assert!(
        templates.contains(r#""uriTemplate":"kobana://tiny/orders/{uid}/receipt""#),
        "its resources/templates/list descriptor is pre-serialized"
    );
    assert!(
        docs().contains(&format!(
            "| `{uri}` | The order's receipt, as text. | `tiny_orders_get` | text |"
        )),
        "the new template is in the docs table"
    );
    let index = std::fs::read_to_string(root.join("generated/docs/README.md")).unwrap();
    assert!(index.contains("| 3 (1 + 2) |"), "{index}");
}

#[test]
fn generated_tree_is_what_the_catalogs_produce() {
    let layout = codegen::Layout::from_root(&repo_root());
    let files = codegen::generate(&layout.catalog_dir).unwrap_or_else(|e| panic!("{e}"));
    let drift = codegen::check(&layout.generated_dir, &files).unwrap();
    let lines: Vec<String> = drift.iter().map(|d| d.to_string()).collect();
    assert!(lines.is_empty(), "{}", lines.join("\n"));
    // The files beside them (packaging, install page and README section, catalog schema) are
    // codegen-tools': its gate passes too.
    let loaded = codegen::load_all(&layout.catalog_dir).unwrap_or_else(|e| panic!("{e}"));
    let tools = codegen_tools::check(&repo_root(), &loaded).unwrap_or_else(|e| panic!("{e}"));
    assert!(tools.problems.is_empty(), "{}", tools.problems.join("\n"));
    assert!(tools.files > 0);
}

#[test]
fn generated_crate_exposes_every_catalog() {
    let layout = codegen::Layout::from_root(&repo_root());
    let loaded = codegen::load_all(&layout.catalog_dir).unwrap_or_else(|e| panic!("{e}"));
    let (fixtures, products): (Vec<_>, Vec<_>) =
        loaded.iter().partition(|l| l.catalog.product.fixture);
    assert_eq!(generated::PRODUCTS.len(), products.len());
    assert_eq!(generated::FIXTURES.len(), fixtures.len());
    // Real products in the documented order.
    let order = ["banking", "billing", "finance", "dashboards", "inbox"];
    let names: Vec<&str> = generated::PRODUCTS.iter().map(|p| p.name).collect();
    let mut expected: Vec<&str> = order
        .iter()
        .copied()
        .filter(|n| names.contains(n))
        .collect();
    expected.extend(names.iter().copied().filter(|n| !order.contains(n)));
    assert_eq!(names, expected);
    assert!(generated::product("no_such_product").is_none());

    for p in generated::PRODUCTS.iter().chain(generated::FIXTURES) {
        assert!(std::ptr::eq(generated::product(p.name).unwrap(), *p));
        let source = loaded
            .iter()
            .find(|l| l.catalog.product.name == p.name)
            .unwrap();
        assert_eq!(p.tools.len(), source.catalog.tools.len(), "{}", p.name);
        assert_eq!(p.templates.len(), source.catalog.templates.len());
        assert_eq!(p.prompts.len(), source.catalog.prompts.len());
        assert!(
            p.tools.windows(2).all(|w| w[0].name < w[1].name),
            "{}: tools/list order is by name, without duplicates",
            p.name
        );
        for t in p.tools {
            let d: serde_json::Value = serde_json::from_str(t.descriptor_json).unwrap();
            assert_eq!(d["name"], t.name);
            assert_eq!(d["inputSchema"]["type"], "object", "{}", t.name);
            // Listed annotations leave out what is safe to misread (codegen's descriptors.rs):
            // a writing tool says `destructiveHint`, a read-only one `readOnlyHint: true`.
            let a = &d["annotations"];
            assert_eq!(
                a["readOnlyHint"].as_bool().unwrap_or(false),
                t.annotations.read_only
            );
            if t.annotations.read_only {
                assert!(a.get("destructiveHint").is_none(), "{}", t.name);
            } else {
                assert_eq!(
                    a["destructiveHint"], t.annotations.destructive,
                    "{}",
                    t.name
                );
            }
            assert!(!(t.annotations.read_only && t.annotations.destructive));
            assert_eq!(
                t.annotations.destructive,
                t.destructive_clause.is_some(),
                "{}",
                t.name
            );
        }
        for tpl in p.templates {
            let d: serde_json::Value = serde_json::from_str(tpl.descriptor_json).unwrap();
            assert_eq!(d["uriTemplate"], tpl.uri_template);
            assert!(tpl.uri_template.starts_with(p.uri_prefix));
            assert!(p.tool(tpl.read_by).is_some(), "{}", tpl.read_by);
        }
        for r in p.resources {
            let d: serde_json::Value = serde_json::from_str(r.descriptor_json).unwrap();
            assert_eq!(d["uri"], r.uri);
            assert!(p.tool(r.read_by).is_some(), "{}", r.read_by);
        }
        for pr in p.prompts {
            let d: serde_json::Value = serde_json::from_str(pr.descriptor_json).unwrap();
            assert_eq!(d["name"], pr.name);
            assert_eq!(d["arguments"].as_array().unwrap().len(), pr.arguments.len());
            for u in pr.uses {
                assert!(p.tool(u).is_some(), "{}: {u}", pr.name);
            }
        }
        for rec in p.records {
            let d: serde_json::Value = serde_json::from_str(rec.schema_json).unwrap();
            assert_eq!(d["name"], rec.name);
            assert_eq!(d["fields"].as_object().unwrap().len(), rec.fields.len());
        }
    }
}
