//! Interactive views (the MCP Apps extension): a catalog's `views:` section, validated, compiled
//! into `generated/src/views.rs` (the tables of `runtime_model::views`, each view's page built
//! from its template in `codegen/templates/views/`) and listed in `generated/docs/views.md`.
//!
//! A view shows the result of the tools it is attached to; its page is self-contained (no origin
//! outside it) and talks to the host over the MCP Apps postMessage protocol. Two shapes exist:
//! `record` (one record's fields, the codes drawn from them, copy buttons and the write buttons
//! of `actions`) and `chart` (rows over time, pre-grouped by a `grouped_totals` tool, or records
//! grouped by a date field). A new view of an existing shape is YAML; a new shape is a template.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use runtime_model::locale::Locale;

use crate::diag::Diagnostic;
use crate::load::Loaded;
use crate::locate::{index_path, key_path};
use crate::model::{Catalog, OperationKind, ViewSpec};

/// The shared script of every view: the MCP Apps bridge (postMessage JSON-RPC with the host),
/// formatting in the view's locale, theme, and drawing codes and charts.
const BRIDGE_JS: &str = include_str!("../templates/views/view.js");
/// The data of a chart, made from a tool's rows (pure functions the bridge calls; its test loads
/// the file alone): placed before the bridge in every page.
pub const CHART_DATA_JS: &str = include_str!("../templates/views/chart_data.js");
/// The shared style of every view (the host's theme variables, with light and dark defaults).
const STYLE_CSS: &str = include_str!("../templates/views/view.css");

/// The page shapes, each a template of `codegen/templates/views/`, with the texts it needs
/// besides the view's own (its title, description and the labels of what it shows).
const TEMPLATES: &[(&str, &str, &[&str])] = &[
    (
        "record",
        include_str!("../templates/views/record.html"),
        &["copy", "copied", "pdf", "waiting"],
    ),
    (
        "chart",
        include_str!("../templates/views/chart.html"),
        &["period", "total", "waiting"],
    ),
];

/// Columns of a `grouped_totals` row besides its dimensions.
const GROUPED_TOTALS: &[&str] = &["count", "credit_total", "debit_total", "net_total"];
/// Date buckets of a chart.
const BUCKETS: &[&str] = &["day", "week", "month"];

fn template(name: &str) -> Option<&'static (&'static str, &'static str, &'static [&'static str])> {
    TEMPLATES.iter().find(|t| t.0 == name)
}

/// The texts a view needs: its title and description, the template's own, a label per field,
/// code, action and series.
fn needed_texts(v: &ViewSpec) -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = ["title", "description"].map(String::from).into();
    if let Some(t) = template(&v.template) {
        keys.extend(t.2.iter().map(|k| k.to_string()));
    }
    keys.extend(v.fields.iter().cloned());
    keys.extend(v.codes.iter().map(|c| c.field.clone()));
    keys.extend(v.actions.iter().map(|a| a.tool.clone()));
    if let Some(c) = &v.chart {
        if c.sides.is_empty() {
            keys.extend(c.series.iter().cloned());
        }
        keys.extend(c.sides.iter().map(|s| s.series.clone()));
        if c.net {
            keys.insert("net".into());
        }
        if c.series.is_empty() && c.sides.is_empty() {
            keys.insert("count".into());
        }
    }
    keys
}

