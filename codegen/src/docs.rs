//! Markdown output: one page per product and an index, rendered from the minijinja templates in
//! `codegen/templates/`.
//!
//! The pages carry the same tables as the product documents (resources with the tool that reads
//! them, prompts with their arguments, completions, destructive tools with their clause), plus the
//! application errors the product's policies can produce, so the docs never drift from what the
//! server does: both come from the same catalog.

use minijinja::{context, Environment};
use runtime_model::catalog::ResourcesListPolicy;
use runtime_model::locale::Locale;
use serde_json::{json, Value};

use crate::descriptors::{resolve_annotations, sorted_tools};
use crate::lower;
use crate::model::{Body, Catalog};
use crate::toolsets::DescriptorSizes;

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

/// What a completion source suggests, in a docs cell.
fn suggestions_text(c: &Catalog, id: &str) -> String {
    match c.completions.get(id) {
        Some(src) => lower::completion::text(src),
        None => format!("unknown source `{id}`"),
    }
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
            let files: Vec<String> = m
                .multipart
                .files
                .iter()
                .map(|f| {
                    let p = lower::upload::resolve(t, f);
                    let mut detail = vec![format!("`{}`", p.media_type)];
                    match (p.filename_arg, p.filename_is_field) {
                        (Some(a), false) => detail.push(format!("filename from `{a}`")),
                        (Some(a), true) => detail.push(format!("filename from the field `{a}`")),
                        (None, _) => {}
                    }
                    detail.push(format!("default `{}`", p.default_filename));
                    format!(
                        "`{}` → part `{}` ({})",
                        f.arg,
                        runtime_model::upload::form_name(&p.arg),
                        detail.join(", ")
                    )
                })
                .collect();
            Some(json!({"name": t.name, "files": files.join("<br>")}))
        })
        .collect()
}

/// Count, `tools/list` bytes and estimated tokens of a selection (indices in `tools/list` order).
fn selection_row(sizes: &DescriptorSizes, tools: &[usize]) -> Value {
    let bytes = crate::toolsets::listing_bytes(sizes, tools);
    json!({
        "count": tools.len(),
        "bytes": bytes,
        "tokens": crate::toolsets::tokens_estimate(bytes),
    })
}

/// A selection's row with what a proxy lists of it (`proxy_count`): the tools of
/// [`crate::toolsets::sandbox_only`] are answered by the embedded sandbox only (issue 36).
fn selection_row_with_proxy(c: &Catalog, sizes: &DescriptorSizes, tools: &[usize]) -> Value {
    let sandbox_only = crate::toolsets::sandbox_only(c);
    let mut row = selection_row(sizes, tools);
    row["proxy_count"] = json!(tools.iter().filter(|i| !sandbox_only.contains(i)).count());
    row
}

/// The names of the tools a proxy does not list, in listing order.
fn sandbox_only_names(c: &Catalog) -> Vec<String> {
    let sorted = sorted_tools(c);
    crate::toolsets::sandbox_only(c)
        .into_iter()
        .map(|i| sorted[i].name.clone())
        .collect()
}

/// One row per toolset: its selection's figures and its tools by name.
fn toolset_rows(c: &Catalog, sizes: &DescriptorSizes) -> Vec<Value> {
    let sorted = sorted_tools(c);
    c.toolsets
        .iter()
        .zip(crate::toolsets::resolve(c))
        .map(|(ts, set)| {
            let mut row = selection_row(sizes, &set);
            let names: Vec<String> = set
                .iter()
                .map(|&i| format!("`{}`", sorted[i].name))
                .collect();
            row["name"] = json!(ts.name);
            row["title"] = json!(ts.title);
            row["description"] = json!(ts.description);
            row["default"] = json!(if ts.default { "yes" } else { "no" });
            row["tools"] = json!(names.join(", "));
            row
        })
        .collect()
}

/// A language's own name, as a reader looking for their language scans for it.
fn language_name(locale: Locale) -> &'static str {
    match locale {
        Locale::PtBr => "Português (Brasil)",
        Locale::Es => "Español",
        Locale::En => "English",
    }
}

/// The language links of a product's pages: one per locale, in [`Locale::ALL`] order, each with
/// its page (`<product>.<tag>.md`), whether it is the product's own language (the one
/// `<product>.md` is written in, as the server speaks it to a client naming none) and whether it
/// is the page `this` being rendered. Empty for a catalog that declares no language.
pub fn language_links(product: &str, own: Option<Locale>, this: Option<Locale>) -> Vec<Value> {
    let Some(own) = own else {
        return Vec::new();
    };
    Locale::ALL
        .into_iter()
        .map(|l| {
            json!({
                "tag": l.tag(),
                "name": language_name(l),
                "href": format!("{product}.{}.md", l.tag()),
                "default": l == own,
                "current": Some(l) == this,
            })
        })
        .collect()
}

