//! The static shape of a compiled catalog.
//!
//! `codegen` turns each `catalog/<product>.yaml` into a `generated/src/<product>.rs` that builds one
//! [`Product`] out of these types, entirely from `&'static` data. The runtime serves any `Product`
//! without knowing which one it is: everything product-specific (policies, permissions, bindings,
//! prompts, completions) is data here, never code.
//!
//! JSON that clients receive verbatim (tool descriptors, template descriptors, prompt descriptors)
//! is serialized at generation time and kept as `&'static str`, so that listing does no schema work
//! per request.

pub use crate::locale::Locale;

/// One compiled product catalog.
#[derive(Debug)]
pub struct Product {
    /// `banking`, `billing`, …: also the HTTP path segment when several products are served.
    pub name: &'static str,
    pub title: &'static str,
    pub version: &'static str,
    /// `kobana://<product>/`.
    pub uri_prefix: &'static str,
    /// Every tool name of the product starts with this (may be empty).
    pub tool_prefix: &'static str,
    /// The naming pattern the product's tools follow, as documentation.
    pub naming: &'static str,
    /// Base URL of the upstream Kobana API for this product (proxy mode).
    pub api_base_url: &'static str,
    /// Whether Kobana publishes an API with this product's paths: the catalog names OpenAPI
    /// specifications for it (`product.openapi`). Without one, its bindings' paths are this
    /// project's own design, which Kobana's API does not serve, so `serve --upstream` refuses it
    /// unless the operator says the upstream implements them (`--upstream-serves`).
    pub published_api: bool,
    /// `instructions` sent in `initialize` / `server/discover`.
    pub instructions: &'static str,
    pub policy: Policy,
    pub tools: &'static [Tool],
    /// Former tool names `tools/call` still accepts, as `(alias, tool name)`; never listed.
    pub tool_aliases: &'static [(&'static str, &'static str)],
    /// Fixed-URI resources (`resources/list`).
    pub resources: &'static [Resource],
    /// URI templates (`resources/templates/list`).
    pub templates: &'static [Template],
    pub prompts: &'static [Prompt],
    /// Named completion sources, referenced by prompt arguments and template variables.
    pub completions: &'static [CompletionSource],
    /// Record types the product stores (sandbox) and describes (schemas catalog).
    pub records: &'static [RecordType],
    /// Operations deliberately left out of the catalog, with the reason (coverage gate, docs).
    pub exclusions: &'static [Exclusion],
    /// Named groups of tools a client or operator selects (see [`crate::selection`]). Empty for
    /// a product that declares none (test fixtures): then every tool is in the default selection.
    pub toolsets: &'static [Toolset],
    /// The language of the product's document: what a request that names none of ours gets.
    pub default_locale: Locale,
    /// Every text a person or model reads, per locale (in [`Locale::ALL`] order). Empty for
    /// tables not built by the generator: they speak their base texts only.
    pub locales: &'static [LocaleTexts],
    /// What a person recognises each record type by, for confirmation questions
    /// ([`crate::record_facts`]). Empty for tables not built by the generator.
    pub record_facts: &'static [crate::record_facts::RecordFacts],
    /// Tools a proxy (`--upstream`) does not list, as indices in `tools`, ascending: their
    /// record type has no endpoint in Kobana's API, so only the embedded sandbox answers them
    /// (the rule is the generator's `toolsets::sandbox_only`, which the docs' figures use too).
    pub sandbox_only: &'static [u16],
}

/// A named group of tools (`billets`, `pix`, …), resolved by the generator from the catalog's
/// names, patterns and tags to tool indices.
#[derive(Debug)]
pub struct Toolset {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// In the product's default selection (what a request that names nothing gets).
    pub default: bool,
    /// Indices in `Product::tools`, ascending.
    pub tools: &'static [u16],
}

/// The texts of one product in one locale. Each list is parallel to the product's own (the
/// same length and order), so an index found in `Product::tools` finds its texts here. Identifiers
/// (names, fields, codes, URIs) are never translated and live only in the product.
#[derive(Debug)]
pub struct LocaleTexts {
    pub locale: Locale,
    pub title: &'static str,
    pub instructions: &'static str,
    pub tools: &'static [ToolTexts],
    pub resources: &'static [ItemTexts],
    pub templates: &'static [ItemTexts],
    pub prompts: &'static [PromptTexts],
    pub records: &'static [RecordTexts],
}

