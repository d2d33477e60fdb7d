//! The semantic checks a parsed catalog must pass before anything is generated.
//!
//! Shape errors (unknown keys, wrong types, missing keys) are caught by `serde_yaml` in
//! [`crate::load`]. This module checks what a type cannot say: references between parts of the
//! catalog, naming rules, MCP annotation rules, schema restrictions, templates that compile. Each
//! rule reports every violation it finds, pointing at the offending key, with what would be valid.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::diag::Diagnostic;
use crate::load::Loaded;
use crate::locate::{index_path, key_path};
use crate::model::{
    Body, CompletionSource, Content, ListEdit, OperationKind, RecordType, ResourcesList, Tool,
};

/// Longest tool name the MCP clients accept.
pub const MAX_TOOL_NAME: usize = 64;

/// The two spellings of the decline error.
const DECLINE_CODES: &[&str] = &["user_declined", "USER_DECLINED"];
const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
/// The methods that can carry a multipart form.
const MULTIPART_METHODS: &[&str] = &["POST", "PUT", "PATCH"];
const FIELD_TYPES: &[&str] = &["string", "integer", "number", "boolean", "object", "array"];
/// Variables every prompt template receives besides its arguments.
const PROMPT_GLOBALS: &[&str] = &["today"];
/// minijinja's own global functions, which `undeclared_variables` reports too.
const JINJA_BUILTINS: &[&str] = &[
    "range",
    "dict",
    "namespace",
    "debug",
    "lipsum",
    "cycler",
    "joiner",
    "loop",
    "self",
];
/// Words a Rust module cannot be named (the product name becomes a module name).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Checks one catalog; returns every problem found (empty when valid).
pub fn validate(l: &Loaded) -> Vec<Diagnostic> {
    let mut v = Validator {
        l,
        out: Vec::new(),
        tools: l
            .catalog
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), (i, t)))
            .collect(),
    };
    v.product();
    v.policies();
    v.records();
    v.tools();
    v.singletons();
    v.resources_and_templates();
    v.prompts();
    v.completions();
    v.exclusions();
    v.out
}

/// Checks across catalogs: product names are unique.
pub fn validate_set(all: &[Loaded]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for l in all {
        let name = l.catalog.product.name.as_str();
        if let Some(first) = seen.insert(name, &l.source.display) {
            out.push(l.at_value(
                "product.name",
                format!("product `{name}` is already defined in {first}"),
                Some("each catalog names a different product".into()),
            ));
        }
    }
    out
}

struct Validator<'a> {
    l: &'a Loaded,
    out: Vec<Diagnostic>,
    tools: HashMap<&'a str, (usize, &'a Tool)>,
}

/// Whether a tool lists records (and so can feed completions and `resources/list`).
pub fn is_list_tool(t: &Tool) -> bool {
    t.operation.as_ref().map(|o| o.kind) == Some(OperationKind::List) || t.name.ends_with("_list")
}

