//! The catalog format: what a `catalog/<product>.yaml` file may say.
//!
//! Every struct denies unknown keys, so a typo is an error with a line and column, never a key that
//! silently does nothing. `catalog/README.md` documents this format for people, and
//! `catalog/catalog.schema.json` gives editors completion: it is derived from these types by
//! `schemars` (`codegen_tools::schema`), their doc comments becoming its descriptions; the
//! `schemars` attributes here add what a Rust type cannot say (patterns, lengths, conditional
//! keys). They exist only with the `schema` feature, which `codegen-tools` turns on: the build
//! script of `generated/` compiles no `schemars`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Longest tool name the MCP clients accept.
pub const MAX_TOOL_NAME: usize = 64;

/// The seed generators without parameters.
pub const SEED_SIMPLE: &[&str] = &[
    "uid",
    "person_name",
    "company_name",
    "cpf",
    "cnpj",
    "email",
    "phone",
    "pix_key",
    "enum",
    "bool",
    "sequence",
];

/// A product catalog file: one product's MCP server (tools, resources, templates, prompts,
/// completions and policies). See catalog/README.md.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
// Products (not fixtures) keep the root of every input schema free of composition and
// conditionals: stricter clients reject them (catalog/README.md, JSON Schema 2020-12).
#[cfg_attr(feature = "schema", schemars(extend(
    "if" = {"properties": {"product": {"properties": {"fixture": {"const": true}}, "required": ["fixture"]}}},
    "else" = {"properties": {"tools": {"items": {"properties": {"input_schema": {"not": {"anyOf": [
        {"required": ["anyOf"]}, {"required": ["oneOf"]}, {"required": ["allOf"]}, {"required": ["not"]},
        {"required": ["$ref"]}, {"required": ["if"]}, {"required": ["then"]}, {"required": ["else"]}
    ]}}}}}}}
)))]
pub struct Catalog {
    pub product: ProductInfo,
    pub policies: Policies,
    /// Record types by storage name (e.g. bank_billets): fields, seed data, schemas catalog.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = {"pattern": "^[a-z][a-z0-9_]*$"})))]
    pub records: BTreeMap<String, RecordType>,
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Fixed-URI resources.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// URI templates.
    #[serde(default)]
    pub templates: Vec<Template>,
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Named completion sources.
    #[serde(default)]
    pub completions: BTreeMap<String, CompletionSource>,
    /// API operations deliberately not offered as tools, each with its reason.
    #[serde(default)]
    pub exclusions: Vec<Exclusion>,
    /// Named groups of tools clients and operators select (`--toolsets`, `Kobana-Toolsets`,
    /// `/<product>/x/<toolset>/mcp`). Every tool is in at least one; required when the product
    /// has tools (fixtures may leave it out: then every tool is in the default selection).
    #[serde(default)]
    pub toolsets: Vec<Toolset>,
    /// What a person recognises each record type by in a confirmation question, and the states
    /// each action cannot leave (`crate::confirmation`).
    #[serde(default)]
    pub confirmation: Confirmation,
    /// Interactive views (MCP Apps) of the tools' results: see `crate::views`.
    #[serde(default)]
    pub views: Vec<ViewSpec>,
}