#[derive(Debug)]
pub struct ToolTexts {
    pub title: &'static str,
    pub description: &'static str,
    pub destructive_clause: Option<&'static str>,
    /// The tool's `tools/list` object in this locale (the product's own, [`Tool::descriptor_json`],
    /// when this locale says the same).
    pub descriptor_json: &'static str,
    /// `(argument, label)`: a short label for each argument, from the first phrase of its
    /// description, for confirmation forms; an object argument's parts as `parent.part`.
    pub labels: &'static [(&'static str, &'static str)],
}

/// A resource's or a template's texts.
#[derive(Debug)]
pub struct ItemTexts {
    pub title: &'static str,
    pub description: &'static str,
    pub descriptor_json: &'static str,
}

#[derive(Debug)]
pub struct PromptTexts {
    pub title: &'static str,
    pub description: &'static str,
    /// The minijinja template in this locale.
    pub template: &'static str,
    pub descriptor_json: &'static str,
}

#[derive(Debug)]
pub struct RecordTexts {
    pub title: &'static str,
    /// The schemas-catalog entry in this locale.
    pub schema_json: &'static str,
}

/// Product policies: how confirmations, listings and workspaces behave. Read from the catalog.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// What a destructive tool does when the server cannot ask (2025 era, or no form elicitation).
    pub unconfirmable_destructive: UnconfirmableDestructive,
    /// The error code of a declined confirmation: `user_declined` or `USER_DECLINED`.
    pub decline_code: &'static str,
    /// What a replayed (already used) confirmation gets.
    pub replay: ReplayPolicy,
    /// The identity fields a confirmation is bound to.
    pub confirmation_binds: ConfirmationBinding,
    /// How long a confirmation stays valid.
    pub confirmation_ttl_secs: u64,
    /// How `resources/list` is filled.
    pub resources_list: ResourcesListPolicy,
    /// Whether records live in a workspace (finance, inbox).
    pub workspaced: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnconfirmableDestructive {
    /// Run the tool directly; the client confirms on `destructiveHint` (banking, billing).
    Run,
    /// Refuse with `confirmation_required`; nothing runs (finance, dashboards, inbox).
    Refuse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayPolicy {
    /// Ask again, with a notice that the approval was already used and may already have run.
    AskAgain,
    /// Answer `confirmation_replayed`; nothing runs.
    Refuse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfirmationBinding {
    pub person: bool,
    pub organization: bool,
    pub workspace: bool,
}

impl ConfirmationBinding {
    /// Bound to the person, the organization and the workspace.
    pub const ALL: Self = Self {
        person: true,
        organization: true,
        workspace: true,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourcesListPolicy {
    /// `resources/list` gives the fixed URIs only.
    FixedOnly,
    /// `resources/list` gives the fixed URIs plus the URIs of the N most recent records of every
    /// template type that takes part in listing and that the caller can list and read.
    Recent(u32),
}

/// The four MCP tool annotations. `destructive` is always explicit on non-read-only tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The complete `Tool` object of `tools/list`, serialized at generation time.
    pub descriptor_json: &'static str,
    /// The input JSON Schema (always an object at the root), serialized.
    pub input_schema_json: &'static str,
    /// The output JSON Schema, serialized, when the tool has one.
    pub output_schema_json: Option<&'static str>,
    pub annotations: Annotations,
    /// For destructive tools: the clause of the product document that makes it destructive.
    pub destructive_clause: Option<&'static str>,
    /// OAuth scope the caller needs (for example `charge.bank_billets`).
    pub scope: &'static str,
    /// Permission of the caller's role (for example `bank_billets.read`).
    pub permission: &'static str,
    /// How the tool runs.
    pub binding: Binding,
    /// What the tool does to the sandbox's records.
    pub operation: Operation,
    /// Whether a call may run as a task (the 2026-07-28 Tasks extension), from the catalog's
    /// `task:` setting.
    pub task: TaskSupport,
}

/// Whether a tool runs as a task (catalog `task: never | optional | required`).
///
/// - `Never`: always answered in the request (the default).
/// - `Optional`: a client that declares the tasks extension gets a task; others wait for the
///   answer in the request.
/// - `Required`: only a client that declares the tasks extension may call it (others get
///   -32021, missing required client capability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    #[default]
    Never,
    Optional,
    Required,
}

impl TaskSupport {
    /// The catalog spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Never => "never",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// How a tool call is executed.
#[derive(Debug, Clone, Copy)]
pub enum Binding {
    /// An HTTP operation of the product's API (proxied upstream, or served by the sandbox).
    Http(HttpBinding),
    /// A hand-written handler in an extension module, looked up by this name in the runtime's
    /// extension registry (`runtime::extensions`).
    Extension(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl HttpMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }

    /// Idempotent by HTTP semantics: safe to retry.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, HttpMethod::Post | HttpMethod::Patch)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct HttpBinding {
    pub method: HttpMethod,
    /// Path template relative to the product's API base, e.g. `/v1/bank_billets/{id}`.
    pub path: &'static str,
    /// Tool arguments substituted into the path, in order of appearance: `(path var, argument)`.
    pub path_params: &'static [(&'static str, &'static str)],
    /// Tool arguments sent as query parameters.
    pub query_params: &'static [&'static str],
    /// How the body is built.
    pub body: BodyMode,
    /// The OpenAPI operation this binding maps to (`GET /v1/bank_billets/{id}`), when one exists.
    pub operation_ref: Option<&'static str>,
}

impl HttpBinding {
    /// Whether the argument `name` travels in the request body (the API's fields of the
    /// operation), rather than in the path or the query: what an update sets.
    pub fn sends_in_body(&self, name: &str) -> bool {
        let in_url = self.path_params.iter().any(|(_, arg)| *arg == name)
            || self.query_params.contains(&name);
        match self.body {
            BodyMode::None => false,
            BodyMode::Fields(fields) | BodyMode::Wrapped(_, fields) => fields.contains(&name),
            BodyMode::Rest | BodyMode::Multipart { .. } => !in_url,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub enum BodyMode {
    /// No body.
    None,
    /// These arguments, as a JSON object.
    Fields(&'static [&'static str]),
    /// Every argument not used by path or query, as a JSON object.
    Rest,
    /// These arguments wrapped under one key, e.g. `{"bank_billet": {...}}`.
    Wrapped(&'static str, &'static [&'static str]),
    /// A `multipart/form-data` form (a file upload): each of `files` is a file part whose bytes
    /// the model sends base64-encoded; every other argument not used by path or query is a text
    /// part (see [`crate::upload`] for the names and encodings).
    Multipart { files: &'static [FileField] },
}

/// One file part of a multipart body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileField {
    /// The argument holding the base64 content, as a path: `["file"]`, or `["files", "crt_file"]`
    /// for a property nested in an object argument (sent as the part `files[crt_file]`).
    pub arg: &'static [&'static str],
    /// The argument whose value is the part's filename, if any.
    pub filename_arg: Option<&'static [&'static str]>,
    /// Whether that argument is an API field too (then it is also sent as a text part); when
    /// false it only names the part and is not sent.
    pub filename_is_field: bool,
    /// The filename when no argument gives one.
    pub default_filename: &'static str,
    /// The part's `Content-Type` (the schema's `contentMediaType`, else `application/octet-stream`).
    pub media_type: &'static str,
}

/// What a tool does to records. The sandbox executes this; the proxy ignores it.
#[derive(Debug, Clone, Copy)]
pub enum Operation {
    /// Lists records of a type: filters by equal-valued arguments, newest first, paginated.
    List {
        record: &'static str,
    },
    /// Reads one record by id.
    Get {
        record: &'static str,
        id_arg: &'static str,
    },
    /// Reads one record by id that must have `field` = `value` (a DARF: a payment of kind
    /// `darf`); any other record is not found.
    GetWhere {
        record: &'static str,
        id_arg: &'static str,
        field: &'static str,
        value: &'static str,
    },
    /// Reads the one record of its type in the caller's organization (and workspace), without an
    /// id: the token's organization. The sandbox seeds exactly one record of such a type.
    Singleton {
        record: &'static str,
    },
    /// Who the caller is (the API's identity endpoint, `GET /v2/me`): answered from the
    /// identity the token resolved to, never from a stored record.
    WhoAmI,
    /// The most recent record of its type among those the equal-valued arguments select (an
    /// account's latest balance). None selected is not found, never an empty answer.
    Latest {
        record: &'static str,
    },
    /// Totals of the numeric fields of the records the arguments select; without a date
    /// argument, of the last `days` days (0: every record).
    Summary {
        record: &'static str,
        days: u32,
    },
    /// Totals per group of the records the arguments select: the `group_by` argument names the
    /// dimensions (`day`, `week`, `month` of `date_field`, or fields), `default_by` when absent;
    /// each group counts its records and splits the signed `amount_field` into credits, debits
    /// and net.
    GroupedTotals {
        record: &'static str,
        date_field: &'static str,
        amount_field: &'static str,
        default_by: &'static str,
    },
    Create {
        record: &'static str,
    },
    Update {
        record: &'static str,
        id_arg: &'static str,
    },
    Delete {
        record: &'static str,
        id_arg: &'static str,
    },
    /// A state change on one record (cancel, pay, approve, …). An empty `id_arg` makes it a bulk
    /// action: it applies to every record the other arguments select (`cancel_all`).
    Action {
        record: &'static str,
        id_arg: &'static str,
        action: &'static Action,
    },
    /// No record semantics (extension handlers, informational calls).
    Custom,
}

/// A declared state transition.
#[derive(Debug)]
pub struct Action {
    pub name: &'static str,
    /// Allowed values of the record's state field before the action; empty means any.
    pub from: &'static [&'static str],
    /// The state field and its value after the action.
    pub set: &'static [(&'static str, &'static str)],
    /// The field holding the record's state (usually `status`).
    pub state_field: &'static str,
    /// A record of another type created by the action (pay → a payment record), if any.
    pub creates: Option<&'static str>,
    /// Appends an argument's value to an array field (adding a value already there changes nothing).
    pub add: Option<ListEdit>,
    /// Removes an argument's value from an array field (a value not there is a conflict).
    pub remove: Option<ListEdit>,
}

/// An edit of an array field by the value of one tool argument (an inbox's recipients by `email`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListEdit {
    /// The array field of the record.
    pub field: &'static str,
    /// The tool argument whose value is added or removed.
    pub from_arg: &'static str,
}

/// A fixed-URI resource.
#[derive(Debug)]
pub struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
    /// The tool that reads it; the resource is visible only when that tool is callable.
    pub read_by: &'static str,
    pub content: ContentKind,
    /// The `Resource` object of `resources/list`, serialized at generation time.
    pub descriptor_json: &'static str,
}

/// A URI template (RFC 6570 level 1).
#[derive(Debug)]
pub struct Template {
    pub uri_template: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
    pub read_by: &'static str,
    /// `(template variable, argument of read_by)`.
    pub args: &'static [(&'static str, &'static str)],
    pub content: ContentKind,
    /// Whether records of this type appear in `resources/list` (under `Recent(n)`).
    pub listed: bool,
    /// The list tool giving the most recent records of this type, if any.
    pub list_tool: Option<&'static str>,
    /// Completion source for each template variable: `(variable, source id)`.
    pub completions: &'static [(&'static str, &'static str)],
    /// A note for the docs when the read is not a plain GET-by-uid (nested path, gap, …).
    pub limitation: Option<&'static str>,
    /// The `ResourceTemplate` object of `resources/templates/list`, serialized.
    pub descriptor_json: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// The record as JSON (numeric `id` dropped).
    JsonRecord,
    /// Plain text (for example NF-e XML).
    Text,
    /// Base64 blob, refused above `max_bytes`.
    Blob { max_bytes: u64 },
    /// Blob when binary, text when the bytes are text (attachments).
    BlobOrText { max_bytes: u64 },
    /// A short-lived signed download URL, in JSON (the inbox `.eml`).
    SignedUrl { ttl_secs: u64 },
    /// The product's schemas catalog (generated from `records`).
    SchemaCatalog,
    /// One entry of the schemas catalog.
    SchemaEntry,
}

#[derive(Debug)]
pub struct Prompt {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [PromptArgument],
    /// Tools the prompt relies on; it is listed only when all are callable.
    pub uses: &'static [&'static str],
    /// Whether following the prompt writes (for read-only tokens it disappears).
    pub writes: bool,
    /// minijinja template of the user message.
    pub template: &'static str,
    /// The `Prompt` object of `prompts/list`, serialized at generation time.
    pub descriptor_json: &'static str,
}

