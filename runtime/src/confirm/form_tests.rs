//! Tests of the confirmation form's rules one by one (issue 42: each of them fails on some change
//! cargo-mutants makes to `form.rs`): the secret rule, the formatting helpers, the record line,
//! the facts' place in the question, a refusal's error. Kept apart from the module's own tests so
//! the form's wording can change without touching them: facts are compared with what
//! [`fact_lines`] writes, texts with their [`Text`] keys.

use super::*;
use serde_json::json;

fn banking() -> &'static Product {
    generated::product("banking").expect("banking")
}

fn tool(name: &str) -> &'static Tool {
    banking().tool(name).expect("the tool")
}

fn ask(name: &str, args: Value, locale: Locale, looked: &Looked) -> String {
    question(
        banking(),
        tool(name),
        args.as_object().expect("object"),
        locale,
        None,
        looked,
        &References::default(),
    )
}

/// The tool's title in `locale`, read from the product's texts, not through the form.
fn title_in(name: &str, locale: Locale) -> &'static str {
    let i = banking()
        .tools
        .iter()
        .position(|t| t.name == name)
        .expect("listed");
    banking()
        .texts(locale)
        .map_or(banking().tools[i].title, |t| t.tools[i].title)
}

/// The label the product's texts give argument `arg` of tool `name` in `locale`.
fn label_in(name: &str, arg: &str, locale: Locale) -> &'static str {
    let i = banking()
        .tools
        .iter()
        .position(|t| t.name == name)
        .expect("listed");
    banking().texts(locale).expect("texts").tools[i]
        .labels
        .iter()
        .find(|(a, _)| *a == arg)
        .map(|(_, l)| *l)
        .expect("a label")
}

fn record_title_in(record: &str, locale: Locale) -> &'static str {
    let i = banking()
        .records
        .iter()
        .position(|r| r.name == record)
        .expect("a record type");
    banking().texts(locale).expect("texts").records[i].title
}

const WEBHOOK_UPDATE: &str = "banking_data_webhook_update";

#[test]
fn the_action_is_named_by_its_localized_title() {
    // Neither the first nor the second tool, so a wrong index shows.
    let i = banking()
        .tools
        .iter()
        .position(|t| t.name == WEBHOOK_UPDATE)
        .expect("listed");
    assert!(i > 1);
    let pt = title_in(WEBHOOK_UPDATE, Locale::PtBr);
    assert!(!pt.is_empty() && pt != tool(WEBHOOK_UPDATE).title, "{pt}");
    assert_eq!(
        action_title(banking(), tool(WEBHOOK_UPDATE), Locale::PtBr),
        pt
    );
    assert_eq!(
        action_title(banking(), tool(WEBHOOK_UPDATE), Locale::En),
        "Update a webhook"
    );
    let (title, description) = field(banking(), tool(WEBHOOK_UPDATE), Locale::PtBr);
    assert_eq!(
        title,
        format!("{}: {pt}", Text::FormFieldTitle.get(Locale::PtBr))
    );
    assert_eq!(description, Text::FormFieldDescription.get(Locale::PtBr));
    let q = ask(
        WEBHOOK_UPDATE,
        json!({"id": 60}),
        Locale::PtBr,
        &Looked::Nothing,
    );
    assert!(
        q.contains(&format!(
            "{}: {pt} ({WEBHOOK_UPDATE})",
            Text::FormAction.get(Locale::PtBr)
        )),
        "{q}"
    );
}