/// `generated/docs/<product>.md` (and its per-locale pages). `sized` is the catalog whose
/// listing the size figures measure: the one a client gets (the product's own language).
/// `languages` are the page's [`language_links`].
pub fn product_page<'a>(
    c: &Catalog,
    sized: &'a Catalog,
    source: &str,
    listings: &crate::descriptors::Listings<'a>,
    languages: &[Value],
) -> Result<String, minijinja::Error> {
    let env = environment()?;
    let policy = lower::policy::lower(&c.policies);
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
    let tasks: Vec<Value> = sorted_tools(c)
        .into_iter()
        .filter(|t| t.task != crate::model::TaskSetting::Never)
        .map(|t| {
            let task = match t.task {
                crate::model::TaskSetting::Required => "required",
                _ => "optional",
            };
            let why = t
                .task_note
                .clone()
                .unwrap_or_else(|| "long-running write".into());
            json!({"name": t.name, "task": task, "why": why})
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
                match (policy.resources_list, &t.list_tool) {
                    (ResourcesListPolicy::Recent(n), Some(lt)) => {
                        format!("yes ({n} most recent, from `{lt}`)")
                    }
                    _ => "no (the product lists fixed URIs only)".to_string(),
                }
            };
            json!({
                "uri_template": t.uri_template,
                "description": t.description,
                "read_by": t.read_by,
                "content": lower::content::text(lower::content::lower(&t.content)),
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
                    if let Some(f) = lower::prompt::format_text(lower::prompt::lower_format(a.format)) {
                        parts.push(f.into());
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
    let sizes = DescriptorSizes::from_listing(&listings.of(sized));
    let toolsets = toolset_rows(sized, &sizes);
    let all: Vec<usize> = (0..sized.tools.len()).collect();
    let selections = json!({
        "default": selection_row_with_proxy(sized, &sizes, &crate::toolsets::default_selection(sized)),
        "all": selection_row_with_proxy(sized, &sizes, &all),
        "sandbox_only": sandbox_only_names(sized),
    });
    let discovery_tools =
        runtime_model::selection::discovery_tool_names(&c.product.tool_prefix).to_vec();
    let product = json!({
        "name": c.product.name,
        "title": c.product.title,
        "version": c.product.version,
        "uri_prefix": c.product.uri_prefix,
        "tool_prefix": c.product.tool_prefix,
        "naming": c.product.naming,
        "api_base_url": c.product.api_base_url,
        // A test fixture is never served: nothing to refuse.
        "unpublished_api": !c.product.published_api() && !c.product.fixture,
        "instructions": c.product.instructions,
    });
    env.get_template("product.md")?.render(context! {
        preamble => preamble(source),
        languages => languages,
        product => product,
        counts => counts(c),
        policies => lower::policy::rows(&policy),
        resources => resources,
        templates => templates,
        limitations => limitations,
        prompts => prompts,
        completions => completions,
        tools => tools,
        destructive => destructive,
        tasks => tasks,
        exclusions => exclusions,
        uploads => uploads,
        toolsets => toolsets,
        selections => selections,
        discovery_tools => discovery_tools,
        errors => lower::policy::error_rows(&policy),
    })
}

/// `generated/docs/README.md`: the products with their counts, each linked to its pages in
/// every language (`languages[i]`: the [`language_links`] of `products[i]`).
pub fn index_page<'a>(
    products: &[&'a Catalog],
    languages: &[Vec<Value>],
    fixtures: &[&Catalog],
    listings: &crate::descriptors::Listings<'a>,
) -> Result<String, minijinja::Error> {
    let env = environment()?;
    let sizes: Vec<Value> = products
        .iter()
        .map(|c| {
            let all: Vec<usize> = (0..c.tools.len()).collect();
            let sizes = DescriptorSizes::from_listing(&listings.of(c));
            json!({
                "name": c.product.name,
                "toolsets": c.toolsets.len(),
                "default": selection_row_with_proxy(c, &sizes, &crate::toolsets::default_selection(c)),
                "all": selection_row_with_proxy(c, &sizes, &all),
            })
        })
        .collect();
    let products: Vec<Value> = products
        .iter()
        .zip(languages.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|(c, links)| {
            let mut row = counts(c);
            row["languages"] = json!(links.cloned().unwrap_or_default());
            row
        })
        .collect();
    let fixtures: Vec<Value> = fixtures.iter().map(|c| counts(c)).collect();
    env.get_template("index.md")?.render(context! {
        preamble => preamble("catalog/*.yaml"),
        products => products,
        sizes => sizes,
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
}
