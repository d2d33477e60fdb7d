//! `codegen-tools output-schemas`: derives every HTTP-bound tool's output schema from the operation it
//! names (see [`super::output`]) and writes them to the catalog's generated sidecar,
//! `catalog/derived/<product>.output-schemas.yaml` (see [`codegen::derived`]).
//!
//! The catalog itself is never edited: it keeps only what people write. A tool that declares
//! `output_schema` by hand in the catalog is left out of the sidecar; a tool whose operation has no
//! usable schema has no entry. `--only`/`--skip` limit which entries a run may change; the others
//! keep what the file holds. [`check`] is the drift gate's part: the sidecar is what a run would
//! write, when the specs are there to tell.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context};
use serde_json::{Map, Value};

use super::coverage::CatalogView;
use super::location::{spec_path, SPECS_DIR_VAR};
use super::output::{derive, Verdict};
use super::spec::{OperationKey, Spec};
use codegen::derived::{self, DerivedOutputSchema};

/// The verdict for one tool.
#[derive(Debug, Clone)]
pub struct ToolVerdict {
    pub tool: String,
    /// `GET /v2/charge/pix/{uid}` as the binding writes it.
    pub operation: String,
    pub verdict: Verdict,
}

/// Which tools a run may change.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only these tools (all when empty).
    pub only: BTreeSet<String>,
    /// Never these tools.
    pub skip: BTreeSet<String>,
}

impl Selection {
    fn allows(&self, tool: &str) -> bool {
        (self.only.is_empty() || self.only.contains(tool)) && !self.skip.contains(tool)
    }
}

/// What a run did (or would do).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub inserted: usize,
    pub replaced: usize,
    pub unchanged: usize,
    pub removed: usize,
    /// Tools with a hand-written `output_schema` in the catalog, left out of the sidecar.
    pub hand_written: Vec<String>,
    pub skipped: usize,
}

/// The fifth condition of the usability rule, the part decidable from the catalog: the sandbox
/// answers the shape the API answers. A `list` operation answers a page (a v2 `data` array), and
/// `grouped_totals` its groups; every other sandbox kind answers one record (a v2 `data` object, or a v1 record). `custom`
/// tools have no sandbox answer. Returns why the shapes differ.
pub fn sandbox_shape_conflict(
    kind: &str,
    path: &str,
    schema: &Map<String, Value>,
) -> Option<String> {
    if kind == "custom" || kind.is_empty() {
        return None;
    }
    let data = path
        .starts_with("/v2")
        .then(|| schema.get("properties").and_then(|p| p.get("data")))
        .flatten();
    let api_lists = match data {
        Some(d) => d.get("type").and_then(Value::as_str) == Some("array"),
        None => false, // a v1 object answer is one record (v1 lists are bare arrays: unusable)
    };
    // A list, and totals per group, answer an array of rows.
    match (matches!(kind, "list" | "grouped_totals"), api_lists) {
        (true, false) => Some(format!(
            "the sandbox answers a list (operation `{kind}`) where the API answers one record"
        )),
        (false, true) => Some(format!(
            "the sandbox answers one record (operation `{kind}`) where the API answers a list"
        )),
        _ => None,
    }
}

/// `tool name → operation kind` (`custom` when unset), read as plain YAML.
fn operation_kinds(text: &str) -> anyhow::Result<BTreeMap<String, String>> {
    Ok(catalog_tools(text)?.0)
}

/// The operation kind of every tool (`custom` when unset) and the tools whose `output_schema` is
/// written by hand in the catalog, read as plain YAML.
fn catalog_tools(text: &str) -> anyhow::Result<(BTreeMap<String, String>, BTreeSet<String>)> {
    let doc: serde_yaml::Value = serde_yaml::from_str(text).context("not valid YAML")?;
    let mut out = BTreeMap::new();
    let mut hand_written = BTreeSet::new();
    for tool in doc
        .get("tools")
        .and_then(|t| t.as_sequence())
        .into_iter()
        .flatten()
    {
        let Some(name) = tool.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        let kind = tool
            .get("operation")
            .and_then(|o| o.get("kind"))
            .and_then(|k| k.as_str())
            .unwrap_or("custom");
        out.insert(name.to_string(), kind.to_string());
        if tool.get("output_schema").is_some() {
            hand_written.insert(name.to_string());
        }
    }
    Ok((out, hand_written))
}

