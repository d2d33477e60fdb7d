//! Markdown output: one page per product and an index, rendered from the minijinja templates in
//! `codegen/templates/`.
//!
//! The pages carry the same tables as the product documents (resources with the tool that reads
//! them, prompts with their arguments, completions, destructive tools with their clause), plus the
//! application errors the product's policies can produce, so the docs never drift from what the
//! server does: both come from the same catalog.

use minijinja::{context, Environment};
use serde_json::{json, Value};

use crate::descriptors::{resolve_annotations, sorted_tools};
use crate::model::{
    ArgFormat, BindField, Body, Catalog, CompletionSource, Content, ReplayPolicy, ResourcesList,
    UnconfirmableDestructive,
};

pub const PRODUCT_TEMPLATE: &str = include_str!("../templates/product.md.jinja");
pub const INDEX_TEMPLATE: &str = include_str!("../templates/index.md.jinja");

/// The first line of every generated Markdown file.
pub fn preamble(source: &str) -> String {
    format!(
        "<!-- generated from {source}; do not edit by hand — run `cargo build` (or `cargo run -p codegen`) -->"
    )
}

/// Escapes text for a Markdown table cell: no line breaks, no column separators.
fn cell(value: Value) -> String {
    let text = match value {
        Value::String(s) => s,
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    text.trim()
        .replace('|', "\\|")
        .replace("\r\n", "\n")
        .split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Quotes a multi-line text as a Markdown block quote, keeping its lines.
fn blockquote(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_string()
            } else {
                format!("> {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    env.set_keep_trailing_newline(true);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_filter("cell", |v: minijinja::Value| {
        cell(serde_json::to_value(&v).unwrap_or(Value::Null))
    });
    env.add_filter("blockquote", |v: String| blockquote(&v));
    env.add_template("product.md", PRODUCT_TEMPLATE)?;
    env.add_template("index.md", INDEX_TEMPLATE)?;
    Ok(env)
}

/// What a content kind means, in a docs cell.
fn content_text(c: &Content) -> String {
    match c {
        Content::Json => "JSON record".into(),
        Content::Text => "text".into(),
        Content::SchemaCatalog => "schemas catalog (JSON)".into(),
        Content::SchemaEntry => "schemas catalog entry (JSON)".into(),
        Content::Blob(s) => format!("base64 blob, up to {}", bytes(s.max_bytes)),
        Content::BlobOrText(s) => format!("blob or text, up to {}", bytes(s.max_bytes)),
        Content::SignedUrl(u) => format!("signed download URL, valid {} s", u.ttl_seconds),
    }
}

fn bytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MB", n / (1024 * 1024))
    } else if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{} MB", n / 1_000_000)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// What a completion source suggests, in a docs cell.
fn suggestions_text(c: &Catalog, id: &str) -> String {
    match c.completions.get(id) {
        Some(CompletionSource::ListIds(l)) => format!(
            "`{}` values from `{}` matching the typed prefix, most recent first, up to {}",
            l.field, l.tool, l.limit
        ),
        Some(CompletionSource::Fixed(v)) => v
            .iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", "),
        Some(CompletionSource::SchemaNames) => "names of the schemas catalog".into(),
        Some(CompletionSource::LastMonths(n)) => {
            format!("the last {n} months as `YYYY-MM`, current first")
        }
        Some(CompletionSource::TodayAndMonthStarts(n)) => {
            format!("today, then the first day of each of the last {n} months (`YYYY-MM-DD`)")
        }
        Some(CompletionSource::None) => "none".into(),
        None => format!("unknown source `{id}`"),
    }
}

