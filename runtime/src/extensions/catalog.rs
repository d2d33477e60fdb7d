//! Handler bodies shared by every Kobana product, named by the catalogs' `handler:` keys.
//!
//! - `schema_catalog` / `schema_entry`: the schemas catalog (`kobana://<p>/schemas[/{name}]` and
//!   the `*_schemas_list` / `*_schemas_get` tools). Its content is the record types the catalog
//!   declares ([`crate::record_schemas`]); nothing is hand-written.
//! - `unavailable_template`: the reading tool of a resource template whose records the Kobana API
//!   cannot read (no endpoint, or no read by id). It answers `not_available`, never an empty
//!   result and never "not found", so the client and the model learn that the type itself is
//!   unreadable, not that one record is missing.
//! - `template_without_endpoint`: the tools of a record type the Kobana API has no read for
//!   (people, e-mail accounts, …). The sandbox is ours and serves them from the tool's
//!   `operation`; the proxy has no endpoint to forward to (the upstream backend answers
//!   `Unsupported`), so a `get` whose type has a list endpoint scans that list (bounded,
//!   [`SCAN_PAGES`] pages), and anything else answers `not_available` as above.

use runtime_model::backend::{BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::{Binding, Operation, Product, Tool};
use runtime_model::errors;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Value};

use crate::contract::{ExtCtx, ExtOutcome, ProductExtension, RpcError, Target, ToolOutput};
use crate::record_schemas::{catalog_json, entry_json};

type Out<'a> = BoxFuture<'a, Result<ExtOutcome, RpcError>>;

/// The shared handlers. `product` is not a product name: these handlers serve every product.
pub static EXTENSION: ProductExtension = ProductExtension {
    product: "*",
    tools: &[
        ("schema_catalog", schema_catalog),
        ("schema_entry", schema_entry),
        ("unavailable_template", unavailable_template),
        ("template_without_endpoint", template_without_endpoint),
    ],
    prompts: &[],
    resource_subscribe: false,
    serves_behind_proxy: Some(served_by_a_proxy),
};

fn json_output(value: Value) -> ToolOutput {
    ToolOutput {
        content: vec![json!({ "type": "text", "text": value.to_string() })],
        structured: Some(value),
        is_error: false,
    }
}

fn schema_catalog<'a>(ctx: &'a ExtCtx<'a>) -> Out<'a> {
    Box::pin(async move {
        let value = catalog_json(ctx.product);
        Ok(match ctx.target {
            Target::Resource { uri, .. } => ExtOutcome::Resource(vec![json!({
                "uri": uri, "mimeType": "application/json", "text": value.to_string()
            })]),
            _ => ExtOutcome::Tool(json_output(value)),
        })
    })
}

fn schema_entry<'a>(ctx: &'a ExtCtx<'a>) -> Out<'a> {
    Box::pin(async move {
        // The single argument names the entry (`resource` in billing/dashboards, `schema` in finance).
        let name = ["resource", "schema", "name"]
            .iter()
            .find_map(|k| ctx.args.get(*k).and_then(Value::as_str))
            .unwrap_or_default();
        let Some(value) = entry_json(ctx.product, name) else {
            let known: Vec<&str> = ctx.product.records.iter().map(|r| r.name).collect();
            let detail = Text::DetailNoSchema.fill(
                Locale::En,
                &[
                    ("name", &name as &dyn std::fmt::Display),
                    ("known", &known.join(", ")),
                ],
            );
            return match ctx.target {
                Target::Resource { uri, .. } => {
                    Err(RpcError::resource_not_found(ctx.call.era, uri))
                }
                _ => Ok(ExtOutcome::Tool(ToolOutput::app_error(
                    &errors::NOT_FOUND,
                    Some(&detail),
                    Default::default(),
                ))),
            };
        };
        Ok(match ctx.target {
            Target::Resource { uri, .. } => ExtOutcome::Resource(vec![json!({
                "uri": uri, "mimeType": "application/json", "text": value.to_string()
            })]),
            _ => ExtOutcome::Tool(json_output(value)),
        })
    })
}

fn unavailable_template<'a>(ctx: &'a ExtCtx<'a>) -> Out<'a> {
    Box::pin(async move {
        let tool = match ctx.target {
            Target::Tool(t) | Target::Resource { tool: t, .. } => t.name,
            Target::Prompt(p) => p.name,
        };
        let detail = Text::DetailLimitationNote.fill(Locale::En, &[("tool", &tool)]);
        match ctx.target {
            Target::Resource { uri, .. } => Err(RpcError::new(
                errors::NOT_AVAILABLE.rpc_code,
                format!("{}: {detail}", errors::NOT_AVAILABLE.message),
            )
            .with_data(json!({ "error": errors::NOT_AVAILABLE.code, "uri": uri }))),
            _ => Ok(ExtOutcome::Tool(ToolOutput::app_error(
                &errors::NOT_AVAILABLE,
                Some(&detail),
                Default::default(),
            ))),
        }
    })
}

