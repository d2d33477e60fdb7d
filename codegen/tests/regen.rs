//! Generation, the write/check cycle and the command line, on a small catalog in a temp folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use codegen::{DriftKind, GeneratedFile};

const TINY: &str = include_str!("data/tiny.yaml");

/// A throwaway repository with `catalog/tiny.yaml` and an empty `generated/`.
fn temp_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    std::fs::create_dir_all(dir.path().join("generated")).unwrap();
    std::fs::write(dir.path().join("catalog/tiny.yaml"), TINY).unwrap();
    dir
}

fn generate(root: &Path) -> Vec<GeneratedFile> {
    codegen::generate(&root.join("catalog")).unwrap_or_else(|e| panic!("{e}"))
}

fn file<'a>(files: &'a [GeneratedFile], path: &str) -> &'a str {
    &files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} not generated"))
        .contents
}

#[test]
fn generation_is_deterministic() {
    let repo = temp_repo();
    let first = generate(repo.path());
    let second = generate(repo.path());
    assert_eq!(first, second);
    // Key order in the YAML must not matter either: records and completions are maps.
    let reordered = TINY.replace(
        "  months: {last_months: 12}\n  statuses: {fixed: [open, paid, canceled]}\n",
        "  statuses: {fixed: [open, paid, canceled]}\n  months: {last_months: 12}\n",
    );
    assert_ne!(reordered, TINY);
    std::fs::write(repo.path().join("catalog/tiny.yaml"), reordered).unwrap();
    assert_eq!(generate(repo.path()), first);
}

#[test]
fn every_output_file_carries_the_preamble() {
    let repo = temp_repo();
    let files = generate(repo.path());
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "docs/README.md",
            "docs/tiny.md",
            "src/lib.rs",
            "src/tiny.rs",
            "src/views.rs"
        ],
        "the packaging files are codegen-tools' (codegen/tools/tests/packaging_files.rs)"
    );
    for f in &files {
        let first = f.contents.lines().next().unwrap();
        assert!(first.contains("do not edit by hand"), "{}: {first}", f.path);
        assert!(
            first.contains("cargo run -p codegen"),
            "{}: {first}",
            f.path
        );
    }
    assert!(file(&files, "src/tiny.rs").starts_with("// generated from catalog/tiny.yaml;"));
    assert!(file(&files, "docs/tiny.md").starts_with("<!-- generated from catalog/tiny.yaml;"));
}

#[test]
fn generated_rust_is_valid_and_lists_tools_by_name() {
    let repo = temp_repo();
    let files = generate(repo.path());
    let src = file(&files, "src/tiny.rs");
    syn::parse_file(src).unwrap_or_else(|e| panic!("invalid Rust: {e}\n{src}"));
    syn::parse_file(file(&files, "src/lib.rs")).unwrap();
    let order: Vec<usize> = [
        "\"tiny_customers_list\"",
        "\"tiny_orders_cancel\"",
        "\"tiny_orders_create\"",
        "\"tiny_orders_get\"",
        "\"tiny_orders_list\"",
        "\"tiny_schemas_list\"",
    ]
    .iter()
    .map(|n| src.find(&format!("name: {n}")).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "tools not sorted");
    // The cancel action maps `{order_uid}` to the `uid` argument.
    assert!(
        src.contains("path_params: &[(\"order_uid\", \"uid\")]"),
        "{src}"
    );
}