fn policies_rows(c: &Catalog) -> Vec<Value> {
    let p = &c.policies;
    let binds = p
        .confirmation_binds
        .iter()
        .map(|b| match b {
            BindField::Person => "person",
            BindField::Organization => "organization",
            BindField::Workspace => "workspace",
        })
        .collect::<Vec<_>>()
        .join(", ");
    let (unconf, unconf_meaning) = match p.unconfirmable_destructive {
        UnconfirmableDestructive::Run => ("run", "A destructive tool called by a client that cannot confirm (2025-era, or without form elicitation) runs directly; the client confirms on `destructiveHint`."),
        UnconfirmableDestructive::Refuse => ("refuse", "A destructive tool called by a client that cannot confirm is refused with `confirmation_required`; nothing runs."),
    };
    let (replay, replay_meaning) = match p.replay {
        ReplayPolicy::AskAgain => ("ask_again", "A confirmation used twice is asked again, with a notice that the action may already have run."),
        ReplayPolicy::Refuse => ("refuse", "A confirmation used twice is refused with `confirmation_replayed`; nothing runs."),
    };
    let (list, list_meaning) = match p.resources_list {
        ResourcesList::Fixed => ("fixed".to_string(), "`resources/list` gives the fixed URIs only.".to_string()),
        ResourcesList::Recent(n) => (
            format!("recent: {n}"),
            format!("`resources/list` gives the fixed URIs plus the {n} most recent records of each listed type the caller can read."),
        ),
    };
    vec![
        json!({"name": "Destructive tool, client cannot confirm", "value": unconf, "meaning": unconf_meaning}),
        json!({"name": "Decline code", "value": format!("`{}`", p.decline_code), "meaning": "The error code of a declined confirmation."}),
        json!({"name": "Replayed confirmation", "value": replay, "meaning": replay_meaning}),
        json!({"name": "Confirmation bound to", "value": binds, "meaning": "A confirmation is valid only for the same identity fields."}),
        json!({"name": "Confirmation lifetime", "value": format!("{} s", p.confirmation_ttl_seconds), "meaning": "After this, the confirmation must be given again."}),
        json!({"name": "`resources/list`", "value": list, "meaning": list_meaning}),
        json!({"name": "Workspaced", "value": if p.workspaced { "yes" } else { "no" }, "meaning": if p.workspaced { "Records live in a workspace; reads use the connection's default workspace." } else { "Records belong to the organization." }}),
    ]
}

/// The runtime's view of the policies, to filter the error table exactly as the runtime would.
fn runtime_policy(c: &Catalog) -> runtime_model::catalog::Policy {
    use runtime_model::catalog as rc;
    let p = &c.policies;
    rc::Policy {
        unconfirmable_destructive: match p.unconfirmable_destructive {
            UnconfirmableDestructive::Run => rc::UnconfirmableDestructive::Run,
            UnconfirmableDestructive::Refuse => rc::UnconfirmableDestructive::Refuse,
        },
        decline_code: "",
        replay: match p.replay {
            ReplayPolicy::AskAgain => rc::ReplayPolicy::AskAgain,
            ReplayPolicy::Refuse => rc::ReplayPolicy::Refuse,
        },
        confirmation_binds: rc::ConfirmationBinding {
            person: p.confirmation_binds.contains(&BindField::Person),
            organization: p.confirmation_binds.contains(&BindField::Organization),
            workspace: p.confirmation_binds.contains(&BindField::Workspace),
        },
        confirmation_ttl_secs: p.confirmation_ttl_seconds,
        resources_list: match p.resources_list {
            ResourcesList::Fixed => rc::ResourcesListPolicy::FixedOnly,
            ResourcesList::Recent(n) => rc::ResourcesListPolicy::Recent(n),
        },
        workspaced: p.workspaced,
    }
}

fn errors_rows(c: &Catalog) -> Vec<Value> {
    use runtime_model::errors::{ErrorScope, ALL};
    let policy = runtime_policy(c);
    ALL.iter()
        .filter(|e| e.applies_to(&policy))
        .map(|e| {
            let code = if e.scope == ErrorScope::Decline {
                c.policies.decline_code.as_str()
            } else {
                e.code
            };
            json!({"code": code, "message": e.message, "when": e.when})
        })
        .collect()
}

