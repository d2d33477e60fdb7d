//! Negative tests: each breaks one rule in an otherwise valid catalog (`data/tiny.yaml`) and checks
//! that the generator refuses it with a diagnostic naming the file, the line and column of the
//! offending key, the key's path, what is wrong, and (where it can) what would be valid.

use std::path::Path;

use codegen::diag::Diagnostic;

const TINY: &str = include_str!("data/tiny.yaml");

/// Loads `text` as `catalog/<file>` in a fresh folder; returns the diagnostics (none if valid).
fn diagnostics_for(file: &str, text: &str) -> Vec<Diagnostic> {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    let target = catalog.join(file);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, text).unwrap();
    match codegen::load_all(&catalog) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .diagnostics()
            .unwrap_or_else(|| panic!("not a catalog error: {e}"))
            .0
            .clone(),
    }
}

/// `TINY` with `from` (which must occur exactly once) replaced by `to`.
fn mutate(from: &str, to: &str) -> String {
    assert_eq!(
        TINY.matches(from).count(),
        1,
        "test bug: `{from}` must occur once in tiny.yaml"
    );
    TINY.replacen(from, to, 1)
}

/// 1-based number of the line holding `needle` (first occurrence) in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in text"));
    text[..at].matches('\n').count() + 1
}

/// Asserts the diagnostics contain one at `path` whose message contains `needle`, on the line
/// holding `line_text`, and returns it.
fn expect(text: &str, path: &str, needle: &str, line_text: &str) -> Diagnostic {
    let diags = diagnostics_for("tiny.yaml", text);
    let found = diags
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
        .clone();
    assert_eq!(found.file, "catalog/tiny.yaml");
    assert_eq!(
        found.line,
        line_of(text, line_text),
        "wrong line for {found}"
    );
    assert!(found.column >= 1, "no column in {found}");
    let shown = found.to_string();
    assert!(
        shown.starts_with(&format!(
            "catalog/tiny.yaml:{}:{}: ",
            found.line, found.column
        )),
        "{shown}"
    );
    assert!(shown.contains(&format!("`{path}`")), "{shown}");
    found
}

fn hint(d: &Diagnostic) -> &str {
    d.hint.as_deref().unwrap_or_default()
}