/// Applies [`sandbox_shape_conflict`] to usable verdicts.
fn check_sandbox_shapes(verdicts: &mut [ToolVerdict], kinds: &BTreeMap<String, String>) {
    for v in verdicts {
        let Verdict::Usable { schema, .. } = &v.verdict else {
            continue;
        };
        let kind = kinds.get(&v.tool).map(String::as_str).unwrap_or("custom");
        let path = v.operation.split_once(' ').map_or("", |(_, p)| p);
        if let Some(why) = sandbox_shape_conflict(kind, path, schema) {
            v.verdict = Verdict::Unusable(why);
        }
    }
}

/// The verdict of every HTTP-bound tool of a catalog, in catalog order (the spec alone: see
/// [`verdicts_of`] for the sandbox-shape condition).
pub fn verdicts(view: &CatalogView, specs: &[Spec]) -> Vec<ToolVerdict> {
    let mut by_key = BTreeMap::new();
    for spec in specs {
        for op in spec.operations() {
            by_key.entry(op.key()).or_insert((spec, op));
        }
    }
    view.bindings
        .iter()
        .map(|(tool, method, path)| {
            let verdict = match by_key.get(&OperationKey::new(method, path)) {
                Some((spec, op)) => derive(spec, op),
                None => Verdict::Unusable("the binding names no operation of the specs".into()),
            };
            ToolVerdict {
                tool: tool.clone(),
                operation: format!("{method} {path}"),
                verdict,
            }
        })
        .collect()
}

