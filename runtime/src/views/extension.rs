//! The MCP Apps extension (`io.modelcontextprotocol/ui`) on the protocol's extension seam: for a
//! client that declared it (either era), the capability is declared, the tools a view is attached
//! to carry `_meta.ui.resourceUri` (tools only a view calls, `visibility: ["app"]`), the views
//! are listed first in `resources/list`, `resources/read` of a view answers its page, and a tool
//! result a view draws codes from carries them drawn (`_meta["com.kobana/codes"]`). A client
//! without the extension is answered by the engine alone, byte for byte as before.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use runtime_model::backend::BoxFuture;
use runtime_model::views::{self, ProductViews, View, CODES_META, EXTENSION_ID, MIME_TYPE};
use serde_json::{json, Map, Value};

use crate::contract::era;
use crate::contract::Call;
use crate::protocol::dates;
use crate::protocol::engine::{Engine, ProtocolExtension};
use crate::rpc::page::Page;
use crate::rpc::params::Params;
use crate::rpc::reply::Reply;

/// A view resource's `_meta`, parsed once.
static RESOURCE_META: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(views::resource_meta_json()).unwrap_or(Value::Null));

/// How many listing pages the extension keeps a variant of before it starts again (the
/// engine's listings are one per permission set, selection and locale: a few in practice).
const KEPT_PAGES: usize = 512;

/// The views of one product, served to the clients that declared the extension.
pub struct ViewsExtension {
    views: &'static ProductViews,
    /// The variant of each listing page a client with the extension is sent, made on the first
    /// such request and served, shared, to the next ones (with its compressed forms, as the
    /// engine's own pages are): a listing costs such a client a lookup, not a parse of the page
    /// and a serialization. Keyed by the engine's page ([`Page::shared_id`]) and the list,
    /// beside the locale for `resources/list`; each entry holds the engine's page too, so that
    /// its identity is not reused while the entry lives.
    listings: Mutex<HashMap<(usize, ListOf), (Page, Page)>>,
}

/// Which listing a kept variant is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ListOf {
    Tools,
    /// `resources/list`'s first page, in the locale of this index.
    Resources(usize),
}

impl ViewsExtension {
    pub fn new(views: &'static ProductViews) -> Self {
        Self {
            views,
            listings: Mutex::new(HashMap::new()),
        }
    }

    /// `reply` changed by `change` for a client with the extension: a shared page's variant is
    /// made once and kept ([`ViewsExtension::listings`]); anything else is changed each time.
    fn kept_variant(&self, list: ListOf, reply: Reply, change: impl FnOnce(&mut Value)) -> Reply {
        let source = match &reply {
            Reply::Raw(page) => page.shared_id().map(|id| ((id, list), page.clone())),
            _ => None,
        };
        if let Some((key, _)) = &source {
            if let Some((_, kept)) = self.listings.lock().ok().and_then(|m| m.get(key).cloned()) {
                return Reply::Raw(kept);
            }
        }
        let mut result = match result_value(reply) {
            Ok(v) => v,
            Err(r) => return r,
        };
        change(&mut result);
        let Some((key, page)) = source else {
            return Reply::Value(result);
        };
        let Ok(bytes) = serde_json::to_vec(&result) else {
            return Reply::Value(result);
        };
        let variant = Page::kept(bytes);
        if let Ok(mut kept) = self.listings.lock() {
            if kept.len() >= KEPT_PAGES {
                kept.clear();
            }
            kept.insert(key, (page, variant.clone()));
        }
        Reply::Raw(variant)
    }
}

/// Whether a client's capabilities declare the extension: `extensions["io.modelcontextprotocol/ui"]`,
/// whose `mimeTypes`, when given, include the views' type.
pub fn negotiated(client_caps: &Value) -> bool {
    let Some(ui) = client_caps
        .get("extensions")
        .and_then(|e| e.get(EXTENSION_ID))
        .filter(|v| v.is_object())
    else {
        return false;
    };
    match ui.get("mimeTypes") {
        None | Some(Value::Null) => true,
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(MIME_TYPE)),
        Some(_) => false,
    }
}

/// A result as a JSON value to change: a pre-serialized one is parsed (only for clients with
/// the extension); anything else (an error, an `isError` tool result, a request for input) is
/// passed on untouched.
fn result_value(reply: Reply) -> Result<Value, Reply> {
    match reply {
        Reply::Value(v) => Ok(v),
        Reply::Raw(page) => serde_json::from_slice(&page.to_vec()).map_err(|_| Reply::Raw(page)),
        other => Err(other),
    }
}

/// `value`'s `_meta` object, made when missing.
fn meta_of(value: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    value
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}

/// The record a tool result is about: its structured content (a 2025 wrapped value unwrapped,
/// a `{data: {…}}` envelope opened).
fn record_of(result: &Value) -> Option<&Value> {
    let mut sc = result.get("structuredContent")?;
    if let Some(inner) = sc
        .as_object()
        .filter(|m| m.len() == 1)
        .and_then(|m| m.get("result"))
    {
        sc = inner;
    }
    match sc.get("data") {
        Some(d @ Value::Object(_)) => Some(d),
        _ => Some(sc),
    }
}