#[test]
fn the_base_catalog_is_valid() {
    let diags = diagnostics_for("tiny.yaml", TINY);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn unknown_tool_in_read_by() {
    let text = mutate("read_by: tiny_orders_get", "read_by: tiny_order_get");
    let d = expect(
        &text,
        "templates[0].read_by",
        "unknown tool `tiny_order_get`",
        "read_by: tiny_order_get",
    );
    assert!(hint(&d).contains("did you mean `tiny_orders_get`"), "{d}");
    // The column points at the value, after `read_by: `.
    let line = text.lines().nth(d.line - 1).unwrap();
    assert_eq!(d.column, line.find("tiny_order_get").unwrap() + 1);
}

#[test]
fn unknown_tool_in_prompt_uses() {
    let text = mutate(
        "uses: [tiny_orders_list, tiny_orders_get]",
        "uses: [tiny_orders_list, tiny_orders_fetch]",
    );
    expect(
        &text,
        "prompts[0].uses[1]",
        "unknown tool `tiny_orders_fetch`",
        "tiny_orders_fetch",
    );
}

#[test]
fn unknown_tool_in_completion_source() {
    let text = mutate(
        "{list_ids: {tool: tiny_orders_list,",
        "{list_ids: {tool: tiny_order_list,",
    );
    expect(
        &text,
        "completions.order_ids.list_ids.tool",
        "unknown tool `tiny_order_list`",
        "tool: tiny_order_list",
    );
}

#[test]
fn unknown_list_tool_of_a_template() {
    let text = mutate("list_tool: tiny_orders_list", "list_tool: tiny_orders_all");
    expect(
        &text,
        "templates[0].list_tool",
        "unknown tool `tiny_orders_all`",
        "list_tool: tiny_orders_all",
    );
}

#[test]
fn completion_source_that_is_not_a_list_tool() {
    let text = mutate(
        "{list_ids: {tool: tiny_orders_list,",
        "{list_ids: {tool: tiny_orders_get,",
    );
    let d = expect(
        &text,
        "completions.order_ids.list_ids.tool",
        "is not a list tool",
        "tool: tiny_orders_get",
    );
    assert!(hint(&d).contains("kind: list"), "{d}");
}

#[test]
fn duplicate_tool_names() {
    let text = mutate("- name: tiny_orders_create", "- name: tiny_orders_get");
    expect(
        &text,
        "tools[2].name",
        "duplicate tool name `tiny_orders_get`",
        "- name: tiny_orders_get\n    title: Create",
    );
}

#[test]
fn duplicate_prompt_names() {
    let prompt_start = TINY.find("  - name: review_orders").unwrap();
    let prompt_end = TINY.find("\ncompletions:").unwrap();
    let prompt = &TINY[prompt_start..prompt_end];
    let text = TINY.replacen(prompt, &format!("{prompt}{prompt}"), 1);
    let diags = diagnostics_for("tiny.yaml", &text);
    let d = diags
        .iter()
        .find(|d| d.path == "prompts[1].name")
        .expect("a prompts[1].name diagnostic");
    assert!(
        d.message.contains("duplicate prompt name `review_orders`"),
        "{d}"
    );
    // The second copy is the one reported.
    let second = text.rfind("- name: review_orders").unwrap();
    assert_eq!(d.line, text[..second].matches('\n').count() + 1, "{d}");
}

#[test]
fn duplicate_uris() {
    let text = mutate(
        "templates:\n",
        "  - uri: kobana://tiny/schemas\n    name: again\n    description: Same URI.\n    mime_type: application/json\n    read_by: tiny_schemas_list\n    content: schema_catalog\n\ntemplates:\n",
    );
    let d = expect(
        &text,
        "resources[1].uri",
        "duplicate URI `kobana://tiny/schemas`",
        "  - uri: kobana://tiny/schemas\n    name: again",
    );
    assert!(d.message.contains("resources[0]"), "{d}");
}

#[test]
fn duplicate_uri_templates() {
    let text = mutate(
        "prompts:\n",
        "  - uri_template: kobana://tiny/orders/{uid}\n    name: order_again\n    description: Same.\n    mime_type: application/json\n    read_by: tiny_orders_get\n    content: json\n\nprompts:\n",
    );
    expect(
        &text,
        "templates[1].uri_template",
        "duplicate URI template",
        "  - uri_template: kobana://tiny/orders/{uid}\n    name: order_again",
    );
}

#[test]
fn template_variable_without_a_matching_argument() {
    let text = mutate(
        "uri_template: kobana://tiny/orders/{uid}",
        "uri_template: kobana://tiny/orders/{order}",
    );
    let d = expect(
        &text,
        "templates[0].uri_template",
        "template variable `{order}` has no matching argument `order` in `tiny_orders_get`",
        "{order}",
    );
    assert!(hint(&d).contains("args:"), "{d}");
}

#[test]
fn template_args_mapping_to_a_missing_argument() {
    let text = mutate(
        "    list_tool: tiny_orders_list\n",
        "    list_tool: tiny_orders_list\n    args: {uid: order_uid}\n",
    );
    expect(
        &text,
        "templates[0].uri_template",
        "no matching argument `order_uid`",
        "uri_template: kobana://tiny/orders/{uid}",
    );
}

#[test]
fn tool_name_longer_than_64_characters() {
    let long = format!("tiny_{}", "x".repeat(60));
    let text = mutate("- name: tiny_orders_create", &format!("- name: {long}"));
    let d = expect(&text, "tools[2].name", "65 characters long", &long);
    assert!(hint(&d).contains("64"), "{d}");
}

#[test]
fn tool_name_outside_the_allowed_characters() {
    let text = mutate("- name: tiny_orders_create", "- name: tiny_orders-Create");
    expect(
        &text,
        "tools[2].name",
        "outside [a-z0-9_]",
        "tiny_orders-Create",
    );
}

#[test]
fn tool_name_without_the_product_prefix() {
    let text = mutate("- name: tiny_orders_create", "- name: orders_create");
    expect(
        &text,
        "tools[2].name",
        "does not start with the product's tool prefix",
        "- name: orders_create",
    );
}

#[test]
fn read_only_tool_marked_destructive() {
    let text = mutate(
        "    annotations: {readOnlyHint: true}\n",
        "    annotations: {readOnlyHint: true, destructiveHint: true}\n",
    );
    expect(
        &text,
        "tools[5].annotations.destructiveHint",
        "a read-only tool is marked destructive",
        "destructiveHint: true}",
    );
}

#[test]
fn writing_tool_without_explicit_destructive_hint() {
    let text = mutate(
        "      readOnlyHint: false\n      destructiveHint: false\n",
        "      readOnlyHint: false\n",
    );
    let d = expect(
        &text,
        "tools[2].annotations",
        "must say `destructiveHint` explicitly",
        "    annotations:\n      readOnlyHint: false\n    scope",
    );
    assert!(hint(&d).contains("destructiveHint: true"), "{d}");
}

#[test]
fn destructive_tool_without_clause() {
    let text = mutate(
        "    destructive_clause: Cancelling an order cannot be undone.\n",
        "",
    );
    expect(
        &text,
        "tools[3]",
        "no `destructive_clause`",
        "- name: tiny_orders_cancel",
    );
}

#[test]
fn read_only_prompt_relying_on_a_writing_tool() {
    let text = mutate(
        "uses: [tiny_orders_list, tiny_orders_get]",
        "uses: [tiny_orders_list, tiny_orders_cancel]",
    );
    let d = expect(
        &text,
        "prompts[0].uses[1]",
        "`writes: false` but relies on `tiny_orders_cancel`",
        "tiny_orders_cancel]",
    );
    assert!(hint(&d).contains("writes: true"), "{d}");
}

#[test]
fn http_path_parameter_missing_from_the_input_schema() {
    let text = mutate("path: /v1/orders/{uid}\n", "path: /v1/orders/{id}\n");
    let d = expect(
        &text,
        "tools[1].http.path",
        "path parameter `{id}` takes the argument `id`, which is not in the input schema",
        "path: /v1/orders/{id}",
    );
    assert!(hint(&d).contains("`uid`"), "{d}");
}

#[test]
fn input_schema_without_an_object_root() {
    let text = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema: {type: array}\n",
    );
    expect(
        &text,
        "tools[5].input_schema",
        "root is not `type: object`",
        "input_schema: {type: array}",
    );
}

#[test]
fn input_schema_with_top_level_any_of() {
    let text = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema:\n      type: object\n      anyOf: [{required: [a]}, {required: [b]}]\n",
    );
    expect(
        &text,
        "tools[5].input_schema.anyOf",
        "top-level `anyOf`",
        "anyOf:",
    );
}

#[test]
fn output_schema_without_an_object_root() {
    let text = mutate(
        "    output_schema:\n      type: object\n",
        "    output_schema:\n      type: string\n",
    );
    expect(
        &text,
        "tools[1].output_schema",
        "output schema's root is not `type: object`",
        "    output_schema:",
    );
}

#[test]
fn unknown_key_in_a_nested_mapping() {
    let text = mutate(
        "    annotations: {readOnlyHint: true}\n",
        "    annotations: {readOnlyHint: true, destructivehint: false}\n",
    );
    let d = expect(
        &text,
        "tools[5].annotations.destructivehint",
        "unknown field `destructivehint`",
        "destructivehint",
    );
    // serde names the valid keys.
    assert!(d.message.contains("destructiveHint"), "{d}");
    let line = text.lines().nth(d.line - 1).unwrap();
    assert_eq!(d.column, line.find("destructivehint").unwrap() + 1);
}