/// Top-level property names of a JSON Schema written in YAML.
pub fn schema_properties(schema: &serde_yaml::Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(|p| p.as_mapping())
        .map(|m| {
            m.keys()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The `required` list of a JSON Schema written in YAML.
pub fn schema_required(schema: &serde_yaml::Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(|r| r.as_sequence())
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The schema of a (possibly nested) property: `["files", "crt_file"]` is
/// `properties.files.properties.crt_file`.
pub fn property_at<'v>(
    schema: &'v serde_yaml::Value,
    path: &[&str],
) -> Option<&'v serde_yaml::Value> {
    path.iter()
        .try_fold(schema, |s, seg| s.get("properties")?.get(*seg))
}

/// `type: string`, alone or with `null`.
fn is_string_schema(schema: &serde_yaml::Value) -> bool {
    match schema.get("type") {
        Some(serde_yaml::Value::String(t)) => t == "string",
        Some(serde_yaml::Value::Sequence(ts)) => {
            ts.iter().any(|t| t.as_str() == Some("string"))
                && ts
                    .iter()
                    .all(|t| matches!(t.as_str(), Some("string" | "null")))
        }
        _ => false,
    }
}

/// Dotted paths of every property (at any depth of `properties`) declared
/// `contentEncoding: base64`.
pub fn base64_properties(schema: &serde_yaml::Value) -> Vec<String> {
    fn walk(schema: &serde_yaml::Value, prefix: &str, out: &mut Vec<String>) {
        let Some(props) = schema.get("properties").and_then(|p| p.as_mapping()) else {
            return;
        };
        for (k, v) in props {
            let Some(k) = k.as_str() else { continue };
            let path = if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            };
            if v.get("contentEncoding").and_then(|e| e.as_str()) == Some("base64") {
                out.push(path.clone());
            }
            walk(v, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(schema, "", &mut out);
    out
}

/// The `{var}` names of an RFC 6570 level-1 template, or what is wrong with it.
pub fn template_vars(template: &str) -> Result<Vec<String>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("a `}` without its `{`".into());
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| "a `{` without its `}`".to_string())?;
        let name = &after[..close];
        if name.is_empty() {
            return Err("an empty `{}` expression".into());
        }
        if let Some(op) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
            return Err(format!(
                "`{{{name}}}` uses the operator `{op}`, which is RFC 6570 level 2 or 3; only simple `{{name}}` variables (level 1) are allowed"
            ));
        }
        if name.contains(':') || name.contains('*') {
            return Err(format!(
                "`{{{name}}}` uses a modifier (`:N` or `*`), which is RFC 6570 level 4; only simple `{{name}}` variables (level 1) are allowed"
            ));
        }
        if name.contains(',') {
            return Err(format!(
                "`{{{name}}}` lists several variables in one expression; write one `{{name}}` per variable"
            ));
        }
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{name}}}` is not a variable name; use letters, digits and `_`"
            ));
        }
        if vars.iter().any(|v| v == name) {
            return Err(format!("the variable `{{{name}}}` appears twice"));
        }
        vars.push(name.to_string());
        rest = &after[close + 1..];
    }
    Ok(vars)
}

fn is_snake_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn is_identifier(s: &str) -> bool {
    is_snake_name(s) && s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
}

fn one_of(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Closest candidate by edit distance, for "did you mean" hints.
fn closest<'b>(word: &str, candidates: impl IntoIterator<Item = &'b str>) -> Option<&'b str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(2))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

impl<'a> Validator<'a> {
    fn key(&mut self, path: &str, message: String, hint: Option<String>) {
        self.out.push(self.l.at_key(path, message, hint));
    }

    fn value(&mut self, path: &str, message: String, hint: Option<String>) {
        self.out.push(self.l.at_value(path, message, hint));
    }

    /// A reference to a tool: reports when it does not exist.
    fn tool_ref(&mut self, path: &str, name: &str, what: &str) -> Option<&'a Tool> {
        if let Some((_, t)) = self.tools.get(name) {
            return Some(t);
        }
        let names: Vec<&str> = self.tools.keys().copied().collect();
        let hint = match closest(name, names.iter().copied()) {
            Some(c) => format!("did you mean `{c}`? {what} must name a tool of this catalog"),
            None => format!("{what} must name a tool of this catalog's `tools`"),
        };
        self.value(path, format!("unknown tool `{name}`"), Some(hint));
        None
    }

    fn completion_ref(&mut self, path: &str, id: &str) {
        let c = &self.l.catalog.completions;
        if !c.contains_key(id) {
            let hint = if c.is_empty() {
                "define it under the top-level `completions:` map".to_string()
            } else {
                format!(
                    "one of {} (keys of `completions:`), or define `{id}` there",
                    one_of(&c.keys().map(String::as_str).collect::<Vec<_>>())
                )
            };
            self.value(
                path,
                format!("unknown completion source `{id}`"),
                Some(hint),
            );
        }
    }

    fn record_ref(&mut self, path: &str, name: &str) -> bool {
        let records = &self.l.catalog.records;
        if records.contains_key(name) {
            return true;
        }
        let hint = if records.is_empty() {
            "declare the record type under the top-level `records:` map".to_string()
        } else {
            format!(
                "one of {}",
                one_of(&records.keys().map(String::as_str).collect::<Vec<_>>())
            )
        };
        self.value(path, format!("unknown record type `{name}`"), Some(hint));
        false
    }

    fn product(&mut self) {
        let p = &self.l.catalog.product;
        let src = &self.l.source;
        if !is_identifier(&p.name) || RUST_KEYWORDS.contains(&p.name.as_str()) {
            self.value(
                "product.name",
                format!("`{}` cannot name a product", p.name),
                Some("lowercase letters, digits and `_`, starting with a letter, not a Rust keyword (it becomes the module `generated::<name>`)".into()),
            );
        }
        if p.name != src.stem {
            self.value(
                "product.name",
                format!(
                    "the product is named `{}` but its file is `{}`",
                    p.name, src.display
                ),
                Some(format!(
                    "name the file `{}.yaml`, or the product `{}`",
                    p.name, src.stem
                )),
            );
        }
        if p.fixture != src.in_fixtures {
            let hint = if src.in_fixtures {
                "files under catalog/fixtures/ are test products: set `fixture: true`"
            } else {
                "a test product lives under catalog/fixtures/; a catalog/*.yaml product has `fixture: false` (the default)"
            };
            self.key(
                "product.fixture",
                format!("`fixture: {}` does not match where the file is", p.fixture),
                Some(hint.into()),
            );
        }
        for (path, val) in [
            ("product.title", &p.title),
            ("product.version", &p.version),
            ("product.naming", &p.naming),
        ] {
            if val.trim().is_empty() {
                self.value(path, "must not be empty".into(), None);
            }
        }
        let prefix_ok = p.uri_prefix.contains("://")
            && p.uri_prefix.ends_with('/')
            && !p.uri_prefix.contains('{');
        if !prefix_ok {
            self.value(
                "product.uri_prefix",
                format!("`{}` is not a URI prefix", p.uri_prefix),
                Some(format!(
                    "a scheme, `://`, and a trailing `/`, e.g. `kobana://{}/`",
                    p.name
                )),
            );
        }
        if !(p.api_base_url.starts_with("https://") || p.api_base_url.starts_with("http://")) {
            self.value(
                "product.api_base_url",
                format!("`{}` is not an http(s) URL", p.api_base_url),
                Some("e.g. `https://api.kobana.com.br`".into()),
            );
        }
        if !p.tool_prefix.is_empty() && !is_snake_name(&p.tool_prefix) {
            self.value(
                "product.tool_prefix",
                format!("`{}` cannot start tool names", p.tool_prefix),
                Some("lowercase letters, digits and `_`".into()),
            );
        }
    }

    fn policies(&mut self) {
        let p = &self.l.catalog.policies;
        if !DECLINE_CODES.contains(&p.decline_code.as_str()) {
            self.value(
                "policies.decline_code",
                format!("`{}` is not a decline code", p.decline_code),
                Some(one_of(DECLINE_CODES)),
            );
        }
        if p.confirmation_binds.is_empty() {
            self.value(
                "policies.confirmation_binds",
                "a confirmation must be bound to at least one identity field".into(),
                Some("a list of `person`, `organization`, `workspace`".into()),
            );
        }
        let mut seen = BTreeSet::new();
        for (i, b) in p.confirmation_binds.iter().enumerate() {
            if !seen.insert(*b) {
                self.value(
                    &index_path("policies.confirmation_binds", i),
                    format!("`{b:?}` is listed twice").to_lowercase(),
                    Some("list each of `person`, `organization`, `workspace` at most once".into()),
                );
            }
            if *b == crate::model::BindField::Workspace && !p.workspaced {
                self.value(
                    &index_path("policies.confirmation_binds", i),
                    "a confirmation is bound to the workspace, but the product is not workspaced"
                        .into(),
                    Some(
                        "set `policies.workspaced: true`, or bind to `person`/`organization` only"
                            .into(),
                    ),
                );
            }
        }
        if p.confirmation_ttl_seconds == 0 {
            self.value(
                "policies.confirmation_ttl_seconds",
                "a confirmation must live more than 0 seconds".into(),
                Some("a positive number of seconds, e.g. 300".into()),
            );
        }
        if p.resources_list == ResourcesList::Recent(0) {
            self.value(
                "policies.resources_list",
                "`recent: 0` lists nothing".into(),
                Some("`fixed`, or `{recent: N}` with N > 0".into()),
            );
        }
    }

    fn records(&mut self) {
        let records = &self.l.catalog.records;
        for (name, r) in records {
            let base = key_path("records", name);
            if !is_identifier(name) {
                self.key(
                    &base,
                    format!("`{name}` cannot name a record type"),
                    Some("lowercase letters, digits and `_`, starting with a letter".into()),
                );
            }
            if !r.fields.contains_key(&r.id_field) {
                self.value(
                    &key_path(&base, "id_field"),
                    format!(
                        "the id field `{}` is not among the record's fields",
                        r.id_field
                    ),
                    Some(format!(
                        "declare `{}` under `fields:`, or set `id_field` to one of {}",
                        r.id_field,
                        one_of(&r.fields.keys().map(String::as_str).collect::<Vec<_>>())
                    )),
                );
            }
            for (fname, f) in &r.fields {
                let fpath = key_path(&key_path(&base, "fields"), fname);
                if !FIELD_TYPES.contains(&f.ty.as_str()) {
                    self.value(
                        &key_path(&fpath, "type"),
                        format!("`{}` is not a field type", f.ty),
                        Some(one_of(FIELD_TYPES)),
                    );
                }
                if !f.seed.is_empty() {
                    if let Err(why) = check_seed(&f.seed, !f.enum_values.is_empty(), records) {
                        self.value(&key_path(&fpath, "seed"), why, Some(SEED_HINT.into()));
                    }
                }
            }
        }
    }

    fn tools(&mut self) {
        let cat = &self.l.catalog;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, t) in cat.tools.iter().enumerate() {
            let base = index_path("tools", i);
            let name_path = key_path(&base, "name");
            if let Some(first) = seen.insert(&t.name, i) {
                self.value(
                    &name_path,
                    format!(
                        "duplicate tool name `{}` (first defined at tools[{first}])",
                        t.name
                    ),
                    Some("every tool name is unique within a product".into()),
                );
            }
            if t.name.len() > MAX_TOOL_NAME {
                self.value(
                    &name_path,
                    format!("tool name `{}` is {} characters long", t.name, t.name.len()),
                    Some(format!("at most {MAX_TOOL_NAME} characters")),
                );
            }
            if !is_snake_name(&t.name) {
                self.value(
                    &name_path,
                    format!("tool name `{}` has characters outside [a-z0-9_]", t.name),
                    Some("lowercase ASCII letters, digits and `_` only".into()),
                );
            }
            let prefix = &cat.product.tool_prefix;
            if !t.name.starts_with(prefix.as_str()) {
                self.value(
                    &name_path,
                    format!(
                        "tool name `{}` does not start with the product's tool prefix",
                        t.name
                    ),
                    Some(format!("`{prefix}…` (product.tool_prefix)")),
                );
            }
            // Scope and permission may be empty: the runtime then checks only the read/write
            // meta scope (identity endpoints any caller may use).
            for (k, v) in [("title", &t.title), ("description", &t.description)] {
                if v.trim().is_empty() {
                    self.value(&key_path(&base, k), "must not be empty".into(), None);
                }
            }
            let props = self.input_schema(&base, t);
            self.output_schema(&base, t);
            self.annotations(&base, t);
            self.binding(&base, t, &props);
            self.operation(&base, t, &props);
        }
    }

    /// Checks the input schema restriction; returns its top-level properties.
    fn input_schema(&mut self, base: &str, t: &Tool) -> Vec<String> {
        let path = key_path(base, "input_schema");
        let hint = "a mapping with `type: object` and `properties:`; express alternatives inside properties, not with top-level `anyOf`/`oneOf`/`allOf` (clients reject them)";
        let Some(map) = t.input_schema.as_mapping() else {
            self.value(
                &path,
                "the input schema is not a mapping".into(),
                Some(hint.into()),
            );
            return Vec::new();
        };
        if t.input_schema.get("type").and_then(|v| v.as_str()) != Some("object") {
            self.value(
                &path,
                "the input schema's root is not `type: object`".into(),
                Some(hint.into()),
            );
        }
        for k in ["anyOf", "oneOf", "allOf", "not", "$ref"] {
            if map.contains_key(k) {
                self.key(
                    &key_path(&path, k),
                    format!("top-level `{k}` in an input schema"),
                    Some(hint.into()),
                );
            }
        }
        if let Some(p) = map.get("properties") {
            if !p.is_mapping() {
                self.value(
                    &key_path(&path, "properties"),
                    "`properties` is not a mapping".into(),
                    Some("a mapping from argument name to its JSON Schema".into()),
                );
            }
        }
        let props = schema_properties(&t.input_schema);
        if let Some(req) = map.get("required") {
            match req.as_sequence() {
                Some(items) => {
                    for (j, item) in items.iter().enumerate() {
                        let name = item.as_str().unwrap_or_default();
                        if !props.iter().any(|p| p == name) {
                            self.value(
                                &index_path(&key_path(&path, "required"), j),
                                format!("required argument `{name}` is not a property"),
                                Some(format!(
                                    "one of {}",
                                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                                )),
                            );
                        }
                    }
                }
                None => self.value(
                    &key_path(&path, "required"),
                    "`required` is not a list".into(),
                    Some("a list of property names".into()),
                ),
            }
        }
        if serde_json::to_value(&t.input_schema).is_err() {
            self.value(
                &path,
                "the input schema cannot be expressed as JSON (non-string keys?)".into(),
                Some("string keys only".into()),
            );
        }
        props
    }

    fn output_schema(&mut self, base: &str, t: &Tool) {
        let Some(schema) = &t.output_schema else {
            return;
        };
        let path = key_path(base, "output_schema");
        if schema.get("type").and_then(|v| v.as_str()) != Some("object") {
            self.value(
                &path,
                "the output schema's root is not `type: object`".into(),
                Some("MCP structured content is a JSON object: `type: object` at the root".into()),
            );
        }
        if serde_json::to_value(schema).is_err() {
            self.value(
                &path,
                "the output schema cannot be expressed as JSON".into(),
                Some("string keys only".into()),
            );
        }
    }

    fn annotations(&mut self, base: &str, t: &Tool) {
        let a = &t.annotations;
        let apath = key_path(base, "annotations");
        let dpath = key_path(&apath, "destructiveHint");
        if a.read_only && a.destructive == Some(true) {
            self.value(
                &dpath,
                "a read-only tool is marked destructive".into(),
                Some("`destructiveHint: false` (or omit it) on a read-only tool, or `readOnlyHint: false`".into()),
            );
        }
        if !a.read_only && a.destructive.is_none() {
            self.key(
                &apath,
                "a tool that is not read-only must say `destructiveHint` explicitly".into(),
                Some("add `destructiveHint: true` (it deletes, cancels, pays or overwrites) or `destructiveHint: false` (it only adds)".into()),
            );
        }
        let destructive = !a.read_only && a.destructive == Some(true);
        let cpath = key_path(base, "destructive_clause");
        match (&t.destructive_clause, destructive) {
            (None, true) => self.key(
                base,
                "a destructive tool has no `destructive_clause`".into(),
                Some("add `destructive_clause:` quoting the product document's clause that makes it destructive".into()),
            ),
            (Some(c), true) if c.trim().is_empty() => self.value(
                &cpath,
                "the destructive clause is empty".into(),
                Some("quote the product document's clause".into()),
            ),
            (Some(_), false) => self.key(
                &cpath,
                "a tool that is not destructive carries a `destructive_clause`".into(),
                Some("remove it, or mark the tool `destructiveHint: true`".into()),
            ),
            _ => {}
        }
    }

    fn binding(&mut self, base: &str, t: &Tool, props: &[String]) {
        match (&t.http, &t.handler) {
            (Some(_), Some(_)) => self.key(
                &key_path(base, "handler"),
                "a tool has both `http` and `handler`".into(),
                Some("exactly one: `http:` for an API operation, `handler:` for a hand-written extension".into()),
            ),
            (None, None) => self.key(
                base,
                "a tool has neither `http` nor `handler`".into(),
                Some("exactly one: `http: {method, path, …}` or `handler: <name>`".into()),
            ),
            (None, Some(h)) => {
                if !is_identifier(h) {
                    self.value(
                        &key_path(base, "handler"),
                        format!("`{h}` cannot name a handler"),
                        Some("lowercase letters, digits and `_`, starting with a letter".into()),
                    );
                }
            }
            (Some(http), None) => {
                let hpath = key_path(base, "http");
                if !HTTP_METHODS.contains(&http.method.as_str()) {
                    self.value(
                        &key_path(&hpath, "method"),
                        format!("`{}` is not an HTTP method", http.method),
                        Some(one_of(HTTP_METHODS)),
                    );
                }
                let ppath = key_path(&hpath, "path");
                if !http.path.starts_with('/') {
                    self.value(
                        &ppath,
                        format!("`{}` does not start with `/`", http.path),
                        Some("a path relative to the API base, e.g. `/v1/bank_billets/{id}`".into()),
                    );
                }
                let props_hint = || {
                    if props.is_empty() {
                        "the input schema declares no properties; add one".to_string()
                    } else {
                        format!(
                            "a property of input_schema: {}",
                            one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                        )
                    }
                };
                match template_vars(&http.path) {
                    Err(why) => self.value(&ppath, why, Some("`{name}` path variables".into())),
                    Ok(vars) => {
                        for var in &vars {
                            let arg = http.path_args.get(var).unwrap_or(var);
                            if !props.iter().any(|p| p == arg) {
                                self.value(
                                    &ppath,
                                    format!(
                                        "path parameter `{{{var}}}` takes the argument `{arg}`, which is not in the input schema"
                                    ),
                                    Some(format!("{}; or map it with `path_args: {{{var}: <argument>}}`", props_hint())),
                                );
                            } else if !schema_required(&t.input_schema).contains(arg) {
                                self.value(
                                    &ppath,
                                    format!(
                                        "path parameter `{{{var}}}` takes the argument `{arg}`, which the input schema does not require"
                                    ),
                                    Some(format!("add `{arg}` to `input_schema.required`: without it the URL cannot be built")),
                                );
                            }
                        }
                        for k in http.path_args.keys() {
                            if !vars.contains(k) {
                                self.key(
                                    &key_path(&key_path(&hpath, "path_args"), k),
                                    format!("`{k}` is not a variable of the path `{}`", http.path),
                                    Some(format!("one of {}", one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>()))),
                                );
                            }
                        }
                    }
                }
                for (j, q) in http.query.iter().enumerate() {
                    if !props.contains(q) {
                        self.value(
                            &index_path(&key_path(&hpath, "query"), j),
                            format!("query argument `{q}` is not in the input schema"),
                            Some(props_hint()),
                        );
                    }
                }
                let (fields, fields_path) = match &http.body {
                    Some(Body::Fields(f)) => (f.as_slice(), key_path(&hpath, "body")),
                    Some(Body::Wrapped(w)) => {
                        (w.fields.as_slice(), key_path(&key_path(&hpath, "body"), "fields"))
                    }
                    _ => (&[][..], String::new()),
                };
                for (j, f) in fields.iter().enumerate() {
                    if !props.contains(f) {
                        self.value(
                            &index_path(&fields_path, j),
                            format!("body argument `{f}` is not in the input schema"),
                            Some(props_hint()),
                        );
                    }
                }
                if let Some(Body::Multipart(m)) = &http.body {
                    self.multipart(&hpath, t, http, &m.multipart);
                }
                if http.method == "GET" && http.body.is_some() {
                    self.key(
                        &key_path(&hpath, "body"),
                        "a GET binding has a body".into(),
                        Some("send GET arguments with `query:`, or use POST".into()),
                    );
                }
            }
        }
    }

    /// A `{multipart: {files: [...]}}` body: a method that carries a body, and file parts whose
    /// arguments are base64 strings of the input schema, each named once, none in path or query;
    /// every base64 property of the schema is one of the file parts.
    fn multipart(
        &mut self,
        hpath: &str,
        t: &Tool,
        http: &crate::model::HttpBinding,
        form: &crate::model::MultipartForm,
    ) {
        let fpath = key_path(&key_path(&key_path(hpath, "body"), "multipart"), "files");
        if !MULTIPART_METHODS.contains(&http.method.as_str()) {
            self.value(
                &key_path(hpath, "method"),
                format!("a `{}` binding cannot send a multipart form", http.method),
                Some(format!(
                    "a multipart body needs {}",
                    one_of(MULTIPART_METHODS)
                )),
            );
        }
        if form.files.is_empty() {
            self.value(
                &fpath,
                "a multipart body with no file part".into(),
                Some("list the file arguments: `files: [{arg: <base64 argument>}]`, or use `body: rest` for a JSON body".into()),
            );
        }
        let base64_props = base64_properties(&t.input_schema);
        let path_args: Vec<String> = template_vars(&http.path)
            .unwrap_or_default()
            .into_iter()
            .map(|v| http.path_args.get(&v).cloned().unwrap_or(v))
            .collect();
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for (j, file) in form.files.iter().enumerate() {
            let part = index_path(&fpath, j);
            let apath = key_path(&part, "arg");
            let segments: Vec<&str> = file.arg.split('.').collect();
            if !seen.insert(file.arg.as_str()) {
                self.value(
                    &apath,
                    format!("the file argument `{}` is listed twice", file.arg),
                    Some("list each file argument once".into()),
                );
            }
            if path_args
                .iter()
                .chain(&http.query)
                .any(|a| a == segments[0])
            {
                self.value(
                    &apath,
                    format!(
                        "the file argument `{}` is also sent in the path or query",
                        file.arg
                    ),
                    Some(
                        "a file part is sent in the body only; remove it from `path`/`query`"
                            .into(),
                    ),
                );
            }
            match property_at(&t.input_schema, &segments) {
                None => {
                    let hint = if base64_props.is_empty() {
                        "a property of input_schema with `type: string` and `contentEncoding: base64`; nest with a dotted path (`files.crt_file`)".to_string()
                    } else {
                        format!(
                            "one of the input schema's base64 properties: {}",
                            one_of(&base64_props.iter().map(String::as_str).collect::<Vec<_>>())
                        )
                    };
                    self.value(
                        &apath,
                        format!(
                            "the file argument `{}` is not in the input schema",
                            file.arg
                        ),
                        Some(hint),
                    );
                }
                Some(schema) => {
                    if !is_string_schema(schema)
                        || schema.get("contentEncoding").and_then(|v| v.as_str()) != Some("base64")
                    {
                        self.value(
                            &apath,
                            format!(
                                "the file argument `{}` is not a base64 string in the input schema",
                                file.arg
                            ),
                            Some("declare it `type: string` with `contentEncoding: base64` (and `contentMediaType` when the file type is known): the model sends the file's bytes base64-encoded".into()),
                        );
                    }
                }
            }
            if let (Some(_), Some(_)) = (&file.filename_arg, &file.filename_field) {
                self.key(
                    &key_path(&part, "filename_field"),
                    "a file part has both `filename_arg` and `filename_field`".into(),
                    Some("`filename_field` when the API has its own field naming the file (it is sent too), `filename_arg` when the argument only names the part".into()),
                );
            }
            for (key, name) in [
                ("filename_arg", &file.filename_arg),
                ("filename_field", &file.filename_field),
            ] {
                let Some(name) = name else { continue };
                let npath = key_path(&part, key);
                let segs: Vec<&str> = name.split('.').collect();
                match property_at(&t.input_schema, &segs) {
                    None => self.value(
                        &npath,
                        format!("the filename argument `{name}` is not in the input schema"),
                        Some(
                            "a `type: string` property of input_schema (dotted path when nested)"
                                .into(),
                        ),
                    ),
                    Some(schema) if !is_string_schema(schema) => self.value(
                        &npath,
                        format!(
                            "the filename argument `{name}` is not a string in the input schema"
                        ),
                        Some("declare it `type: string` (or `[string, \"null\"]`)".into()),
                    ),
                    Some(_) if form.files.iter().any(|f| &f.arg == name) => self.value(
                        &npath,
                        format!("`{name}` is a file argument, not a file name"),
                        Some("name a separate string argument, e.g. `<file>_filename`".into()),
                    ),
                    Some(_) => {}
                }
            }
            if let Some(d) = &file.default_filename {
                let bad = d.trim().is_empty()
                    || d.chars()
                        .any(|c| c.is_control() || matches!(c, '/' | '\\' | '"'));
                if bad {
                    self.value(
                        &key_path(&part, "default_filename"),
                        format!("`{d}` cannot name an uploaded file"),
                        Some("a plain file name without `/`, `\\`, `\"` or control characters, e.g. `retorno.ret`".into()),
                    );
                }
            }
        }
        for prop in &base64_props {
            if !form.files.iter().any(|f| &f.arg == prop) {
                self.value(
                    &fpath,
                    format!("the base64 argument `{prop}` is not a file part, so it would be sent as text"),
                    Some(format!("add `{{arg: {prop}}}` to `files`, or drop `contentEncoding: base64` from it")),
                );
            }
        }
    }

    fn operation(&mut self, base: &str, t: &Tool, props: &[String]) {
        let Some(op) = &t.operation else {
            return;
        };
        let opath = key_path(base, "operation");
        let needs_record = op.kind != OperationKind::Custom;
        let needs_id = matches!(
            op.kind,
            OperationKind::Get | OperationKind::Update | OperationKind::Delete
        );
        let mut record_ok = false;
        match &op.record {
            Some(r) => record_ok = self.record_ref(&key_path(&opath, "record"), r),
            None if needs_record => self.key(
                &opath,
                format!("a `{:?}` operation names no `record`", op.kind).to_lowercase(),
                Some("`record: <key of records>`".into()),
            ),
            None => {}
        }
        match &op.id_arg {
            Some(a) if !props.contains(a) => self.value(
                &key_path(&opath, "id_arg"),
                format!("`{a}` is not an argument of the tool"),
                Some(format!(
                    "a property of input_schema: {}",
                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                )),
            ),
            Some(_) if matches!(op.kind, OperationKind::Singleton | OperationKind::Latest) => self
                .key(
                &key_path(&opath, "id_arg"),
                "a `singleton` operation reads its record without an id, so it takes no `id_arg`"
                    .into(),
                Some("remove `id_arg`, or use `kind: get` to read a record by id".into()),
            ),
            None if needs_id => self.key(
                &opath,
                format!("a `{:?}` operation names no `id_arg`", op.kind).to_lowercase(),
                Some("`id_arg: <the argument carrying the record id>`".into()),
            ),
            _ => {}
        }
        if let Some(w) = &op.where_ {
            if op.kind != OperationKind::Get || w.len() != 1 {
                self.key(
                    &key_path(&opath, "where"),
                    "`where:` takes one `field: value` on a `get` operation".into(),
                    Some("`kind: get` with `where: {kind: darf}`".into()),
                );
            }
            if let (Some(rname), Some((f, _))) = (&op.record, w.iter().next()) {
                if let Some(rec) = self.l.catalog.records.get(rname) {
                    if !rec.fields.contains_key(f) {
                        self.key(
                            &key_path(&key_path(&opath, "where"), f),
                            format!("`{f}` is not a field of `{rname}`"),
                            None,
                        );
                    }
                }
            }
        }
        if op.days.is_some() && op.kind != OperationKind::Summary {
            self.key(
                &key_path(&opath, "days"),
                "`days:` on an operation whose kind is not `summary`".into(),
                Some("`kind: summary`, or remove `days:`".into()),
            );
        }
        match (&op.action, op.kind) {
            (None, OperationKind::Action) => self.key(
                &opath,
                "an `action` operation has no `action:`".into(),
                Some("`action: {name, from: [..], set: {status: ..}}`".into()),
            ),
            (Some(_), k) if k != OperationKind::Action => self.key(
                &key_path(&opath, "action"),
                "`action:` on an operation whose kind is not `action`".into(),
                Some("`kind: action`, or remove `action:`".into()),
            ),
            (Some(a), _) => {
                let apath = key_path(&opath, "action");
                if let (true, Some(rname)) = (record_ok, &op.record) {
                    let rec = &self.l.catalog.records[rname];
                    let known = |f: &str| rec.fields.contains_key(f);
                    let field_hint = format!(
                        "a field of `{rname}`: {}",
                        one_of(&rec.fields.keys().map(String::as_str).collect::<Vec<_>>())
                    );
                    if !known(&a.state_field) {
                        self.value(
                            &key_path(&apath, "state_field"),
                            format!("`{}` is not a field of `{rname}`", a.state_field),
                            Some(field_hint.clone()),
                        );
                    }
                    for k in a.set.keys() {
                        if !known(k) {
                            self.key(
                                &key_path(&key_path(&apath, "set"), k),
                                format!("`{k}` is not a field of `{rname}`"),
                                Some(field_hint.clone()),
                            );
                        }
                    }
                    if let Some(state) = rec.fields.get(&a.state_field) {
                        if !state.enum_values.is_empty() {
                            for (j, from) in a.from.iter().enumerate() {
                                if !state.enum_values.contains(from) {
                                    self.value(
                                        &index_path(&key_path(&apath, "from"), j),
                                        format!(
                                            "`{from}` is not a value of `{rname}.{}`",
                                            a.state_field
                                        ),
                                        Some(one_of(
                                            &state
                                                .enum_values
                                                .iter()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>(),
                                        )),
                                    );
                                }
                            }
                        }
                    }
                }
                if a.set.is_empty() && a.add.is_none() && a.remove.is_none() && a.creates.is_none()
                {
                    self.key(
                        &key_path(&apath, "set"),
                        "an action that sets nothing, edits no list and creates nothing".into(),
                        Some(
                            "e.g. `set: {status: canceled}`, or `add: {field: <array field>, from_arg: <argument>}`"
                                .into(),
                        ),
                    );
                }
                for (key, edit) in [("add", &a.add), ("remove", &a.remove)] {
                    if let Some(edit) = edit {
                        let rec = op
                            .record
                            .as_ref()
                            .filter(|_| record_ok)
                            .map(|r| (r, &self.l.catalog.records[r]));
                        self.list_edit(&key_path(&apath, key), edit, rec, props);
                    }
                }
                if let Some(c) = &a.creates {
                    self.record_ref(&key_path(&apath, "creates"), c);
                }
            }
            _ => {}
        }
    }

    /// An action's `add:` / `remove:`: the field is an array field of the record, the argument a
    /// property of the tool's input schema.
    fn list_edit(
        &mut self,
        path: &str,
        edit: &ListEdit,
        record: Option<(&String, &RecordType)>,
        props: &[String],
    ) {
        if let Some((rname, rec)) = record {
            let arrays: Vec<&str> = rec
                .fields
                .iter()
                .filter(|(_, f)| f.ty == "array")
                .map(|(n, _)| n.as_str())
                .collect();
            let hint = if arrays.is_empty() {
                format!("`{rname}` has no field of type `array`")
            } else {
                format!("an array field of `{rname}`: {}", one_of(&arrays))
            };
            match rec.fields.get(&edit.field) {
                None => self.value(
                    &key_path(path, "field"),
                    format!("`{}` is not a field of `{rname}`", edit.field),
                    Some(hint),
                ),
                Some(f) if f.ty != "array" => self.value(
                    &key_path(path, "field"),
                    format!(
                        "`{rname}.{}` is of type `{}`, not `array`: only a list can be added to or removed from",
                        edit.field, f.ty
                    ),
                    Some(hint),
                ),
                Some(_) => {}
            }
        }
        if !props.contains(&edit.from_arg) {
            self.value(
                &key_path(path, "from_arg"),
                format!("`{}` is not an argument of the tool", edit.from_arg),
                Some(format!(
                    "a property of input_schema: {}",
                    one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                )),
            );
        }
    }

    /// A record type read by a `singleton` operation holds exactly one record per scope: it is
    /// seeded with one (`seed_count: 1`), and no tool lists, creates or deletes records of it.
    fn singletons(&mut self) {
        let cat = &self.l.catalog;
        let ops: Vec<(usize, &Tool, &crate::model::Operation)> = cat
            .tools
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.operation.as_ref().map(|o| (i, t, o)))
            .collect();
        for (_, single, op) in ops
            .iter()
            .filter(|(_, _, o)| o.kind == OperationKind::Singleton)
        {
            let Some(rname) = &op.record else { continue };
            let Some(rec) = cat.records.get(rname) else {
                continue;
            };
            if rec.seed_count != 1 {
                // At the key: when `seed_count` is left out (default 30), this is the record type.
                self.key(
                    &key_path(&key_path("records", rname), "seed_count"),
                    format!(
                        "`{rname}` is read by the singleton tool `{}` but seeds {} records",
                        single.name, rec.seed_count
                    ),
                    Some("a singleton type holds exactly one record: `seed_count: 1`".into()),
                );
            }
            for (j, other, oop) in &ops {
                let breaks = matches!(
                    oop.kind,
                    OperationKind::List | OperationKind::Create | OperationKind::Delete
                );
                if breaks && oop.record.as_deref() == Some(rname.as_str()) {
                    self.value(
                        &key_path(&key_path(&index_path("tools", *j), "operation"), "kind"),
                        format!(
                            "`{}` {}s `{rname}`, which the singleton tool `{}` reads as the one record of its type",
                            other.name,
                            format!("{:?}", oop.kind).to_lowercase(),
                            single.name
                        ),
                        Some(format!(
                            "read `{rname}` with `kind: singleton`; update it with `kind: update` or an action"
                        )),
                    );
                }
            }
        }
    }

    fn resources_and_templates(&mut self) {
        let cat = &self.l.catalog;
        let prefix = cat.product.uri_prefix.as_str();
        let mut uris: HashMap<&str, String> = HashMap::new();
        for (i, r) in cat.resources.iter().enumerate() {
            let base = index_path("resources", i);
            let upath = key_path(&base, "uri");
            if !r.uri.starts_with(prefix) {
                self.value(
                    &upath,
                    format!("`{}` does not start with the product's URI prefix", r.uri),
                    Some(format!("`{prefix}…` (product.uri_prefix)")),
                );
            }
            if r.uri.contains('{') || r.uri.contains('}') {
                self.value(
                    &upath,
                    format!("`{}` has template variables", r.uri),
                    Some("move it to `templates:` with `uri_template:`".into()),
                );
            }
            if let Some(first) = uris.insert(&r.uri, base.clone()) {
                self.value(
                    &upath,
                    format!("duplicate URI `{}` (first at {first})", r.uri),
                    Some("every URI and URI template is unique".into()),
                );
            }
            self.resource_common(&base, &r.name, &r.mime_type, &r.read_by, &r.content);
        }
        for (i, t) in cat.templates.iter().enumerate() {
            let base = index_path("templates", i);
            let upath = key_path(&base, "uri_template");
            if !t.uri_template.starts_with(prefix) {
                self.value(
                    &upath,
                    format!(
                        "`{}` does not start with the product's URI prefix",
                        t.uri_template
                    ),
                    Some(format!("`{prefix}…` (product.uri_prefix)")),
                );
            }
            if let Some(first) = uris.insert(&t.uri_template, base.clone()) {
                self.value(
                    &upath,
                    format!(
                        "duplicate URI template `{}` (first at {first})",
                        t.uri_template
                    ),
                    Some("every URI and URI template is unique".into()),
                );
            }
            let reader = self.resource_common(&base, &t.name, &t.mime_type, &t.read_by, &t.content);
            let vars = match template_vars(&t.uri_template) {
                Ok(v) if v.is_empty() => {
                    self.value(
                        &upath,
                        format!("`{}` has no `{{variable}}`", t.uri_template),
                        Some("a fixed URI belongs under `resources:` with `uri:`".into()),
                    );
                    v
                }
                Ok(v) => v,
                Err(why) => {
                    self.value(
                        &upath,
                        why,
                        Some("RFC 6570 level 1: `kobana://<product>/path/{name}`".into()),
                    );
                    Vec::new()
                }
            };
            if let Some(reader) = reader {
                let props = schema_properties(&reader.input_schema);
                for var in &vars {
                    let arg = t.args.get(var).unwrap_or(var);
                    if !props.contains(arg) {
                        self.value(
                            &upath,
                            format!(
                                "template variable `{{{var}}}` has no matching argument `{arg}` in `{}`",
                                reader.name
                            ),
                            Some(format!(
                                "map it with `args: {{{var}: <argument>}}` to one of {}",
                                one_of(&props.iter().map(String::as_str).collect::<Vec<_>>())
                            )),
                        );
                    }
                }
            }
            for k in t.args.keys() {
                if !vars.contains(k) {
                    self.key(
                        &key_path(&key_path(&base, "args"), k),
                        format!("`{k}` is not a variable of `{}`", t.uri_template),
                        Some(format!(
                            "one of {}",
                            one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>())
                        )),
                    );
                }
            }
            for (k, src) in &t.complete {
                let cpath = key_path(&key_path(&base, "complete"), k);
                if !vars.contains(k) {
                    self.key(
                        &cpath,
                        format!("`{k}` is not a variable of `{}`", t.uri_template),
                        Some(format!(
                            "one of {}",
                            one_of(&vars.iter().map(String::as_str).collect::<Vec<_>>())
                        )),
                    );
                }
                self.completion_ref(&cpath, src);
            }
            let lpath = key_path(&base, "list_tool");
            match &t.list_tool {
                Some(lt) => {
                    if let Some(tool) = self.tool_ref(&lpath, lt, "`list_tool`") {
                        if !is_list_tool(tool) {
                            self.value(
                                &lpath,
                                format!("`{lt}` is not a list tool"),
                                Some("a tool with `operation: {kind: list}` or a name ending in `_list`".into()),
                            );
                        }
                    }
                }
                None if t.listed => self.key(
                    &key_path(&base, "listed"),
                    "a template with `listed: true` names no `list_tool`".into(),
                    Some("add `list_tool: <the list tool giving its most recent records>`, or `listed: false`".into()),
                ),
                None => {}
            }
        }
    }

    /// Checks shared by fixed resources and templates; returns the reading tool when it exists.
    fn resource_common(
        &mut self,
        base: &str,
        name: &str,
        mime: &str,
        read_by: &str,
        content: &Content,
    ) -> Option<&'a Tool> {
        if name.trim().is_empty() {
            self.value(&key_path(base, "name"), "must not be empty".into(), None);
        }
        if !mime.contains('/') {
            self.value(
                &key_path(base, "mime_type"),
                format!("`{mime}` is not a MIME type"),
                Some("e.g. `application/json`, `text/plain`, `application/pdf`".into()),
            );
        }
        let rpath = key_path(base, "read_by");
        let reader = self.tool_ref(&rpath, read_by, "`read_by`");
        if let Some(t) = reader {
            if !t.annotations.read_only {
                self.value(
                    &rpath,
                    format!("`{read_by}` is not read-only; reading a resource must not write"),
                    Some("a tool with `readOnlyHint: true`".into()),
                );
            }
        }
        let zero = match content {
            Content::Blob(s) | Content::BlobOrText(s) => s.max_bytes == 0,
            Content::SignedUrl(u) => u.ttl_seconds == 0,
            _ => false,
        };
        if zero {
            self.value(
                &key_path(base, "content"),
                "a zero size or lifetime limit".into(),
                Some("a positive `max_bytes` / `ttl_seconds`".into()),
            );
        }
        reader
    }

    fn prompts(&mut self) {
        let cat = &self.l.catalog;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, p) in cat.prompts.iter().enumerate() {
            let base = index_path("prompts", i);
            let npath = key_path(&base, "name");
            if let Some(first) = seen.insert(&p.name, i) {
                self.value(
                    &npath,
                    format!(
                        "duplicate prompt name `{}` (first defined at prompts[{first}])",
                        p.name
                    ),
                    Some("every prompt name is unique within a product".into()),
                );
            }
            if p.name.is_empty()
                || !p
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                self.value(
                    &npath,
                    format!("`{}` cannot name a prompt", p.name),
                    Some("ASCII letters, digits, `_` and `-`".into()),
                );
            }
            let mut writing_tools = Vec::new();
            for (j, u) in p.uses.iter().enumerate() {
                let upath = index_path(&key_path(&base, "uses"), j);
                if let Some(t) = self.tool_ref(&upath, u, "`uses`") {
                    if !t.annotations.read_only {
                        writing_tools.push(u.as_str());
                        if !p.writes {
                            self.value(
                                &upath,
                                format!("the prompt has `writes: false` but relies on `{u}`, which is not read-only"),
                                Some("set `writes: true`, or use only read-only tools".into()),
                            );
                        }
                    }
                }
            }
            if p.writes && writing_tools.is_empty() && !p.uses.is_empty() {
                self.value(
                    &key_path(&base, "writes"),
                    "the prompt has `writes: true` but every tool it uses is read-only".into(),
                    Some("`writes: false`, or list the writing tool in `uses`".into()),
                );
            }
            let mut arg_names = BTreeSet::new();
            for (j, a) in p.arguments.iter().enumerate() {
                let apath = index_path(&key_path(&base, "arguments"), j);
                if !arg_names.insert(a.name.as_str()) {
                    self.value(
                        &key_path(&apath, "name"),
                        format!("duplicate argument `{}`", a.name),
                        Some("argument names are unique within a prompt".into()),
                    );
                }
                if a.required && a.default.is_some() {
                    self.key(
                        &key_path(&apath, "default"),
                        "a required argument has a default, which is never used".into(),
                        Some("`required: false` with the default, or remove `default`".into()),
                    );
                }
                if let Some(d) = &a.default {
                    if let Err(why) =
                        check_default(d).and_then(|_| check_default_format(d, a.format))
                    {
                        self.value(&key_path(&apath, "default"), why, Some(DEFAULT_HINT.into()));
                    }
                }
                if let Some(c) = &a.complete {
                    self.completion_ref(&key_path(&apath, "complete"), c);
                }
            }
            self.prompt_template(&base, &p.template, &arg_names);
        }
    }

    /// The prompt's message template compiles and uses only its arguments and `today`.
    /// Positions point at the template line in the file: a block scalar's value starts on the
    /// line of its first template line.
    fn prompt_template(&mut self, base: &str, template: &str, arg_names: &BTreeSet<&str>) {
        let tpath = key_path(base, "template");
        // Positions are looked up only when there is a problem (the index is built lazily).
        let l = self.l;
        let at_line = |line_in_template: usize| -> crate::locate::Pos {
            let start = l.index().value(&tpath);
            crate::locate::Pos {
                line: start.line + line_in_template.saturating_sub(1),
                column: start.column,
            }
        };
        let env = minijinja::Environment::new();
        match env.template_from_str(template) {
            Err(e) => {
                let pos = at_line(e.line().unwrap_or(1));
                self.out.push(Diagnostic {
                    line: pos.line,
                    column: pos.column,
                    ..self.l.at_value(
                        &tpath,
                        format!(
                            "the template does not compile: {} (template line {})",
                            e.detail().unwrap_or("syntax error"),
                            e.line().unwrap_or(0)
                        ),
                        Some(
                            "minijinja (Jinja2) syntax: `{{ variable }}`, `{% if … %}…{% endif %}`"
                                .into(),
                        ),
                    )
                });
            }
            Ok(tpl) => {
                let mut unknown: Vec<String> = tpl
                    .undeclared_variables(false)
                    .into_iter()
                    .filter(|v| {
                        !arg_names.contains(v.as_str())
                            && !PROMPT_GLOBALS.contains(&v.as_str())
                            && !JINJA_BUILTINS.contains(&v.as_str())
                    })
                    .collect();
                unknown.sort();
                for v in unknown {
                    let line = template
                        .lines()
                        .position(|l| l.contains(v.as_str()))
                        .map(|i| i + 1)
                        .unwrap_or(1);
                    let pos = at_line(line);
                    let valid = arg_names
                        .iter()
                        .copied()
                        .chain(PROMPT_GLOBALS.iter().copied())
                        .collect::<Vec<_>>();
                    self.out.push(Diagnostic {
                        line: pos.line,
                        column: pos.column,
                        ..self.l.at_value(
                            &tpath,
                            format!(
                                "the template uses `{v}`, which is neither an argument nor `today`"
                            ),
                            Some(format!("one of {}", one_of(&valid))),
                        )
                    });
                }
            }
        }
    }

    fn completions(&mut self) {
        let cat = &self.l.catalog;
        for (id, c) in &cat.completions {
            let base = key_path("completions", id);
            match c {
                CompletionSource::ListIds(l) => {
                    let lbase = key_path(&base, "list_ids");
                    let tpath = key_path(&lbase, "tool");
                    if let Some(t) = self.tool_ref(&tpath, &l.tool, "a `list_ids` source") {
                        if !is_list_tool(t) {
                            self.value(
                                &tpath,
                                format!("`{}` is not a list tool", l.tool),
                                Some("a completion source reads ids from a tool with `operation: {kind: list}` or a name ending in `_list`".into()),
                            );
                        }
                        let record = t.operation.as_ref().and_then(|o| o.record.as_ref());
                        if let Some(rec) = record.and_then(|r| cat.records.get(r)) {
                            if !rec.fields.contains_key(&l.field) {
                                self.value(
                                    &key_path(&lbase, "field"),
                                    format!("`{}` is not a field of the listed record", l.field),
                                    Some(format!(
                                        "one of {}",
                                        one_of(
                                            &rec.fields
                                                .keys()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>()
                                        )
                                    )),
                                );
                            }
                        }
                    }
                    if l.limit == 0 || l.limit > 100 {
                        self.value(
                            &key_path(&lbase, "limit"),
                            format!("limit {} is out of range", l.limit),
                            Some("1 to 100 (MCP completions return at most 100 values)".into()),
                        );
                    }
                }
                CompletionSource::Fixed(values) if values.is_empty() => self.value(
                    &base,
                    "a fixed completion source with no values".into(),
                    Some("`{fixed: [a, b]}` with at least one value, or `none`".into()),
                ),
                CompletionSource::LastMonths(0) | CompletionSource::TodayAndMonthStarts(0) => self
                    .value(
                        &base,
                        "a month count of 0 suggests nothing".into(),
                        Some("a positive number of months".into()),
                    ),
                _ => {}
            }
        }
    }

    fn exclusions(&mut self) {
        let cat = &self.l.catalog;
        let bound: BTreeMap<String, &str> = cat
            .tools
            .iter()
            .filter_map(|t| {
                t.http
                    .as_ref()
                    .map(|h| (format!("{} {}", h.method, h.path), t.name.as_str()))
            })
            .collect();
        let mut seen = BTreeSet::new();
        for (i, e) in cat.exclusions.iter().enumerate() {
            let base = index_path("exclusions", i);
            let opath = key_path(&base, "operation");
            let well_formed = e
                .operation
                .split_once(' ')
                .is_some_and(|(m, p)| HTTP_METHODS.contains(&m) && p.starts_with('/'));
            if !well_formed {
                self.value(
                    &opath,
                    format!("`{}` is not an operation", e.operation),
                    Some("`METHOD /path`, e.g. `GET /v1/userinfo`".into()),
                );
            }
            if !seen.insert(e.operation.as_str()) {
                self.value(&opath, format!("`{}` is excluded twice", e.operation), None);
            }
            if let Some(tool) = bound.get(&e.operation) {
                self.value(
                    &opath,
                    format!(
                        "`{}` is excluded but the tool `{tool}` binds it",
                        e.operation
                    ),
                    Some("remove the exclusion, or the tool".into()),
                );
            }
            if e.reason.trim().is_empty() {
                self.value(
                    &key_path(&base, "reason"),
                    "an exclusion needs its reason".into(),
                    None,
                );
            }
        }
    }
}