/// Counts shown on a product page and in the index.
pub fn counts(c: &Catalog) -> Value {
    let read_only = c.tools.iter().filter(|t| t.annotations.read_only).count();
    let destructive = c
        .tools
        .iter()
        .filter(|t| resolve_annotations(t).destructive)
        .count();
    json!({
        "name": c.product.name,
        "title": c.product.title,
        "tools": c.tools.len(),
        "read_only": read_only,
        "destructive": destructive,
        "write": c.tools.len() - read_only - destructive,
        "resources": c.resources.len(),
        "templates": c.templates.len(),
        "resources_total": c.resources.len() + c.templates.len(),
        "prompts": c.prompts.len(),
    })
}

/// The tools that upload a file (multipart bodies), by name, each with its file parts described:
/// argument → form part (Content-Type, where the filename comes from, default filename).
fn uploads(c: &Catalog) -> Vec<Value> {
    sorted_tools(c)
        .into_iter()
        .filter_map(|t| {
            let Some(Body::Multipart(m)) = t.http.as_ref().and_then(|h| h.body.as_ref()) else {
                return None;
            };
            let files: Vec<String> =
                m.multipart
                    .files
                    .iter()
                    .map(|f| {
                        let segments: Vec<&str> = f.arg.split('.').collect();
                        let media = crate::validate::property_at(&t.input_schema, &segments)
                            .and_then(|s| s.get("contentMediaType"))
                            .and_then(|m| m.as_str())
                            .unwrap_or(runtime_model::upload::OCTET_STREAM);
                        let mut detail = vec![format!("`{media}`")];
                        if let Some(a) = &f.filename_arg {
                            detail.push(format!("filename from `{a}`"));
                        }
                        if let Some(a) = &f.filename_field {
                            detail.push(format!("filename from the field `{a}`"));
                        }
                        let default = f.default_filename.clone().unwrap_or_else(|| {
                            segments.last().copied().unwrap_or("file").to_string()
                        });
                        detail.push(format!("default `{default}`"));
                        format!(
                            "`{}` → part `{}` ({})",
                            f.arg,
                            runtime_model::upload::form_name(&segments),
                            detail.join(", ")
                        )
                    })
                    .collect();
            Some(json!({"name": t.name, "files": files.join("<br>")}))
        })
        .collect()
}