/// `path` (`field` or `field.key`) of a record.
fn value_at<'v>(record: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(record, |v, k| v.get(k))
}

impl ViewsExtension {
    /// `tools/list` with `_meta.ui` on the tools the views name.
    fn tools_list(&self, reply: Reply) -> Reply {
        self.kept_variant(ListOf::Tools, reply, |result| {
            let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
                return;
            };
            for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                let Some(name) = tool.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let ui = if let Some(v) = self.views.view_of_tool(name) {
                    json!({"resourceUri": v.uri})
                } else if let Some(v) = self.views.app_only(name) {
                    json!({"resourceUri": v.uri, "visibility": ["app"]})
                } else {
                    continue;
                };
                if let Some(meta) = meta_of(tool) {
                    meta.insert("ui".into(), ui);
                }
            }
        })
    }

    /// `resources/list` with the views first (on the first page).
    fn resources_list(&self, engine: &Engine, call: &Call, params: &Params, reply: Reply) -> Reply {
        let first_page = match params.get("cursor") {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.is_empty(),
            Some(_) => false,
        };
        if !first_page {
            return reply;
        }
        let at = engine.locale(call).index();
        self.kept_variant(ListOf::Resources(at), reply, |result| {
            let Some(list) = result.get_mut("resources").and_then(Value::as_array_mut) else {
                return;
            };
            let own: Vec<Value> = self
                .views
                .views
                .iter()
                .map(|v| {
                    json!({
                        "uri": v.uri,
                        "name": v.name,
                        "title": v.titles[at],
                        "description": v.descriptions[at],
                        "mimeType": MIME_TYPE,
                        "_meta": *RESOURCE_META,
                    })
                })
                .collect();
            list.splice(0..0, own);
        })
    }

    /// The write buttons of `view` this request may press: tools its identity may call and its
    /// selection shows (a read-only token, or a read-only selection, gets none).
    fn allowed_actions(&self, engine: &Engine, call: &Call, view: &View) -> Vec<&'static str> {
        let selection = engine.selection(call);
        view.actions
            .iter()
            .filter(|a| {
                engine.tool_index(a.tool).is_some_and(|i| {
                    selection.visible(i) && call.identity.can_call(&engine.product.tools[i]).is_ok()
                })
            })
            .map(|a| a.tool)
            .collect()
    }

    /// `resources/read` of a view: its page, with this reader's settings.
    fn read(&self, engine: &Engine, call: &Call, params: &Params) -> Reply {
        let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
        let Some(view) = self.views.view(uri) else {
            return Reply::Error(crate::protocol::resources::not_found(call, uri));
        };
        let locale = engine.locale(call);
        let settings = json!({
            "locale": locale.tag(),
            "actions": self.allowed_actions(engine, call, view),
            // The day a chart's periods `ahead` start from: the server's, as its prompts' today.
            "today": dates::fmt_date(dates::today()),
        })
        .to_string()
        .replace("</", "<\\/");
        let html = view.html.replacen(views::SETTINGS_MARKER, &settings, 1);
        let result = json!({
            "contents": [{"uri": view.uri, "mimeType": MIME_TYPE, "text": html, "_meta": *RESOURCE_META}],
        });
        let mut result = engine.finish(call, result, false);
        if call.era.is_modern() {
            if let Some(meta) = result.as_object_mut().and_then(meta_of) {
                meta.insert(era::META_CONTENT_LANGUAGE.into(), json!(locale.tag()));
            }
        }
        Reply::Value(result)
    }

    /// A tool result with the codes its view draws from the record.
    fn with_codes(&self, view: &View, reply: Reply) -> Reply {
        let mut result = match result_value(reply) {
            Ok(v) => v,
            Err(r) => return r,
        };
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return Reply::Value(result);
        }
        let drawn: Map<String, Value> = match record_of(&result) {
            Some(record) => view
                .codes
                .iter()
                .filter_map(|c| {
                    let value = value_at(record, c.field)?.as_str()?;
                    Some((c.field.to_string(), super::codes::draw(c.format, value)?))
                })
                .collect(),
            None => Map::new(),
        };
        if !drawn.is_empty() {
            if let Some(meta) = result.as_object_mut().and_then(meta_of) {
                meta.insert(CODES_META.into(), Value::Object(drawn));
            }
        }
        Reply::Value(result)
    }

    /// The view whose codes a `tools/call` of this tool draws.
    fn drawing_view(&self, params: &Params) -> Option<&'static View> {
        let name = params.get("name").and_then(Value::as_str)?;
        self.views
            .view_of_tool(name)
            .filter(|v| !v.codes.is_empty())
    }
}