#[test]
fn the_record_line_names_the_record_type_and_its_id() {
    let l = Locale::PtBr;
    let record = |q: &str| {
        q.lines()
            .find_map(|line| line.strip_prefix(&format!("{}: ", Text::FormRecord.get(l))))
            .map(str::to_string)
    };
    let webhook = record_title_in("data_webhooks", l);
    assert_ne!(webhook, "data_webhooks");
    // An update: the record type's title and the id, a number as it is.
    let q = ask(WEBHOOK_UPDATE, json!({"id": 60}), l, &Looked::Nothing);
    assert_eq!(record(&q), Some(format!("{webhook} 60")), "{q}");
    // A string id without its quotes.
    let q = ask(WEBHOOK_UPDATE, json!({"id": "wh-7"}), l, &Looked::Nothing);
    assert_eq!(record(&q), Some(format!("{webhook} wh-7")), "{q}");
    // A create has no record line (its action line says what it makes), and does not name the
    // `*_uid` of another record it uses as if it were the record.
    let pix = "banking_transfer_pix_create";
    let q = ask(
        pix,
        json!({"amount": 10, "financial_account_uid": "fa-1"}),
        l,
        &Looked::Nothing,
    );
    assert_eq!(record(&q), None, "{q}");
    // A tool of no one record (a list) names the id-like argument it was given.
    let list = "banking_charge_bank_billet_list";
    assert!(tool(list).record_type().is_none());
    assert_eq!(record(&ask(list, json!({}), l, &Looked::Nothing)), None);
    assert_eq!(
        record(&ask(list, json!({"status": "opened"}), l, &Looked::Nothing)),
        None
    );
}

#[test]
fn a_tool_of_no_record_names_its_id_like_argument() {
    // The id-like names a tool without a record type may use, and the argument found by its
    // name in the tool's schema (an argument the schema does not name is not an id).
    let line = |name: &str, key: &str| {
        let schema = format!(r#"{{"type":"object","properties":{{"other":{{}},"{key}":{{}}}}}}"#);
        let t: &'static Tool = Box::leak(Box::new(Tool {
            input_schema_json: Box::leak(schema.into_boxed_str()),
            operation: Operation::Custom,
            ..*tool(name)
        }));
        let mut args = Map::new();
        args.insert(key.to_string(), json!("v-1"));
        record_line(banking(), t, &args, Locale::En)
    };
    let list = "banking_charge_bank_billet_list";
    for key in ["uid", "id", "account_uid", "account_id"] {
        assert_eq!(line(list, key), Some(format!("{key} v-1")), "{key}");
    }
    for key in ["status", "uidx", "idea", "valid"] {
        assert_eq!(line(list, key), None, "{key}");
    }
    // The argument's name is borrowed from the schema: one that is not there names nothing.
    let t = tool(list);
    assert_eq!(tool_arg_name(t, "not_an_argument"), None);
    let named: Vec<&str> = serde_json::from_str::<Value>(t.input_schema_json)
        .expect("schema")
        .get("properties")
        .and_then(Value::as_object)
        .expect("properties")
        .keys()
        .map(|k| tool_arg_name(t, k).expect("named"))
        .collect();
    assert!(!named.is_empty());
    for k in named {
        assert!(t.input_schema_json.contains(&format!("\"{k}\"")), "{k}");
        assert!(!k.is_empty() && !k.contains('"'), "{k}");
    }
}

#[test]
fn the_record_types_title_falls_back_to_its_name() {
    let l = Locale::PtBr;
    assert_eq!(
        record_title(banking(), "data_webhooks", l),
        record_title_in("data_webhooks", l)
    );
    assert_eq!(
        record_title(banking(), "no_such_record", l),
        "no_such_record"
    );
}

#[test]
fn a_read_records_facts_come_under_the_record_line() {
    let l = Locale::PtBr;
    let facts = banking().facts_of("data_webhooks").expect("facts");
    let record = json!({"url": "https://hooks.example.com/old", "status": "active"});
    let lines = fact_lines(facts, &record, l, &References::default());
    assert!(
        lines.contains(&"URL: https://hooks.example.com/old".to_string()),
        "{lines:?}"
    );
    // The delete of the record: its facts, each on its own line, the way fact_lines writes them.
    let q = ask(
        "banking_data_webhook_delete",
        json!({"id": 60}),
        l,
        &Looked::Record(record.clone()),
    );
    for line in &lines {
        assert!(q.contains(&format!("\n• {line}\n")), "{line}: {q}");
    }
    // Unread: the question says the facts could not be fetched, and shows none.
    let q = ask(
        "banking_data_webhook_delete",
        json!({"id": 60}),
        l,
        &Looked::Unread,
    );
    assert!(q.contains(Text::FormFactsUnread.get(l)), "{q}");
    assert!(!q.contains("hooks.example.com"), "{q}");
}