/// What `seed:` may say, for hints.
pub const SEED_HINT: &str = "`uid`, `person_name`, `company_name`, `cpf`, `cnpj`, `email`, `phone`, `pix_key`, `amount:MIN..MAX`, `date:FROM..TO` (days from today), `datetime:FROM..TO`, `enum`, `ref:<record>`, `bool`, `int:MIN..MAX`, `text:<words>`, `const:<value>`, `sequence`";

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

fn check_seed(
    spec: &str,
    has_enum: bool,
    records: &BTreeMap<String, crate::model::RecordType>,
) -> Result<(), String> {
    if SEED_SIMPLE.contains(&spec) {
        if spec == "enum" && !has_enum {
            return Err("seed `enum` on a field without `enum:` values".into());
        }
        return Ok(());
    }
    let Some((kind, arg)) = spec.split_once(':') else {
        return Err(format!("`{spec}` is not a seed generator"));
    };
    let range = |arg: &str, decimals: bool| -> Result<(), String> {
        let (lo, hi) = arg
            .split_once("..")
            .ok_or_else(|| format!("`{spec}` needs a range `MIN..MAX`"))?;
        let parse = |s: &str| -> Result<f64, String> {
            if !decimals && s.contains('.') {
                return Err(format!("`{s}` in `{spec}` is not an integer"));
            }
            s.trim()
                .parse::<f64>()
                .map_err(|_| format!("`{s}` in `{spec}` is not a number"))
        };
        let (lo, hi) = (parse(lo)?, parse(hi)?);
        if lo > hi {
            return Err(format!("the range of `{spec}` is empty (MIN > MAX)"));
        }
        Ok(())
    };
    match kind {
        "amount" => range(arg, true),
        "date" | "datetime" | "int" => range(arg, false),
        "ref" if records.contains_key(arg) => Ok(()),
        "ref" => Err(format!("`{spec}` refers to an unknown record type `{arg}`")),
        "text" | "const" if !arg.is_empty() => Ok(()),
        "text" | "const" => Err(format!("`{spec}` needs a value after `:`")),
        _ => Err(format!("`{spec}` is not a seed generator")),
    }
}

