//! The catalog's `views:` section (issue 39): a valid one compiles into the views table, the
//! docs page and each view's self-contained page; each broken rule is refused with a diagnostic
//! naming the file, the line and the key.

const TINY: &str = include_str!("data/tiny.yaml");

/// A valid view of `tiny.yaml`'s orders.
const VIEW: &str = r#"
views:
- name: order
  template: record
  record: orders
  tools: [tiny_orders_get]
  fields: [amount, status]
  copy: [amount]
  actions:
  - tool: tiny_orders_cancel
    arguments: {uid: uid}
  texts:
    title: {pt-BR: Pedido, es: Pedido, en: Order}
    description: {pt-BR: O pedido., es: El pedido., en: The order.}
    amount: {pt-BR: Valor, es: Importe, en: Amount}
    status: {pt-BR: Situação, es: Estado, en: Status}
    tiny_orders_cancel: {pt-BR: Cancelar, es: Cancelar, en: Cancel}
    copy: {pt-BR: Copiar, es: Copiar, en: Copy}
    copied: {pt-BR: Copiado, es: Copiado, en: Copied}
    pdf: {pt-BR: PDF, es: PDF, en: PDF}
    waiting: {pt-BR: Aguardando, es: Esperando, en: Waiting}
"#;

fn catalog_dir(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::write(catalog.join("tiny.yaml"), text).unwrap();
    dir
}

fn problems(text: &str) -> Vec<codegen::diag::Diagnostic> {
    let dir = catalog_dir(text);
    match codegen::load_all(&dir.path().join("catalog")) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().expect("catalog problems").0.clone(),
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).expect("needle in text");
    text[..at].matches('\n').count() + 1
}

