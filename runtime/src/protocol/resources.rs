//! `resources/read`: URI → fixed resource or template → permission (via `read_by`) → workspace
//! → the reading tool → contents in the resource's content kind.

use crate::rpc::params::Params;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use runtime_model::backend::{BackendError, Output};
use runtime_model::catalog::{ContentKind, ResourcesListPolicy, Template};
use runtime_model::errors::{self, AppError};
use runtime_model::uri_template::match_uri;
use serde_json::{json, Map, Value};

use super::engine::Engine;
use super::tools::{is_text_mime, Dispatched};
use crate::contract::Call;
use crate::contract::RpcError;
use crate::contract::Target;
use crate::record_schemas;
use crate::rpc::reply::Reply;

/// Resource not found, in the caller's era ([`RpcError::resource_not_found`]).
pub fn not_found(call: &Call, uri: &str) -> RpcError {
    RpcError::resource_not_found(call.era, uri)
}

/// A refused read: the application error's own JSON-RPC code, never "not found".
pub fn refusal(err: &AppError, missing: Option<&str>) -> RpcError {
    let mut data = Map::new();
    data.insert("error".into(), json!(err.code));
    if let Some(m) = missing {
        data.insert("missing".into(), json!(m));
    }
    let message = match missing {
        Some(m) => format!("{} (missing `{m}`)", err.message),
        None => err.message.to_string(),
    };
    RpcError::new(err.rpc_code, message).with_data(Value::Object(data))
}

enum Located {
    Fixed(&'static runtime_model::catalog::Resource),
    Template(&'static Template, Vec<(String, String)>),
}

/// The `_meta` key of a `resources/list` answer some of whose listings failed.
pub const META_INCOMPLETE: &str = "br.com.kobana/incomplete";

/// The `_meta` of a `resources/list` answer with listings left out: under [`META_INCOMPLETE`],
/// a note in the caller's language and each missing listing (its URI template, whose records
/// stay readable by URI, its list tool and why). Each is also counted and logged.
fn incomplete_meta(
    telemetry: Option<&crate::telemetry::Telemetry>,
    product: &'static str,
    locale: runtime_model::locale::Locale,
    missing: &[crate::backend::Missing],
) -> Value {
    let mut listed = Vec::with_capacity(missing.len());
    for m in missing {
        if let Some(t) = telemetry {
            crate::telemetry::facts::listing_left_out(t, product, m.uri_template);
        }
        listed.push(json!({"uriTemplate": m.uri_template, "tool": m.tool, "reason": m.reason}));
    }
    let types = missing
        .iter()
        .map(|m| m.uri_template)
        .collect::<Vec<_>>()
        .join(", ");
    tracing::warn!(product, left_out = %types, "resources/list answered without some types' records");
    json!({ META_INCOMPLETE: {
        "note": runtime_model::texts::Text::ResourcesListIncomplete.fill(locale, &[("types", &types)]),
        "missing": listed,
    }})
}

impl Engine {
    /// `resources/list`: the fixed resources (pre-serialized pages); under `Recent(n)`, plus the
    /// `n` most recent records of each listed template the caller may list and read, fetched
    /// concurrently (one page: the dynamic part is bounded by `n` per type).
    pub(crate) async fn list_resources(&self, call: &Call, params: &Params) -> Reply {
        let ResourcesListPolicy::Recent(n) = self.product.policy.resources_list else {
            return self.list(call, super::listing::ListKind::Resources, params);
        };
        match params.get("cursor") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(_) => return RpcError::invalid_params("Invalid cursor").into(),
        }
        if self.product.policy.workspaced && call.identity.default_workspace.is_none() {
            return self.list(call, super::listing::ListKind::Resources, params);
        }
        let locale = self.locale(call);
        let view = self.view(call);
        let texts = self.product.texts(locale);
        let mut resources: Vec<Value> = self
            .product
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| view.can_call(self.product, r.read_by))
            .map(|(i, r)| texts.map_or(r.descriptor_json, |t| t.resources[i].descriptor_json))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect();
        let mut ctx = self.call_context(call, &Map::new());
        // The listings run in tasks of their own and are not measured one by one: their HTTP
        // attempts are neither timed nor noted in the request's facts (a listing left out is
        // counted: `listing_left_out`).
        ctx.attempts = Default::default();
        // A listing that failed leaves out its type's records only, and the answer says so; when
        // every one failed it is an error: never a partial list that looks complete and cacheable.
        let recent = match crate::backend::recent::recent_resources(
            &ctx,
            self.backend.clone(),
            n,
            crate::backend::RecentOptions {
                locale: Some(locale),
                // Records of templates whose read tool the selection leaves out stay out.
                templates: Some(
                    self.product
                        .templates
                        .iter()
                        .map(|t| view.can_call(self.product, t.read_by))
                        .collect(),
                ),
                ..Default::default()
            },
        )
        .await
        {
            Ok(recent) => recent,
            Err(why) => return RpcError::internal(why).into(),
        };
        resources.extend(recent.resources);
        let mut result = json!({ "resources": resources });
        let complete = recent.missing.is_empty();
        if !complete {
            result["_meta"] = incomplete_meta(
                self.telemetry.as_ref(),
                self.product.name,
                locale,
                &recent.missing,
            );
        }
        Reply::Value(self.finish(call, result, complete))
    }