const DEFAULT_HINT: &str =
    "`today`, `today+Nd`, `today-Nd` or `YYYY-MM-DD` for `format: date`; `current_month` or `YYYY-MM` for `format: month`; any literal without spaces at the ends otherwise";

/// A default must produce a value of the argument's format.
fn check_default_format(d: &str, format: Option<crate::model::ArgFormat>) -> Result<(), String> {
    use crate::model::ArgFormat;
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    let is_date = |s: &str| {
        let p: Vec<&str> = s.split('-').collect();
        p.len() == 3 && digits(p[0], 4) && digits(p[1], 2) && digits(p[2], 2)
    };
    let is_month = |s: &str| {
        let p: Vec<&str> = s.split('-').collect();
        p.len() == 2 && digits(p[0], 4) && digits(p[1], 2)
    };
    let relative_day = d == "today" || d.starts_with("today+") || d.starts_with("today-");
    match format {
        Some(ArgFormat::Date) if !(relative_day || is_date(d)) => Err(format!(
            "`{d}` is not a date, but the argument has `format: date`"
        )),
        Some(ArgFormat::Month) if !(d == "current_month" || is_month(d)) => Err(format!(
            "`{d}` is not a month, but the argument has `format: month`"
        )),
        _ => Ok(()),
    }
}