/// Every problem of `l`'s `views:` section, each naming file, line and key.
pub fn validate(l: &Loaded) -> Vec<Diagnostic> {
    let c = &l.catalog;
    let mut out = Vec::new();
    let tools: BTreeMap<&str, &crate::model::Tool> =
        c.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut names = BTreeSet::new();
    for (i, v) in c.views.iter().enumerate() {
        let at = index_path("views", i);
        let key = |k: &str| key_path(&at, k);
        if !v
            .name
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_lowercase())
            || !v
                .name
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
        {
            out.push(l.at_value(
                &key("name"),
                format!("view name `{}` is not `[a-z][a-z0-9_]*`", v.name),
                None,
            ));
        }
        if !names.insert(v.name.as_str()) {
            out.push(l.at_value(
                &key("name"),
                format!("a second view named `{}`", v.name),
                Some("view names are unique in a product".into()),
            ));
        }
        if template(&v.template).is_none() {
            out.push(l.at_value(
                &key("template"),
                format!("unknown view template `{}`", v.template),
                Some(TEMPLATES.iter().map(|t| t.0).collect::<Vec<_>>().join(", ")),
            ));
        }
        let record = c.records.get(&v.record);
        if record.is_none() {
            out.push(l.at_value(
                &key("record"),
                format!("unknown record type `{}`", v.record),
                Some("a key of `records`".into()),
            ));
        }
        let field_ok = |f: &str| {
            let head = f.split('.').next().unwrap_or(f);
            record.is_none_or(|r| r.fields.contains_key(head))
        };
        let unknown_field = |path: String, f: &str| {
            l.at_value(
                &path,
                format!("`{f}` is not a field of the record type `{}`", v.record),
                record.map(|r| r.fields.keys().cloned().collect::<Vec<_>>().join(", ")),
            )
        };
        if v.tools.is_empty() {
            out.push(l.at_key(
                &key("tools"),
                "a view shows the result of at least one tool".into(),
                None,
            ));
        }
        for (list, what) in [(&v.tools, "tools"), (&v.app_tools, "app_tools")] {
            for (j, t) in list.iter().enumerate() {
                if !tools.contains_key(t.as_str()) {
                    out.push(l.at_value(
                        &index_path(&key(what), j),
                        format!("unknown tool `{t}`"),
                        Some("a tool of this catalog".into()),
                    ));
                }
            }
        }
        for (j, f) in v.fields.iter().enumerate() {
            if !field_ok(f) {
                out.push(unknown_field(index_path(&key("fields"), j), f));
            }
        }
        for (j, f) in v.copy.iter().enumerate() {
            if !v.fields.contains(f) {
                out.push(l.at_value(
                    &index_path(&key("copy"), j),
                    format!("`{f}` has a copy button but is not among the view's `fields`"),
                    None,
                ));
            }
        }
        for (j, code) in v.codes.iter().enumerate() {
            let p = index_path(&key("codes"), j);
            if !field_ok(&code.field) {
                out.push(unknown_field(key_path(&p, "field"), &code.field));
            }
            if runtime_model::views::CodeFormat::from_name(&code.format).is_none() {
                out.push(l.at_value(
                    &key_path(&p, "format"),
                    format!("unknown code format `{}`", code.format),
                    Some("itf, qr".into()),
                ));
            }
        }
        for (j, a) in v.actions.iter().enumerate() {
            let p = index_path(&key("actions"), j);
            let Some(tool) = tools.get(a.tool.as_str()) else {
                out.push(l.at_value(
                    &key_path(&p, "tool"),
                    format!("unknown tool `{}`", a.tool),
                    None,
                ));
                continue;
            };
            let props = crate::validate::json_schema::schema_properties(&tool.input_schema);
            for (arg, f) in &a.arguments {
                let ap = key_path(&key_path(&p, "arguments"), arg);
                if !props.contains(arg) {
                    out.push(l.at_key(
                        &ap,
                        format!("`{arg}` is not an argument of `{}`", a.tool),
                        Some(props.join(", ")),
                    ));
                }
                if !field_ok(f) {
                    out.push(unknown_field(ap, f));
                }
            }
        }
        match (&v.chart, v.template.as_str()) {
            (None, "chart") => out.push(l.at_key(
                &key("template"),
                "a `chart` view needs `chart:` (what it draws)".into(),
                None,
            )),
            (Some(_), t) if t != "chart" => out.push(l.at_key(
                &key("chart"),
                format!("`chart:` belongs to `chart` views, not `{t}`"),
                None,
            )),
            (Some(ch), _) => {
                let p = key("chart");
                match (&ch.date, ch.label.is_empty()) {
                    (Some(d), true) => {
                        if !field_ok(d) {
                            out.push(unknown_field(key_path(&p, "date"), d));
                        }
                        if !ch.by.as_deref().is_some_and(|b| BUCKETS.contains(&b)) {
                            out.push(l.at_key(
                                &p,
                                "a chart of records needs `by`: day, week or month".into(),
                                None,
                            ));
                        }
                        for (j, s) in ch.series.iter().enumerate() {
                            if !field_ok(s) {
                                out.push(unknown_field(index_path(&key_path(&p, "series"), j), s));
                            }
                        }
                        out.extend(sides_problems(l, &p, ch, d, &tools));
                    }
                    (None, false) => {
                        let grouped = v.tools.iter().all(|t| {
                            tools.get(t.as_str()).is_some_and(|t| {
                                t.operation
                                    .as_ref()
                                    .is_some_and(|o| o.kind == OperationKind::GroupedTotals)
                            })
                        });
                        if !grouped {
                            out.push(l.at_key(
                                &key_path(&p, "label"),
                                "pre-grouped rows come from `grouped_totals` tools only".into(),
                                None,
                            ));
                        }
                        for (j, k) in ch.label.iter().enumerate() {
                            if !BUCKETS.contains(&k.as_str()) && !field_ok(k) {
                                out.push(unknown_field(index_path(&key_path(&p, "label"), j), k));
                            }
                        }
                        for (j, s) in ch.series.iter().enumerate() {
                            if !GROUPED_TOTALS.contains(&s.as_str()) {
                                out.push(l.at_value(
                                    &index_path(&key_path(&p, "series"), j),
                                    format!("`{s}` is not a column of grouped totals"),
                                    Some(GROUPED_TOTALS.join(", ")),
                                ));
                            }
                        }
                    }
                    _ => out.push(l.at_key(
                        &p,
                        "a chart has either `label` (grouped rows) or `date` (records)".into(),
                        None,
                    )),
                }
            }
            _ => {}
        }
        let needed = needed_texts(v);
        let texts_path = key("texts");
        for k in &needed {
            match v.texts.get(k) {
                None => out.push(l.at_key(
                    &texts_path,
                    format!("the view `{}` has no text `{k}`", v.name),
                    Some(format!("`{k}: {{pt-BR: …, es: …, en: …}}`")),
                )),
                Some(t) => {
                    let missing: Vec<&str> = Locale::ALL
                        .iter()
                        .filter(|loc| t.get(**loc).is_none())
                        .map(|loc| loc.tag())
                        .collect();
                    if !missing.is_empty() {
                        out.push(l.at_key(
                            &key_path(&texts_path, k),
                            format!("the text `{k}` has no {} version", missing.join(", ")),
                            Some("every view text is written in pt-BR, es and en".into()),
                        ));
                    }
                }
            }
        }
        for k in v.texts.keys() {
            if !needed.contains(k) {
                out.push(l.at_key(
                    &key_path(&texts_path, k),
                    format!("the view `{}` shows no text `{k}`", v.name),
                    Some(needed.iter().cloned().collect::<Vec<_>>().join(", ")),
                ));
            }
        }
    }
    out
}

