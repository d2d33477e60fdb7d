//! Handler bodies shared by every Kobana product, named by the catalogs' `handler:` keys.
//!
//! - `schema_catalog` / `schema_entry`: the schemas catalog (`kobana://<p>/schemas[/{name}]` and
//!   the `*_schemas_list` / `*_schemas_get` tools). Its content is the record types the catalog
//!   declares ([`crate::record_schemas`]); nothing is hand-written.
//! - `unavailable_template`: the reading tool of a resource template whose records the Kobana API
//!   cannot read (no endpoint, or no read by id). It answers `not_available`, never an empty
//!   result and never "not found", so the client and the model learn that the type itself is
//!   unreadable, not that one record is missing.

use runtime_model::backend::BoxFuture;
use runtime_model::errors;
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
    ],
    prompts: &[],
    resource_subscribe: false,
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
            let message = format!(
                "{}: no schema named `{name}`; known: {}",
                errors::NOT_FOUND.message,
                known.join(", ")
            );
            return match ctx.target {
                Target::Resource { uri, .. } => {
                    Err(RpcError::resource_not_found(ctx.call.era, uri))
                }
                _ => Ok(ExtOutcome::Tool(error_output(&errors::NOT_FOUND, message))),
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
        let message = format!(
            "{} ({tool}): see the limitation note of its resource template in the product docs",
            errors::NOT_AVAILABLE.message
        );
        match ctx.target {
            Target::Resource { uri, .. } => {
                Err(RpcError::new(errors::NOT_AVAILABLE.rpc_code, message)
                    .with_data(json!({ "error": errors::NOT_AVAILABLE.code, "uri": uri })))
            }
            _ => Ok(ExtOutcome::Tool(error_output(
                &errors::NOT_AVAILABLE,
                message,
            ))),
        }
    })
}

fn error_output(error: &errors::AppError, message: String) -> ToolOutput {
    let value = json!({ "error": { "code": error.code, "message": message } });
    ToolOutput {
        content: vec![json!({ "type": "text", "text": format!("{}: {message}", error.code) })],
        structured: Some(value),
        is_error: true,
    }
}
