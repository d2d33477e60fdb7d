//! The `toolsets` rules: each breaks one in the valid `data/tiny.yaml` and checks the generator
//! refuses it, naming the tool, the entry or the toolset.

use codegen::diag::Diagnostic;

const TINY: &str = include_str!("data/tiny.yaml");
const TOOLSETS: &str = "    tools: [tiny_orders_*, tiny_customers_list, tiny_schemas_list]\n";

fn diagnostics_for(text: &str) -> Vec<Diagnostic> {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::write(catalog.join("tiny.yaml"), text).unwrap();
    match codegen::load_all(&catalog) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().expect("a catalog error").0.clone(),
    }
}

fn with_tools_line(line: &str) -> String {
    assert_eq!(TINY.matches(TOOLSETS).count(), 1, "test bug");
    TINY.replacen(TOOLSETS, line, 1)
}

fn find<'a>(diags: &'a [Diagnostic], path: &str, needle: &str) -> &'a Diagnostic {
    diags
        .iter()
        .find(|d| d.path == path && d.message.contains(needle))
        .unwrap_or_else(|| {
            panic!(
                "no diagnostic at `{path}` containing `{needle}`; got:\n{}",
                diags
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
}

#[test]
fn a_tool_in_no_toolset_is_named() {
    let text = with_tools_line("    tools: [tiny_orders_*, tiny_schemas_list]\n");
    let diags = diagnostics_for(&text);
    let d = find(
        &diags,
        "tools[4].name",
        "tool `tiny_customers_list` is in no toolset",
    );
    assert!(d.line > 0, "{d}");
}

#[test]
fn an_entry_matching_nothing_is_refused() {
    let text = with_tools_line(
        "    tools: [tiny_orders_*, tiny_customers_list, tiny_schemas_list, tiny_nothing_*, \"scope:none.*\"]\n",
    );
    let diags = diagnostics_for(&text);
    find(
        &diags,
        "toolsets[0].tools[3]",
        "`tiny_nothing_*` matches no tool",
    );
    find(
        &diags,
        "toolsets[0].tools[4]",
        "`scope:none.*` matches no tool",
    );
}

#[test]
fn the_default_selection_serves_every_prompt() {
    // orders_get (used by the prompt) only in a toolset that is not default.
    let text = with_tools_line(
        "    tools: [tiny_orders_list, tiny_orders_create, tiny_orders_cancel, tiny_customers_list, tiny_schemas_list]\n  - name: more\n    title: More\n    description: The rest.\n    tools: [tiny_orders_get]\n",
    );
    let diags = diagnostics_for(&text);
    find(
        &diags,
        "prompts[0].uses[1]",
        "uses `tiny_orders_get`, which is in no default toolset",
    );
}

#[test]
fn built_in_names_and_discovery_tool_names_are_reserved() {
    let text = TINY.replacen("  - name: orders\n", "  - name: discovery\n", 1);
    let diags = diagnostics_for(&text);
    find(
        &diags,
        "toolsets[0].name",
        "`discovery` is a built-in selection name",
    );

    let text = TINY.replacen("name: tiny_customers_list", "name: tiny_search_tools", 1);
    let text = text.replacen(
        "tiny_customers_list, tiny_schemas",
        "tiny_search_tools, tiny_schemas",
        1,
    );
    let diags = diagnostics_for(&text);
    find(
        &diags,
        "tools[4].name",
        "`tiny_search_tools` is the name of a discovery tool",
    );
}

#[test]
fn a_product_with_tools_declares_toolsets() {
    let at = TINY.find("toolsets:\n").unwrap();
    let diags = diagnostics_for(&TINY[..at]);
    find(&diags, "tools", "the product declares no `toolsets`");
}

#[test]
fn no_toolset_holds_more_than_128_tools() {
    let mut extra = String::new();
    for i in 0..130 {
        extra.push_str(&format!(
            "  - name: tiny_extra_{i}\n    title: Extra {i}\n    description: An extra tool.\n    handler: schemas_list\n    input_schema: {{type: object}}\n    annotations: {{readOnlyHint: true}}\n    scope: ''\n    permission: ''\n"
        ));
    }
    let text = TINY.replacen("\nresources:\n", &format!("{extra}\nresources:\n"), 1);
    let text = text.replacen(
        TOOLSETS,
        "    tools: [tiny_orders_*, tiny_customers_list, tiny_schemas_list]\n  - name: extras\n    title: Extras\n    description: Too many.\n    tools: [tiny_extra_*]\n",
        1,
    );
    let diags = diagnostics_for(&text);
    find(
        &diags,
        "toolsets[1].tools",
        "toolset `extras` has 130 tools, more than 128",
    );
}