#[test]
fn unknown_key_at_the_top_level() {
    let text = mutate("exclusions:\n", "exclusion:\n");
    let d = expect(
        &text,
        "exclusion",
        "unknown field `exclusion`",
        "exclusion:",
    );
    assert!(d.message.contains("exclusions"), "{d}");
}

#[test]
fn unknown_key_in_a_record_field() {
    let text = mutate(
        "name: {type: string, seed: person_name}",
        "name: {type: string, seed: person_name, sortabel: true}",
    );
    expect(
        &text,
        "records.customers.fields.name.sortabel",
        "unknown field `sortabel`",
        "sortabel",
    );
}

#[test]
fn wrong_enum_value_names_the_valid_ones() {
    let text = mutate(
        "unconfirmable_destructive: refuse",
        "unconfirmable_destructive: reject",
    );
    let d = expect(
        &text,
        "policies.unconfirmable_destructive",
        "unknown variant `reject`",
        "unconfirmable_destructive: reject",
    );
    assert!(
        d.message.contains("run") && d.message.contains("refuse"),
        "{d}"
    );
}

#[test]
fn invalid_minijinja_template() {
    let text = mutate("{% if status %}", "{% if status %");
    let d = expect(
        &text,
        "prompts[0].template",
        "does not compile",
        "Review the orders",
    );
    assert!(hint(&d).contains("minijinja"), "{d}");
}

#[test]
fn prompt_template_using_an_undeclared_variable() {
    let text = mutate("Today is {{ today }}", "Today is {{ todya }}");
    expect(&text, "prompts[0].template", "uses `todya`", "{{ todya }}");
}

#[test]
fn template_completion_referencing_an_unknown_source() {
    let text = mutate("complete: {uid: order_ids}", "complete: {uid: order_idz}");
    let d = expect(
        &text,
        "templates[0].complete.uid",
        "unknown completion source `order_idz`",
        "complete: {uid: order_idz}",
    );
    assert!(hint(&d).contains("`order_ids`"), "{d}");
}

#[test]
fn prompt_argument_completion_referencing_an_unknown_source() {
    let text = mutate("complete: months", "complete: month_list");
    expect(
        &text,
        "prompts[0].arguments[0].complete",
        "unknown completion source `month_list`",
        "complete: month_list",
    );
}

#[test]
fn operation_record_not_in_records() {
    let text = mutate(
        "operation: {kind: create, record: orders}",
        "operation: {kind: create, record: order}",
    );
    let d = expect(
        &text,
        "tools[2].operation.record",
        "unknown record type `order`",
        "record: order}",
    );
    assert!(hint(&d).contains("`orders`"), "{d}");
}

#[test]
fn tool_with_both_http_and_handler() {
    let text = mutate(
        "    handler: tiny_customers\n",
        "    handler: tiny_customers\n    http: {method: GET, path: /v1/customers}\n",
    );
    expect(
        &text,
        "tools[4].handler",
        "both `http` and `handler`",
        "handler: tiny_customers",
    );
}

#[test]
fn tool_with_neither_http_nor_handler() {
    let text = mutate("    handler: tiny_customers\n", "");
    expect(
        &text,
        "tools[4]",
        "neither `http` nor `handler`",
        "- name: tiny_customers_list",
    );
}

#[test]
fn uri_outside_the_product_prefix() {
    let text = mutate(
        "- uri: kobana://tiny/schemas",
        "- uri: kobana://shop/schemas",
    );
    let d = expect(
        &text,
        "resources[0].uri",
        "does not start with the product's URI prefix",
        "kobana://shop/schemas",
    );
    assert!(hint(&d).contains("kobana://tiny/"), "{d}");
}

#[test]
fn uri_template_beyond_rfc_6570_level_1() {
    let text = mutate(
        "uri_template: kobana://tiny/orders/{uid}",
        "uri_template: kobana://tiny/orders/{+uid}",
    );
    expect(&text, "templates[0].uri_template", "level 2 or 3", "{+uid}");
}

#[test]
fn listed_template_without_a_list_tool() {
    let text = mutate("    list_tool: tiny_orders_list\n", "");
    expect(
        &text,
        "templates[0].listed",
        "names no `list_tool`",
        "listed: true",
    );
}

#[test]
fn resource_read_by_a_writing_tool() {
    let text = mutate(
        "    read_by: tiny_schemas_list\n",
        "    read_by: tiny_orders_create\n",
    );
    expect(
        &text,
        "resources[0].read_by",
        "is not read-only",
        "read_by: tiny_orders_create",
    );
}

#[test]
fn unknown_decline_code() {
    let text = mutate("decline_code: user_declined", "decline_code: declined");
    let d = expect(
        &text,
        "policies.decline_code",
        "not a decline code",
        "decline_code: declined",
    );
    assert!(hint(&d).contains("USER_DECLINED"), "{d}");
}

#[test]
fn invalid_seed_generator() {
    let text = mutate("seed: \"amount:10..500\"", "seed: \"amount:500..10\"");
    expect(
        &text,
        "records.orders.fields.amount.seed",
        "range of `amount:500..10` is empty",
        "amount:500..10",
    );
}

#[test]
fn action_from_state_not_in_the_enum() {
    let text = mutate("from: [open]", "from: [opened]");
    expect(
        &text,
        "tools[3].operation.action.from[0]",
        "`opened` is not a value of `orders.status`",
        "from: [opened]",
    );
}