/// The problems of a records chart's `ahead`, `sides` and `net` (`date` its date field): each
/// side's tool lists records (of any type) and takes the window's and the pages' arguments and
/// those of its argument sets; a side sums one series; `sides` and `net` need `ahead`.
fn sides_problems(
    l: &Loaded,
    p: &str,
    ch: &crate::model::ChartSpec,
    date: &str,
    tools: &BTreeMap<&str, &crate::model::Tool>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if ch.ahead == Some(0) {
        out.push(l.at_value(&key_path(p, "ahead"), "`ahead` is at least 1".into(), None));
    }
    if (!ch.sides.is_empty() || ch.net) && ch.ahead.is_none() {
        out.push(l.at_key(
            p,
            "`sides` and `net` draw the periods `ahead`: give `ahead`".into(),
            None,
        ));
    }
    if ch.net && ch.sides.len() < 2 {
        out.push(l.at_key(&key_path(p, "net"), "`net` needs two `sides`".into(), None));
    }
    if !ch.sides.is_empty() && ch.series.len() != 1 {
        out.push(l.at_key(
            &key_path(p, "series"),
            "with `sides`, `series` names the one field each side sums".into(),
            None,
        ));
    }
    for (j, side) in ch.sides.iter().enumerate() {
        let sp = index_path(&key_path(p, "sides"), j);
        let Some(tool) = tools.get(side.tool.as_str()) else {
            out.push(l.at_value(
                &key_path(&sp, "tool"),
                format!("unknown tool `{}`", side.tool),
                Some("a tool of this catalog".into()),
            ));
            continue;
        };
        if !tool
            .operation
            .as_ref()
            .is_some_and(|o| o.kind == OperationKind::List)
        {
            out.push(l.at_value(
                &key_path(&sp, "tool"),
                format!("`{}` is not a list tool", side.tool),
                None,
            ));
        }
        let props = crate::validate::json_schema::schema_properties(&tool.input_schema);
        let window = [
            format!("{date}_from"),
            format!("{date}_to"),
            "page".into(),
            "per_page".into(),
        ];
        for a in &window {
            if !props.contains(a) {
                out.push(l.at_value(
                    &key_path(&sp, "tool"),
                    format!(
                        "`{}` takes no `{a}` (a side lists a window of pages)",
                        side.tool
                    ),
                    Some(props.join(", ")),
                ));
            }
        }
        for (k, set) in side.arguments.iter().enumerate() {
            for arg in set.keys() {
                if !props.contains(arg) {
                    out.push(l.at_key(
                        &key_path(&index_path(&key_path(&sp, "arguments"), k), arg),
                        format!("`{arg}` is not an argument of `{}`", side.tool),
                        Some(props.join(", ")),
                    ));
                }
            }
        }
    }
    out
}