/// A toolset: a named group of tools, selected as one.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Toolset {
    /// `[a-z][a-z0-9_]*`, unique; not `default`, `all` or `discovery` (they are built in).
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^[a-z][a-z0-9_]*$")))]
    pub name: String,
    pub title: String,
    pub description: String,
    /// The tools: a tool name, a glob over names (`banking_pix_*`; `*` any run, `?` one
    /// character), or a tag: `scope:<glob>` (the tool's OAuth scope), `read_only`, `write`
    /// (not read-only) or `destructive`. Each entry must match at least one tool.
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub tools: Vec<String>,
    /// Part of the default selection (what a client that names no toolset gets).
    #[serde(default)]
    pub default: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProductInfo {
    /// `banking`: lowercase, `[a-z0-9_]`; equals the file name and the generated module name.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^[a-z][a-z0-9_]*$")))]
    pub name: String,
    pub title: String,
    pub version: String,
    /// `kobana://<name>/`: every URI and URI template starts with it.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = "^[a-z][a-z0-9+.-]*://(.*/)?$"))
    )]
    pub uri_prefix: String,
    /// Prefix every tool name carries (may be empty).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^[a-z0-9_]*$")))]
    pub tool_prefix: String,
    /// The naming pattern the tools follow, in one place (e.g. `banking_<family>_<resource>_<action>`).
    pub naming: String,
    /// Upstream Kobana API base URL for proxy mode.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^https?://")))]
    pub api_base_url: String,
    /// Instructions for the model, sent on `initialize` / `server/discover`.
    #[serde(default)]
    pub instructions: String,
    /// The language of the product's document (`pt-BR`, `es` or `en`): what a request that
    /// names no language of ours gets. Every text exists in all three (see `catalog/texts/`).
    #[serde(default = "default_locale")]
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["pt-BR", "es", "en"])))]
    pub locale: String,
    /// The OpenAPI specs (paths relative to the repository root) whose operations the coverage
    /// gate checks against this catalog's bindings. Also what says Kobana publishes the
    /// product's API: a product naming none has paths of this project's own design, and
    /// `serve --upstream` refuses it unless the operator says the upstream implements them
    /// (`--upstream-serves`).
    #[serde(default)]
    pub openapi: Vec<String>,
    /// A test product (the conformance fixture): compiled, never served as a Kobana product.
    #[serde(default)]
    pub fixture: bool,
    /// The longest a tool name may be (default 48: a client's prefix such as
    /// `mcp__kobana-banking__` must still fit in the 64 characters many clients allow). A longer
    /// name is an error unless the product documents name the tool (its fact file under
    /// `catalog/facts/product-docs/`); shorten it and keep the old name in the tool's `aliases`.
    #[serde(default)]
    pub tool_name_budget: Option<usize>,
}

impl ProductInfo {
    /// Whether Kobana publishes the product's API: the catalog names its OpenAPI specs. The one
    /// home of that rule (the compiled `Product::published_api`, the docs).
    pub fn published_api(&self) -> bool {
        !self.openapi.is_empty()
    }
}

fn default_locale() -> String {
    "en".into()
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Policies {
    /// A destructive tool when the server cannot ask: `run` or `refuse`.
    pub unconfirmable_destructive: UnconfirmableDestructive,
    /// `user_declined` or `USER_DECLINED`: the spelling of the declined-confirmation error.
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["user_declined", "USER_DECLINED"])))]
    pub decline_code: String,
    /// `ask_again` or `refuse`.
    pub replay: ReplayPolicy,
    /// The identity fields a confirmation is bound to: a subset of `person`, `organization`,
    /// `workspace`.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), extend("uniqueItems" = true)))]
    pub confirmation_binds: Vec<BindField>,
    /// How long a confirmation stays valid, in seconds.
    #[serde(default = "default_ttl")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub confirmation_ttl_seconds: u64,
    /// `fixed` or `{recent: N}`.
    pub resources_list: ResourcesList,
    /// Records live in a workspace (finance, inbox).
    #[serde(default)]
    pub workspaced: bool,
}

