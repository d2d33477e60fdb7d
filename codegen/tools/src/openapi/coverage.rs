//! The coverage gate: every operation of a catalog's OpenAPI specs is either bound by a tool or
//! excluded with a reason, and nothing in the catalog points to an operation that does not exist.
//!
//! The catalog is read as plain YAML (only `product`, `tools[].http` and `exclusions` matter here)
//! so the gate reports coverage even while other parts of a catalog are being edited.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde_yaml::Value as Yaml;

use super::contract::{self, BoundTool, Contract, Declared, Difference};
use super::spec::{OperationKey, Spec};
use crate::facts::{self, openapi_lock::ApiLock};

/// What a catalog says about API operations.
#[derive(Debug, Clone, Default)]
pub struct CatalogView {
    pub product: String,
    /// Spec paths as written in `product.openapi` (relative to the repository root).
    pub openapi: Vec<String>,
    /// `(tool name, METHOD path)` of every HTTP-bound tool.
    pub bindings: Vec<(String, String, String)>,
    /// `(operation text, reason)`.
    pub exclusions: Vec<(String, String)>,
    /// Every tool name (for the importer's collision check).
    pub tool_names: BTreeSet<String>,
    /// Every record type name (for the importer's sandbox semantics).
    pub record_names: BTreeSet<String>,
    /// Every HTTP-bound tool with its input schema, for the contract comparison.
    pub bound: Vec<BoundTool>,
}

impl CatalogView {
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the catalog {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let doc: Yaml = serde_yaml::from_str(text).context("not valid YAML")?;
        let mut view = CatalogView::default();
        let product = doc.get("product").context("no `product` section")?;
        view.product = product
            .get("name")
            .and_then(Yaml::as_str)
            .context("`product.name` is missing")?
            .to_string();
        if let Some(list) = product.get("openapi").and_then(Yaml::as_sequence) {
            for (i, item) in list.iter().enumerate() {
                let s = item
                    .as_str()
                    .with_context(|| format!("`product.openapi[{i}]` is not a path"))?;
                view.openapi.push(s.to_string());
            }
        }
        if let Some(tools) = doc.get("tools").and_then(Yaml::as_sequence) {
            for (i, tool) in tools.iter().enumerate() {
                let name = tool
                    .get("name")
                    .and_then(Yaml::as_str)
                    .with_context(|| format!("`tools[{i}].name` is missing"))?
                    .to_string();
                view.tool_names.insert(name.clone());
                let Some(http) = tool.get("http") else {
                    continue;
                };
                let method = http.get("method").and_then(Yaml::as_str);
                let path = http.get("path").and_then(Yaml::as_str);
                match (method, path) {
                    (Some(m), Some(p)) => {
                        let schema = tool
                            .get("input_schema")
                            .map(serde_json::to_value)
                            .transpose()
                            .with_context(|| {
                                format!("`tools[{i}].input_schema` ({name}) is not JSON")
                            })?
                            .unwrap_or(serde_json::Value::Null);
                        view.bound.push(BoundTool {
                            name: name.clone(),
                            path: p.to_string(),
                            schema,
                        });
                        view.bindings.push((name, m.to_string(), p.to_string()))
                    }
                    _ => bail!("`tools[{i}].http` ({name}) needs `method` and `path`"),
                }
            }
        }
        if let Some(list) = doc.get("exclusions").and_then(Yaml::as_sequence) {
            for (i, ex) in list.iter().enumerate() {
                let op = ex
                    .get("operation")
                    .and_then(Yaml::as_str)
                    .with_context(|| format!("`exclusions[{i}].operation` is missing"))?;
                let reason = ex.get("reason").and_then(Yaml::as_str).unwrap_or("");
                view.exclusions.push((op.to_string(), reason.to_string()));
            }
        }
        if let Some(records) = doc.get("records").and_then(Yaml::as_mapping) {
            for key in records.keys() {
                if let Some(k) = key.as_str() {
                    view.record_names.insert(k.to_string());
                }
            }
        }
        Ok(view)
    }

    /// Operation keys the tools bind.
    pub fn mapped_keys(&self) -> BTreeSet<OperationKey> {
        self.bindings
            .iter()
            .map(|(_, m, p)| OperationKey::new(m, p))
            .collect()
    }

    /// Operation keys the exclusions name (unparseable ones are skipped; `check` reports them).
    pub fn excluded_keys(&self) -> BTreeSet<OperationKey> {
        self.exclusions
            .iter()
            .filter_map(|(op, _)| OperationKey::parse(op))
            .collect()
    }
}