    fn locate(&self, uri: &str) -> Option<Located> {
        if let Some(r) = self.product.resources.iter().find(|r| r.uri == uri) {
            return Some(Located::Fixed(r));
        }
        self.product
            .templates
            .iter()
            .find_map(|t| match_uri(t.uri_template, uri).map(|v| Located::Template(t, v)))
    }

    pub(crate) async fn read_resource(&self, call: &Call, params: &Params) -> Reply {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return RpcError::invalid_params(
                "Invalid params: resources/read needs `uri` (a string)",
            )
            .into();
        };
        let Some(located) = self.locate(uri) else {
            return not_found(call, uri).into();
        };
        let (read_by, content, mime, mut args) = match &located {
            Located::Fixed(r) => (r.read_by, r.content, r.mime_type, Map::new()),
            Located::Template(t, vars) => {
                let mut args = Map::new();
                for (var, value) in vars {
                    let arg = t
                        .args
                        .iter()
                        .find(|(v, _)| v == var)
                        .map(|(_, a)| *a)
                        .unwrap_or(var);
                    args.insert(arg.to_string(), json!(value));
                }
                (t.read_by, t.content, t.mime_type, args)
            }
        };
        let Some(tool) = self.product.tool(read_by) else {
            return RpcError::internal(format!("resource {uri} is read by unknown tool {read_by}"))
                .into();
        };
        // A resource whose read tool the request's selection leaves out does not exist for it.
        let selected = self
            .tool_index(read_by)
            .is_some_and(|i| self.selection(call).visible(i));
        if !selected {
            return not_found(call, uri).into();
        }
        if let Err(denial) = call.identity.can_call(tool) {
            let err = if denial.code() == errors::INSUFFICIENT_SCOPE.code {
                &errors::INSUFFICIENT_SCOPE
            } else {
                &errors::INSUFFICIENT_PERMISSION
            };
            return refusal(err, Some(denial.missing())).into();
        }
        let schema_content = matches!(
            content,
            ContentKind::SchemaCatalog | ContentKind::SchemaEntry
        );
        if self.product.policy.workspaced && !schema_content {
            match &call.identity.default_workspace {
                Some(ws) => {
                    args.entry("workspace_id").or_insert_with(|| json!(ws));
                }
                None => return refusal(&errors::WORKSPACE_REQUIRED, None).into(),
            }
        }
        let contents = match content {
            // Built by the same functions as the `*_schemas_list` / `*_schemas_get` tools, so the
            // resource and the tool answer the same JSON.
            ContentKind::SchemaCatalog => vec![text_content(
                uri,
                mime,
                record_schemas::catalog_json(self.product).to_string(),
            )],
            ContentKind::SchemaEntry => {
                let name = args
                    .values()
                    .next()
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match record_schemas::entry_json(self.product, name) {
                    Some(entry) => vec![text_content(uri, mime, entry.to_string())],
                    None => return not_found(call, uri).into(),
                }
            }
            _ => match self
                .dispatch(
                    call,
                    tool,
                    Target::Resource { tool, uri },
                    &args,
                    params,
                    ("resources/read", uri),
                    None,
                    crate::contract::TaskPhase::None,
                )
                .await
            {
                Ok(Dispatched::Resource(c)) => c,
                Ok(Dispatched::InputRequired(v)) => return Reply::InputRequired(v),
                Ok(Dispatched::Backend(Ok(out))) => {
                    match self.contents_of(uri, mime, content, out) {
                        Ok(c) => c,
                        Err(e) => return e.into(),
                    }
                }
                Ok(Dispatched::Backend(Err(BackendError::NotFound(_)))) => {
                    return self.not_found_hinted(call, uri, tool, &args).await.into()
                }
                Ok(Dispatched::Backend(Err(e))) => return upstream_error(&e).into(),
                Ok(Dispatched::Output(out)) => {
                    let text: String = out
                        .content
                        .iter()
                        .filter_map(|c| c.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n");
                    vec![text_content(uri, mime, text)]
                }
                Ok(Dispatched::Prompt(_)) => {
                    return RpcError::internal("a resource handler answered a prompt").into()
                }
                Ok(Dispatched::StartTask) => {
                    return RpcError::internal("a resource handler asked for a task").into()
                }
                Err(e) => return e.into(),
            },
        };
        if contents.is_empty() {
            return not_found(call, uri).into();
        }
        Reply::Value(self.finish(call, json!({ "contents": contents }), true))
    }