#[derive(Debug)]
pub struct PromptArgument {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
    pub format: ArgFormat,
    /// Default when absent: `today`, `today+90d`, `today-7d`, `current_month`, or a literal.
    pub default: Option<&'static str>,
    /// Completion source id.
    pub complete: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgFormat {
    Any,
    /// `YYYY-MM-DD`
    Date,
    /// `YYYY-MM`
    Month,
}

#[derive(Debug)]
pub struct CompletionSource {
    pub id: &'static str,
    pub kind: CompletionKind,
}

#[derive(Debug, Clone, Copy)]
pub enum CompletionKind {
    /// Ids from a list tool, most recent first, by prefix, up to `limit`, under the list tool's
    /// permission (and the default workspace when the product is workspaced).
    ListIds {
        tool: &'static str,
        field: &'static str,
        limit: u32,
        /// Arguments the list tool is called with (`kind=darf`: only DARFs).
        args: &'static [(&'static str, &'static str)],
    },
    /// Values from a fixed set, by prefix.
    Fixed(&'static [&'static str]),
    /// Names of the product's schemas catalog, by prefix.
    SchemaNames,
    /// `YYYY-MM` of the last N months (current first).
    LastMonths(u32),
    /// Today, then the first day of each of the last N months (`YYYY-MM-DD`).
    TodayAndMonthStarts(u32),
    /// Always empty.
    None,
}