/// The result for one catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub product: String,
    pub total: usize,
    pub mapped: usize,
    pub excluded: usize,
    pub unaccounted: Vec<String>,
    /// Catalog entries pointing to operations the specs do not have, and other inconsistencies.
    pub problems: Vec<String>,
}

impl Report {
    /// `banking: 302/312 operations mapped, 10 excluded, 0 unaccounted`.
    pub fn line(&self) -> String {
        format!(
            "{}: {}/{} operations mapped, {} excluded, {} unaccounted",
            self.product,
            self.mapped,
            self.total,
            self.excluded,
            self.unaccounted.len()
        )
    }
    pub fn passes(&self) -> bool {
        self.unaccounted.is_empty() && self.problems.is_empty()
    }
}

/// Checks one catalog against already-loaded specs.
pub fn check(view: &CatalogView, specs: &[Spec]) -> Report {
    let ops = specs
        .iter()
        .flat_map(|s| s.operations())
        .map(|op| (op.key(), op.label()))
        .collect();
    check_operations(view, ops)
}

/// Checks one catalog against the operations of its specs, as `(key, label)` in spec order
/// (read from the specs, or from their lock files when the specs are absent).
pub fn check_operations(view: &CatalogView, spec_ops: Vec<(OperationKey, String)>) -> Report {
    // Every spec operation, by key, with its label as written in the spec.
    let mut ops: BTreeMap<OperationKey, String> = BTreeMap::new();
    let mut problems = Vec::new();
    for (key, label) in spec_ops {
        if let Some(previous) = ops.insert(key, label.clone()) {
            if previous != label {
                problems.push(format!(
                    "the specs hold `{previous}` and `{label}`, which differ only by path parameter names"
                ));
            }
        }
    }
    for (tool, method, path) in &view.bindings {
        if !ops.contains_key(&OperationKey::new(method, path)) {
            problems.push(format!(
                "tool `{tool}` is bound to `{method} {path}`, which is not an operation of the specs"
            ));
        }
    }
    let mapped = view.mapped_keys();
    let mut excluded = BTreeSet::new();
    for (text, reason) in &view.exclusions {
        let Some(key) = OperationKey::parse(text) else {
            problems.push(format!(
                "exclusion `{text}` is not `METHOD /path` (e.g. `GET /v1/userinfo`)"
            ));
            continue;
        };
        if reason.trim().is_empty() {
            problems.push(format!("exclusion `{text}` gives no reason"));
        }
        if !ops.contains_key(&key) {
            problems.push(format!(
                "exclusion `{text}` names an operation the specs do not have"
            ));
        } else if mapped.contains(&key) {
            problems.push(format!(
                "`{text}` is both excluded and bound by a tool; keep one"
            ));
        }
        if !excluded.insert(key) {
            problems.push(format!("exclusion `{text}` is listed twice"));
        }
    }
    let mapped_count = ops.keys().filter(|k| mapped.contains(*k)).count();
    let excluded_count = ops
        .keys()
        .filter(|k| excluded.contains(*k) && !mapped.contains(*k))
        .count();
    let unaccounted = ops
        .iter()
        .filter(|(k, _)| !mapped.contains(*k) && !excluded.contains(*k))
        .map(|(_, label)| label.clone())
        .collect();
    Report {
        product: view.product.clone(),
        total: ops.len(),
        mapped: mapped_count,
        excluded: excluded_count,
        unaccounted,
        problems,
    }
}

/// How the tools agree with their operations' contracts.
#[derive(Debug, Clone, Default)]
pub struct Agreement {
    /// Differences `differences` declares (with their reasons).
    pub declared: Vec<(Difference, String)>,
    pub undeclared: Vec<Difference>,
    /// Corrections applied (operation, argument, reason).
    pub corrected: usize,
    /// Declarations that match nothing, and malformed ones.
    pub problems: Vec<String>,
}

impl Agreement {
    /// `banking: tools agree with the API's contract: 3 corrections, 5 declared differences, 0 undeclared (catalog/contract/banking.yaml)`.
    pub fn line(&self, product: &str, file: &Path) -> String {
        format!(
            "{product}: tools against the API's contract: {} correction(s) of the specification, {} declared difference(s), {} undeclared ({})",
            self.corrected,
            self.declared.len(),
            self.undeclared.len(),
            file.display()
        )
    }
}

