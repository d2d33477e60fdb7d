//! `codegen-tools import-openapi`: YAML tool entries, in the catalog's own style, for the operations of
//! the given specs that the catalog neither binds nor excludes. The output is a proposal for a
//! person: every guess (name collisions, scope, destructiveness, sandbox semantics) carries a
//! `# review` comment saying what to check.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::coverage::CatalogView;
use super::fill::sandbox_shape_conflict;
use super::naming::{name_operation, Action, Naming};
use super::output::{derive, Verdict};
use super::spec::{inputs, tidy, Inputs, Spec, SpecOperation};

/// Verbs that fall under the product document's first destructive list (cancel, protest, write
/// off, register a payment, pay, transfer, approve, remove from a remittance, delete).
const DESTRUCTIVE_VERBS: &[(&str, &str)] = &[
    ("cancel", "cancel"),
    ("cancel_all", "cancel"),
    ("protest", "protest"),
    ("pay_off", "write off (dá baixa)"),
    ("pay", "register payment"),
    ("approve", "approve"),
    ("reprove", "cancel"),
    ("revoke", "cancel"),
    ("remove_bank_billet", "remove from remittance"),
];

/// The documented exception: this GET starts a homologation request, so it is not read-only.
fn is_command_get(op: &SpecOperation<'_>) -> bool {
    op.method == "GET" && op.path.trim_end_matches('/').ends_with("/ask")
}