/// A record type: its fields drive the sandbox store, seed data and the schemas catalog.
#[derive(Debug)]
pub struct RecordType {
    /// Storage name, e.g. `bank_billets`.
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The field holding the string id (`uid` or `id`).
    pub id_field: &'static str,
    /// Whether the API payload also carries a numeric `id` (dropped from resources).
    pub numeric_id: bool,
    /// How many records the sandbox seeds.
    pub seed_count: u32,
    pub fields: &'static [Field],
    /// Set when records of this type are addressed by another record's uid while carrying a
    /// `uid` of their own (a mailbox channel, read by its mailbox entry): derived by the
    /// generator, it makes a not-found answer say which uid the address takes.
    pub keyed_by_owner: Option<OwnerKey>,
    /// The schemas-catalog entry for this record, serialized at generation time.
    pub schema_json: &'static str,
}

/// How a record type addressed by its owner's uid is found (see [`RecordType::keyed_by_owner`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerKey {
    /// The record's own uid field, which no address of it takes (`uid`).
    pub own_uid_field: &'static str,
    /// The record type whose uid the address takes (`mailbox_entries`).
    pub owner: &'static str,
    /// The tool listing the owner's records (`banking_mailbox_entry_list`).
    pub owner_list_tool: &'static str,
}

#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    /// JSON type: `string`, `integer`, `number`, `boolean`, `object`, `array`.
    pub ty: &'static str,
    pub description: &'static str,
    pub enum_values: &'static [&'static str],
    pub sortable: bool,
    /// Seed generator spec (see `catalog/README.md`), e.g. `person_name`, `cnpj`, `amount:10..5000`.
    pub seed: &'static str,
}

