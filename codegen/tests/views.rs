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