#[test]
fn descriptors_are_serialized_at_generation_time() {
    let repo = temp_repo();
    let loaded = codegen::load_all(&repo.path().join("catalog")).unwrap();
    let cat = &loaded[0].catalog;
    let create = cat
        .tools
        .iter()
        .find(|t| t.name == "tiny_orders_create")
        .unwrap();
    let d = codegen::descriptors::tool(cat, create);
    assert_eq!(d["name"], "tiny_orders_create");
    assert_eq!(d["inputSchema"]["required"][0], "customer_uid");
    // A writing tool: `readOnlyHint: false` and `idempotentHint: false` are the spec's defaults
    // and left out; `destructiveHint` is always explicit on a writing tool.
    assert!(d["annotations"].get("readOnlyHint").is_none());
    assert_eq!(d["annotations"]["destructiveHint"], false);
    // POST is not idempotent; nothing here reaches outside Kobana.
    assert!(d["annotations"].get("idempotentHint").is_none());
    assert_eq!(d["annotations"]["openWorldHint"], false);
    assert!(
        d["annotations"].get("title").is_none(),
        "title is said once, at the top"
    );
    assert!(d.get("outputSchema").is_none());
    let get = cat
        .tools
        .iter()
        .find(|t| t.name == "tiny_orders_get")
        .unwrap();
    let d = codegen::descriptors::tool(cat, get);
    assert_eq!(d["outputSchema"]["type"], "object");
    // A read-only tool: the writing hints mean nothing there and are left out.
    assert_eq!(d["annotations"]["readOnlyHint"], true);
    assert!(d["annotations"].get("idempotentHint").is_none());
    assert!(d["annotations"].get("destructiveHint").is_none());
    let cancel = cat
        .tools
        .iter()
        .find(|t| t.name == "tiny_orders_cancel")
        .unwrap();
    assert_eq!(
        codegen::descriptors::tool(cat, cancel)["annotations"]["destructiveHint"],
        true
    );
    let t = codegen::descriptors::template(&cat.templates[0]);
    assert_eq!(
        t,
        serde_json::json!({
            "uriTemplate": "kobana://tiny/orders/{uid}",
            "name": "order",
            "title": "Order",
            "description": "One order (JSON).",
            "mimeType": "application/json"
        })
    );
    let p = codegen::descriptors::prompt(&cat.prompts[0]);
    assert_eq!(p["arguments"][0]["name"], "month");
    assert_eq!(p["arguments"][0]["required"], false);
    let r = codegen::descriptors::record_schema("orders", &cat.records["orders"]);
    assert_eq!(r["fields"]["status"]["enum"][2], "canceled");
    assert_eq!(r["fields"]["status"]["sortable"], true);
    // The Rust table embeds exactly these JSON strings.
    let files = generate(repo.path());
    let src = file(&files, "src/tiny.rs");
    // (as a raw literal: JSON reads as JSON)
    let literal = format!("r#\"{}\"#", serde_json::to_string(&t).unwrap());
    assert!(src.contains(&literal), "template descriptor not embedded");
}

#[test]
fn docs_carry_the_product_tables() {
    let repo = temp_repo();
    let files = generate(repo.path());
    let doc = file(&files, "docs/tiny.md");
    assert!(
        doc.contains("| `kobana://tiny/orders/{uid}` | One order (JSON). | `tiny_orders_get` |")
    );
    assert!(doc.contains(
        "| `review_orders` | `month` (optional, `YYYY-MM`, default `current_month`)<br>`status` (optional) |"
    ));
    assert!(doc.contains("| `tiny_orders_cancel` | Cancel an order | destructive: Cancelling an order cannot be undone. |"));
    assert!(doc.contains(
        "| `{uid}` in `kobana://tiny/orders/{uid}` | `uid` values from `tiny_orders_list`"
    ));
    // Errors follow the policies: refuse on unconfirmable and on replay, not workspaced.
    assert!(doc.contains("| `confirmation_required` |"));
    assert!(doc.contains("| `confirmation_replayed` |"));
    assert!(doc.contains("| `user_declined` |"));
    assert!(!doc.contains("| `workspace_required` |"));
    let index = file(&files, "docs/README.md");
    assert!(
        index.contains("| [`tiny`](tiny.md) | Tiny Shop | 6 | 2 (1 + 1) | 1 |"),
        "{index}"
    );
}