#[derive(Debug)]
pub struct Exclusion {
    /// `GET /v1/userinfo`
    pub operation: &'static str,
    pub reason: &'static str,
}

// Bases for tables built by hand (tests, benchmarks, the sandbox's demo catalog): each sets
// what it needs with struct update syntax (`Tool { permission: "x.read", ..Tool::bare(..) }`).

impl Annotations {
    /// Every hint false.
    pub const NONE: Annotations = Annotations {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    };
}

impl Policy {
    /// Banking's policy: a destructive tool runs when the client cannot be asked, a replayed
    /// confirmation is asked again, confirmations bind person and organization for 5 minutes,
    /// `resources/list` shows fixed resources only, records are not in workspaces.
    pub const RUN_UNCONFIRMED: Policy = Policy {
        unconfirmable_destructive: UnconfirmableDestructive::Run,
        decline_code: "user_declined",
        replay: ReplayPolicy::AskAgain,
        confirmation_binds: ConfirmationBinding {
            person: true,
            organization: true,
            workspace: false,
        },
        confirmation_ttl_secs: 300,
        resources_list: ResourcesListPolicy::FixedOnly,
        workspaced: false,
    };
}

impl Tool {
    /// A tool with a name and a binding only: no title, description, scope or permission, a `{}`
    /// descriptor, an object input schema, no output schema, no hints, a custom operation.
    pub const fn bare(name: &'static str, binding: Binding) -> Tool {
        Tool {
            name,
            title: "",
            description: "",
            descriptor_json: "{}",
            input_schema_json: "{\"type\":\"object\"}",
            output_schema_json: None,
            annotations: Annotations::NONE,
            destructive_clause: None,
            scope: "",
            permission: "",
            binding,
            operation: Operation::Custom,
            task: TaskSupport::Never,
        }
    }
}