/// `generated/docs/<product>.md`.
pub fn product_page(c: &Catalog, source: &str) -> Result<String, minijinja::Error> {
    let env = environment()?;
    let tools: Vec<Value> = sorted_tools(c)
        .into_iter()
        .map(|t| {
            let a = resolve_annotations(t);
            let kind = if a.read_only {
                "read-only".to_string()
            } else if a.destructive {
                match &t.destructive_clause {
                    Some(clause) => format!("destructive: {clause}"),
                    None => "destructive".into(),
                }
            } else {
                "write".to_string()
            };
            json!({"name": t.name, "title": t.title, "kind": kind, "scope": t.scope, "permission": t.permission, "output_schema": t.output_schema.is_some()})
        })
        .collect();
    let destructive: Vec<Value> = sorted_tools(c)
        .into_iter()
        .filter(|t| resolve_annotations(t).destructive)
        .map(
            |t| json!({"name": t.name, "clause": t.destructive_clause.clone().unwrap_or_default()}),
        )
        .collect();
    let templates: Vec<Value> = c
        .templates
        .iter()
        .map(|t| {
            let listed = if !t.listed {
                "no (read by URI only)".to_string()
            } else {
                match (&c.policies.resources_list, &t.list_tool) {
                    (ResourcesList::Recent(n), Some(lt)) => {
                        format!("yes ({n} most recent, from `{lt}`)")
                    }
                    _ => "no (the product lists fixed URIs only)".to_string(),
                }
            };
            json!({
                "uri_template": t.uri_template,
                "description": t.description,
                "read_by": t.read_by,
                "content": content_text(&t.content),
                "listed": listed,
                "limitation": t.limitation,
            })
        })
        .collect();
    let limitations: Vec<&Value> = templates
        .iter()
        .filter(|t| !t["limitation"].is_null())
        .collect();
    let prompts: Vec<Value> = c
        .prompts
        .iter()
        .map(|p| {
            let args: Vec<Value> = p
                .arguments
                .iter()
                .map(|a| {
                    let mut parts = vec![if a.required { "required" } else { "optional" }.to_string()];
                    match a.format {
                        Some(ArgFormat::Date) => parts.push("`YYYY-MM-DD`".into()),
                        Some(ArgFormat::Month) => parts.push("`YYYY-MM`".into()),
                        None => {}
                    }
                    if let Some(d) = &a.default {
                        parts.push(format!("default `{d}`"));
                    }
                    json!({"name": a.name, "detail": parts.join(", ")})
                })
                .collect();
            let writes = if p.writes { "yes" } else { "no" };
            json!({"name": p.name, "arguments": args, "description": p.description, "writes": writes})
        })
        .collect();
    let mut completions = Vec::new();
    for t in &c.templates {
        for (var, src) in &t.complete {
            completions.push(json!({
                "argument": format!("`{{{var}}}` in `{}`", t.uri_template),
                "suggestions": suggestions_text(c, src),
            }));
        }
    }
    for p in &c.prompts {
        for a in &p.arguments {
            if let Some(src) = &a.complete {
                completions.push(json!({
                    "argument": format!("`{}` of prompt `{}`", a.name, p.name),
                    "suggestions": suggestions_text(c, src),
                }));
            }
        }
    }
    let resources: Vec<Value> = c
        .resources
        .iter()
        .map(|r| json!({"uri": r.uri, "description": r.description, "mime_type": r.mime_type, "read_by": r.read_by}))
        .collect();
    let uploads = uploads(c);
    let exclusions: Vec<Value> = c
        .exclusions
        .iter()
        .map(|e| json!({"operation": e.operation, "reason": e.reason}))
        .collect();
    let product = json!({
        "name": c.product.name,
        "title": c.product.title,
        "version": c.product.version,
        "uri_prefix": c.product.uri_prefix,
        "tool_prefix": c.product.tool_prefix,
        "naming": c.product.naming,
        "api_base_url": c.product.api_base_url,
        "instructions": c.product.instructions,
    });
    env.get_template("product.md")?.render(context! {
        preamble => preamble(source),
        product => product,
        counts => counts(c),
        policies => policies_rows(c),
        resources => resources,
        templates => templates,
        limitations => limitations,
        prompts => prompts,
        completions => completions,
        tools => tools,
        destructive => destructive,
        exclusions => exclusions,
        uploads => uploads,
        errors => errors_rows(c),
    })
}

/// `generated/docs/README.md`: the products with their counts.
pub fn index_page(
    products: &[&Catalog],
    fixtures: &[&Catalog],
) -> Result<String, minijinja::Error> {
    let env = environment()?;
    let products: Vec<Value> = products.iter().map(|c| counts(c)).collect();
    let fixtures: Vec<Value> = fixtures.iter().map(|c| counts(c)).collect();
    env.get_template("index.md")?.render(context! {
        preamble => preamble("catalog/*.yaml"),
        products => products,
        fixtures => fixtures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_on_one_line_and_escape_separators() {
        assert_eq!(cell(json!("a | b\n  c\r\nd ")), "a \\| b c d");
        assert_eq!(cell(json!(true)), "yes");
        assert_eq!(cell(json!(null)), "");
    }

    #[test]
    fn blockquotes_keep_lines() {
        assert_eq!(blockquote("one\n\ntwo\n"), "> one\n>\n> two");
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(bytes(10 * 1024 * 1024), "10 MB");
        assert_eq!(bytes(2048), "2 KB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
