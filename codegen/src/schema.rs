//! The JSON Schema of the catalog format, for editors (`catalog/catalog.schema.json`).
//!
//! A catalog that starts with `# yaml-language-server: $schema=./catalog.schema.json` gets
//! completion, hover docs and errors while typing. The schema is kept here beside the model rather
//! than derived from it, because it also carries descriptions and defaults; `cargo run -p codegen`
//! writes it and `--check` fails when the file differs. `codegen/tests/schema.rs` keeps it honest:
//! every struct of `model.rs` must have an object here with exactly the same keys, and the test
//! catalogs must validate against it.

use serde_json::{json, Value};

use crate::validate::{MAX_TOOL_NAME, SEED_SIMPLE};

/// Where the schema lives, relative to the repository root.
pub const SCHEMA_PATH: &str = "catalog/catalog.schema.json";

fn s(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn b(description: &str, default: bool) -> Value {
    json!({"type": "boolean", "description": description, "default": default})
}

fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

fn string_map(description: &str) -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string"}, "description": description})
}

fn r(def: &str) -> Value {
    json!({"$ref": format!("#/definitions/{def}")})
}

/// A closed object: only these keys.
fn object(description: &str, required: &[&str], properties: Value) -> Value {
    json!({
        "type": "object",
        "description": description,
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    })
}

/// A one-key object `{key: value}`, the way enum variants with data are written.
fn variant(key: &str, value: Value) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": [key],
        "properties": {key: value},
    })
}

fn seed_pattern() -> String {
    let simple = SEED_SIMPLE.join("|");
    let num = r"-?\d+(\.\d+)?";
    let int = r"-?\d+";
    format!(
        r"^({simple}|amount:{num}\.\.{num}|(date|datetime|int):{int}\.\.{int}|ref:[a-z][a-z0-9_]*|(text|const):.+)$"
    )
}