    /// [`not_found`] for a record `tool` could not find: with, for a record type keyed by its
    /// owner's uid, the hint saying which uid the address takes (in the message, after the
    /// usual words, and as `data.hint`).
    async fn not_found_hinted(
        &self,
        call: &Call,
        uri: &str,
        tool: &'static runtime_model::catalog::Tool,
        args: &Map<String, Value>,
    ) -> RpcError {
        let plain = not_found(call, uri);
        let Some(hint) = self
            .owner_key_hint(call, tool, args, super::owner_key::Asked::Resource)
            .await
        else {
            return plain;
        };
        let words = runtime_model::texts::Text::ProtocolResourceNotFound
            .fill(self.locale(call), &[("uri", &uri)]);
        RpcError::new(plain.code, format!("{words}. {hint}"))
            .with_data(json!({ "uri": uri, "hint": hint }))
    }

    fn contents_of(
        &self,
        uri: &str,
        mime: &str,
        kind: ContentKind,
        out: Output,
    ) -> Result<Vec<Value>, RpcError> {
        let too_large = |len: usize, max: u64| {
            (len as u64 > max).then(|| refusal(&errors::CONTENT_TOO_LARGE, None))
        };
        Ok(match (kind, out) {
            // A read is never replayed; should an upstream mark one, its contents are the same.
            (_, Output::Replayed(inner)) => return self.contents_of(uri, mime, kind, *inner),
            (_, out @ Output::JsonText(_)) => {
                let out = out.parsed().map_err(|e| upstream_error(&e))?;
                return self.contents_of(uri, mime, kind, out);
            }
            (_, Output::Json(mut v)) => {
                if kind == ContentKind::JsonRecord {
                    // Resources show the record itself, without the numeric `id` (product docs).
                    crate::backend::records::strip_numeric_id(&mut v);
                    if let Some(rec) = crate::backend::records::record(&v) {
                        v = Value::Object(rec.clone());
                    }
                }
                match v {
                    Value::String(s) if kind == ContentKind::Text => {
                        vec![text_content(uri, mime, s)]
                    }
                    v => vec![text_content(uri, mime, v.to_string())],
                }
            }
            (ContentKind::Blob { max_bytes }, Output::Bytes { mime_type, data }) => {
                if let Some(e) = too_large(data.len(), max_bytes) {
                    return Err(e);
                }
                vec![json!({"uri": uri, "mimeType": mime_type, "blob": B64.encode(&data)})]
            }
            (ContentKind::BlobOrText { max_bytes }, Output::Bytes { mime_type, data }) => {
                if let Some(e) = too_large(data.len(), max_bytes) {
                    return Err(e);
                }
                match (is_text_mime(&mime_type), String::from_utf8(data)) {
                    (true, Ok(text)) => vec![text_content(uri, &mime_type, text)],
                    (_, Ok(text)) => vec![
                        json!({"uri": uri, "mimeType": mime_type, "blob": B64.encode(text.as_bytes())}),
                    ],
                    (_, Err(e)) => vec![
                        json!({"uri": uri, "mimeType": mime_type, "blob": B64.encode(e.as_bytes())}),
                    ],
                }
            }
            (_, Output::Bytes { mime_type, data }) => match String::from_utf8(data) {
                Ok(text) => vec![text_content(uri, &mime_type, text)],
                Err(e) => vec![
                    json!({"uri": uri, "mimeType": mime_type, "blob": B64.encode(e.as_bytes())}),
                ],
            },
        })
    }
}

fn text_content(uri: &str, mime: &str, text: String) -> Value {
    json!({"uri": uri, "mimeType": mime, "text": text})
}

/// A read the backend could not answer, naming why: the sandbox's storage, or the upstream.
fn upstream_error(e: &BackendError) -> RpcError {
    let err = match e {
        BackendError::Storage(_) => &errors::SANDBOX_ERROR,
        _ => &errors::UPSTREAM_ERROR,
    };
    RpcError::new(err.rpc_code, format!("{}: {e}", err.message))
        .with_data(json!({"error": err.code}))
}