/// The catalog with `from` (once in the view) replaced by `to`, and the one problem it has,
/// which must be at `path`, say `needle` and point at the line holding `line_text`.
fn refused(from: &str, to: &str, path: &str, needle: &str, line_text: &str) {
    assert_eq!(VIEW.matches(from).count(), 1, "test bug: `{from}`");
    let text = format!("{TINY}{}", VIEW.replacen(from, to, 1));
    let all = problems(&text);
    let found = all
        .iter()
        .find(|d| d.path == path && d.message.contains(needle))
        .unwrap_or_else(|| {
            panic!(
                "no problem at `{path}` saying `{needle}`; got:\n{}",
                all.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
    assert_eq!(found.file, "catalog/tiny.yaml");
    assert_eq!(found.line, line_of(&text, line_text), "{found}");
}

#[test]
fn a_valid_view_compiles_into_its_table_page_and_docs() {
    let text = format!("{TINY}{VIEW}");
    let dir = catalog_dir(&text);
    let loaded = codegen::load_all(&dir.path().join("catalog")).expect("valid");
    let files = codegen::generate_from(&loaded).expect("generated");
    let table = files
        .iter()
        .find(|f| f.path == "src/views.rs")
        .expect("views table");
    assert!(table.contents.contains("uri: \"ui://tiny/order\""));
    assert!(table.contents.contains("tools: &[\"tiny_orders_get\"]"));
    assert!(table
        .contents
        .contains("Action { tool: \"tiny_orders_cancel\", arguments: &[(\"uid\", \"uid\")] }"));
    assert!(table
        .contents
        .contains("titles: [\"Pedido\", \"Pedido\", \"Order\"]"));
    // The page is self-contained: no origin outside it, and the settings marker the runtime fills.
    assert!(table.contents.contains("default-src 'none'"));
    assert!(table
        .contents
        .contains(runtime_model::views::SETTINGS_MARKER));
    assert!(!table.contents.contains("https://"));
    let docs = files
        .iter()
        .find(|f| f.path == "docs/views.md")
        .expect("views docs");
    assert!(
        docs.contents.contains("`ui://tiny/order`"),
        "{}",
        docs.contents
    );
    assert!(docs.contents.contains("`tiny_orders_get`"));
}

#[test]
fn an_unknown_tool_is_refused_at_its_line() {
    refused(
        "tools: [tiny_orders_get]",
        "tools: [tiny_orders_fetch]",
        "views[0].tools[0]",
        "unknown tool `tiny_orders_fetch`",
        "tools: [tiny_orders_fetch]",
    );
}

#[test]
fn an_unknown_field_is_refused_at_its_line() {
    refused(
        "fields: [amount, status]",
        "fields: [amount, colour]",
        "views[0].fields[1]",
        "`colour` is not a field of the record type `orders`",
        "fields: [amount, colour]",
    );
}

#[test]
fn a_missing_translation_is_refused_naming_the_text() {
    refused(
        "status: {pt-BR: Situação, es: Estado, en: Status}",
        "status: {pt-BR: Situação, en: Status}",
        "views[0].texts.status",
        "has no es version",
        "status: {pt-BR: Situação, en: Status}",
    );
}

#[test]
fn a_text_the_view_needs_and_lacks_is_refused() {
    refused(
        "    waiting: {pt-BR: Aguardando, es: Esperando, en: Waiting}\n",
        "",
        "views[0].texts",
        "has no text `waiting`",
        "  texts:",
    );
}

#[test]
fn an_action_argument_the_tool_lacks_is_refused() {
    refused(
        "arguments: {uid: uid}",
        "arguments: {order: uid}",
        "views[0].actions[0].arguments.order",
        "`order` is not an argument of `tiny_orders_cancel`",
        "arguments: {order: uid}",
    );
}

#[path = "../../tests/support/skip.rs"]
mod skip;

/// What `chartData.chartRows` (the chart page's data, `codegen/templates/views/chart_data.js`)
/// makes of `rows` for `chart`, run by Node on the file alone: `{keys, values}`.
fn chart_rows(chart: serde_json::Value, rows: serde_json::Value) -> Option<serde_json::Value> {
    if skip::opted_out(
        "node",
        "chart_rows",
        "the chart data functions are JavaScript, run by Node",
    ) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chart_data.js");
    std::fs::write(&file, codegen::views::CHART_DATA_JS).unwrap();
    let script = r#"
const fs = require("fs"), vm = require("vm");
const ctx = {};
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
const [chart, rows] = JSON.parse(process.argv[2]);
const d = ctx.chartData.chartRows(chart, rows, "2026-03-10");
process.stdout.write(JSON.stringify({ keys: d.keys, values: d.values }));
"#;
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(&file)
        .arg(serde_json::json!([chart, rows]).to_string())
        .output()
        .unwrap_or_else(|e| {
            panic!("node: cannot run Node ({e}); install it, or set KOBANA_TEST_SKIP=node")
        });
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// A chart over time shows every period from its first row's to its last's: a day (week, month)
/// without rows is a zero on a continuous axis, not left out (the inbox usage chart placed the
/// days it had side by side, so a quiet day vanished).
#[test]
fn a_chart_over_time_shows_every_period_of_its_range_with_zeros() {
    use serde_json::json;
    let usage = json!({"date": "date", "by": "day", "series": ["emails_processed", "agent_runs"], "label": [], "sides": []});
    let rows = json!([
        {"date": "2026-03-01", "emails_processed": 5, "agent_runs": 1},
        {"date": "2026-03-04", "emails_processed": 2, "agent_runs": 0},
        {"date": "2026-03-04", "emails_processed": 1, "agent_runs": 3},
    ]);
    let Some(got) = chart_rows(usage, rows) else {
        return;
    };
    assert_eq!(
        got["keys"],
        json!(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"])
    );
    assert_eq!(
        got["values"]["2026-03-02"],
        json!({"emails_processed": 0, "agent_runs": 0})
    );
    assert_eq!(
        got["values"]["2026-03-04"],
        json!({"emails_processed": 3, "agent_runs": 3})
    );
    // Records counted by day, across a month's end (February 2026 has 28 days).
    let sessions =
        json!({"date": "started_at", "by": "day", "series": [], "label": [], "sides": []});
    let rows = json!([
        {"started_at": "2026-02-27T10:00:00-03:00"},
        {"started_at": "2026-03-02T08:00:00-03:00"},
    ]);
    let got = chart_rows(sessions, rows).unwrap();
    assert_eq!(
        got["keys"],
        json!(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"])
    );
    assert_eq!(got["values"]["2026-02-28"], json!({"count": 0}));
    // Weeks (by their Monday) and months.
    let weeks = json!({"date": "date", "by": "week", "series": [], "label": [], "sides": []});
    let got = chart_rows(
        weeks,
        json!([{"date": "2026-03-03"}, {"date": "2026-03-20"}]),
    )
    .unwrap();
    assert_eq!(
        got["keys"],
        json!(["2026-03-02", "2026-03-09", "2026-03-16"])
    );
    let months = json!({"date": "date", "by": "month", "series": [], "label": [], "sides": []});
    let got = chart_rows(
        months,
        json!([{"date": "2025-11-30"}, {"date": "2026-02-01"}]),
    )
    .unwrap();
    assert_eq!(
        got["keys"],
        json!(["2025-11", "2025-12", "2026-01", "2026-02"])
    );
    assert_eq!(got["values"]["2025-12"], json!({"count": 0}));
}