#[test]
fn the_drift_check_names_hand_edits_and_regeneration_fixes_them() {
    let repo = temp_repo();
    let generated = repo.path().join("generated");
    let files = generate(repo.path());
    // Nothing generated yet: everything is missing.
    let drift = codegen::check(&generated, &files).unwrap();
    assert_eq!(drift.len(), files.len());
    assert!(drift.iter().all(|d| d.kind == DriftKind::Missing));

    let report = codegen::write(&generated, &files).unwrap();
    assert_eq!(report.written.len(), files.len());
    assert!(codegen::check(&generated, &files).unwrap().is_empty());

    // A hand edit, and a file no catalog produces.
    let target = generated.join("src/tiny.rs");
    let edited = std::fs::read_to_string(&target)
        .unwrap()
        .replace("Tiny Shop", "Tiny Shop (edited)");
    std::fs::write(&target, edited).unwrap();
    std::fs::write(generated.join("docs/old.md"), "stale\n").unwrap();
    let drift = codegen::check(&generated, &files).unwrap();
    let shown: Vec<String> = drift.iter().map(|d| d.to_string()).collect();
    assert_eq!(drift.len(), 2, "{shown:?}");
    assert!(shown.contains(
        &"generated/src/tiny.rs is stale (differs from what the catalogs generate); run `cargo run -p codegen`".to_string()
    ));
    assert!(shown
        .iter()
        .any(|s| s.starts_with("generated/docs/old.md is extra")));

    // Regenerating rewrites only the edited file and removes the extra one.
    let report = codegen::write(&generated, &files).unwrap();
    assert_eq!(report.written, ["src/tiny.rs"]);
    assert_eq!(report.removed, ["docs/old.md"]);
    assert_eq!(report.unchanged, files.len() - 1);
    assert!(codegen::check(&generated, &files).unwrap().is_empty());
}

#[test]
fn unchanged_files_are_not_rewritten() {
    let repo = temp_repo();
    let generated = repo.path().join("generated");
    let files = generate(repo.path());
    codegen::write(&generated, &files).unwrap();
    let stamp = |p: &str| {
        std::fs::metadata(generated.join(p))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = stamp("src/tiny.rs");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = codegen::write(&generated, &files).unwrap();
    assert!(report.written.is_empty());
    assert_eq!(stamp("src/tiny.rs"), before);
}

fn codegen_bin(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_codegen"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn command_line_check_fails_on_drift_and_passes_after_regeneration() {
    let repo = temp_repo();
    let out = codegen_bin(repo.path(), &["--check"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("generated/src/tiny.rs is missing; run `cargo run -p codegen`"),
        "{err}"
    );

    let out = codegen_bin(repo.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote generated/src/tiny.rs"));

    let out = codegen_bin(repo.path(), &["--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let doc: PathBuf = repo.path().join("generated/docs/tiny.md");
    std::fs::write(&doc, "# edited\n").unwrap();
    let out = codegen_bin(repo.path(), &["--check"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("generated/docs/tiny.md is stale"), "{err}");
}

#[test]
fn command_line_reports_catalog_errors_with_positions() {
    let repo = temp_repo();
    std::fs::write(
        repo.path().join("catalog/tiny.yaml"),
        TINY.replace("read_by: tiny_orders_get", "read_by: tiny_orders_read"),
    )
    .unwrap();
    let out = codegen_bin(repo.path(), &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("catalog/tiny.yaml:155:14: error at `templates[0].read_by`: unknown tool `tiny_orders_read`"),
        "{err}"
    );
    // Nothing was written.
    assert!(!repo.path().join("generated/src/tiny.rs").exists());
}

#[test]
fn command_line_rejects_unknown_options() {
    let repo = temp_repo();
    let out = codegen_bin(repo.path(), &["--chek"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unexpected argument '--chek'"), "{stderr}");
    assert!(
        stderr.contains("'--check'"),
        "suggests the flag meant: {stderr}"
    );
}
