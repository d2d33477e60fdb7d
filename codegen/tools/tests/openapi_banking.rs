//! The coverage gate and the importer against the real banking catalog and Kobana's OpenAPI specs
//! (referenced by `product.openapi`, under `KOBANA_SPECS_DIR`, default `../shared`).
//!
//! The gate runs from the specs when they are present and from their lock files
//! (`catalog/facts/openapi/`) when not, so its tests pass on a bare clone. The importer needs the
//! specs' schemas themselves: its checks fail naming the missing spec unless
//! `KOBANA_TEST_SKIP=specs` opts out.

#[path = "../../../tests/support/skip.rs"]
mod skip;

use std::path::{Path, PathBuf};

use codegen_tools::facts;
use codegen_tools::openapi::{coverage, import_openapi};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The real specs, for the importer; `None` only when the caller opted out of `specs`.
fn specs(test: &str) -> Option<Vec<PathBuf>> {
    let dir = facts::specs_dir(&repo_root());
    let paths: Vec<PathBuf> = facts::SPECS.iter().map(|s| dir.join(s)).collect();
    if let Some(missing) = paths.iter().find(|p| !p.is_file()) {
        if skip::opted_out("specs", test, "the importer needs the real OpenAPI specs") {
            return None;
        }
        panic!(
            "missing {}: the importer needs Kobana's OpenAPI specs (KOBANA_SPECS_DIR, default ../shared), or KOBANA_TEST_SKIP=specs to skip this check",
            missing.display()
        );
    }
    Some(paths)
}

/// `(mapped, total, excluded, unaccounted)` from a coverage line.
fn numbers(line: &str) -> (usize, usize, usize, usize) {
    let nums: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 4, "{line}");
    (nums[0], nums[1], nums[2], nums[3])
}

#[test]
fn the_banking_catalog_accounts_for_every_operation() {
    let root = repo_root();
    let lines = coverage(&root.join("catalog"), &root).expect("coverage gate passes");
    let line = lines
        .iter()
        .find(|l| l.starts_with("banking: "))
        .expect("banking names OpenAPI specs");
    let (mapped, total, excluded, unaccounted) = numbers(line);
    assert_eq!(unaccounted, 0, "{line}");
    assert_eq!(mapped + excluded, total, "{line}");
    assert!(total > 300, "both spec versions are read: {line}");
    assert!(excluded < 20, "exclusions stay the exception: {line}");
}

#[test]
fn the_importer_proposes_nothing_for_the_complete_catalog() {
    let root = repo_root();
    let Some(specs) = specs("the_importer_proposes_nothing_for_the_complete_catalog") else {
        return;
    };
    let text = import_openapi(&root.join("catalog/banking.yaml"), &specs).unwrap();
    assert!(text.trim_end().ends_with("tools: []"), "{text}");
}

/// Drops the tools bound to the given operation from a copy of the catalog.
fn catalog_without(method: &str, path: &str) -> (tempfile::TempDir, PathBuf) {
    let root = repo_root();
    let text = std::fs::read_to_string(root.join("catalog/banking.yaml")).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let tools = doc["tools"].as_sequence_mut().unwrap();
    let before = tools.len();
    tools.retain(|t| !(t["http"]["method"] == method && t["http"]["path"] == path));
    assert_eq!(
        tools.len(),
        before - 1,
        "exactly one tool binds {method} {path}"
    );
    // Make the spec paths absolute so the copy can live anywhere.
    let abs: Vec<serde_yaml::Value> = doc["product"]["openapi"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|p| {
            let joined = codegen_tools::openapi::location::spec_path(&root, p.as_str().unwrap());
            serde_yaml::Value::String(joined.to_string_lossy().into_owned())
        })
        .collect();
    doc["product"]["openapi"] = serde_yaml::Value::Sequence(abs);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    // The lock files, for the gate when the specs are absent.
    let locks = dir.path().join(facts::FACTS_DIR).join("openapi");
    std::fs::create_dir_all(&locks).unwrap();
    for spec in facts::SPECS {
        let lock = facts::lock_path(Path::new(spec));
        std::fs::copy(root.join(&lock), dir.path().join(&lock)).unwrap();
    }
    let file = dir.path().join("catalog/banking.yaml");
    std::fs::write(&file, serde_yaml::to_string(&doc).unwrap()).unwrap();
    (dir, file)
}

#[test]
fn a_missing_tool_fails_the_gate_and_is_proposed_by_the_importer() {
    let (dir, file) = catalog_without("PUT", "/v1/bank_billets/{id}/cancel");
    let err = coverage(&dir.path().join("catalog"), dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unaccounted: `PUT /v1/bank_billets/{id}/cancel`"),
        "{err}"
    );
    assert!(err.contains("1 unaccounted"), "{err}");

    let Some(specs) = specs("a_missing_tool_fails_the_gate_and_is_proposed_by_the_importer") else {
        return;
    };
    let text = import_openapi(&file, &specs).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let proposed = doc["tools"].as_sequence().unwrap();
    assert_eq!(proposed.len(), 1, "{text}");
    let t = &proposed[0];
    assert_eq!(t["name"], "banking_charge_bank_billet_cancel");
    assert_eq!(t["http"]["method"], "PUT");
    assert_eq!(t["http"]["path"], "/v1/bank_billets/{id}/cancel");
    assert_eq!(t["annotations"]["destructiveHint"], true);
    assert_eq!(t["destructive_clause"], "cancel");
    assert_eq!(t["input_schema"]["type"], "object");
    assert!(t["input_schema"]["properties"]["cancellation_reason"].is_mapping());
    assert_eq!(t["scope"], "charge.bank_billets");
}

#[test]
fn a_binding_to_a_nonexistent_operation_fails_the_gate() {
    let (dir, file) = catalog_without("GET", "/v2/me");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let extra: serde_yaml::Value = serde_yaml::from_str(
        "{name: banking_admin_whoami_get, http: {method: GET, path: /v2/whoami}}",
    )
    .unwrap();
    doc["tools"].as_sequence_mut().unwrap().push(extra);
    std::fs::write(&file, serde_yaml::to_string(&doc).unwrap()).unwrap();
    let err = coverage(&dir.path().join("catalog"), dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`banking_admin_whoami_get` is bound to `GET /v2/whoami`"),
        "{err}"
    );
    assert!(err.contains("unaccounted: `GET /v2/me`"), "{err}");
}