fn default_ttl() -> u64 {
    300
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum UnconfirmableDestructive {
    Run,
    Refuse,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReplayPolicy {
    AskAgain,
    Refuse,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BindField {
    Person,
    Organization,
    Workspace,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ResourcesList {
    Fixed,
    Recent(u32),
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RecordType {
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// Field holding the string id (default `uid`).
    #[serde(default = "default_id_field")]
    pub id_field: String,
    /// The API payload also carries a numeric `id` (dropped from resources).
    #[serde(default)]
    pub numeric_id: bool,
    /// Records seeded in the sandbox (at least 25 for a listable type; exactly 1, and declared so,
    /// for a type read by a `singleton` operation).
    #[serde(default = "default_seed_count")]
    pub seed_count: u32,
    /// Ordered fields.
    pub fields: BTreeMap<String, Field>,
}

fn default_id_field() -> String {
    "uid".into()
}
fn default_seed_count() -> u32 {
    30
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// `string`, `integer`, `number`, `boolean`, `object`, `array`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["string", "integer", "number", "boolean", "object", "array"])))]
    pub ty: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "enum")]
    pub enum_values: Vec<String>,
    #[serde(default)]
    pub sortable: bool,
    /// Seed generator, see `catalog/README.md` (`uid`, `person_name`, `company_name`, `cpf`,
    /// `cnpj`, `email`, `phone`, `pix_key`, `amount:MIN..MAX`, `date:-90..30`, `datetime:-30..0`,
    /// `enum`, `ref:<record>`, `bool`, `int:MIN..MAX`, `text:<words>`, `const:<value>`, `sequence`,
    /// `same:<ref field>.<field>`, `same:<record>.<field>`, `links:<slug>=<record>|…`).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(transform = seed_pattern))]
    pub seed: String,
}

#[cfg(feature = "schema")]
/// The grammar of `seed:` as a pattern, from [`SEED_SIMPLE`].
fn seed_pattern(schema: &mut schemars::Schema) {
    let simple = SEED_SIMPLE.join("|");
    let num = r"-?\d+(\.\d+)?";
    let int = r"-?\d+";
    schema.insert(
        "pattern".into(),
        format!(
            r"^({simple}|amount:{num}\.\.{num}|(date|datetime|int):{int}\.\.{int}|ref:[a-z][a-z0-9_]*|same:[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*|links:.+|(text|const):.+)$"
        )
        .into(),
    );
}

#[cfg(feature = "schema")]
/// The pattern of a tool name: `[a-z0-9_]`, at most [`MAX_TOOL_NAME`] characters.
fn tool_name_pattern(schema: &mut schemars::Schema) {
    schema.insert(
        "pattern".into(),
        format!("^[a-z0-9_]{{1,{MAX_TOOL_NAME}}}$").into(),
    );
}

#[cfg(feature = "schema")]
/// An input schema: a JSON Schema with an object root and no top-level combinator.
fn input_schema_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"const": "object"}},
    })
}

#[cfg(feature = "schema")]
/// An output schema: a JSON Schema with an object root.
fn output_schema_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"const": "object"}},
    })
}

/// A tool. Exactly one of `http` and `handler`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend("oneOf" = [{"required": ["http"]}, {"required": ["handler"]}])))]
pub struct Tool {
    /// `[a-z0-9_]`, at most 64 characters, starting with `product.tool_prefix`.
    #[cfg_attr(feature = "schema", schemars(transform = tool_name_pattern))]
    pub name: String,
    pub title: String,
    pub description: String,
    /// HTTP binding; exactly one of `http` and `handler`.
    #[serde(default)]
    pub http: Option<HttpBinding>,
    /// Name of a hand-written handler in `runtime/src/extensions/`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^[a-z][a-z0-9_]*$")))]
    pub handler: Option<String>,
    /// Sandbox semantics.
    #[serde(default)]
    pub operation: Option<Operation>,
    /// JSON Schema 2020-12 of the arguments: an object at the root; on products, no top-level
    /// `anyOf`/`oneOf`/`allOf`/`not`/`$ref`/`if`/`then`/`else`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "input_schema_schema"))]
    pub input_schema: serde_yaml::Value,
    /// JSON Schema of `structuredContent`: an object at the root. (banking's are derived into
    /// `catalog/derived/banking.output-schemas.yaml`.)
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(schema_with = "output_schema_schema"))]
    pub output_schema: Option<serde_yaml::Value>,
    pub annotations: Annotations,
    /// Required on destructive tools: the clause of the product document that applies.
    #[serde(default)]
    pub destructive_clause: Option<String>,
    /// Why a borderline tool was classified as it was.
    #[serde(default)]
    pub classification_note: Option<String>,
    pub scope: String,
    pub permission: String,
    /// Whether a call may run as a task (the 2026-07-28 Tasks extension): `never` (default),
    /// `optional` (a task when the client declares the extension) or `required` (only clients
    /// that declare it). For long-running operations: imports, batches, bulk operations,
    /// certificate uploads, reports.
    #[serde(default)]
    pub task: TaskSetting,
    /// Why a tool that is not a write runs as a task (required on a read-only tool marked
    /// `task:`): a read that takes long, such as generating a report.
    #[serde(default)]
    pub task_note: Option<String>,
    /// Former names `tools/call` still accepts for this tool (never listed): a tool renamed to
    /// fit the name budget keeps working for clients that saved the old name.
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// The catalog's `task:` setting of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TaskSetting {
    #[default]
    Never,
    Optional,
    Required,
}