/// A Rust string literal.
fn lit(s: &str) -> String {
    format!("{s:?}")
}

/// The page of a view: its template with the shared style and script, and its static settings
/// (fields, codes, actions, chart, texts in every locale) as JSON. The runtime writes the
/// settings of each reader at [`runtime_model::views::SETTINGS_MARKER`].
fn page(c: &Catalog, v: &ViewSpec) -> String {
    let product = c.product.name.as_str();
    let texts: serde_json::Map<String, serde_json::Value> = Locale::ALL
        .iter()
        .map(|loc| {
            let t: serde_json::Map<String, serde_json::Value> = v
                .texts
                .iter()
                .map(|(k, t)| (k.clone(), t.get(*loc).unwrap_or_default().into()))
                .collect();
            (loc.tag().to_string(), t.into())
        })
        .collect();
    // The labels of the coded values it shows (its fields', and the status its badge shows), from
    // the catalog's one home for them (the confirmation section's value labels).
    let coded: BTreeSet<&str> = v
        .fields
        .iter()
        .map(String::as_str)
        .chain((v.template == "record").then_some("status"))
        .collect();
    let values: serde_json::Map<String, serde_json::Value> = Locale::ALL
        .iter()
        .map(|loc| {
            let by_field: serde_json::Map<String, serde_json::Value> = coded
                .iter()
                .filter_map(|f| {
                    let labels: serde_json::Map<String, serde_json::Value> =
                        crate::confirmation::value_labels(c, &v.record, f)
                            .into_iter()
                            .filter_map(|(code, w)| Some((code.to_string(), w.get(*loc)?.into())))
                            .collect();
                    (!labels.is_empty()).then(|| (f.to_string(), labels.into()))
                })
                .collect();
            (loc.tag().to_string(), by_field.into())
        })
        .collect();
    let view = serde_json::json!({
        "product": product,
        "name": v.name,
        "fields": v.fields,
        "copy": v.copy,
        "codes": v.codes.iter().map(|c| serde_json::json!({"field": c.field, "format": c.format})).collect::<Vec<_>>(),
        "actions": v.actions.iter().map(|a| serde_json::json!({"tool": a.tool, "arguments": a.arguments})).collect::<Vec<_>>(),
        "chart": v.chart.as_ref().map(|c| serde_json::json!({
            "label": c.label, "date": c.date, "by": c.by, "series": c.series, "money": c.money,
            "ahead": c.ahead, "net": c.net,
            "sides": c.sides.iter().map(|s| serde_json::json!({
                "series": s.series, "tool": s.tool, "arguments": s.arguments,
            })).collect::<Vec<_>>(),
        })),
        "texts": texts,
        "values": values,
    });
    // `</` never appears inside the JSON of a script element.
    let view_json = view.to_string().replace("</", "<\\/");
    let body = template(&v.template).map_or("", |t| t.1);
    body.replace("{{style}}", STYLE_CSS)
        .replace("{{script}}", &format!("{CHART_DATA_JS}\n{BRIDGE_JS}"))
        .replace("{{view}}", &view_json)
        .replace("{{settings}}", runtime_model::views::SETTINGS_MARKER)
}