/// Whether `tool` can answer anything but `not_available` without a backend that executes
/// operations: false for the tools of `template_without_endpoint` that have no list endpoint to
/// scan (a proxy does not list them; their templates stay and answer `not_available`). Which
/// those are the generator decides once (`Product::sandbox_only`), so the docs' figures agree.
pub fn served_by_a_proxy(product: &'static Product, tool: &Tool) -> bool {
    !product.sandbox_only.iter().any(|&i| {
        product
            .tools
            .get(usize::from(i))
            .is_some_and(|t| t.name == tool.name)
    })
}

/// How many list pages (of `SCAN_PAGE` records) a proxy read scans for a record by uid.
pub const SCAN_PAGES: u64 = 20;
const SCAN_PAGE: u64 = 50;

fn template_without_endpoint<'a>(ctx: &'a ExtCtx<'a>) -> Out<'a> {
    Box::pin(async move {
        let tool = match ctx.target {
            Target::Tool(t) | Target::Resource { tool: t, .. } => t,
            Target::Prompt(_) => return unavailable_template(ctx).await,
        };
        let call = CallContext {
            product: ctx.product,
            identity: ctx.call.identity.clone(),
            bearer_token: ctx.call.bearer_token.as_deref().map(str::to_string),
            workspace: ctx
                .args
                .get("workspace_id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| ctx.call.identity.default_workspace.clone()),
            idempotency_key: None,
            locale: ctx.locale,
            progress: ctx.task.progress(),
            attempts: ctx.call.notes.attempts(),
        };
        match ctx.backend.call(&call, tool, ctx.args).await {
            // The proxy: nothing to forward this tool to.
            Err(BackendError::Unsupported(_)) => {}
            answer => return Ok(ExtOutcome::Backend(answer)),
        }
        if let Operation::Get { record, id_arg } = tool.operation {
            if let Some(list) = http_list_of(ctx.product, record) {
                let id = ctx.args.get(id_arg).and_then(Value::as_str).unwrap_or("");
                let id_field = ctx.product.record(record).map_or("uid", |r| r.id_field);
                return Ok(ExtOutcome::Backend(
                    scan(ctx, &call, list, id_field, id).await,
                ));
            }
        }
        unavailable_template(ctx).await
    })
}

/// The list tool bound to HTTP that lists `record`, if any.
fn http_list_of(product: &'static Product, record: &str) -> Option<&'static Tool> {
    product.tools.iter().find(|t| {
        matches!(t.binding, Binding::Http(_))
            && matches!(t.operation, Operation::List { record: r } if r == record)
    })
}

/// Reads the list page by page until the record whose `id_field` is `id`; not found after
/// [`SCAN_PAGES`] pages says how far it looked.
async fn scan(
    ctx: &ExtCtx<'_>,
    call: &CallContext,
    list: &'static Tool,
    id_field: &str,
    id: &str,
) -> Result<Output, BackendError> {
    for page in 1..=SCAN_PAGES {
        let mut args = serde_json::Map::new();
        args.insert("page".into(), json!(page));
        args.insert("per_page".into(), json!(SCAN_PAGE));
        let Output::Json(v) = ctx.backend.call(call, list, &args).await? else {
            return Err(BackendError::Unavailable(format!(
                "{} answered a file, not a list",
                list.name
            )));
        };
        let items = crate::backend::records::list_items(&v)
            .cloned()
            .unwrap_or_default();
        if let Some(found) = items
            .iter()
            .find(|i| i.get(id_field).and_then(Value::as_str) == Some(id))
        {
            return Ok(Output::Json(found.clone()));
        }
        if (items.len() as u64) < SCAN_PAGE {
            // In English, as every detail is made; the caller's language replaces it
            // (`protocol_errors::DETAIL_PATTERNS`), in the text and `structuredContent` alike.
            return Err(BackendError::NotFound(Text::DetailNotListed.fill(
                Locale::En,
                &[("id", &id as &dyn std::fmt::Display), ("list", &list.name)],
            )));
        }
    }
    Err(BackendError::NotFound(Text::DetailNotListedRecent.fill(
        Locale::En,
        &[
            ("id", &id as &dyn std::fmt::Display),
            ("count", &(SCAN_PAGES * SCAN_PAGE)),
            ("list", &list.name),
        ],
    )))
}