/// Loads a catalog's specs (`product.openapi`, see [`spec_path`]) and judges its tools against
/// the catalog's text.
pub fn verdicts_of(catalog: &Path, repo_root: &Path) -> anyhow::Result<Vec<ToolVerdict>> {
    let text = std::fs::read_to_string(catalog)
        .with_context(|| format!("cannot read {}", catalog.display()))?;
    let view = CatalogView::parse(&text).with_context(|| format!("in {}", catalog.display()))?;
    if view.openapi.is_empty() {
        bail!(
            "{} names no OpenAPI specs (`product.openapi`)",
            catalog.display()
        );
    }
    let specs = view
        .openapi
        .iter()
        .map(|rel| Spec::load(&spec_path(repo_root, rel)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut out = verdicts(&view, &specs);
    check_sandbox_shapes(&mut out, &operation_kinds(&text)?);
    Ok(out)
}

/// The sidecar's entries after a run: in catalog order, each selected tool's usable verdict (but
/// for hand-written tools), each unselected tool's entry as it was.
pub fn plan(
    existing: &[(String, DerivedOutputSchema)],
    verdicts: &[ToolVerdict],
    hand_written: &BTreeSet<String>,
    selection: &Selection,
) -> (Vec<(String, DerivedOutputSchema)>, Summary) {
    let old: BTreeMap<&str, &DerivedOutputSchema> =
        existing.iter().map(|(t, e)| (t.as_str(), e)).collect();
    let mut summary = Summary::default();
    let mut out = Vec::new();
    for v in verdicts {
        let before = old.get(v.tool.as_str()).copied();
        if hand_written.contains(&v.tool) {
            summary.hand_written.push(v.tool.clone());
            if before.is_some() {
                summary.removed += 1;
            }
            continue;
        }
        if !selection.allows(&v.tool) {
            summary.skipped += 1;
            if let Some(e) = before {
                out.push((v.tool.clone(), e.clone()));
            }
            continue;
        }
        let new = match &v.verdict {
            Verdict::Usable { status, schema } => Some(DerivedOutputSchema {
                operation: v.operation.clone(),
                status: status.clone(),
                schema: serde_yaml::to_value(Value::Object(schema.clone()))
                    .unwrap_or(serde_yaml::Value::Null),
            }),
            Verdict::Unusable(_) => None,
        };
        match (before, &new) {
            (Some(b), Some(n)) if b == n => summary.unchanged += 1,
            (Some(_), Some(_)) => summary.replaced += 1,
            (None, Some(_)) => summary.inserted += 1,
            (Some(_), None) => summary.removed += 1,
            (None, None) => {}
        }
        if let Some(n) = new {
            out.push((v.tool.clone(), n));
        }
    }
    // Entries of tools that are no longer HTTP-bound (or no longer exist) go.
    let judged: BTreeSet<&str> = verdicts.iter().map(|v| v.tool.as_str()).collect();
    summary.removed += existing
        .iter()
        .filter(|(t, _)| !judged.contains(t.as_str()))
        .count();
    (out, summary)
}

/// How a catalog file is named in the sidecar's preamble: relative to the repository root.
fn display_of(catalog: &Path, repo_root: &Path) -> String {
    let rel = catalog.strip_prefix(repo_root).unwrap_or(catalog);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The existing sidecar of a catalog (empty when there is none).
fn read_sidecar(path: &Path, display: &str) -> anyhow::Result<Vec<(String, DerivedOutputSchema)>> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            derived::parse_output_schemas(display, &text).map_err(|d| anyhow::anyhow!("{d}"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// What a run would do: the verdicts, the sidecar's path, its new text and the summary.
pub struct Outcome {
    pub verdicts: Vec<ToolVerdict>,
    pub sidecar: std::path::PathBuf,
    pub text: String,
    pub summary: Summary,
}

/// Derives the output schemas of a catalog and renders its sidecar, without writing.
pub fn compute(catalog: &Path, repo_root: &Path, selection: &Selection) -> anyhow::Result<Outcome> {
    let verdicts = verdicts_of(catalog, repo_root)?;
    let text = std::fs::read_to_string(catalog)
        .with_context(|| format!("cannot read {}", catalog.display()))?;
    let (_, hand_written) =
        catalog_tools(&text).with_context(|| format!("in {}", catalog.display()))?;
    let display = display_of(catalog, repo_root);
    let sidecar = derived::output_schemas_path(catalog);
    let existing = read_sidecar(&sidecar, &derived::output_schemas_display(&display))?;
    let (entries, summary) = plan(&existing, &verdicts, &hand_written, selection);
    Ok(Outcome {
        text: derived::render_output_schemas(&display, &entries),
        verdicts,
        sidecar,
        summary,
    })
}

/// Derives and (with `write`) writes a catalog's sidecar, touching it only when it changes.
pub fn run(
    catalog: &Path,
    repo_root: &Path,
    selection: &Selection,
    write: bool,
) -> anyhow::Result<(Vec<ToolVerdict>, Summary)> {
    let outcome = compute(catalog, repo_root, selection)?;
    let current = std::fs::read_to_string(&outcome.sidecar).ok();
    if write && current.as_deref() != Some(outcome.text.as_str()) {
        if let Some(dir) = outcome.sidecar.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&outcome.sidecar, &outcome.text)
            .with_context(|| format!("cannot write {}", outcome.sidecar.display()))?;
    }
    Ok((outcome.verdicts, outcome.summary))
}

/// What the drift gate found about the output-schemas sidecars.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Sidecars that differ from what `output-schemas --write` would write (one line each).
    pub drift: Vec<String>,
    /// Sidecars checked and current.
    pub current: Vec<String>,
    /// Catalogs whose sidecar could not be checked because the specs are absent (one line each).
    pub skipped: Vec<String>,
}

/// Checks every catalog that names OpenAPI specs: its sidecar is exactly what
/// `output-schemas --write` would write. Without the specs, says so and checks nothing.
pub fn check(catalog_dir: &Path, repo_root: &Path) -> anyhow::Result<CheckReport> {
    let mut report = CheckReport::default();
    let files = codegen::load::discover(catalog_dir)
        .with_context(|| format!("cannot list {}", catalog_dir.display()))?;
    for catalog in files {
        let view = CatalogView::read(&catalog)?;
        if view.openapi.is_empty() {
            continue;
        }
        let display = derived::output_schemas_display(&display_of(&catalog, repo_root));
        if let Some(missing) = view
            .openapi
            .iter()
            .map(|rel| spec_path(repo_root, rel))
            .find(|p| !p.is_file())
        {
            report.skipped.push(format!(
                "{display} not checked: the OpenAPI spec {} is absent (set {SPECS_DIR_VAR} to the folder holding kobana-openapi/)",
                missing.display()
            ));
            continue;
        }
        let outcome = compute(&catalog, repo_root, &Selection::default())?;
        match std::fs::read_to_string(&outcome.sidecar) {
            Ok(text) if text == outcome.text => report.current.push(display),
            Ok(_) => report.drift.push(format!(
                "{display} is stale (differs from what the OpenAPI specs give); run `{}`",
                derived::OUTPUT_SCHEMAS_COMMAND
            )),
            Err(_) => report.drift.push(format!(
                "{display} is missing; run `{}`",
                derived::OUTPUT_SCHEMAS_COMMAND
            )),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CATALOG: &str = "# a comment that must survive
product: {name: demo}
tools:
- name: demo_thing_get
  title: Get a thing
  http:
    method: GET
    path: /v2/things/{uid}
  input_schema:
    type: object
  annotations:
    readOnlyHint: true
- name: demo_thing_delete   # keep me
  http:
    method: DELETE
    path: /v2/things/{uid}
  input_schema: {type: object}
  annotations:
    readOnlyHint: false
    destructiveHint: true
- name: demo_thing_list
  http: {method: GET, path: /v2/things}
  input_schema: {type: object}
  output_schema:
    type: object
    description: hand-written
  annotations:
    readOnlyHint: true
records: {}
";

    fn usable(description: &str) -> Verdict {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert(
            "properties".into(),
            json!({"data": {"type": "object", "description": description, "properties": {"status": {"type": ["string", "null"]}}}}),
        );
        Verdict::Usable {
            status: "200".into(),
            schema,
        }
    }

    fn verdicts(get: Verdict) -> Vec<ToolVerdict> {
        vec![
            ToolVerdict {
                tool: "demo_thing_get".into(),
                operation: "GET /v2/things/{uid}".into(),
                verdict: get,
            },
            ToolVerdict {
                tool: "demo_thing_delete".into(),
                operation: "DELETE /v2/things/{uid}".into(),
                verdict: Verdict::Unusable("204".into()),
            },
            ToolVerdict {
                tool: "demo_thing_list".into(),
                operation: "GET /v2/things".into(),
                verdict: usable("from the spec"),
            },
        ]
    }

    fn hand_written() -> BTreeSet<String> {
        catalog_tools(CATALOG).unwrap().1
    }

    fn description(entries: &[(String, DerivedOutputSchema)], tool: &str) -> Option<String> {
        let (_, e) = entries.iter().find(|(t, _)| t == tool)?;
        let json = serde_json::to_value(&e.schema).unwrap();
        Some(
            json["properties"]["data"]["description"]
                .as_str()?
                .to_string(),
        )
    }

    #[test]
    fn usable_verdicts_become_entries_and_hand_written_tools_stay_out() {
        let (entries, summary) = plan(
            &[],
            &verdicts(usable("A thing: yes")),
            &hand_written(),
            &Selection::default(),
        );
        assert_eq!(summary.inserted, 1);
        assert_eq!(summary.hand_written, vec!["demo_thing_list".to_string()]);
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert_eq!(entries[0].0, "demo_thing_get");
        assert_eq!(entries[0].1.operation, "GET /v2/things/{uid}");
        assert_eq!(entries[0].1.status, "200");
        assert_eq!(
            description(&entries, "demo_thing_get").as_deref(),
            Some("A thing: yes")
        );
        // re-running on its own output changes nothing
        let (again, summary) = plan(
            &entries,
            &verdicts(usable("A thing: yes")),
            &hand_written(),
            &Selection::default(),
        );
        assert_eq!(again, entries);
        assert_eq!(summary.unchanged, 1);
    }

    #[test]
    fn a_rerun_replaces_or_removes_entries() {
        let sel = Selection::default();
        let (first, _) = plan(&[], &verdicts(usable("old")), &hand_written(), &sel);
        let (second, summary) = plan(&first, &verdicts(usable("new")), &hand_written(), &sel);
        assert_eq!(summary.replaced, 1);
        assert_eq!(
            description(&second, "demo_thing_get").as_deref(),
            Some("new")
        );
        let gone = verdicts(Verdict::Unusable("gone".into()));
        let (third, summary) = plan(&second, &gone, &hand_written(), &sel);
        assert_eq!(summary.removed, 1);
        assert!(third.is_empty());
        // an entry for a tool that is no longer bound goes too
        let (fourth, summary) = plan(
            &second,
            &verdicts(usable("new"))[1..],
            &hand_written(),
            &sel,
        );
        assert_eq!(summary.removed, 1);
        assert!(fourth.is_empty());
    }

    #[test]
    fn sandbox_shapes_must_match_the_api() {
        let one = json!({"type": "object", "properties": {"data": {"type": "object", "properties": {"uid": {}}}}});
        let page =
            json!({"type": "object", "properties": {"data": {"type": "array", "items": {}}}});
        let v1 = json!({"type": "object", "properties": {"uid": {}}});
        let m = |v: &Value| v.as_object().unwrap().clone();
        assert_eq!(sandbox_shape_conflict("get", "/v2/x/{uid}", &m(&one)), None);
        assert_eq!(sandbox_shape_conflict("list", "/v2/x", &m(&page)), None);
        assert_eq!(sandbox_shape_conflict("custom", "/v2/x", &m(&one)), None);
        assert!(sandbox_shape_conflict("list", "/v2/x", &m(&one))
            .unwrap()
            .contains("sandbox answers a list"));
        assert!(sandbox_shape_conflict("action", "/v2/x", &m(&page))
            .unwrap()
            .contains("API answers a list"));
        // v1: `GET /v1/customers/cnpj_cpf` answers one customer; a `list` sandbox answers many
        assert!(sandbox_shape_conflict("list", "/v1/customers/cnpj_cpf", &m(&v1)).is_some());
        assert_eq!(
            sandbox_shape_conflict("get", "/v1/customers/{id}", &m(&v1)),
            None
        );
        let kinds = operation_kinds(CATALOG).unwrap();
        assert_eq!(kinds["demo_thing_get"], "custom");
    }

    #[test]
    fn skipped_tools_keep_their_entries() {
        let (first, _) = plan(
            &[],
            &verdicts(usable("old")),
            &hand_written(),
            &Selection::default(),
        );
        let skip = Selection {
            skip: ["demo_thing_get".to_string()].into_iter().collect(),
            ..Selection::default()
        };
        let (entries, summary) = plan(&first, &verdicts(usable("new")), &hand_written(), &skip);
        assert_eq!(entries, first);
        assert_eq!(summary.skipped, 1);
        let only = Selection {
            only: ["demo_thing_get".to_string()].into_iter().collect(),
            ..Selection::default()
        };
        let (entries, summary) = plan(&first, &verdicts(usable("new")), &hand_written(), &only);
        assert_eq!(summary.replaced, 1);
        assert_eq!(
            description(&entries, "demo_thing_get").as_deref(),
            Some("new")
        );
    }

    fn spec_json() -> Value {
        json!({"paths": {
            "/v2/things/{uid}": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"status": {"type": "integer"},
                           "data": {"type": "object", "properties": {"uid": {"type": "string"}}}}}}}}}},
                "delete": {"responses": {"204": {}}}},
            "/v2/things": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object", "properties": {"uid": {"type": "string"}}}}}}}}}}}}
        }})
    }

    #[test]
    fn run_writes_the_sidecar_and_leaves_the_catalog_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("spec.json"), spec_json().to_string()).unwrap();
        std::fs::create_dir_all(root.join("catalog")).unwrap();
        let catalog = root.join("catalog/demo.yaml");
        let text = CATALOG.replace(
            "product: {name: demo}",
            "product: {name: demo, openapi: [spec.json]}",
        );
        std::fs::write(&catalog, &text).unwrap();
        let sidecar = root.join("catalog/derived/demo.output-schemas.yaml");
        let (_, dry) = run(&catalog, root, &Selection::default(), false).unwrap();
        assert_eq!(dry.inserted, 1);
        assert!(!sidecar.exists(), "a dry run writes nothing");
        let (verdicts, summary) = run(&catalog, root, &Selection::default(), true).unwrap();
        assert_eq!(summary.inserted, 1);
        assert_eq!(verdicts.len(), 3);
        assert_eq!(std::fs::read_to_string(&catalog).unwrap(), text);
        let written = std::fs::read_to_string(&sidecar).unwrap();
        assert!(
            written.starts_with("# generated from the OpenAPI specs named in catalog/demo.yaml")
        );
        assert!(written.contains(derived::OUTPUT_SCHEMAS_COMMAND));
        let entries = derived::parse_output_schemas("x", &written).unwrap();
        assert_eq!(entries.len(), 1);
        let schema = serde_json::to_value(&entries[0].1.schema).unwrap();
        assert_eq!(
            schema["properties"]["data"]["properties"]["uid"],
            json!({"type": "string"})
        );
        // The drift gate agrees, then catches a hand edit.
        let report = check(&root.join("catalog"), root).unwrap();
        assert_eq!(report.current.len(), 1, "{report:?}");
        assert!(report.drift.is_empty() && report.skipped.is_empty());
        std::fs::write(&sidecar, written.replace("string", "integer")).unwrap();
        let report = check(&root.join("catalog"), root).unwrap();
        assert_eq!(report.drift.len(), 1, "{report:?}");
        assert!(report.drift[0].contains("catalog/derived/demo.output-schemas.yaml is stale"));
        assert!(report.drift[0].contains(derived::OUTPUT_SCHEMAS_COMMAND));
    }

    #[test]
    fn the_gate_says_when_it_skips_for_want_of_the_specs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("catalog")).unwrap();
        let text = CATALOG.replace(
            "product: {name: demo}",
            "product: {name: demo, openapi: [no/such/spec.json]}",
        );
        std::fs::write(root.join("catalog/demo.yaml"), text).unwrap();
        let report = check(&root.join("catalog"), root).unwrap();
        assert!(report.drift.is_empty() && report.current.is_empty());
        assert_eq!(report.skipped.len(), 1);
        let line = &report.skipped[0];
        assert!(
            line.contains("catalog/derived/demo.output-schemas.yaml not checked"),
            "{line}"
        );
        assert!(line.contains("no/such/spec.json"), "{line}");
        assert!(line.contains(SPECS_DIR_VAR), "{line}");
    }
}