impl ProtocolExtension for ViewsExtension {
    fn id(&self) -> &'static str {
        EXTENSION_ID
    }

    fn serves(&self, engine: &Engine) -> bool {
        engine.product.name == self.views.product && !self.views.views.is_empty()
    }

    fn capability(&self) -> Value {
        json!({"mimeTypes": [MIME_TYPE]})
    }

    /// Both eras: 2025 clients declare it in `initialize`, 2026 ones on each request.
    fn in_era(&self, _modern: bool) -> bool {
        true
    }

    fn declared_to(&self, client_caps: &Value) -> bool {
        negotiated(client_caps)
    }

    fn answers(&self, _method: &str) -> bool {
        false
    }

    fn overrides(&self, call: &Call, method: &str, params: &Params) -> bool {
        if !negotiated(&call.client_caps) {
            return false;
        }
        match method {
            "tools/list" | "resources/list" => true,
            "resources/read" => params
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|u| u.starts_with(views::URI_SCHEME)),
            "tools/call" => self.drawing_view(params).is_some(),
            _ => false,
        }
    }

    fn handle<'a>(
        &'a self,
        engine: &'a Engine,
        method: &'a str,
        call: &'a Call,
        params: &'a Params,
    ) -> BoxFuture<'a, Reply> {
        Box::pin(async move {
            match method {
                "resources/read" => self.read(engine, call, params),
                "tools/list" => self.tools_list(engine.answer_standard(method, call, params).await),
                "resources/list" => {
                    let reply = engine.answer_standard(method, call, params).await;
                    self.resources_list(engine, call, params, reply)
                }
                "tools/call" => {
                    let reply = engine.answer_standard(method, call, params).await;
                    match self.drawing_view(params) {
                        Some(view) => self.with_codes(view, reply),
                        None => reply,
                    }
                }
                _ => engine.answer_standard(method, call, params).await,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime_model::views::View;

    static VIEWS: ProductViews = ProductViews {
        product: "p",
        views: &[View {
            name: "thing",
            uri: "ui://p/thing",
            record: "things",
            tools: &["p_thing_get"],
            app_tools: &["p_thing_refresh"],
            fields: &[],
            codes: &[],
            actions: &[],
            titles: ["", "", ""],
            descriptions: ["", "", ""],
            html: "",
        }],
    };

    /// A listing page is changed for a client with the extension once: the next request for the
    /// same page is answered the same shared variant, not a parse of the page again.
    #[test]
    fn a_listing_page_variant_is_made_once_and_shared() {
        let ext = ViewsExtension::new(&VIEWS);
        let page = Page::kept(br#"{"tools":[{"name":"p_thing_get"},{"name":"p_other"}]}"#.to_vec());
        let other = Page::kept(br#"{"tools":[{"name":"p_thing_refresh"}]}"#.to_vec());
        let variant = |p: &Page| match ext.tools_list(Reply::Raw(p.clone())) {
            Reply::Raw(v) => v,
            _ => panic!("a shared page is answered a shared page"),
        };
        let first = variant(&page);
        let again = variant(&page);
        assert_eq!(first.shared_id(), again.shared_id(), "made once");
        assert_ne!(first.shared_id(), page.shared_id());
        let v: Value = serde_json::from_slice(&again.to_vec()).unwrap();
        assert_eq!(v["tools"][0]["_meta"]["ui"]["resourceUri"], "ui://p/thing");
        assert!(v["tools"][1].get("_meta").is_none());
        let o: Value = serde_json::from_slice(&variant(&other).to_vec()).unwrap();
        assert_eq!(o["tools"][0]["_meta"]["ui"]["visibility"], json!(["app"]));
        assert_ne!(variant(&other).shared_id(), first.shared_id());
    }

    #[test]
    fn only_a_declared_html_capability_negotiates() {
        let ui = |v: Value| json!({"extensions": {EXTENSION_ID: v}});
        assert!(negotiated(&ui(json!({"mimeTypes": [MIME_TYPE]}))));
        assert!(negotiated(&ui(json!({}))));
        assert!(!negotiated(&ui(json!({"mimeTypes": ["text/x-other"]}))));
        assert!(!negotiated(&ui(Value::Null)));
        assert!(!negotiated(&json!({"extensions": {}})));
        assert!(!negotiated(&Value::Null));
    }

    #[test]
    fn attached_tools_name_their_view_and_view_only_tools_are_for_the_app() {
        let ext = ViewsExtension::new(&VIEWS);
        let listed = json!({"tools": [
            {"name": "p_thing_get", "_meta": {"other": 1}},
            {"name": "p_thing_refresh"},
            {"name": "p_other"},
        ]});
        let Reply::Value(out) = ext.tools_list(Reply::Value(listed)) else {
            panic!("a value");
        };
        assert_eq!(
            out["tools"][0]["_meta"],
            json!({"other": 1, "ui": {"resourceUri": "ui://p/thing"}})
        );
        assert_eq!(
            out["tools"][1]["_meta"]["ui"],
            json!({"resourceUri": "ui://p/thing", "visibility": ["app"]})
        );
        assert!(out["tools"][2].get("_meta").is_none());
    }
}