/// Proposes entries for unmapped operations. Returns YAML text (a `tools:` list).
pub fn run(catalog: &Path, specs: &[PathBuf]) -> anyhow::Result<String> {
    let view = CatalogView::read(catalog)?;
    let loaded = specs
        .iter()
        .map(|p| Spec::load(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(propose(&view, &loaded))
}

/// The proposal for already-loaded inputs (the testable core of [`run`]).
pub fn propose(view: &CatalogView, specs: &[Spec]) -> String {
    let mapped = view.mapped_keys();
    let excluded = view.excluded_keys();
    let prefix = format!("{}_", view.product);
    let mut taken = view.tool_names.clone();
    let mut entries = Vec::new();
    for spec in specs {
        for op in spec.operations() {
            let key = op.key();
            if mapped.contains(&key) || excluded.contains(&key) {
                continue;
            }
            entries.push(entry(&op, &prefix, view, &mut taken));
        }
    }
    let mut out = format!(
        "# Proposed by `codegen-tools import-openapi` for {} operation(s) the catalog `{}` does not map.\n\
         # Review every `# review` line, then move the entries into the catalog's `tools:`.\n",
        entries.len(),
        view.product
    );
    if entries.is_empty() {
        out.push_str("tools: []\n");
        return out;
    }
    out.push_str("tools:\n");
    for e in entries {
        out.push_str(&e);
    }
    out
}

fn entry(
    op: &SpecOperation<'_>,
    prefix: &str,
    view: &CatalogView,
    taken: &mut std::collections::BTreeSet<String>,
) -> String {
    let naming = name_operation(&op.method, &op.path);
    let mut notes: Vec<(String, String)> = Vec::new(); // (key it follows, comment)
    let mut name = match &naming {
        Some(n) => n.tool_name(prefix),
        None => {
            notes.push((
                "name".into(),
                "the path is outside /v1 and /v2: name it by hand".into(),
            ));
            format!(
                "{prefix}{}_{}",
                op.method.to_ascii_lowercase(),
                op.path
                    .split('/')
                    .filter(|s| !s.is_empty() && !s.starts_with('{'))
                    .collect::<Vec<_>>()
                    .join("_")
            )
        }
    };
    if taken.contains(&name) {
        let original = name.clone();
        name = format!("{name}_{}", op.method.to_ascii_lowercase());
        notes.push((
            "name".into(),
            format!("`{original}` is already taken: pick a name by hand"),
        ));
    }
    taken.insert(name.clone());
    let inputs = inputs(op);
    let read_only = op.method == "GET" && !is_command_get(op);
    let (destructive, clause) = destructiveness(op, naming.as_ref());

    let mut tool = Map::new();
    tool.insert("name".into(), name.clone().into());
    tool.insert("title".into(), title(op, naming.as_ref()).into());
    tool.insert("description".into(), description(op, &inputs).into());
    tool.insert("http".into(), http(op, &inputs));
    if !inputs.files.is_empty() {
        notes.push((
            "multipart".into(),
            "a file upload: add `filename_arg`/`filename_field` and `default_filename` to each file, and `contentMediaType` to its schema, where known".into(),
        ));
    }
    tool.insert(
        "operation".into(),
        operation(op, naming.as_ref(), &inputs, view, &mut notes),
    );
    tool.insert("input_schema".into(), Value::Object(inputs.schema.clone()));
    // The output schema is derived data: it goes to the catalog's generated sidecar, never into
    // the entry people paste. Say when the operation has one (by the rule `output-schemas` applies).
    if let Verdict::Usable { schema, .. } = derive(op.spec, op) {
        let kind = tool
            .get("operation")
            .and_then(|o| o.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or("custom");
        if sandbox_shape_conflict(kind, &op.path, &schema).is_none() {
            notes.push((
                "input_schema".into(),
                format!(
                    "the answer has a usable output schema: after adding this entry, run `{}` to derive it into catalog/derived/",
                    codegen::derived::OUTPUT_SCHEMAS_COMMAND
                ),
            ));
        }
    }
    let mut ann = Map::new();
    ann.insert("readOnlyHint".into(), read_only.into());
    ann.insert("destructiveHint".into(), destructive.into());
    tool.insert("annotations".into(), Value::Object(ann));
    if let Some(c) = clause {
        tool.insert("destructive_clause".into(), c.into());
    }
    if is_command_get(op) {
        notes.push((
            "readOnlyHint".into(),
            "this GET starts a request (documented exception): not read-only".into(),
        ));
    }
    if !read_only && !destructive {
        notes.push((
            "destructiveHint".into(),
            "check the product document's three destructive lists".into(),
        ));
    }
    let scope = naming.as_ref().map(|n| n.scope.clone()).unwrap_or_default();
    notes.push((
        "scope".into(),
        "guessed from the family table (research §6)".into(),
    ));
    let permission = if scope.is_empty() {
        String::new()
    } else if read_only {
        format!("{scope}.read")
    } else {
        format!("{scope}.write")
    };
    tool.insert("scope".into(), scope.into());
    tool.insert("permission".into(), permission.into());

    render(&Value::Object(tool), &notes)
}

fn destructiveness(op: &SpecOperation<'_>, naming: Option<&Naming>) -> (bool, Option<String>) {
    if op.method == "GET" {
        return (false, None);
    }
    if op.method == "DELETE" {
        return (true, Some("delete".into()));
    }
    if let Some(Action::Verb(v)) = naming.map(|n| &n.action) {
        if let Some((_, clause)) = DESTRUCTIVE_VERBS.iter().find(|(verb, _)| verb == v) {
            return (true, Some((*clause).to_string()));
        }
    }
    (false, None)
}

fn title(op: &SpecOperation<'_>, naming: Option<&Naming>) -> String {
    let Some(n) = naming else {
        return op.summary().to_string();
    };
    let noun = n.resource.replace('_', " ");
    match &n.action {
        Action::List => format!("List {noun} records"),
        Action::Get => format!("Get a {noun}"),
        Action::Create => format!("Create a {noun}"),
        Action::Update => format!("Update a {noun}"),
        Action::Delete => format!("Delete a {noun}"),
        Action::Verb(v) => {
            let verb = v.replace('_', " ");
            let mut chars = verb.chars();
            let cap = match chars.next() {
                Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
                None => String::new(),
            };
            format!("{cap}: {noun}")
        }
    }
}

fn description(op: &SpecOperation<'_>, inputs: &Inputs) -> String {
    let mut text = format!("Kobana API: {} {}", op.method, op.path);
    let summary = op.summary().trim();
    if !summary.is_empty() {
        text.push_str(&format!(" (\"{summary}\")"));
    }
    text.push('.');
    let detail = tidy(op.description());
    if !detail.is_empty() && detail.trim_end_matches('.') != summary.trim_end_matches('.') {
        text.push(' ');
        text.push_str(&detail);
    }
    if !inputs.files.is_empty() {
        let args: Vec<String> = inputs.files.iter().map(|f| format!("`{f}`")).collect();
        text.push_str(&format!(
            " The file is uploaded as multipart/form-data: pass its content base64-encoded in {}.",
            args.join(", ")
        ));
    } else if let Some(media) = &inputs.body_media_type {
        text.push_str(&format!(" The API takes this body as {media}."));
    }
    text
}

fn http(op: &SpecOperation<'_>, inputs: &Inputs) -> Value {
    let mut m = Map::new();
    m.insert("method".into(), op.method.clone().into());
    m.insert("path".into(), op.path.clone().into());
    if !inputs.query.is_empty() {
        m.insert(
            "query".into(),
            Value::Array(inputs.query.iter().cloned().map(Value::String).collect()),
        );
    }
    if !inputs.files.is_empty() {
        let files: Vec<Value> = inputs
            .files
            .iter()
            .map(|f| {
                let mut part = Map::new();
                part.insert("arg".into(), f.clone().into());
                Value::Object(part)
            })
            .collect();
        let mut form = Map::new();
        form.insert("files".into(), Value::Array(files));
        let mut body = Map::new();
        body.insert("multipart".into(), Value::Object(form));
        m.insert("body".into(), Value::Object(body));
    } else if inputs.body_is_rest {
        m.insert("body".into(), "rest".into());
    } else if !inputs.body.is_empty() {
        m.insert(
            "body".into(),
            Value::Array(inputs.body.iter().cloned().map(Value::String).collect()),
        );
    }
    Value::Object(m)
}

/// Sandbox semantics: CRUD kinds on `<family>_<plural>` when that record type exists, else
/// `custom` (marked for review).
fn operation(
    op: &SpecOperation<'_>,
    naming: Option<&Naming>,
    inputs: &Inputs,
    view: &CatalogView,
    notes: &mut Vec<(String, String)>,
) -> Value {
    let mut m = Map::new();
    let custom = |m: &mut Map<String, Value>, notes: &mut Vec<(String, String)>, why: String| {
        m.insert("kind".into(), "custom".into());
        notes.push(("kind".into(), why));
    };
    let Some(n) = naming else {
        custom(&mut m, notes, "no sandbox semantics guessed".into());
        return Value::Object(m);
    };
    let record = op
        .path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .filter(|s| !matches!(*s, "v1" | "v2"))
        .rfind(|s| s.ends_with('s') || *s == "pix")
        .map(|s| format!("{}_{s}", n.family));
    let kind = match n.action {
        Action::List => "list",
        Action::Get => "get",
        Action::Create => "create",
        Action::Update => "update",
        Action::Delete => "delete",
        Action::Verb(_) => "",
    };
    match record {
        Some(r) if !kind.is_empty() && view.record_names.contains(&r) => {
            m.insert("kind".into(), kind.into());
            m.insert("record".into(), r.into());
            if matches!(kind, "get" | "update" | "delete") {
                if let Some(id) = inputs.path.last() {
                    m.insert("id_arg".into(), id.clone().into());
                }
            }
            notes.push(("kind".into(), "record type guessed from the path".into()));
        }
        Some(r) if !kind.is_empty() => custom(
            &mut m,
            notes,
            format!("no record type `{r}` in the catalog: add one or keep custom"),
        ),
        _ => custom(
            &mut m,
            notes,
            format!(
                "`{}` is not CRUD: declare an action (from/set/creates) if it changes state",
                n.action.as_str()
            ),
        ),
    }
    Value::Object(m)
}

/// Serializes one entry as a `- ` list item and appends each note as a `# review:` comment to the
/// first line holding its key.
fn render(tool: &Value, notes: &[(String, String)]) -> String {
    let text = serde_yaml::to_string(tool).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (key, note) in notes {
        let needle = format!("{key}:");
        if let Some(line) = lines
            .iter_mut()
            .find(|l| l.trim_start().starts_with(&needle) && !l.contains("# review"))
        {
            line.push_str(&format!("  # review: {note}"));
        }
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> Spec {
        Spec {
            path: PathBuf::from("inline.json"),
            doc: json!({"paths": {
                "/v1/bank_billets": {"get": {"summary": "Listar Boletos", "parameters": [
                    {"name": "status", "in": "query", "schema": {"type": "string"}}]}},
                "/v1/bank_billets/{id}": {"get": {"summary": "Informações do Boleto"}},
                "/v1/bank_billets/{id}/cancel": {"put": {"summary": "Cancelar o Boleto",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/cancel"}}}},
                    "responses": {"200": {"content": {"application/json": {"schema": {"type": "object",
                        "properties": {"status": {"type": "string", "nullable": true}}}}}}}}},
                "/v1/bank_billets/{id}/send_email": {"post": {"summary": "Enviar por e-mail"}},
                "/v1/bank_billet_accounts/{id}/ask": {"get": {"summary": "Solicitar Homologação"}},
                "/v1/userinfo": {"get": {"summary": "descontinuado"}}
            },
            "components": {"schemas": {"cancel": {"type": "object", "properties": {
                "cancellation_reason": {"type": "integer", "enum": [1, 2]}}}}}}),
        }
    }

    fn view() -> CatalogView {
        CatalogView::parse(
            "product: {name: banking}
records: {charge_bank_billets: {}}
tools:
  - {name: banking_charge_bank_billet_get, http: {method: GET, path: '/v1/bank_billets/{uid}'}}
exclusions:
  - {operation: GET /v1/userinfo, reason: deprecated}
",
        )
        .unwrap()
    }

    fn proposed() -> Vec<Value> {
        let text = propose(&view(), &[spec()]);
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let json = serde_json::to_value(doc).unwrap();
        json["tools"].as_array().unwrap().clone()
    }

    fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not proposed"))
    }

    #[test]
    fn only_unmapped_and_unexcluded_operations_are_proposed() {
        let tools = proposed();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            vec![
                "banking_charge_bank_billet_list",
                "banking_charge_bank_billet_cancel",
                "banking_charge_bank_billet_send_email",
                "banking_charge_bank_billet_account_ask",
            ]
        );
    }

    #[test]
    fn entries_carry_binding_schema_and_annotations() {
        let tools = proposed();
        let list = tool(&tools, "banking_charge_bank_billet_list");
        assert_eq!(list["http"]["query"], json!(["status"]));
        assert_eq!(list["annotations"]["readOnlyHint"], true);
        assert_eq!(list["operation"]["kind"], "list");
        assert_eq!(list["operation"]["record"], "charge_bank_billets");
        assert_eq!(list["scope"], "charge.bank_billets");
        assert_eq!(list["permission"], "charge.bank_billets.read");

        assert!(
            list.get("output_schema").is_none(),
            "no response in the spec"
        );

        let cancel = tool(&tools, "banking_charge_bank_billet_cancel");
        assert!(
            cancel.get("output_schema").is_none(),
            "derived data stays out of the proposal"
        );
        let text = propose(&view(), &[spec()]);
        let cancel_text = text
            .split("\n- ")
            .find(|e| e.contains("banking_charge_bank_billet_cancel"))
            .unwrap();
        assert!(
            cancel_text.contains("usable output schema: after adding this entry, run `cargo run -p codegen-tools -- output-schemas --write`"),
            "{cancel_text}"
        );
        assert_eq!(cancel["http"]["body"], "rest");
        assert_eq!(cancel["annotations"]["destructiveHint"], true);
        assert_eq!(cancel["destructive_clause"], "cancel");
        assert_eq!(cancel["input_schema"]["type"], "object");
        assert_eq!(cancel["input_schema"]["required"], json!(["id"]));
        assert_eq!(
            cancel["input_schema"]["properties"]["cancellation_reason"]["enum"],
            json!([1, 2])
        );

        let ask = tool(&tools, "banking_charge_bank_billet_account_ask");
        assert_eq!(ask["annotations"]["readOnlyHint"], false);
        assert_eq!(ask["annotations"]["destructiveHint"], false);
    }

    #[test]
    fn guesses_are_marked_for_review() {
        let text = propose(&view(), &[spec()]);
        let send = text
            .split("\n- ")
            .find(|e| e.contains("send_email"))
            .unwrap();
        assert!(send.contains("destructiveHint: false  # review"), "{send}");
        assert!(send.contains("scope: charge.bank_billets  # review"));
        assert!(send.contains("kind: custom  # review"));
    }

    #[test]
    fn a_name_collision_is_renamed_and_flagged() {
        let mut v = view();
        v.tool_names
            .insert("banking_charge_bank_billet_list".into());
        let text = propose(&v, &[spec()]);
        assert!(text.contains("name: banking_charge_bank_billet_list_get  # review"));
    }

    #[test]
    fn multipart_bodies_are_proposed_as_uploads() {
        let s = Spec {
            path: PathBuf::from("upload.json"),
            doc: json!({"paths": {
                "/v2/admin/certificates": {"post": {"summary": "Incluir um Certificado",
                    "requestBody": {"content": {"multipart/form-data": {"schema": {"$ref": "#/components/schemas/cert"}}}}}}
            },
            "components": {"schemas": {"cert": {"type": "object", "required": ["label"], "properties": {
                "label": {"type": "string"},
                "source": {"type": "string", "format": "binary", "description": "Arquivo."},
                "files": {"type": "object", "properties": {
                    "pfx_file": {"type": "string", "format": "binary"},
                    "pfx_password": {"type": "string", "format": "password"}}}}}}}}),
        };
        let text = propose(&view(), &[s]);
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let tools = serde_json::to_value(doc).unwrap()["tools"].clone();
        let t = &tools[0];
        assert_eq!(
            t["http"]["body"],
            json!({"multipart": {"files": [{"arg": "source"}, {"arg": "files.pfx_file"}]}})
        );
        let props = &t["input_schema"]["properties"];
        assert_eq!(
            props["source"],
            json!({"type": "string", "contentEncoding": "base64", "description": "Arquivo: file content, base64-encoded."})
        );
        assert_eq!(
            props["files"]["properties"]["pfx_file"]["contentEncoding"],
            "base64"
        );
        assert_eq!(
            props["files"]["properties"]["pfx_password"]["format"],
            "password"
        );
        assert!(t["description"]
            .as_str()
            .unwrap()
            .contains("uploaded as multipart/form-data: pass its content base64-encoded in `source`, `files.pfx_file`"));
        assert!(
            text.contains("multipart:  # review: a file upload"),
            "{text}"
        );
    }

    #[test]
    fn nothing_to_propose_is_an_empty_list() {
        let s = Spec {
            path: PathBuf::from("x.json"),
            doc: json!({"paths": {"/v1/userinfo": {"get": {}}}}),
        };
        let text = propose(&view(), &[s]);
        assert!(text.ends_with("tools: []\n"));
    }
}