/// `generated/src/views.rs`: every product's views (fixtures under the `fixtures` feature).
pub fn module(catalogs: &[&Catalog]) -> String {
    let mut out = crate::rust::preamble("the `views:` sections of catalog/*.yaml");
    out.push_str("#![cfg_attr(rustfmt, rustfmt::skip)]\n");
    out.push_str(
        "//! The views of each product (MCP Apps), from the catalogs' `views:` sections.\n",
    );
    out.push_str("use runtime_model::views::{Action, Code, CodeFormat, ProductViews, View};\n");
    let mut products: Vec<&Catalog> = catalogs
        .iter()
        .copied()
        .filter(|c| !c.views.is_empty())
        .collect();
    products.sort_by(|a, b| a.product.name.cmp(&b.product.name));
    let mut entries = Vec::new();
    for c in products {
        let p = &c.product.name;
        let cfg = if c.product.fixture {
            "#[cfg(feature = \"fixtures\")]\n"
        } else {
            ""
        };
        let ident = p.to_uppercase();
        let _ = writeln!(out, "{cfg}static {ident}: &[View] = &[");
        for v in &c.views {
            let strs = |xs: &[String]| {
                format!(
                    "&[{}]",
                    xs.iter().map(|x| lit(x)).collect::<Vec<_>>().join(", ")
                )
            };
            let by_locale = |k: &str| {
                let t = v.texts.get(k);
                format!(
                    "[{}]",
                    Locale::ALL
                        .iter()
                        .map(|loc| lit(t.and_then(|t| t.get(*loc)).unwrap_or_default()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let codes = v
                .codes
                .iter()
                .map(|c| {
                    let f = if c.format == "qr" { "Qr" } else { "Itf" };
                    format!(
                        "Code {{ field: {}, format: CodeFormat::{f} }}",
                        lit(&c.field)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let actions = v
                .actions
                .iter()
                .map(|a| {
                    let args = a
                        .arguments
                        .iter()
                        .map(|(k, f)| format!("({}, {})", lit(k), lit(f)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!("Action {{ tool: {}, arguments: &[{args}] }}", lit(&a.tool))
                })
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                out,
                "    View {{\n        name: {},\n        uri: {},\n        record: {},\n        tools: {},\n        app_tools: {},\n        fields: {},\n        codes: &[{codes}],\n        actions: &[{actions}],\n        titles: {},\n        descriptions: {},\n        html: {},\n    }},",
                lit(&v.name),
                lit(&format!("{}{p}/{}", runtime_model::views::URI_SCHEME, v.name)),
                lit(&v.record),
                strs(&v.tools),
                strs(&v.app_tools),
                strs(&v.fields),
                by_locale("title"),
                by_locale("description"),
                lit(&page(c, v)),
            );
        }
        out.push_str("];\n");
        entries.push(format!(
            "    {cfg}ProductViews {{ product: {}, views: {ident} }},",
            lit(p)
        ));
    }
    out.push_str("/// Every product's views.\npub static ALL: &[ProductViews] = &[\n");
    for e in entries {
        out.push_str(&e);
        out.push('\n');
    }
    out.push_str("];\n");
    out.push_str(
        "/// The views of a product (none for a product without any).\npub fn of(product: &str) -> Option<&'static ProductViews> {\n    ALL.iter().find(|v| v.product == product)\n}\n",
    );
    out
}

/// `generated/docs/views.md`: the views of `products` (in the docs' order), their URIs, tools and
/// fields (none when no product has views).
pub fn docs_page(products: &[&Catalog]) -> Option<String> {
    if products.iter().all(|c| c.views.is_empty()) {
        return None;
    }
    let mut out = String::from(
        "<!-- generated from the `views:` sections of catalog/*.yaml; do not edit by hand — run `cargo build` (or `cargo run -p codegen`) -->\n# Interactive views (MCP Apps)\n\nA client that declares the MCP Apps extension (`io.modelcontextprotocol/ui`) gets these views: each tool below carries `_meta.ui.resourceUri`, and `resources/read` of the URI answers a self-contained page (`text/html;profile=mcp-app`) that the host renders next to the tool's result. Clients without the extension see no change.\n",
    );
    for c in products {
        if c.views.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "\n## {}\n\n| View | URI | Tools | Shows |\n|---|---|---|---|\n",
            c.product.name
        );
        for v in &c.views {
            let title = |loc: Locale| {
                v.texts
                    .get("title")
                    .and_then(|t| t.get(loc))
                    .unwrap_or_default()
                    .to_string()
            };
            let mut shows: Vec<String> = v.fields.iter().map(|f| format!("`{f}`")).collect();
            shows.extend(
                v.codes
                    .iter()
                    .map(|c| format!("`{}` ({})", c.field, c.format)),
            );
            if let Some(ch) = &v.chart {
                let what = if ch.series.is_empty() {
                    vec!["count".to_string()]
                } else {
                    ch.series.clone()
                };
                shows.push(format!(
                    "chart of {} by {}",
                    what.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    ch.by.clone().unwrap_or_else(|| ch.label.join("/"))
                ));
                if let Some(n) = ch.ahead {
                    let sides: Vec<String> = ch
                        .sides
                        .iter()
                        .map(|s| format!("`{}` from `{}`", s.series, s.tool))
                        .collect();
                    shows.push(format!(
                        "the {n} periods from the current one{}{}",
                        if sides.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", sides.join(" and "))
                        },
                        if ch.net { ", and their net" } else { "" }
                    ));
                }
            }
            shows.extend(v.actions.iter().map(|a| format!("button `{}`", a.tool)));
            let _ = writeln!(
                out,
                "| {} ({} / {}) | `ui://{}/{}` | {} | {} |",
                title(Locale::En),
                title(Locale::PtBr),
                title(Locale::Es),
                c.product.name,
                v.name,
                v.tools
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                shows.join(", ")
            );
        }
    }
    Some(out)
}