fn check_default(d: &str) -> Result<(), String> {
    if d.trim() != d || d.is_empty() {
        return Err(format!("`{d}` has surrounding spaces or is empty"));
    }
    for sign in ["today+", "today-"] {
        if let Some(rest) = d.strip_prefix(sign) {
            let days = rest
                .strip_suffix('d')
                .ok_or_else(|| format!("`{d}`: an offset from today is written `{sign}Nd`"))?;
            days.parse::<u32>()
                .map_err(|_| format!("`{d}`: `{days}` is not a number of days"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_one_templates_only() {
        assert_eq!(
            template_vars("kobana://b/x/{uid}/y/{n}").unwrap(),
            vec!["uid", "n"]
        );
        assert!(template_vars("kobana://b/{+path}").is_err());
        assert!(template_vars("kobana://b/{?q}").is_err());
        assert!(template_vars("kobana://b/{a,b}").is_err());
        assert!(template_vars("kobana://b/{a:3}").is_err());
        assert!(template_vars("kobana://b/{a").is_err());
        assert!(template_vars("kobana://b/a}").is_err());
        assert!(template_vars("kobana://b/{a}/{a}").is_err());
    }

    #[test]
    fn seeds_follow_the_documented_grammar() {
        let none = BTreeMap::new();
        assert!(check_seed("cpf", false, &none).is_ok());
        assert!(check_seed("amount:10..5000.5", false, &none).is_ok());
        assert!(check_seed("date:-90..30", false, &none).is_ok());
        assert!(check_seed("int:5..1", false, &none).is_err());
        assert!(check_seed("int:1.5..3", false, &none).is_err());
        assert!(check_seed("enum", false, &none).is_err());
        assert!(check_seed("ref:nothing", false, &none).is_err());
        assert!(check_seed("color", false, &none).is_err());
    }

    #[test]
    fn defaults_follow_the_documented_grammar() {
        assert!(check_default("today").is_ok());
        assert!(check_default("today+90d").is_ok());
        assert!(check_default("today-7").is_err());
        assert!(check_default("today+x d").is_err());
        assert!(check_default("pending").is_ok());
    }

    #[test]
    fn closest_suggests_near_names_only() {
        assert_eq!(
            closest("billet_lst", ["billet_list", "payment_get"]),
            Some("billet_list")
        );
        assert_eq!(closest("zzz", ["billet_list"]), None);
    }
}