/// Compares every HTTP-bound tool with its operation's contract, the declared corrections applied
/// first; sorts the differences into declared and undeclared. A correction or declaration that
/// changes or matches nothing is a problem (the specification or the tool changed since).
pub fn check_contracts(
    view: &CatalogView,
    contracts: &[(OperationKey, String, Contract)],
    declared: &Declared,
) -> Agreement {
    let mut out = Agreement::default();
    let mut used_fix = vec![false; declared.corrections.len()];
    let mut used_accept = vec![false; declared.differences.len()];
    for (i, fix) in declared.corrections.iter().enumerate() {
        if fix.reason.trim().is_empty() {
            out.problems.push(format!(
                "correction {i} of `{}` gives no reason",
                fix.operation
            ));
        }
        if OperationKey::parse(&fix.operation).is_none() {
            out.problems.push(format!(
                "correction `{}` does not name an operation as `METHOD /path`",
                fix.operation
            ));
        }
    }
    for (key, path, contract) in contracts {
        let tools: Vec<BoundTool> = view
            .bound
            .iter()
            .zip(&view.bindings)
            .filter(|(_, (_, m, p))| OperationKey::new(m, p) == *key)
            .map(|(t, _)| t.clone())
            .collect();
        let mut fixed = contract.clone();
        let label = key_label(key);
        for (i, changed) in contract::correct(&label, &mut fixed, &declared.corrections)
            .into_iter()
            .enumerate()
        {
            used_fix[i] |= changed;
        }
        if tools.is_empty() {
            continue;
        }
        for d in contract::compare(&fixed, path, &tools) {
            let accepted = declared
                .differences
                .iter()
                .position(|a| a.tool == d.tool && a.argument == d.argument && a.check == d.check);
            match accepted {
                Some(i) => {
                    used_accept[i] = true;
                    out.declared
                        .push((d, declared.differences[i].reason.clone()));
                }
                None => out.undeclared.push(d),
            }
        }
    }
    out.corrected = used_fix.iter().filter(|u| **u).count();
    for (fix, used) in declared.corrections.iter().zip(used_fix) {
        if !used {
            out.problems.push(format!(
                "the correction of `{}`{} changes nothing the specification says: remove it",
                fix.operation,
                fix.argument
                    .as_deref()
                    .map(|a| format!(" `{a}`"))
                    .unwrap_or_default()
            ));
        }
    }
    for (a, used) in declared.differences.iter().zip(used_accept) {
        if a.reason.trim().is_empty() {
            out.problems.push(format!(
                "the declared difference of `{}` `{}` gives no reason",
                a.tool, a.argument
            ));
        }
        if !used {
            out.problems.push(format!(
                "the declared difference of `{}` `{}` ({:?}) matches no difference: remove it",
                a.tool, a.argument, a.check
            ));
        }
    }
    out
}

/// `POST /v2/transfers` from an operation key (its path variables unnamed, which corrections
/// match the same way).
fn key_label(key: &OperationKey) -> String {
    key.text().to_string()
}

/// The catalog files of `catalog_dir` and its `fixtures/` folder, sorted.
fn catalog_files(catalog_dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for dir in [catalog_dir.to_path_buf(), catalog_dir.join("fixtures")] {
        if !dir.is_dir() {
            continue;
        }
        let mut here = Vec::new();
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))?
        {
            let path = entry?.path();
            let yaml = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            );
            if yaml && path.is_file() {
                here.push(path);
            }
        }
        here.sort();
        files.extend(here);
    }
    Ok(files)
}