/// The schema, as JSON.
pub fn catalog_schema() -> Value {
    let name_pattern = format!("^[a-z0-9_]{{1,{MAX_TOOL_NAME}}}$");
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$comment": "generated from codegen/src/schema.rs; do not edit by hand — run `cargo run -p codegen`",
        "$id": "https://kobana.com.br/schemas/kobana-mcp-catalog.json",
        "title": "kobana-mcp product catalog",
        "description": "One product's MCP server: tools, resources, templates, prompts, completions and policies. See catalog/README.md.",
        "$ref": "#/definitions/catalog",
        "definitions": {
            "catalog": object("A product catalog file.", &["product", "policies"], json!({
                "product": r("product"),
                "policies": r("policies"),
                "records": {"type": "object", "description": "Record types by storage name (e.g. bank_billets): fields, seed data, schemas catalog.", "additionalProperties": r("record"), "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
                "tools": {"type": "array", "items": r("tool"), "description": "The tools; `tools/list` gives them sorted by name."},
                "resources": {"type": "array", "items": r("resource"), "description": "Fixed-URI resources."},
                "templates": {"type": "array", "items": r("template"), "description": "URI templates (RFC 6570 level 1)."},
                "prompts": {"type": "array", "items": r("prompt")},
                "completions": {"type": "object", "description": "Named completion sources, referenced by prompt arguments and template variables.", "additionalProperties": r("completion_source")},
                "exclusions": {"type": "array", "items": r("exclusion"), "description": "API operations deliberately not offered as tools, each with its reason."},
            })),
            "product": object("Who the product is.", &["name", "title", "version", "uri_prefix", "naming", "api_base_url"], json!({
                "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$", "description": "`banking`: lowercase, [a-z0-9_]; equals the file name and the generated module name."},
                "title": s("Human title, e.g. Kobana Banking."),
                "version": s("The server version reported on initialize."),
                "uri_prefix": {"type": "string", "pattern": "^[a-z][a-z0-9+.-]*://(.*/)?$", "description": "`kobana://<name>/`: every URI and URI template starts with it."},
                "tool_prefix": {"type": "string", "pattern": "^[a-z0-9_]*$", "default": "", "description": "Prefix every tool name carries (may be empty)."},
                "naming": s("The naming pattern of the tools, e.g. banking_<family>_<resource>_<action>."),
                "api_base_url": {"type": "string", "pattern": "^https?://", "description": "Upstream Kobana API base URL (proxy mode)."},
                "instructions": {"type": "string", "default": "", "description": "Instructions for the model, sent on initialize / server/discover."},
                "openapi": strings("OpenAPI specs (paths from the repository root) whose operations the coverage gate checks against this catalog."),
                "fixture": b("A test product (catalog/fixtures/): compiled, never served as a Kobana product.", false),
            })),
            "policies": object("How confirmations, listings and workspaces behave.", &["unconfirmable_destructive", "decline_code", "replay", "confirmation_binds", "resources_list"], json!({
                "unconfirmable_destructive": {"enum": ["run", "refuse"], "description": "A destructive tool on a client that cannot confirm (2025-era, or no form elicitation): `run` it, or `refuse` with confirmation_required."},
                "decline_code": {"enum": ["user_declined", "USER_DECLINED"], "description": "The spelling of the declined-confirmation error."},
                "replay": {"enum": ["ask_again", "refuse"], "description": "A replayed confirmation: `ask_again` with a notice, or `refuse` with confirmation_replayed."},
                "confirmation_binds": {"type": "array", "items": {"enum": ["person", "organization", "workspace"]}, "minItems": 1, "uniqueItems": true, "description": "The identity fields a confirmation is bound to."},
                "confirmation_ttl_seconds": {"type": "integer", "minimum": 1, "default": 300, "description": "How long a confirmation stays valid."},
                "resources_list": {"description": "How resources/list is filled: `fixed` URIs only, or `{recent: N}` most recent records of each listed template type.", "oneOf": [{"const": "fixed"}, variant("recent", json!({"type": "integer", "minimum": 1}))]},
                "workspaced": b("Records live in a workspace (finance, inbox).", false),
            })),
            "record": object("A record type: drives the sandbox store, its seed data and the schemas catalog.", &["title", "fields"], json!({
                "title": s("Human name of one record."),
                "description": {"type": "string", "default": ""},
                "id_field": {"type": "string", "default": "uid", "description": "The field holding the string id."},
                "numeric_id": b("The API payload also carries a numeric `id` (dropped from resources).", false),
                "seed_count": {"type": "integer", "minimum": 0, "default": 30, "description": "Records seeded in the sandbox (at least 25 for a listable type; 1 for a type read by a singleton operation)."},
                "fields": {"type": "object", "additionalProperties": r("field"), "description": "The fields, by name."},
            })),
            "field": object("One field of a record.", &["type"], json!({
                "type": {"enum": ["string", "integer", "number", "boolean", "object", "array"], "description": "JSON type."},
                "description": {"type": "string", "default": "", "description": "What the field means (schemas catalog)."},
                "enum": strings("The values the field may take."),
                "sortable": b("Lists may sort by this field.", false),
                "seed": {"type": "string", "pattern": seed_pattern(), "description": "Seed generator: uid, person_name, company_name, cpf, cnpj, email, phone, pix_key, amount:MIN..MAX, date:FROM..TO (days from today), datetime:FROM..TO, enum, ref:<record>, bool, int:MIN..MAX, text:<words>, const:<value>, sequence."},
            })),
            "tool": {
                "type": "object",
                "description": "A tool. Exactly one of `http` and `handler`.",
                "additionalProperties": false,
                "required": ["name", "title", "description", "input_schema", "annotations", "scope", "permission"],
                "oneOf": [{"required": ["http"]}, {"required": ["handler"]}],
                "properties": {
                    "name": {"type": "string", "pattern": name_pattern, "description": "[a-z0-9_], at most 64 characters, starting with product.tool_prefix."},
                    "title": s("Short human title."),
                    "description": s("What the tool does, for the model."),
                    "http": r("http"),
                    "handler": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$", "description": "A hand-written handler in runtime/src/extensions/."},
                    "operation": r("operation"),
                    "input_schema": {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}, "not": {"anyOf": [{"required": ["anyOf"]}, {"required": ["oneOf"]}, {"required": ["allOf"]}]}, "description": "JSON Schema of the arguments: an object at the root, no top-level anyOf/oneOf/allOf."},
                    "output_schema": {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}, "description": "JSON Schema of structuredContent: an object at the root."},
                    "annotations": r("annotations"),
                    "destructive_clause": s("Required on destructive tools: the clause of the product document that makes it destructive."),
                    "classification_note": s("Why a borderline tool was classified as it was."),
                    "scope": s("OAuth scope the caller needs (empty: only the read/write meta scope)."),
                    "permission": s("Permission of the caller's role (empty: none)."),
                },
            },
            "annotations": {
                "type": "object",
                "description": "The MCP tool annotations. destructiveHint is explicit on every tool that is not read-only.",
                "additionalProperties": false,
                "required": ["readOnlyHint"],
                "if": {"properties": {"readOnlyHint": {"const": false}}},
                "then": {"required": ["destructiveHint"]},
                "properties": {
                    "readOnlyHint": {"type": "boolean"},
                    "destructiveHint": {"type": "boolean", "description": "Required when readOnlyHint is false; never true on a read-only tool."},
                    "idempotentHint": {"type": "boolean", "description": "Default: true for read-only tools and GET/PUT/DELETE bindings, false otherwise."},
                    "openWorldHint": {"type": "boolean", "default": false, "description": "Default false: the tools talk to Kobana's own API."},
                },
            },
            "http": object("An HTTP operation of the product's API.", &["method", "path"], json!({
                "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
                "path": {"type": "string", "pattern": "^/", "description": "Path template, e.g. /v1/bank_billets/{id}; each {var} is an argument of the input schema."},
                "path_args": string_map("Path variable → tool argument, when their names differ."),
                "query": strings("Arguments sent in the query string."),
                "body": {"description": "Omitted (no body), `rest` (every argument not in path or query), a list of arguments, {wrap: key, fields: [...]}, or {multipart: {files: [...]}} for a file upload.", "oneOf": [{"const": "rest"}, {"type": "array", "items": {"type": "string"}}, r("wrapped_body"), r("multipart_body")]},
            })),
            "wrapped_body": object("Arguments wrapped under one key, e.g. {\"bank_billet\": {...}}.", &["wrap", "fields"], json!({
                "wrap": s("The wrapping key."),
                "fields": strings("The arguments inside it."),
            })),
            "multipart_body": object("The API takes a multipart/form-data form (a file upload). POST, PUT or PATCH only.", &["multipart"], json!({
                "multipart": r("multipart_form"),
            })),
            "multipart_form": object("File arguments become file parts (base64 in the arguments, raw bytes on the wire); every other argument not in path or query becomes a text part, objects and arrays with bracketed names (custom_data[key], tags[]).", &["files"], json!({
                "files": {"type": "array", "items": r("file_part"), "minItems": 1, "description": "The file parts."},
            })),
            "file_part": object("One file part.", &["arg"], json!({
                "arg": {"type": "string", "pattern": "^[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*$", "description": "The argument holding the content: type string with contentEncoding base64 (contentMediaType, when given, is the part's Content-Type). A property nested in an object argument is a dotted path (files.crt_file), sent as files[crt_file]."},
                "filename_arg": s("A tool argument that only names the uploaded file (not sent as a field of its own)."),
                "filename_field": s("An API field that names the file: sent as its own text part and used as the part's filename."),
                "default_filename": s("The part's filename when no argument gives one (default: the argument's last segment)."),
            })),
            "operation": object("What the tool does to the sandbox's records.", &["kind"], json!({
                "kind": {"enum": ["list", "get", "singleton", "latest", "summary", "create", "update", "delete", "action", "custom"], "description": "`singleton`: the one record of its type in the caller's organization (and workspace), read without an id; its record type has `seed_count: 1`. `latest`: the most recent record among those the arguments select (not found when none). `summary`: totals of the numeric fields of the records the arguments select. An `action` without `id_arg` applies to every record the arguments select (bulk)."},
                "record": s("The record type (a key of `records`)."),
                "id_arg": s("The argument carrying the record id (get/update/delete; action unless bulk; never singleton or latest)."),
                "action": r("action"),
                "where": {"type": "object", "maxProperties": 1, "minProperties": 1, "additionalProperties": {"type": "string"}, "description": "`get` only: the one field value the record must have (`{kind: darf}`); any other record is not found."},
                "days": {"type": "integer", "minimum": 1, "description": "`summary` only: the window in days up to today its totals cover when no date argument narrows it."},
            })),
            "action": object("A state transition (cancel, pay, approve, …) and/or an edit of an array field.", &["name"], json!({
                "name": s("The action's name."),
                "from": strings("State values the record may be in; empty means any."),
                "set": string_map("Fields set by the action, e.g. {status: canceled}; may be omitted when the action has `add` or `remove`."),
                "state_field": {"type": "string", "default": "status"},
                "creates": s("A record type the action creates (pay → payment)."),
                "add": r("list_edit"),
                "remove": r("list_edit"),
            })),
            "list_edit": object("An edit of an array field of the record by the value of one argument: `add` appends it (already there: nothing changes), `remove` takes it out (not there: a conflict).", &["field", "from_arg"], json!({
                "field": s("An `array` field of the operation's record type."),
                "from_arg": s("The tool argument (a property of input_schema) whose value is added or removed."),
            })),
            "resource": object("A fixed-URI resource.", &["uri", "name", "description", "mime_type", "read_by", "content"], json!({
                "uri": s("Starts with product.uri_prefix; no {variables}."),
                "name": s("Programmatic name."),
                "title": {"type": "string", "default": ""},
                "description": s("What it is (docs and resources/list)."),
                "mime_type": s("e.g. application/json."),
                "read_by": s("The read-only tool that reads it; the resource is visible only when that tool is callable."),
                "content": r("content"),
            })),
            "template": object("A URI template (RFC 6570 level 1: simple {name} variables).", &["uri_template", "name", "description", "mime_type", "read_by", "content"], json!({
                "uri_template": s("Starts with product.uri_prefix, e.g. kobana://banking/charge/bank_billets/{uid}."),
                "name": s("Programmatic name."),
                "title": {"type": "string", "default": ""},
                "description": s("What it is."),
                "mime_type": s("e.g. application/json."),
                "read_by": s("The read-only tool that reads it; each variable is one of its arguments."),
                "args": string_map("Template variable → argument of read_by, when their names differ."),
                "content": r("content"),
                "listed": b("Records of this type appear in resources/list (when the policy is recent).", false),
                "list_tool": s("The list tool giving this type's most recent records."),
                "complete": string_map("Template variable → completion source id."),
                "limitation": s("When the read is not a plain GET by id: what happens, for the docs."),
            })),
            "content": {
                "description": "How the read is returned.",
                "oneOf": [
                    {"enum": ["json", "text", "schema_catalog", "schema_entry"]},
                    variant("blob", r("size_limit")),
                    variant("blob_or_text", r("size_limit")),
                    variant("signed_url", r("url_ttl")),
                ],
            },
            "size_limit": object("A size limit.", &["max_bytes"], json!({"max_bytes": {"type": "integer", "minimum": 1}})),
            "url_ttl": object("A signed URL lifetime.", &["ttl_seconds"], json!({"ttl_seconds": {"type": "integer", "minimum": 1}})),
            "prompt": object("A prompt.", &["name", "description", "uses", "writes", "template"], json!({
                "name": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$"},
                "title": {"type": "string", "default": ""},
                "description": s("What it does."),
                "arguments": {"type": "array", "items": r("prompt_argument")},
                "uses": strings("Tools the prompt relies on; it is listed only when all are callable."),
                "writes": {"type": "boolean", "description": "Whether following the prompt writes. With false, every tool in `uses` must be read-only."},
                "template": s("minijinja template of the user message. Variables: the arguments (defaults resolved) and `today`."),
            })),
            "prompt_argument": object("A prompt argument.", &["name", "description"], json!({
                "name": s("Argument name."),
                "description": s("What to pass."),
                "required": b("Whether the argument is required.", false),
                "format": {"enum": ["date", "month"], "description": "`date` (YYYY-MM-DD) or `month` (YYYY-MM)."},
                "default": {"type": "string", "description": "today, today+Nd, today-Nd, current_month, or a literal."},
                "complete": s("Completion source id (a key of `completions`)."),
            })),
            "completion_source": {
                "description": "Where completion values come from.",
                "oneOf": [
                    variant("list_ids", r("list_ids")),
                    variant("fixed", json!({"type": "array", "items": {"type": "string"}, "minItems": 1})),
                    {"const": "schema_names"},
                    variant("last_months", json!({"type": "integer", "minimum": 1})),
                    variant("today_and_month_starts", json!({"type": "integer", "minimum": 1})),
                    {"const": "none"},
                ],
            },
            "list_ids": object("Ids from a list tool, by prefix, most recent first.", &["tool"], json!({
                "tool": s("A list tool (operation kind list, or a name ending in _list)."),
                "field": {"type": "string", "default": "uid"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 100},
            })),
            "exclusion": object("An API operation deliberately not offered as a tool.", &["operation", "reason"], json!({
                "operation": {"type": "string", "pattern": "^(GET|POST|PUT|PATCH|DELETE) /", "description": "METHOD /path, e.g. GET /v1/userinfo."},
                "reason": s("Why it is left out."),
            })),
        },
    })
}

/// The file's text: pretty JSON with a trailing newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&catalog_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the schema file under `root` when its content differs; says whether it wrote.
pub fn write_schema(root: &std::path::Path) -> std::io::Result<bool> {
    let path = root.join(SCHEMA_PATH);
    let text = schema_text();
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        return Ok(false);
    }
    std::fs::write(&path, text)?;
    Ok(true)
}

/// The drift of the schema file under `root`, if any.
pub fn check_schema(root: &std::path::Path) -> Option<String> {
    let path = root.join(SCHEMA_PATH);
    match std::fs::read_to_string(&path) {
        Ok(text) if text == schema_text() => None,
        Ok(_) => Some(format!(
            "{SCHEMA_PATH} is stale (differs from codegen/src/schema.rs); run `{}`",
            crate::FIX_COMMAND
        )),
        Err(_) => Some(format!(
            "{SCHEMA_PATH} is missing; run `{}`",
            crate::FIX_COMMAND
        )),
    }
}