/// The MCP tool annotations. `destructiveHint` is explicit on every tool that is not read-only.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(extend(
    "if" = {"properties": {"readOnlyHint": {"const": false}}},
    "then" = {"required": ["destructiveHint"]}
)))]
pub struct Annotations {
    #[serde(rename = "readOnlyHint")]
    pub read_only: bool,
    /// Must be written explicitly on every tool that is not read-only.
    #[serde(rename = "destructiveHint", default)]
    pub destructive: Option<bool>,
    #[serde(rename = "idempotentHint", default)]
    pub idempotent: Option<bool>,
    #[serde(rename = "openWorldHint", default)]
    pub open_world: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HttpBinding {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`.
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["GET", "POST", "PUT", "PATCH", "DELETE"])))]
    pub method: String,
    /// Path template, e.g. `/v1/bank_billets/{id}`; each `{var}` is an argument of the input schema.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = "^/")))]
    pub path: String,
    /// Path variable → tool argument, when their names differ (default: same name).
    #[serde(default)]
    pub path_args: BTreeMap<String, String>,
    /// Arguments sent in the query string.
    #[serde(default)]
    pub query: Vec<String>,
    /// Body: omitted (none), `rest` (every other argument), a list of arguments,
    /// `{wrap: key, fields: [...]}`, or `{multipart: {files: [...]}}` (a file upload).
    #[serde(default)]
    pub body: Option<Body>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Body {
    Keyword(BodyKeyword),
    Fields(Vec<String>),
    Wrapped(WrappedBody),
    Multipart(MultipartBody),
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BodyKeyword {
    Rest,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WrappedBody {
    pub wrap: String,
    pub fields: Vec<String>,
}

/// `{multipart: {files: [...]}}`: the API takes a `multipart/form-data` form (a file upload).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MultipartBody {
    pub multipart: MultipartForm,
}

/// The form: the listed file arguments become file parts (base64 in the tool's arguments, raw
/// bytes on the wire); every other argument not in the path or query becomes a text part, objects
/// and arrays with Rails-style bracketed names (`custom_data[key]`, `tags[]`).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MultipartForm {
    /// The file parts.
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub files: Vec<FilePart>,
}

/// One file part of a multipart form.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FilePart {
    /// The argument holding the file's content, `type: string` with `contentEncoding: base64`; a
    /// property nested in an object argument is written as a dotted path (`files.crt_file`) and
    /// sent as `files[crt_file]`. Its `contentMediaType`, when given, is the part's Content-Type.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$"))
    )]
    pub arg: String,
    /// A tool argument that only names the uploaded file (not sent as a field of its own).
    #[serde(default)]
    pub filename_arg: Option<String>,
    /// An API field that names the file: sent as its own text part and used as the part's
    /// filename too.
    #[serde(default)]
    pub filename_field: Option<String>,
    /// The part's filename when no argument gives one (default: the argument's last segment).
    #[serde(default)]
    pub default_filename: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// `list`, `get`, `singleton`, `create`, `update`, `delete`, `action`, `custom`.
    pub kind: OperationKind,
    /// The record type (key of `records`).
    #[serde(default)]
    pub record: Option<String>,
    /// The argument carrying the record id (get/update/delete/action; never on `singleton`).
    #[serde(default)]
    pub id_arg: Option<String>,
    /// For actions: the transition.
    #[serde(default)]
    pub action: Option<Action>,
    /// For `summary`: the window, in days up to today, its totals cover when no date argument
    /// narrows it (`kobana://inbox/usage`: the last 30 days).
    #[serde(default)]
    pub days: Option<u32>,
    /// For `get`: the one field value the record must have to be of this tool's kind (a DARF is
    /// a payment with `kind: darf`); any other record is not found, never answered.
    #[serde(default, rename = "where")]
    pub where_: Option<BTreeMap<String, String>>,
    /// For `grouped_totals`: how the records are grouped and what is totalled.
    #[serde(default)]
    pub grouping: Option<Grouping>,
}

/// Totals per group of records (a statement summarized by month and kind): the `group_by`
/// argument names the dimensions, comma-separated: `day`, `week`, `month` (buckets of
/// `date_field`) or fields of the record. Each group answers its dimension values, `count`, and
/// the signed `amount_field` split into `credit_total`, `debit_total` and `net_total`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Grouping {
    /// The date field bucketed by `day`, `week` and `month`.
    pub date_field: String,
    /// The signed amount field: positive credits, negative debits.
    pub amount_field: String,
    /// The dimensions when the call names none.
    #[serde(default = "default_group_by")]
    pub default_by: String,
}