/// Runs the gate over every catalog that names OpenAPI specs: from the specs where they are
/// present, else from their lock files under `catalog/facts/openapi/` (with a `note:` line).
pub fn run(catalog_dir: &Path, repo_root: &Path) -> anyhow::Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    for file in catalog_files(catalog_dir)? {
        let view = CatalogView::read(&file)?;
        if view.openapi.is_empty() {
            continue;
        }
        let mut ops = Vec::new();
        let mut contracts: Vec<(OperationKey, String, Contract)> = Vec::new();
        let mut from_locks = Vec::new();
        for rel in &view.openapi {
            let path = super::location::spec_path(repo_root, rel);
            if path.is_file() {
                let spec = Spec::load(&path)
                    .with_context(|| format!("`product.openapi` of {}", file.display()))?;
                for op in spec.operations() {
                    ops.push((op.key(), op.label()));
                    contracts.push((op.key(), op.path.clone(), contract::of(&op)));
                }
            } else {
                // The specs live outside the repository; their lock files inside it.
                let lock_path = repo_root.join(facts::lock_path(&path));
                let lock = ApiLock::read(&lock_path).with_context(|| {
                    format!(
                        "`product.openapi` of {}: the spec {} is absent, and so is its lock file",
                        file.display(),
                        path.display()
                    )
                })?;
                for op in &lock.operations {
                    ops.push((op.key(), op.label()));
                    contracts.push((op.key(), op.path.clone(), op.contract.clone()));
                }
                from_locks.push(lock_path.display().to_string());
            }
        }
        let mut report = check_operations(&view, ops);
        let declared_file = contract::declared_path(catalog_dir, &view.product);
        let declared = Declared::read(&declared_file)?;
        let agreement = check_contracts(&view, &contracts, &declared);
        report.problems.extend(agreement.problems.iter().cloned());
        lines.push(report.line());
        lines.push(agreement.line(&view.product, &declared_file));
        if !from_locks.is_empty() {
            lines.push(format!(
                "note: {} read from the lock files {} (the specs are absent; `codegen-tools facts --check` verifies the locks where they are present)",
                report.product,
                from_locks.join(", ")
            ));
        }
        if !report.passes() || !agreement.undeclared.is_empty() {
            let mut text = format!("{} ({}):", report.line(), file.display());
            for d in &agreement.undeclared {
                text.push_str(&format!(
                    "\n  undeclared difference: {} (fix the tool, or declare it with a reason in {})",
                    d.line(),
                    declared_file.display()
                ));
            }
            for op in &report.unaccounted {
                text.push_str(&format!(
                    "\n  unaccounted: `{op}` is neither bound by a tool nor listed in `exclusions`"
                ));
            }
            for p in &report.problems {
                text.push_str(&format!("\n  {p}"));
            }
            failures.push(text);
        }
    }
    if !failures.is_empty() {
        bail!("coverage gate failed:\n{}", failures.join("\n"));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> Spec {
        Spec {
            path: PathBuf::from("inline.json"),
            doc: json!({"paths": {
                "/v1/things": {"get": {}, "post": {}},
                "/v1/things/{id}": {"get": {}, "delete": {}},
                "/v1/userinfo": {"get": {}}
            }}),
        }
    }

    fn view(tools: &str, exclusions: &str) -> CatalogView {
        let text = format!(
            "product: {{name: demo, openapi: [x.json]}}\ntools:\n{tools}\nexclusions:\n{exclusions}\n"
        );
        CatalogView::parse(&text).unwrap()
    }

    const ALL_TOOLS: &str = "  - {name: demo_thing_list, http: {method: GET, path: /v1/things}}
  - {name: demo_thing_create, http: {method: POST, path: /v1/things}}
  - {name: demo_thing_get, http: {method: GET, path: '/v1/things/{uid}'}, input_schema: {type: object, required: [uid]}}
  - {name: demo_thing_delete, http: {method: DELETE, path: '/v1/things/{id}'}, input_schema: {type: object, required: [id]}}
  - {name: demo_note, handler: notes}";

    #[test]
    fn a_complete_catalog_passes_and_counts() {
        let v = view(
            ALL_TOOLS,
            "  - {operation: GET /v1/userinfo, reason: deprecated}",
        );
        let r = check(&v, &[spec()]);
        assert!(r.passes(), "{r:?}");
        assert_eq!(
            r.line(),
            "demo: 4/5 operations mapped, 1 excluded, 0 unaccounted"
        );
    }

    #[test]
    fn an_unmapped_operation_fails() {
        let v = view(ALL_TOOLS, "  []");
        let r = check(&v, &[spec()]);
        assert!(!r.passes());
        assert_eq!(r.unaccounted, vec!["GET /v1/userinfo".to_string()]);
        assert_eq!(
            r.line(),
            "demo: 4/5 operations mapped, 0 excluded, 1 unaccounted"
        );
    }

    #[test]
    fn a_binding_to_a_missing_operation_fails() {
        let tools = format!(
            "{ALL_TOOLS}\n  - {{name: demo_thing_cancel, http: {{method: PUT, path: '/v1/things/{{id}}/cancel'}}}}"
        );
        let v = view(
            &tools,
            "  - {operation: GET /v1/userinfo, reason: deprecated}",
        );
        let r = check(&v, &[spec()]);
        assert!(!r.passes());
        assert_eq!(r.problems.len(), 1);
        assert!(
            r.problems[0].contains("demo_thing_cancel"),
            "{:?}",
            r.problems
        );
        assert!(r.problems[0].contains("PUT /v1/things/{id}/cancel"));
    }

    #[test]
    fn bad_exclusions_fail() {
        let v = view(
            ALL_TOOLS,
            "  - {operation: GET /v1/userinfo, reason: deprecated}
  - {operation: GET /v1/nothing, reason: gone}
  - {operation: 'DELETE /v1/things/{x}', reason: also mapped}
  - {operation: userinfo, reason: malformed}",
        );
        let r = check(&v, &[spec()]);
        assert!(!r.passes());
        let all = r.problems.join("\n");
        assert!(all.contains("`GET /v1/nothing` names an operation the specs do not have"));
        assert!(all.contains("both excluded and bound"));
        assert!(all.contains("`userinfo` is not `METHOD /path`"));
    }

    #[test]
    fn run_reads_catalogs_and_specs_from_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("catalog/fixtures")).unwrap();
        std::fs::create_dir_all(root.join("specs")).unwrap();
        std::fs::write(
            root.join("specs/a.json"),
            serde_json::to_string(&spec().doc).unwrap(),
        )
        .unwrap();
        let good = format!(
            "product: {{name: demo, openapi: [specs/a.json]}}\ntools:\n{ALL_TOOLS}\nexclusions:\n  - {{operation: GET /v1/userinfo, reason: deprecated}}\n"
        );
        std::fs::write(root.join("catalog/demo.yaml"), &good).unwrap();
        // a catalog without specs is skipped
        std::fs::write(
            root.join("catalog/fixtures/other.yaml"),
            "product: {name: other}\n",
        )
        .unwrap();
        let lines = run(&root.join("catalog"), root).unwrap();
        assert_eq!(
            lines[0],
            "demo: 4/5 operations mapped, 1 excluded, 0 unaccounted"
        );
        assert!(
            lines[1].starts_with("demo: tools against the API's contract: 0 correction(s) of the specification, 0 declared difference(s), 0 undeclared"),
            "{lines:?}"
        );
        // A tool that stops requiring its path argument is an undeclared difference.
        std::fs::write(
            root.join("catalog/demo.yaml"),
            good.replace("required: [uid]", "required: []"),
        )
        .unwrap();
        let err = run(&root.join("catalog"), root).unwrap_err().to_string();
        assert!(
            err.contains("undeclared difference: `demo_thing_get` `uid` (required)"),
            "{err}"
        );
        std::fs::write(
            root.join("catalog/demo.yaml"),
            good.replace(
                "exclusions:\n  - {operation: GET /v1/userinfo, reason: deprecated}",
                "exclusions: []",
            ),
        )
        .unwrap();
        let err = run(&root.join("catalog"), root).unwrap_err().to_string();
        assert!(err.contains("unaccounted: `GET /v1/userinfo`"), "{err}");
    }

    #[test]
    fn run_reads_the_lock_file_when_the_spec_is_absent() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("catalog")).unwrap();
        let lock =
            crate::facts::openapi_lock::lock(&spec(), "specs/a.json", "test".into()).unwrap();
        let lock_file = root.join(crate::facts::lock_path(Path::new("specs/a.json")));
        std::fs::create_dir_all(lock_file.parent().unwrap()).unwrap();
        std::fs::write(&lock_file, serde_json::to_string(&lock).unwrap()).unwrap();
        let good = format!(
            "product: {{name: demo, openapi: [specs/a.json]}}\ntools:\n{ALL_TOOLS}\nexclusions:\n  - {{operation: GET /v1/userinfo, reason: deprecated}}\n"
        );
        std::fs::write(root.join("catalog/demo.yaml"), &good).unwrap();
        let lines = run(&root.join("catalog"), root).unwrap();
        assert_eq!(
            lines[0],
            "demo: 4/5 operations mapped, 1 excluded, 0 unaccounted"
        );
        assert!(
            lines[2].starts_with("note: demo read from the lock files"),
            "{lines:?}"
        );
        std::fs::write(
            root.join("catalog/demo.yaml"),
            good.replace(
                "exclusions:\n  - {operation: GET /v1/userinfo, reason: deprecated}",
                "exclusions: []",
            ),
        )
        .unwrap();
        let err = run(&root.join("catalog"), root).unwrap_err().to_string();
        assert!(err.contains("unaccounted: `GET /v1/userinfo`"), "{err}");
        // Neither the spec nor its lock: the error names the spec.
        std::fs::remove_file(&lock_file).unwrap();
        let err = format!("{:#}", run(&root.join("catalog"), root).unwrap_err());
        assert!(
            err.contains("specs/a.json is absent, and so is its lock file"),
            "{err}"
        );
    }
}