#[test]
fn only_a_creates_arguments_are_shown_as_its_facts() {
    let l = Locale::PtBr;
    let url = "https://hooks.example.com/new";
    let facts = banking().facts_of("data_webhooks").expect("facts");
    let fact = fact_lines(facts, &json!({ "url": url }), l, &References::default());
    assert_eq!(fact.len(), 1, "{fact:?}");
    // An update read nothing: its arguments are not the record's facts (they are the change).
    let q = ask(
        WEBHOOK_UPDATE,
        json!({"id": 60, "url": url}),
        l,
        &Looked::Nothing,
    );
    assert!(!q.contains(&format!("\n• {}", fact[0])), "{q}");
    // A create's arguments are: an object's members under their flat names too.
    let pix = "banking_transfer_pix_create";
    let args = json!({"amount": 1500.5, "financial_account_uid": "fa-1",
        "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}});
    let q = ask(pix, args.clone(), l, &Looked::Nothing);
    let facts = banking().facts_of("transfer_pix").expect("facts");
    let flat = flattened(args.as_object().expect("object").clone());
    assert_eq!(flat.get("beneficiary_name"), Some(&json!("Maria Souza")));
    assert_eq!(flat.get("amount"), Some(&json!(1500.5)));
    let lines = fact_lines(facts, &Value::Object(flat), l, &References::default());
    assert!(
        lines.iter().any(|f| f.ends_with(": Maria Souza")),
        "{lines:?}"
    );
    for line in &lines {
        assert!(q.contains(&format!("\n• {line}\n")), "{line}: {q}");
    }
    // A flat argument of the same name wins over the object's member.
    let flat = flattened(
        json!({"beneficiary_name": "Flat", "beneficiary": {"name": "Nested"}})
            .as_object()
            .expect("object")
            .clone(),
    );
    assert_eq!(flat.get("beneficiary_name"), Some(&json!("Flat")));
}

#[test]
fn a_fact_holding_a_secret_is_said_hidden() {
    let l = Locale::En;
    let facts = banking().facts_of("data_webhooks").expect("facts");
    let lines = fact_lines(
        facts,
        &json!({ "url": REDACTED }),
        l,
        &References::default(),
    );
    assert_eq!(
        lines,
        vec![format!(
            "{}: {}",
            facts.facts[0].label(l),
            Text::FormHidden.get(l)
        )]
    );
    assert!(fact_lines(facts, &json!({}), l, &References::default()).is_empty());
}

#[test]
fn an_updates_fields_show_the_value_before_and_after() {
    let l = Locale::PtBr;
    let (old, new) = (
        "https://hooks.example.com/old",
        "https://hooks.example.com/new",
    );
    let url_label = label_in(WEBHOOK_UPDATE, "url", l);
    assert_ne!(url_label, "url");
    let q = ask(
        WEBHOOK_UPDATE,
        json!({"id": 60, "url": new}),
        l,
        &Looked::Record(json!({"id": 60, "url": old})),
    );
    assert!(
        q.contains(&format!("\n• {url_label} (url): {old} → {new}")),
        "{q}"
    );
    // Unchanged: the value once. No value before (null): the value after alone.
    for before in [
        json!({"id": 60, "url": new}),
        json!({"id": 60, "url": null}),
    ] {
        let q = ask(
            WEBHOOK_UPDATE,
            json!({"id": 60, "url": new}),
            l,
            &Looked::Record(before),
        );
        assert!(q.contains(&format!("\n• {url_label} (url): {new}")), "{q}");
        assert!(!q.contains('→'), "{q}");
    }
    // A delete shows no before and after, even with the record read.
    let q = ask(
        "banking_data_webhook_delete",
        json!({"id": 61}),
        l,
        &Looked::Record(json!({"id": 60, "url": old})),
    );
    assert!(!q.contains('→'), "{q}");
}

#[test]
fn an_updated_secret_is_hidden_before_and_after() {
    let l = Locale::En;
    let name = "banking_admin_connection_update";
    let schema: Value = serde_json::from_str(tool(name).input_schema_json).expect("schema");
    let old = json!({"client_id": "cid", "client_secret": "old-s3cret"});
    let shown = hidden_value(&schema, "credentials", &old);
    assert_eq!(
        shown,
        json!({"client_id": "cid", "client_secret": REDACTED}),
        "{shown}"
    );
    let q = ask(
        name,
        json!({"uid": "c-1", "credentials": {"client_id": "cid", "client_secret": "new-s3cret"}}),
        l,
        &Looked::Record(json!({"uid": "c-1", "credentials": old})),
    );
    assert!(!q.contains("s3cret"), "{q}");
    // The same hidden value before and after: no change is shown.
    assert!(!q.contains('→'), "{q}");
    assert!(q.contains(Text::FormHidden.get(l)), "{q}");
}

#[test]
fn an_uploaded_file_is_described_not_pasted() {
    let content = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=";
    let q = ask(
        "banking_data_import_create",
        json!({ "source": content }),
        Locale::En,
        &Looked::Nothing,
    );
    assert!(!q.contains(content), "{q}");
    assert!(
        q.contains(&format!("<file: {} base64 characters>", content.len())),
        "{q}"
    );
}

#[test]
fn a_value_with_a_documented_meaning_gets_its_label() {
    let d = "Status do boleto: * `4` Erro operacional * `5` Cancelado pelo banco.";
    assert_eq!(
        documented_label(d, "4").as_deref(),
        Some("Erro operacional")
    );
    assert_eq!(
        documented_label(d, "5").as_deref(),
        Some("Cancelado pelo banco")
    );
    assert_eq!(
        documented_label("`a`: first; `b` = second", "b").as_deref(),
        Some("second")
    );
    assert_eq!(documented_label(d, "6"), None);
    assert_eq!(documented_label(d, ""), None);
    // A value named without a label, or with a sentence rather than a label, gets none.
    assert_eq!(documented_label("Um de `4`.", "4"), None);
    let long = format!("`4` {}", "palavra ".repeat(10));
    assert_eq!(documented_label(&long, "4"), None);
    let sixty = format!("`4` {}", "a".repeat(60));
    assert_eq!(documented_label(&sixty, "4"), Some("a".repeat(60)));

    let prop = json!({ "description": d });
    assert_eq!(
        show_labelled("status", &json!(4), Some(&prop), Locale::PtBr, &[]),
        "4 — Erro operacional"
    );
    assert_eq!(
        show_labelled("status", &json!(7), Some(&prop), Locale::PtBr, &[]),
        "7"
    );
    assert_eq!(
        show_labelled("status", &json!(REDACTED), Some(&prop), Locale::Es, &[]),
        Text::FormHidden.get(Locale::Es)
    );
}

#[test]
fn a_secret_inside_an_object_is_said_hidden_and_the_rest_in_words() {
    let l = Locale::En;
    let labels: &[(&str, &str)] = &[("payer.name", "Full name")];
    let v = json!({"name": "Maria", "token": REDACTED, "gone": null,
        "address": {"city": "Recife"}});
    let words = in_words("payer", "payer", &v, None, l, labels);
    let hidden = Text::FormHidden.get(l);
    assert_eq!(
        words,
        format!("Full name: Maria; token: {hidden}; address (city: Recife)")
    );
    assert_eq!(in_words("x", "x", &json!(REDACTED), None, l, &[]), hidden);
    assert_eq!(in_words("x", "x", &json!("plain"), None, l, &[]), "plain");
    assert_eq!(in_words("x", "x", &json!({}), None, l, &[]), "{}");
    assert_eq!(in_words("x", "x", &json!([]), None, l, &[]), "[]");
    assert_eq!(
        in_words("amount", "amount", &json!([1, "b"]), None, l, &[]),
        "R$1.00, b"
    );
}

#[test]
fn amounts_documents_dates_and_flags_are_written_the_locales_way() {
    for money in ["amount", "Total", "paid_amount", "value_cents", "balance"] {
        assert!(is_money(money), "{money}");
    }
    for not in ["amounts", "valuex", "quantity", "prices_list_x", "name"] {
        assert!(!is_money(not), "{not}");
    }
    for doc in [
        "document_number",
        "customer_cnpj_cpf",
        "cnpj_cpf",
        "cpf",
        "cnpj",
    ] {
        assert!(is_document(doc), "{doc}");
    }
    for not in ["document", "cpf_x", "cnpj_number", "name"] {
        assert!(!is_document(not), "{not}");
    }
    let l = Locale::PtBr;
    assert_eq!(show("quantity", &json!(3), l), "3");
    assert_eq!(show("amount", &json!(3), l), "R$ 3,00");
    assert_eq!(show("amount", &json!(" 1234.5 "), l), "R$ 1.234,50");
    assert_eq!(show("amount", &json!("a lot"), l), "a lot");
    assert_eq!(show("code", &json!("12345678909"), l), "12345678909");
    assert_eq!(
        show("document_number", &json!("12345678909"), l),
        "123.456.789-09"
    );
    assert_eq!(show("note", &json!("2026-12-01"), l), "01/12/2026");
    let at = "2026-12-01T10:30:00-03:00";
    assert_eq!(show("paid_at", &json!(at), l), l.datetime(at));
    assert_ne!(l.datetime(at), at);
    assert_eq!(show("flag", &json!(false), l), Text::FormNo.get(l));
    assert_eq!(show("flag", &json!(true), l), Text::FormYes.get(l));
    assert_eq!(show("x", &json!(null), l), "null");
    assert_eq!(plain(&json!("s")), "s");
    assert_eq!(plain(&json!(60)), "60");
}

#[test]
fn a_record_out_of_reach_is_refused_with_its_error() {
    let l = Locale::En;
    let cancel = "banking_charge_bank_billet_cancel";
    let (record, id_arg, _) = tool(cancel).touched_record().expect("a record");
    let args = json!({ id_arg: "b-9" });
    let args = args.as_object().expect("object");
    let (e, text) = refusal(banking(), tool(cancel), args, l, &Looked::NotFound).expect("refused");
    assert_eq!(e.code, runtime_model::errors::NOT_FOUND.code);
    assert!(text.contains("b-9"), "{text}");
    assert!(text.contains(&record_title(banking(), record, l)), "{text}");
    let facts = banking().facts_of(record).expect("facts");
    let state = facts
        .terminal_for("cancel")
        .first()
        .copied()
        .expect("a terminal state");
    let (e, text) = refusal(
        banking(),
        tool(cancel),
        args,
        l,
        &Looked::Terminal {
            state: state.to_string(),
        },
    )
    .expect("refused");
    assert_eq!(e.code, runtime_model::errors::INVALID_STATE_TRANSITION.code);
    assert!(text.contains("b-9"), "{text}");
    assert!(text.contains(&facts.state_label(state, l)), "{text}");
    for looked in [Looked::Nothing, Looked::Unread, Looked::Record(json!({}))] {
        assert_eq!(refusal(banking(), tool(cancel), args, l, &looked), None);
    }
}

#[test]
fn a_replay_is_told_what_became_of_the_first_use() {
    for l in Locale::ALL {
        for (state, text) in [
            ("ran", Text::ReplayRan),
            ("failed", Text::ReplayFailed),
            ("replayed", Text::ReplayReplayed),
            ("unknown", Text::ReplayUnknown),
            ("reserved", Text::ReplayUnrecorded),
        ] {
            assert_eq!(replay_outcome(state, l), text.get(l), "{state}");
        }
        assert_eq!(
            Refusal::Cancelled.message(l),
            Text::FormCancelled.get(l),
            "{l}"
        );
        assert_eq!(
            Refusal::NotConfirmed.message(l),
            Text::FormNotConfirmed.get(l)
        );
    }
}

#[test]
fn a_label_in_parentheses_is_the_label_alone() {
    let banks = "Código do banco: * `237` (Bradesco) * `341` (Itaú Unibanco) * `1` (a) (b)";
    assert_eq!(documented_label(banks, "237").as_deref(), Some("Bradesco"));
    assert_eq!(
        documented_label(banks, "341").as_deref(),
        Some("Itaú Unibanco")
    );
    // Two parenthesized parts are not one label in parentheses: kept as written.
    assert_eq!(documented_label(banks, "1").as_deref(), Some("(a) (b)"));
    // A part of an object argument gets the label its own schema documents.
    let prop = json!({"properties": {"bank": {"description": banks}}});
    assert_eq!(
        in_words(
            "to",
            "to",
            &json!({"bank": "237"}),
            Some(&prop),
            Locale::PtBr,
            &[]
        ),
        "bank: 237 — Bradesco"
    );
}