fn default_group_by() -> String {
    "month".into()
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    List,
    Get,
    /// The one record of its type in the caller's organization (and workspace), read without an
    /// id (`GET /v1/billing/organization`). Its record type is seeded with exactly one record.
    Singleton,
    /// Who the caller is: the identity the token resolves to (person, organization, scopes,
    /// permissions, workspaces), in the shape of the API's identity endpoint. No record.
    WhoAmI,
    /// The most recent record of its type among those the equal-valued arguments select (the
    /// latest balance of an account); none selected is not found, never an empty answer.
    Latest,
    /// Totals of the numeric fields of the records the arguments select (within `days` when no
    /// date argument is given): one aggregate, never a page of rows.
    Summary,
    /// Totals per group of the records the arguments select (see [`Grouping`]): one row per
    /// group, never a page of records.
    GroupedTotals,
    Create,
    Update,
    Delete,
    Action,
    Custom,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub name: String,
    /// State values the record may be in; empty means any.
    #[serde(default)]
    pub from: Vec<String>,
    /// Fields set by the action, e.g. `{status: canceled}`. May be empty when the action edits a
    /// list (`add` / `remove`).
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    #[serde(default = "default_state_field")]
    pub state_field: String,
    /// A record type the action creates (pay → payment).
    #[serde(default)]
    pub creates: Option<String>,
    /// Appends an argument's value to an array field (no-op when already there).
    #[serde(default)]
    pub add: Option<ListEdit>,
    /// Removes an argument's value from an array field (a conflict when it is not there).
    #[serde(default)]
    pub remove: Option<ListEdit>,
}

/// An edit of an array field of the record by the value of one tool argument, e.g.
/// `{field: recipients, from_arg: email}`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListEdit {
    /// An `array` field of the operation's record type.
    pub field: String,
    /// The tool argument (a property of `input_schema`) whose value is added or removed.
    pub from_arg: String,
}