#[test]
fn body_field_not_in_the_input_schema() {
    let text = mutate(
        "fields: [customer_uid, amount]",
        "fields: [customer_uid, total]",
    );
    expect(
        &text,
        "tools[2].http.body.fields[1]",
        "body argument `total`",
        "fields: [customer_uid, total]",
    );
}

#[test]
fn product_name_must_match_the_file_name() {
    let diags = diagnostics_for("shop.yaml", TINY);
    let d = diags
        .iter()
        .find(|d| d.path == "product.name")
        .expect("a product.name diagnostic");
    assert!(d.message.contains("catalog/shop.yaml"), "{d}");
    assert_eq!(d.line, line_of(TINY, "name: tiny"));
}

#[test]
fn fixture_flag_must_match_the_folder() {
    let diags = diagnostics_for("fixtures/tiny.yaml", TINY);
    let d = diags
        .iter()
        .find(|d| d.path == "product.fixture")
        .expect("a product.fixture diagnostic");
    assert_eq!(d.file, "catalog/fixtures/tiny.yaml");
    assert!(hint(d).contains("fixture: true"), "{d}");
    // With the flag set, the same catalog is a valid fixture.
    let fixed = mutate("  name: tiny\n", "  name: tiny\n  fixture: true\n");
    assert!(diagnostics_for("fixtures/tiny.yaml", &fixed).is_empty());
}

#[test]
fn yaml_syntax_error_has_a_position() {
    let text = mutate("  title: Tiny Shop\n", "  title: \"Tiny Shop\n");
    let diags = diagnostics_for("tiny.yaml", &text);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].message.starts_with("YAML syntax"), "{}", diags[0]);
    assert!(
        diags[0].line >= line_of(&text, "\"Tiny Shop"),
        "{}",
        diags[0]
    );
}

#[test]
fn every_problem_of_every_file_is_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    let bad = mutate("read_by: tiny_orders_get", "read_by: nope")
        .replace("decline_code: user_declined", "decline_code: no");
    std::fs::write(catalog.join("tiny.yaml"), bad).unwrap();
    let other = TINY
        .replace("name: tiny\n", "name: other\n")
        .replace("exclusions:", "exclusion:");
    std::fs::write(catalog.join("other.yaml"), other).unwrap();
    let err = codegen::load_all(Path::new(&catalog)).unwrap_err();
    let shown = err.to_string();
    assert!(shown.contains("catalog/tiny.yaml"), "{shown}");
    assert!(shown.contains("catalog/other.yaml"), "{shown}");
    assert_eq!(err.diagnostics().unwrap().len(), 3, "{shown}");
    assert!(
        shown.ends_with("3 problems in the catalogs; nothing was generated"),
        "{shown}"
    );
}

#[test]
fn http_path_parameter_that_is_not_required() {
    let text = mutate(
        "        uid: {type: string}\n      required: [uid]\n    output_schema:",
        "        uid: {type: string}\n    output_schema:",
    );
    let d = expect(
        &text,
        "tools[1].http.path",
        "which the input schema does not require",
        "path: /v1/orders/{uid}",
    );
    assert!(hint(&d).contains("required"), "{d}");
}

#[test]
fn prompt_default_that_does_not_fit_its_format() {
    let text = mutate("default: current_month", "default: today");
    let d = expect(
        &text,
        "prompts[0].arguments[0].default",
        "`today` is not a month",
        "default: today",
    );
    assert!(hint(&d).contains("current_month"), "{d}");
}

#[test]
fn missing_key_points_at_its_mapping() {
    let text = mutate("    title: Get an order\n", "");
    let d = expect(
        &text,
        "tools[1]",
        "missing field `title`",
        "- name: tiny_orders_get",
    );
    // The mapping starts at its first key, after `- `.
    assert_eq!(d.column, 5, "{d}");
}

#[test]
fn wrong_value_type_names_the_expected_one() {
    let text = mutate(
        "resources_list: {recent: 5}",
        "resources_list: {recent: five}",
    );
    expect(
        &text,
        "policies.resources_list.recent",
        "invalid type: string \"five\", expected u32",
        "{recent: five}",
    );
}

#[test]
fn malformed_body_says_what_a_body_may_be() {
    let text = mutate(
        "body: {wrap: order, fields: [customer_uid, amount]}",
        "body: {wrapp: order}",
    );
    let d = expect(
        &text,
        "tools[2].http.body",
        "untagged enum Body",
        "body: {wrapp: order}",
    );
    assert!(hint(&d).contains("`rest`"), "{d}");
}

// ------------------------------------------------------------------------------------------------
// Singleton reads and list edits
// ------------------------------------------------------------------------------------------------

const TINY_GET: &str = "operation: {kind: get, record: orders, id_arg: uid}";
const TINY_CANCEL: &str = "action: {name: cancel, from: [open], set: {status: canceled}}";
const TINY_AMOUNT: &str =
    "      amount: {type: number, seed: \"amount:10..500\", sortable: true}\n";

/// `TINY` where orders also have an array field `tags`.
fn with_tags(from: &str, to: &str) -> String {
    mutate(from, to).replacen(
        TINY_AMOUNT,
        &format!("{TINY_AMOUNT}      tags: {{type: array}}\n"),
        1,
    )
}

#[test]
fn singleton_operation_with_an_id_arg() {
    let text = mutate(
        TINY_GET,
        "operation: {kind: singleton, record: orders, id_arg: uid}",
    );
    let d = expect(
        &text,
        "tools[1].operation.id_arg",
        "takes no `id_arg`",
        "kind: singleton",
    );
    assert!(hint(&d).contains("kind: get"), "{d}");
}