impl Product {
    /// A product with a name and tools only, under [`Policy::RUN_UNCONFIRMED`], with no resources,
    /// prompts, completions or records, bound to an unreachable API.
    pub const fn bare(name: &'static str, tools: &'static [Tool]) -> Product {
        Product {
            name,
            title: "",
            version: "0.0.0",
            uri_prefix: "test://",
            tool_prefix: "",
            naming: "",
            api_base_url: "http://127.0.0.1:9",
            published_api: true,
            instructions: "",
            policy: Policy::RUN_UNCONFIRMED,
            tools,
            tool_aliases: &[],
            resources: &[],
            templates: &[],
            prompts: &[],
            completions: &[],
            records: &[],
            exclusions: &[],
            toolsets: &[],
            default_locale: Locale::En,
            locales: &[],
            record_facts: &[],
            sandbox_only: &[],
        }
    }

    /// The URI of the resource that `tool` reads, with the template's variables filled from the
    /// call's arguments (encoded by the one rule of [`crate::uri_template`], which
    /// `resources/read` decodes back to the same values); `None` when no resource or template is
    /// read by the tool, or an argument is missing, empty or not a string or number.
    pub fn resource_uri_of(
        &self,
        tool: &Tool,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<String> {
        use serde_json::Value;
        if let Some(r) = self.resources.iter().find(|r| r.read_by == tool.name) {
            return Some(r.uri.to_string());
        }
        let template = self.templates.iter().find(|t| t.read_by == tool.name)?;
        crate::uri_template::UriTemplate::parse(template.uri_template)
            .ok()?
            .fill(|var| {
                let arg = template.args.iter().find(|(v, _)| *v == var)?.1;
                match args.get(arg)? {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                }
            })
    }

    /// The product's texts in `locale`, when the generator built them.
    pub fn texts(&self, locale: Locale) -> Option<&'static LocaleTexts> {
        self.locales.iter().find(|t| t.locale == locale)
    }

    pub fn tool(&self, name: &str) -> Option<&'static Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
    pub fn prompt(&self, name: &str) -> Option<&'static Prompt> {
        self.prompts.iter().find(|p| p.name == name)
    }
    pub fn completion(&self, id: &str) -> Option<&'static CompletionSource> {
        self.completions.iter().find(|c| c.id == id)
    }
    pub fn record(&self, name: &str) -> Option<&'static RecordType> {
        self.records.iter().find(|r| r.name == name)
    }
}

/// What a product's confirmation questions show of a record (`crate::record_facts`), found
/// from the tool that touches it.
impl Product {
    /// The facts of `record` in this product.
    pub fn facts_of(&self, record: &str) -> Option<&'static crate::record_facts::RecordFacts> {
        self.record_facts.iter().find(|r| r.record == record)
    }
}

impl Tool {
    /// What a destructive tool does to which existing record: the record type, the argument
    /// that names it, and the action's name for terminal states (`delete`, `update`, or the
    /// action's). `None` for a tool that touches no one existing record (a create, a bulk
    /// action).
    pub fn touched_record(&self) -> Option<(&'static str, &'static str, &'static str)> {
        match self.operation {
            Operation::Update { record, id_arg } => Some((record, id_arg, "update")),
            Operation::Delete { record, id_arg } => Some((record, id_arg, "delete")),
            Operation::Action {
                record,
                id_arg,
                action,
            } if !id_arg.is_empty() => Some((record, id_arg, action.name)),
            _ => None,
        }
    }

    /// The record type a tool works on (a create's included).
    pub fn record_type(&self) -> Option<&'static str> {
        match self.operation {
            Operation::Create { record }
            | Operation::Update { record, .. }
            | Operation::Delete { record, .. }
            | Operation::Action { record, .. }
            | Operation::Get { record, .. }
            | Operation::GetWhere { record, .. } => Some(record),
            _ => None,
        }
    }
}