fn default_state_field() -> String {
    "status".into()
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Resource {
    pub uri: String,
    pub name: String,
    #[serde(default)]
    pub title: String,
    pub description: String,
    pub mime_type: String,
    pub read_by: String,
    pub content: Content,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub uri_template: String,
    pub name: String,
    #[serde(default)]
    pub title: String,
    pub description: String,
    pub mime_type: String,
    pub read_by: String,
    /// Template variable → argument of `read_by` (default: same name).
    #[serde(default)]
    pub args: BTreeMap<String, String>,
    pub content: Content,
    /// Records of this type appear in `resources/list` (when the policy is `recent`).
    #[serde(default)]
    pub listed: bool,
    /// The list tool giving this type's most recent records.
    #[serde(default)]
    pub list_tool: Option<String>,
    /// Template variable → completion source id.
    #[serde(default)]
    pub complete: BTreeMap<String, String>,
    /// When the read is not a plain GET-by-id: what happens, for the docs.
    #[serde(default)]
    pub limitation: Option<String>,
}

/// `json`, `text`, `schema_catalog`, `schema_entry`, `{blob: {max_bytes}}`,
/// `{blob_or_text: {max_bytes}}`, `{signed_url: {ttl_seconds}}`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Content {
    Json,
    Text,
    SchemaCatalog,
    SchemaEntry,
    Blob(SizeLimit),
    BlobOrText(SizeLimit),
    SignedUrl(UrlTtl),
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SizeLimit {
    pub max_bytes: u64,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UrlTtl {
    pub ttl_seconds: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    pub name: String,
    #[serde(default)]
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub arguments: Vec<PromptArgument>,
    /// Tools the prompt relies on.
    pub uses: Vec<String>,
    /// Whether the script writes. A prompt with `writes: false` may only use read-only tools.
    pub writes: bool,
    /// minijinja template of the first user message. Variables: the arguments (defaults already
    /// resolved to concrete dates), `today`.
    pub template: String,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PromptArgument {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub required: bool,
    /// `date` (YYYY-MM-DD) or `month` (YYYY-MM).
    #[serde(default)]
    pub format: Option<ArgFormat>,
    /// `today`, `today+90d`, `today-7d`, `current_month`, or a literal.
    #[serde(default)]
    pub default: Option<String>,
    /// Completion source id.
    #[serde(default)]
    pub complete: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArgFormat {
    Date,
    Month,
}

/// A completion source.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CompletionSource {
    /// `{list_ids: {tool: x_list, field: uid, limit: 100}}`
    ListIds(ListIds),
    /// `{fixed: [a, b]}`
    Fixed(Vec<String>),
    /// `schema_names`
    SchemaNames,
    /// `{last_months: 12}`
    LastMonths(u32),
    /// `{today_and_month_starts: 12}`
    TodayAndMonthStarts(u32),
    /// `none`
    None,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListIds {
    /// A list tool (operation kind list, or a name ending in `_list`).
    pub tool: String,
    /// The field whose values are suggested.
    #[serde(default = "default_id_field")]
    pub field: String,
    /// At most this many values (1 to 100).
    #[serde(default = "default_limit")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 100)))]
    pub limit: u32,
    /// Arguments the list tool is called with, to suggest only the records of one kind (a
    /// DARF's uids: `{kind: darf}` on the payments list). Each is an argument of the tool.
    #[serde(default)]
    pub args: BTreeMap<String, String>,
}

fn default_limit() -> u32 {
    100
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    /// `METHOD /path`, e.g. `GET /v1/userinfo`.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = "^(GET|POST|PUT|PATCH|DELETE) /"))
    )]
    pub operation: String,
    pub reason: String,
}

/// One view, as the catalog writes it.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ViewSpec {
    /// `[a-z][a-z0-9_]*`, unique in the product; the view's URI is `ui://<product>/<name>`.
    pub name: String,
    /// `record` (one record) or `chart` (rows over time).
    pub template: String,
    /// The record type it shows (key of `records`).
    pub record: String,
    /// The tools whose results it shows: they carry `_meta.ui.resourceUri` for clients with the
    /// extension.
    pub tools: Vec<String>,
    /// Tools only the view calls (`_meta.ui.visibility: ["app"]`).
    #[serde(default)]
    pub app_tools: Vec<String>,
    /// The record's fields shown, in order (`record` views; a chart's table shows its columns).
    #[serde(default)]
    pub fields: Vec<String>,
    /// Fields shown with a copy button (among `fields`).
    #[serde(default)]
    pub copy: Vec<String>,
    /// Values drawn as codes.
    #[serde(default)]
    pub codes: Vec<CodeSpec>,
    /// Buttons that call a tool through the host.
    #[serde(default)]
    pub actions: Vec<ActionSpec>,
    /// What a `chart` view draws.
    #[serde(default)]
    pub chart: Option<ChartSpec>,
    /// Every text the view shows, each `{pt-BR: …, es: …, en: …}`: `title`, `description`, one
    /// per field, code, action tool and series, and the template's own.
    pub texts: BTreeMap<String, ViewText>,
}

/// A value drawn as a code: a record field, or `field.key` of an object field.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CodeSpec {
    pub field: String,
    /// `itf` (Interleaved 2 of 5, a billet's barcode) or `qr`.
    pub format: String,
}

/// A write button: the tool and its arguments, each from a record field.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ActionSpec {
    pub tool: String,
    /// argument → record field.
    pub arguments: BTreeMap<String, String>,
}