#[test]
fn singleton_record_type_that_is_also_listed_and_seeded_many_times() {
    let text = mutate(TINY_GET, "operation: {kind: singleton, record: orders}");
    let d = expect(
        &text,
        "tools[0].operation.kind",
        "which the singleton tool `tiny_orders_get` reads",
        "operation: {kind: list, record: orders}",
    );
    assert!(
        d.message.contains("`tiny_orders_list` lists `orders`"),
        "{d}"
    );
    // Creating a second record breaks it too.
    expect(
        &text,
        "tools[2].operation.kind",
        "`tiny_orders_create` creates `orders`",
        "operation: {kind: create, record: orders}",
    );
    // `seed_count` is absent (default 30): reported at the record type.
    let d = expect(
        &text,
        "records.orders.seed_count",
        "seeds 30 records",
        "  orders:\n    title: Order",
    );
    assert!(hint(&d).contains("seed_count: 1"), "{d}");
}

#[test]
fn singleton_record_type_read_alone_and_seeded_once_is_valid() {
    // A type read only by a singleton tool, seeded with one record: the organization's shape.
    let text = TINY
        .replacen(
            "  customers:\n    title: Customer\n",
            "  customers:\n    title: Customer\n    seed_count: 1\n",
            1,
        )
        .replacen(
            "operation: {kind: list, record: customers}",
            "operation: {kind: singleton, record: customers}",
            1,
        );
    assert_ne!(text, TINY);
    let diags = diagnostics_for("tiny.yaml", &text);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn list_edit_of_a_field_that_is_not_an_array() {
    let text = mutate(
        TINY_CANCEL,
        "action: {name: cancel, from: [open], set: {status: canceled}, add: {field: amount, from_arg: uid}}",
    );
    let d = expect(
        &text,
        "tools[3].operation.action.add.field",
        "`orders.amount` is of type `number`, not `array`",
        "add: {field: amount",
    );
    assert!(hint(&d).contains("no field of type `array`"), "{d}");
}

#[test]
fn list_edit_of_an_unknown_field() {
    let text = with_tags(
        TINY_CANCEL,
        "action: {name: cancel, set: {status: canceled}, remove: {field: tag, from_arg: uid}}",
    );
    let d = expect(
        &text,
        "tools[3].operation.action.remove.field",
        "`tag` is not a field of `orders`",
        "remove: {field: tag,",
    );
    assert!(hint(&d).contains("`tags`"), "the array fields: {d}");
}

#[test]
fn list_edit_from_an_argument_the_tool_does_not_take() {
    let text = with_tags(
        TINY_CANCEL,
        "action: {name: tag, add: {field: tags, from_arg: label}}",
    );
    let d = expect(
        &text,
        "tools[3].operation.action.add.from_arg",
        "`label` is not an argument of the tool",
        "from_arg: label",
    );
    assert!(hint(&d).contains("`uid`"), "the tool's arguments: {d}");
}

#[test]
fn list_edit_without_set_is_a_valid_action() {
    let text = with_tags(
        TINY_CANCEL,
        "action: {name: untag, from: [open], remove: {field: tags, from_arg: uid}}",
    )
    // No tool cancels orders any more: the terminal states of `cancel` go with it.
    .replacen("      terminal:\n        cancel: [paid, canceled]\n", "", 1);
    let diags = diagnostics_for("tiny.yaml", &text);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn action_that_neither_sets_nor_edits_a_list() {
    let text = mutate(TINY_CANCEL, "action: {name: cancel, from: [open]}");
    let d = expect(
        &text,
        "tools[3].operation.action.set",
        "sets nothing, edits no list and creates nothing",
        "action: {name: cancel",
    );
    assert!(hint(&d).contains("add:"), "{d}");
}

// ------------------------------------------------------------------------------------------------
// Multipart bodies (file uploads)
// ------------------------------------------------------------------------------------------------

/// An upload tool, inserted as `tools[5]` (before `tiny_schemas_list`): one top-level file with a
/// filename argument, one nested file with a default filename.
const UPLOAD_TOOL: &str = "  - name: tiny_orders_upload
    title: Upload an order file
    description: Uploads a file of orders.
    http:
      method: POST
      path: /v1/orders/{uid}/files
      query: [notify]
      body:
        multipart:
          files:
            - arg: document
              filename_arg: document_filename
            - arg: meta.scan
              default_filename: scan.pdf
    input_schema:
      type: object
      properties:
        uid: {type: string}
        notify: {type: boolean}
        document: {type: string, contentEncoding: base64, contentMediaType: text/csv}
        document_filename: {type: [string, 'null']}
        meta:
          type: object
          properties:
            scan: {type: string, contentEncoding: base64}
            note: {type: string}
        label: {type: string}
      required: [uid, document]
    annotations:
      readOnlyHint: false
      destructiveHint: false
    scope: shop.orders
    permission: orders.write
";

/// `TINY` with the upload tool, its text changed from `from` (once in the tool) to `to`.
fn with_upload(from: &str, to: &str) -> String {
    assert_eq!(
        UPLOAD_TOOL.matches(from).count(),
        1,
        "test bug: `{from}` must occur once in the upload tool"
    );
    let tool = UPLOAD_TOOL.replacen(from, to, 1);
    mutate(
        "  - name: tiny_schemas_list\n",
        &format!("{tool}  - name: tiny_schemas_list\n"),
    )
}

const FILES: &str = "tools[5].http.body.multipart.files";

#[test]
fn an_upload_tool_is_valid_and_generates_its_file_parts() {
    let text = with_upload("name: tiny_orders_upload", "name: tiny_orders_upload");
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::write(catalog.join("tiny.yaml"), &text).unwrap();
    let files = codegen::generate(&catalog).unwrap_or_else(|e| panic!("{e}"));
    let module = files
        .iter()
        .find(|f| f.path == "src/tiny.rs")
        .expect("the tiny module");
    let code: String = module.contents.split_whitespace().collect();
    // The media type comes from `contentMediaType`; a nested argument is a path; the default
    // filename is the argument's last segment unless given.
    assert!(
        code.contains(r#"FileField{arg:&["document"],filename_arg:Some(&["document_filename"]),filename_is_field:false,default_filename:"document",media_type:"text/csv",}"#),
        "{}",
        module.contents
    );
    assert!(
        code.contains(r#"FileField{arg:&["meta","scan"],filename_arg:None,filename_is_field:false,default_filename:"scan.pdf",media_type:"application/octet-stream",}"#),
        "{}",
        module.contents
    );
    let docs = files
        .iter()
        .find(|f| f.path == "docs/tiny.md")
        .expect("the tiny docs");
    assert!(
        docs.contents.contains("| `tiny_orders_upload` | `document` → part `document` (`text/csv`, filename from `document_filename`, default `document`)<br>`meta.scan` → part `meta[scan]` (`application/octet-stream`, default `scan.pdf`) |"),
        "{}",
        docs.contents
    );
}

#[test]
fn multipart_needs_a_method_with_a_body() {
    let text = with_upload("      method: POST\n", "      method: DELETE\n");
    let d = expect(
        &text,
        "tools[5].http.method",
        "a `DELETE` binding cannot send a multipart form",
        "method: DELETE",
    );
    assert!(hint(&d).contains("`POST`, `PUT`, `PATCH`"), "{d}");
}

#[test]
fn multipart_without_files() {
    let text = with_upload(
        "          files:
            - arg: document
              filename_arg: document_filename
            - arg: meta.scan
              default_filename: scan.pdf
",
        "          files: []
",
    );
    expect(
        &text,
        FILES,
        "a multipart body with no file part",
        "files: []",
    );
}

#[test]
fn multipart_file_argument_not_in_the_input_schema() {
    let text = with_upload("- arg: document\n", "- arg: documnt\n");
    let d = expect(
        &text,
        &format!("{FILES}[0].arg"),
        "the file argument `documnt` is not in the input schema",
        "arg: documnt",
    );
    assert!(hint(&d).contains("`document`, `meta.scan`"), "{d}");
}

#[test]
fn multipart_nested_file_argument_not_in_the_input_schema() {
    let text = with_upload("- arg: meta.scan\n", "- arg: meta.scans\n");
    expect(
        &text,
        &format!("{FILES}[1].arg"),
        "the file argument `meta.scans` is not in the input schema",
        "arg: meta.scans",
    );
}

#[test]
fn multipart_file_argument_must_be_a_base64_string() {
    let text = with_upload(
        "document: {type: string, contentEncoding: base64, contentMediaType: text/csv}",
        "document: {type: string, format: binary}",
    );
    let d = expect(
        &text,
        &format!("{FILES}[0].arg"),
        "`document` is not a base64 string in the input schema",
        "- arg: document",
    );
    assert!(hint(&d).contains("contentEncoding: base64"), "{d}");
    let text = with_upload(
        "document: {type: string, contentEncoding: base64, contentMediaType: text/csv}",
        "document: {type: object, contentEncoding: base64}",
    );
    expect(
        &text,
        &format!("{FILES}[0].arg"),
        "`document` is not a base64 string",
        "- arg: document",
    );
}

#[test]
fn multipart_file_argument_listed_twice() {
    let text = with_upload(
        "            - arg: meta.scan
              default_filename: scan.pdf
",
        "            - arg: meta.scan
              default_filename: scan.pdf
            - arg: document
",
    );
    let d = expect(
        &text,
        &format!("{FILES}[2].arg"),
        "the file argument `document` is listed twice",
        "- arg: document\n    input_schema",
    );
    assert!(hint(&d).contains("once"), "{d}");
}

#[test]
fn multipart_file_argument_sent_in_the_query() {
    let text = with_upload("query: [notify]", "query: [notify, document]");
    expect(
        &text,
        &format!("{FILES}[0].arg"),
        "`document` is also sent in the path or query",
        "- arg: document",
    );
}

#[test]
fn multipart_filename_arg_and_field_together() {
    let text = with_upload(
        "              filename_arg: document_filename\n",
        "              filename_arg: document_filename\n              filename_field: label\n",
    );
    let d = expect(
        &text,
        &format!("{FILES}[0].filename_field"),
        "both `filename_arg` and `filename_field`",
        "filename_field: label",
    );
    assert!(hint(&d).contains("`filename_field` when the API"), "{d}");
}

#[test]
fn multipart_filename_argument_not_in_the_input_schema() {
    let text = with_upload(
        "filename_arg: document_filename",
        "filename_arg: document_name",
    );
    expect(
        &text,
        &format!("{FILES}[0].filename_arg"),
        "the filename argument `document_name` is not in the input schema",
        "filename_arg: document_name",
    );
}

#[test]
fn multipart_filename_argument_must_be_a_string() {
    let text = with_upload("filename_arg: document_filename", "filename_arg: notify");
    expect(
        &text,
        &format!("{FILES}[0].filename_arg"),
        "the filename argument `notify` is not a string",
        "filename_arg: notify",
    );
}

#[test]
fn multipart_filename_argument_cannot_be_a_file() {
    let text = with_upload("filename_arg: document_filename", "filename_arg: meta.scan");
    expect(
        &text,
        &format!("{FILES}[0].filename_arg"),
        "`meta.scan` is a file argument, not a file name",
        "filename_arg: meta.scan",
    );
}

#[test]
fn multipart_default_filename_must_be_a_plain_name() {
    let text = with_upload(
        "default_filename: scan.pdf",
        "default_filename: ../scan.pdf",
    );
    let d = expect(
        &text,
        &format!("{FILES}[1].default_filename"),
        "`../scan.pdf` cannot name an uploaded file",
        "default_filename: ../scan.pdf",
    );
    assert!(hint(&d).contains("retorno.ret"), "{d}");
}

#[test]
fn multipart_base64_argument_left_out_of_the_files() {
    let text = with_upload(
        "            - arg: meta.scan
              default_filename: scan.pdf
",
        "",
    );
    let d = expect(
        &text,
        FILES,
        "the base64 argument `meta.scan` is not a file part, so it would be sent as text",
        "files:",
    );
    assert!(hint(&d).contains("{arg: meta.scan}"), "{d}");
}

#[test]
fn multipart_key_typo_says_what_a_body_may_be() {
    let text = with_upload(
        "filename_arg: document_filename",
        "filename_ar: document_filename",
    );
    let d = expect(
        &text,
        "tools[5].http.body",
        "untagged enum Body",
        "body:\n        multipart:",
    );
    assert!(hint(&d).contains("filename_field"), "{d}");
}

/// `tiny_orders_list` (read-only) with `extra` added after its permission line.
fn read_only_list_with(extra: &str) -> String {
    mutate(
        "    permission: orders.read\n  - name: tiny_orders_get",
        &format!("    permission: orders.read\n{extra}  - name: tiny_orders_get"),
    )
}

#[test]
fn a_read_only_tool_cannot_require_a_task() {
    let text = read_only_list_with("    task: required\n    task_note: a long read\n");
    let d = expect(
        &text,
        "tools[0].task",
        "read-only tool cannot be `task: required`",
        "    task: required",
    );
    assert!(hint(&d).contains("task: optional"), "{d}");
}

#[test]
fn a_read_only_task_tool_says_why() {
    let text = read_only_list_with("    task: optional\n");
    expect(
        &text,
        "tools[0]",
        "has no `task_note`",
        "- name: tiny_orders_list",
    );
    // With the note it is accepted.
    let ok = read_only_list_with("    task: optional\n    task_note: the list is built slowly\n");
    assert!(diagnostics_for("tiny.yaml", &ok).is_empty());
}

#[test]
fn a_task_note_without_a_task_is_a_leftover() {
    let text = read_only_list_with("    task_note: left behind\n");
    expect(
        &text,
        "tools[0].task_note",
        "never runs as a task",
        "    task_note: left behind",
    );
}

#[test]
fn an_unknown_task_setting_names_the_valid_ones() {
    let text = read_only_list_with("    task: sometimes\n");
    let diags = diagnostics_for("tiny.yaml", &text);
    let all: String = diags.iter().map(|d| d.to_string()).collect();
    assert!(all.contains("sometimes"), "{all}");
    assert!(
        all.contains("optional") && all.contains("required"),
        "{all}"
    );
}

#[test]
fn a_write_may_require_a_task() {
    let text = mutate(
        "    scope: shop.orders\n    permission: orders.write\n  - name: tiny_orders_cancel",
        "    scope: shop.orders\n    permission: orders.write\n    task: required\n  - name: tiny_orders_cancel",
    );
    assert!(diagnostics_for("tiny.yaml", &text).is_empty());
}

#[test]
fn input_schemas_are_json_schema_2020_12() {
    // Accepted: $schema 2020-12, $defs with $anchor, a $ref to them inside a property.
    let ok = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema:\n      $schema: https://json-schema.org/draft/2020-12/schema\n      type: object\n      $defs:\n        addr: {$anchor: addr, type: object, properties: {city: {type: string}}}\n      properties:\n        home: {$ref: '#/$defs/addr'}\n        kind: {type: string, if: {const: a}, then: {minLength: 1}}\n",
    );
    // A fixture catalog (it exercises the protocol) lists such a schema verbatim: accepted.
    let fixture = ok.replacen("product:\n", "product:\n  fixture: true\n", 1);
    assert!(
        diagnostics_for("fixtures/tiny.yaml", &fixture).is_empty(),
        "{:?}",
        diagnostics_for("fixtures/tiny.yaml", &fixture)
    );
    // A product keeps the stricter clients' rule: 2020-12 compiles, but a `$ref` is not portable
    // (catalog/README.md, "Portable schemas"), and that is the only complaint.
    let product = diagnostics_for("tiny.yaml", &ok);
    assert!(
        product.iter().any(|d| d.message.contains("`$ref`")),
        "{product:?}"
    );
    assert!(
        product.iter().all(|d| d.message.contains("not portable")),
        "{product:?}"
    );
    // Another dialect.
    let draft7 = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema:\n      $schema: http://json-schema.org/draft-07/schema#\n      type: object\n",
    );
    expect(
        &draft7,
        "tools[5].input_schema.$schema",
        "not JSON Schema 2020-12",
        "$schema:",
    );
    // A reference the client cannot resolve.
    let remote = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema:\n      type: object\n      properties:\n        a: {$ref: 'https://example.com/a.json'}\n",
    );
    expect(
        &remote,
        "tools[5].input_schema",
        "points outside the schema",
        "    input_schema:\n      type: object\n      properties:\n        a:",
    );
    // A conditional at the root of a product's schema (stricter clients reject it).
    let root_if = mutate(
        "    input_schema: {type: object}\n",
        "    input_schema:\n      type: object\n      if: {required: [a]}\n      then: {required: [b]}\n",
    );
    expect(
        &root_if,
        "tools[5].input_schema.if",
        "top-level `if`",
        "if:",
    );
}

#[test]
fn a_fact_names_an_unknown_field() {
    let text = mutate(
        "        - {field: amount, kind: money,",
        "        - {field: amount_due, kind: money,",
    );
    let d = expect(
        &text,
        "confirmation.records.orders.facts[0].field",
        "`amount_due` is not a field of `orders`",
        "field: amount_due",
    );
    assert!(hint(&d).contains("amount"), "{d}");
}

#[test]
fn a_fact_label_misses_a_translation() {
    let text = mutate(
        "label: {en: Amount, pt-BR: Valor, es: Importe}",
        "label: {en: Amount, pt-BR: Valor}",
    );
    expect(
        &text,
        "confirmation.records.orders.facts[0].label",
        "missing translation: es",
        "label: {en: Amount, pt-BR: Valor}",
    );
}

#[test]
fn a_status_value_without_a_label_is_refused() {
    let text = mutate("    paid: {en: Paid, pt-BR: Pago, es: Pagado}\n", "");
    expect(
        &text,
        "confirmation.records.orders.facts[1].field",
        "the value `paid` of `orders.status` has no label",
        "field: status, kind: status",
    );
}

#[test]
fn a_terminal_state_must_be_a_state_of_an_action_of_the_record() {
    let text = mutate(
        "        cancel: [paid, canceled]\n",
        "        refund: [lost]\n",
    );
    let diags = diagnostics_for("tiny.yaml", &text);
    assert!(
        diags
            .iter()
            .any(|d| d.path == "confirmation.records.orders.terminal.refund"
                && d.message.contains("no tool of this catalog does `refund`")),
        "{diags:?}"
    );
    assert!(
        diags.iter().any(
            |d| d.path == "confirmation.records.orders.terminal.refund[0]"
                && d.message
                    .contains("`lost` is not a value of `orders.status`")
        ),
        "{diags:?}"
    );
}

#[test]
fn a_destructive_tool_whose_record_declares_no_facts_is_refused() {
    let at = TINY
        .find("\nconfirmation:")
        .expect("the confirmation section");
    let text = &TINY[..at];
    let diags = diagnostics_for("tiny.yaml", text);
    let d = diags
        .iter()
        .find(|d| {
            d.message.contains(
                "`tiny_orders_cancel` works on `orders`, whose record type declares no facts",
            )
        })
        .unwrap_or_else(|| panic!("{diags:?}"));
    assert!(d.path.ends_with("annotations.destructiveHint"), "{d}");
    assert_eq!(d.file, "catalog/tiny.yaml");
    assert!(d.line > 0, "{d}");
    assert!(hint(d).contains("confirmation.records.orders.facts"), "{d}");
}

/// Orders addressed by their customer's uid while carrying a `uid` of their own (the shape of a
/// mailbox channel, read by its entry's uid).
fn orders_keyed_by_customer() -> String {
    mutate(
        "    description: A customer's order.\n",
        "    description: A customer's order.\n    id_field: customer_uid\n",
    )
}

#[test]
fn a_template_reading_records_keyed_by_their_owner_says_so_in_its_limitation() {
    let text = orders_keyed_by_customer();
    let d = expect(
        &text,
        "templates[0]",
        "addressed by their owner's uid",
        "  - uri_template: kobana://tiny/orders/{uid}",
    );
    assert!(hint(&d).contains("limitation"), "{d}");
    // Saying it is enough.
    let said = text.replacen(
        "    complete: {uid: order_ids}\n",
        "    complete: {uid: order_ids}\n    limitation: {en: Read by the customer uid., pt-BR: Lido pelo uid do cliente., es: Leído por el uid del cliente.}\n",
        1,
    );
    let diags = diagnostics_for("tiny.yaml", &said);
    assert!(
        diags.iter().all(|d| !d.message.contains("owner")),
        "{}",
        diags
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_record_keyed_by_a_field_naming_no_owner_is_refused() {
    // Addressed by `amount` while having a `uid`: no answer could say whose uid to use.
    let text = mutate(
        "    description: A customer's order.\n",
        "    description: A customer's order.\n    id_field: amount\n",
    );
    expect(
        &text,
        "records.orders.id_field",
        "is not seeded `ref:<record>`",
        "    id_field: amount",
    );
}

/// A fact holding another record's id is a `ref` to it, naming the record type and the field a
/// person knows it by; each is checked (issue 35: accounts shown by their name, not their id).
#[test]
fn a_reference_fact_names_a_readable_record_and_a_field_of_it() {
    const STATUS: &str =
        "        - {field: status, kind: status, label: {en: Status, pt-BR: Situação, es: Estado}}\n";
    let with = |fact: &str| mutate(STATUS, &format!("{STATUS}        - {fact}\n"));
    // The id shown as it is: refused, the seed says whose id it is.
    let plain = with("{field: customer_uid, label: {en: Customer, pt-BR: Cliente, es: Cliente}}");
    let d = expect(
        &plain,
        "confirmation.records.orders.facts[2].field",
        "holds the id of a `customers` record",
        "field: customer_uid",
    );
    assert!(hint(&d).contains("kind: ref, record: customers"), "{d}");
    let label = "label: {en: Customer, pt-BR: Cliente, es: Cliente}";
    let good = with(&format!(
        "{{field: customer_uid, kind: ref, record: customers, show: name, {label}}}"
    ));
    let diags = diagnostics_for("tiny.yaml", &good);
    assert!(diags.is_empty(), "{diags:?}");
    expect(
        &with(&format!(
            "{{field: customer_uid, kind: ref, record: clients, show: name, {label}}}"
        )),
        "confirmation.records.orders.facts[2].record",
        "unknown record type `clients`",
        "record: clients",
    );
    expect(
        &with(&format!(
            "{{field: customer_uid, kind: ref, record: customers, show: full_name, {label}}}"
        )),
        "confirmation.records.orders.facts[2].show",
        "`full_name` is not a field of `customers`",
        "show: full_name",
    );
    expect(
        &with(&format!(
            "{{field: customer_uid, kind: ref, record: customers, {label}}}"
        )),
        "confirmation.records.orders.facts[2]",
        "names no `show` field",
        "field: customer_uid",
    );
    // A record type no tool reads cannot be named.
    let unread = good.replace(
        "operation: {kind: list, record: customers}",
        "operation: {kind: list, record: orders}",
    );
    expect(
        &unread,
        "confirmation.records.orders.facts[2].record",
        "no tool of this catalog reads `customers`",
        "record: customers",
    );
}