/// What a chart draws: rows a `grouped_totals` tool already grouped (`label`), or records grouped
/// by a date field (`date`, `by`).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    /// Pre-grouped rows: a row's label is its first of these keys.
    #[serde(default)]
    pub label: Vec<String>,
    /// Records: the date field they are grouped by.
    #[serde(default)]
    pub date: Option<String>,
    /// `day`, `week` or `month` (with `date`).
    #[serde(default)]
    pub by: Option<String>,
    /// The drawn values: columns of the grouped rows, or record fields summed per period (none:
    /// the number of records).
    #[serde(default)]
    pub series: Vec<String>,
    /// Whether the values are amounts in BRL.
    #[serde(default)]
    pub money: bool,
    /// Records: the periods drawn are this many from the current one (the server's today)
    /// forward, every one of them (a period without records is a zero), none before.
    #[serde(default)]
    pub ahead: Option<u32>,
    /// Records: each side is one series, the records its tool lists in the periods `ahead`
    /// (the view calls it through the host, under the server's rules, once per argument set,
    /// following pages), summed by the first of `series`. A chart of payables and receivables.
    #[serde(default)]
    pub sides: Vec<ChartSide>,
    /// With `sides`: a column of the first side minus the others (text `net`).
    #[serde(default)]
    pub net: bool,
}

/// One series of a chart, listed by a tool (see [`ChartSpec::sides`]).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChartSide {
    /// The series' name (its text key).
    pub series: String,
    /// A list tool of records with the chart's `date` field; it takes `<date>_from` and
    /// `<date>_to` (the periods' window) and `page` / `per_page`.
    pub tool: String,
    /// The argument sets it is called with (each, and their records added): one call per set.
    #[serde(default)]
    pub arguments: Vec<BTreeMap<String, String>>,
}

/// A text in each locale.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ViewText {
    #[serde(rename = "pt-BR", default)]
    pub pt_br: Option<String>,
    #[serde(default)]
    pub es: Option<String>,
    #[serde(default)]
    pub en: Option<String>,
}

impl ViewText {
    /// Its text in `locale`, when written (and not blank).
    pub fn get(&self, locale: runtime_model::locale::Locale) -> Option<&str> {
        match locale {
            runtime_model::locale::Locale::PtBr => self.pt_br.as_deref(),
            runtime_model::locale::Locale::Es => self.es.as_deref(),
            runtime_model::locale::Locale::En => self.en.as_deref(),
        }
        .filter(|t| !t.trim().is_empty())
    }
}

/// The catalog's `confirmation:` section (checked and compiled by `crate::confirmation`).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Confirmation {
    /// Labels of documented values (a status's), by value, shared by every record type here;
    /// a fact's own `values` win.
    #[serde(default)]
    pub values: BTreeMap<String, Words>,
    /// By record type.
    #[serde(default)]
    pub records: BTreeMap<String, RecordConfirmation>,
}

/// One record type's facts and terminal states.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RecordConfirmation {
    /// What a person recognises a record by, in the order the question shows them.
    pub facts: Vec<FactDecl>,
    /// The field holding the record's state (default `status`).
    #[serde(default = "default_state_field")]
    pub state_field: String,
    /// Per action (an action's name, `delete` or `update`): the states it cannot run in.
    #[serde(default)]
    pub terminal: BTreeMap<String, Vec<String>>,
}

/// One fact.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FactDecl {
    /// A field of the record (a dotted path reads inside an object field).
    pub field: String,
    #[serde(default)]
    pub kind: FactKind,
    pub label: Words,
    /// Labels of this field's documented values.
    #[serde(default)]
    pub values: BTreeMap<String, Words>,
    /// For a `ref` fact: the record type whose id the field holds (`financial_accounts`).
    #[serde(default)]
    pub record: Option<String>,
    /// For a `ref` fact: the field of the referenced record a person knows it by (`name`).
    #[serde(default)]
    pub show: Option<String>,
}

/// How a fact is written (`runtime_model::record_facts::FactKind`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    #[default]
    Text,
    Money,
    Date,
    Document,
    Status,
    Flag,
    /// The id of another record, shown by that record's `show` field (read for the caller)
    /// with the id beside it.
    Ref,
}

/// A word in the three locales; each is required (checked, so the refusal names the key).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Words {
    #[serde(default)]
    pub en: Option<String>,
    #[serde(default, rename = "pt-BR")]
    pub pt_br: Option<String>,
    #[serde(default)]
    pub es: Option<String>,
}
