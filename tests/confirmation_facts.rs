//! Confirmations a person can check (issue 35), on the sandbox, through the real protocol: for
//! every destructive tool of every product that acts on one existing record, the question is
//! asked with a real record and shows at least two of its facts written the locale's way, in
//! all three languages, with no documented code left without its label; a missing record, a
//! record of another organization and a record in a state the action cannot leave get the error
//! at once, in the caller's language, without a question.

mod confirmation_harness;

use confirmation_harness::{records_of, required_args, sample, start, Client, Options};
use runtime::catalog::{Operation, Product, RecordType, Tool};
use runtime_model::locale::Locale;
use runtime_model::record_facts::{self, FactKind};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

fn is_error(a: &confirmation_harness::Answer) -> bool {
    a.result()["isError"] == json!(true)
}

/// What a destructive tool acts on, and how to reach records of it.
struct Case {
    tool: &'static Tool,
    id_arg: &'static str,
    action: &'static str,
    list: &'static Tool,
    facts: &'static record_facts::RecordFacts,
    id_field: &'static str,
}

fn cases(p: &'static Product) -> (Vec<Case>, Vec<String>) {
    let mut out = Vec::new();
    let mut without = Vec::new();
    for t in p.tools.iter().filter(|t| t.annotations.destructive) {
        let Some((record, id_arg, action)) = t.touched_record() else {
            continue;
        };
        let facts = p
            .facts_of(record)
            .unwrap_or_else(|| panic!("{}: `{record}` declares no facts", t.name));
        let list = p.tools.iter().find(|l| {
            matches!(l.operation, Operation::List { record: r } if r == record)
                && required_args(l).0.iter().all(|a| a == "workspace_id")
        });
        let rec = p.record(record).expect("record type");
        match list {
            Some(list) => out.push(Case {
                tool: t,
                id_arg,
                action,
                list,
                facts,
                id_field: rec.id_field,
            }),
            None => without.push(t.name.to_string()),
        }
    }
    (out, without)
}

fn args_for(case: &Case, id: &Value) -> Value {
    let (req, schema) = required_args(case.tool);
    let mut m = Map::new();
    for r in req {
        m.insert(r.clone(), sample(&schema["properties"][&r]));
    }
    m.insert(case.id_arg.to_string(), id.clone());
    Value::Object(m)
}

fn id_of(case: &Case, record: &Value) -> Value {
    match &record[case.id_field] {
        Value::Null => record["id"].clone(),
        v => v.clone(),
    }
}

/// The facts of `record` as the question must write them in `locale` (a reference's are checked
/// by [`unnamed_references`]).
fn expected_facts(case: &Case, record: &Value, locale: Locale) -> Vec<String> {
    case.facts
        .facts
        .iter()
        .filter(|f| f.kind != FactKind::Ref)
        .filter_map(|f| {
            let v = record_facts::field_value(record, f.field)?;
            let shown = f.show(v, locale, ("", ""))?;
            Some(format!("{}: {shown}", f.label(locale)))
        })
        .collect()
}

/// The `ref` facts of `record` the question does not show by the referenced record's name,
/// with the id beside it (`• Conta: Conta principal (fa-1)`).
fn unnamed_references(
    facts: &record_facts::RecordFacts,
    record: &Value,
    locale: Locale,
    q: &str,
) -> Vec<String> {
    facts
        .facts
        .iter()
        .filter(|f| f.kind == FactKind::Ref)
        .filter_map(|f| {
            let id = match record_facts::field_value(record, f.field)? {
                Value::String(s) if !s.is_empty() => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            let prefix = format!("• {}: ", f.label(locale));
            let named = q.lines().any(|l| {
                l.strip_prefix(prefix.as_str())
                    .and_then(|rest| rest.strip_suffix(&format!(" ({id})")))
                    .is_some_and(|name| !name.is_empty() && name != id)
            });
            (!named).then(|| format!("{} {id}", f.field))
        })
        .collect()
}

#[tokio::test]
async fn every_destructive_tool_asks_with_the_records_facts_or_refuses_at_once() {
    let s = start(Options::all_products()).await;
    let mut asked = 0;
    let mut refs_named = 0;
    let mut problems = Vec::new();
    let mut no_list = Vec::new();
    for p in generated::PRODUCTS.iter().copied() {
        let (cases, without) = cases(p);
        no_list.extend(without);
        let base = s.client(p.name, "demo-full");
        for case in cases {
            let listed = base.call_tool(case.list.name, json!({}), None, None).await;
            let records = records_of(&listed);
            let terminal = case.facts.terminal_for(case.action);
            let state = |r: &Value| {
                record_facts::field_value(r, case.facts.state_field)
                    .and_then(Value::as_str)
                    .map(String::from)
            };
            // A record the action can run on: asked, with its facts.
            let mut tried = false;
            let runnable = records
                .iter()
                .find(|r| state(r).is_none_or(|st| !terminal.contains(&st.as_str())));
            'ask: {
                let Some(record) = runnable else { break 'ask };
                let args = args_for(&case, &id_of(&case, record));
                let first = base
                    .call_tool(case.tool.name, args.clone(), None, None)
                    .await;
                if first.tool_error_code().as_deref() == Some("invalid_arguments") {
                    // The sample arguments do not fit this tool: another record will not help.
                    problems.push(format!(
                        "{}: sample arguments refused: {}",
                        case.tool.name, first.body
                    ));
                    break 'ask;
                }
                tried = true;
                for (locale, tag) in [
                    (Locale::PtBr, "pt-BR"),
                    (Locale::Es, "es"),
                    (Locale::En, "en"),
                ] {
                    let c = base.clone().with_language(tag);
                    let a = c.call_tool(case.tool.name, args.clone(), None, None).await;
                    if !a.is_input_required() {
                        problems.push(format!(
                            "{} ({tag}): no question: {}",
                            case.tool.name, a.body
                        ));
                        continue;
                    }
                    let q = a.question();
                    let want = expected_facts(&case, record, locale);
                    let shown = want.iter().filter(|f| q.contains(f.as_str())).count();
                    let unnamed = unnamed_references(case.facts, record, locale, &q);
                    if !unnamed.is_empty() {
                        problems.push(format!(
                            "{} ({tag}): references shown without their record's name {unnamed:?}:\n{q}",
                            case.tool.name
                        ));
                    }
                    refs_named += case
                        .facts
                        .facts
                        .iter()
                        .filter(|f| {
                            f.kind == FactKind::Ref
                                && record_facts::field_value(record, f.field)
                                    .is_some_and(|v| !v.is_null())
                        })
                        .count();
                    if shown < 2 {
                        problems.push(format!(
                            "{} ({tag}): {shown} of the record's facts {want:?} in the question:\n{q}",
                            case.tool.name
                        ));
                    }
                    // No documented state shown as its raw code.
                    for f in case
                        .facts
                        .facts
                        .iter()
                        .filter(|f| f.kind == FactKind::Status)
                    {
                        for (raw, words) in f.values {
                            let label = words[locale.index()];
                            if label != *raw && q.contains(&format!("{}: {raw}\n", f.label(locale)))
                            {
                                problems.push(format!(
                                    "{} ({tag}): raw `{raw}` in:\n{q}",
                                    case.tool.name
                                ));
                            }
                        }
                    }
                    assert!(!q.contains("Tools que apagam"), "{q}");
                }
                asked += 1;
            }
            if !tried && problems.iter().all(|p| !p.starts_with(case.tool.name)) {
                problems.push(format!(
                    "{}: no record of {} to ask about",
                    case.tool.name, case.list.name
                ));
            }
            // Missing, and another organization's: the error at once, in the caller's language.
            let missing = args_for(&case, &json!("registro-que-nao-existe"));
            for (tag, words) in [
                ("pt-BR", "não existe"),
                ("es", "no existe"),
                ("en", "does not exist"),
            ] {
                let a = base
                    .clone()
                    .with_language(tag)
                    .call_tool(case.tool.name, missing.clone(), None, None)
                    .await;
                if a.is_input_required() || a.tool_error_code().as_deref() != Some("not_found") {
                    problems.push(format!(
                        "{} ({tag}): a missing record: {}",
                        case.tool.name, a.body
                    ));
                } else if !a.result().to_string().contains(words) {
                    problems.push(format!(
                        "{} ({tag}): not in the caller's language: {}",
                        case.tool.name, a.body
                    ));
                }
            }
            if let Some(record) = records.first() {
                let other = s.client(p.name, "demo-other-org");
                let a = other
                    .call_tool(
                        case.tool.name,
                        args_for(&case, &id_of(&case, record)),
                        None,
                        None,
                    )
                    .await;
                if a.is_input_required() {
                    problems.push(format!(
                        "{}: another organization's record was asked about",
                        case.tool.name
                    ));
                }
            }
            // A record in a state the action cannot leave.
            if let Some(record) = records
                .iter()
                .find(|r| state(r).is_some_and(|st| terminal.contains(&st.as_str())))
            {
                let a = base
                    .clone()
                    .with_language("pt-BR")
                    .call_tool(
                        case.tool.name,
                        args_for(&case, &id_of(&case, record)),
                        None,
                        None,
                    )
                    .await;
                if a.is_input_required() || a.tool_error_code().as_deref() != Some("invalid_state")
                {
                    problems.push(format!("{}: a terminal record: {}", case.tool.name, a.body));
                }
            }
        }
        let _ = is_error;
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n\n")
    );
    assert!(asked > 100, "only {asked} tools were asked about");
    // Finance's payables, receivables, transactions and transfers, banking's Pix transfers and
    // mailbox channels, billing's invoices and payments, each in three languages.
    assert!(
        refs_named >= 30,
        "only {refs_named} references were checked for their record's name"
    );
    eprintln!(
        "asked about {asked} tools, {refs_named} references named; without a list tool to find records: {no_list:?}"
    );
}

/// Prints the questions quoted in the closing note (run with `--nocapture`).
#[tokio::test]
async fn the_closing_notes_questions() {
    let s = start(Options::all_products()).await;
    let first = |c: &Client, list: &'static str| {
        let c = c.clone();
        async move {
            let a = c.call_tool(list, json!({}), None, None).await;
            let records = records_of(&a);
            // One the action can still run on.
            records
                .iter()
                .find(|r| matches!(r["status"].as_str(), Some("opened" | "active")))
                .or(records.first())
                .cloned()
                .expect("a record")
        }
    };
    let banking = s.client("banking", "demo-full");
    let billet = first(&banking, "banking_charge_bank_billet_list").await;
    let webhook = first(&banking, "banking_data_webhook_list").await;
    // Ids as the listing gives them (integers here): the tools take them as they are.
    let billet_id = billet["id"].clone();
    let account = first(&banking, "banking_financial_account_list").await;
    let billing = s.client("billing", "demo-full");
    let customer = first(&billing, "billing_customers_list").await;
    let calls = [
        (
            "banking",
            "banking_charge_bank_billet_cancel",
            json!({"id": billet_id, "cancellation_reason": 4}),
        ),
        (
            "banking",
            "banking_charge_bank_billet_pay",
            json!({"id": billet_id, "paid_amount": billet["amount"], "paid_at": "2026-05-04"}),
        ),
        (
            "banking",
            "banking_transfer_pix_create",
            json!({"amount": 1500.5, "financial_account_uid": account["uid"], "type": "key", "key_type": "email", "key": "maria@example.com", "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}, "scheduled_to": "2026-05-10"}),
        ),
        (
            "billing",
            "billing_customers_delete",
            json!({"id": customer["id"]}),
        ),
        (
            "banking",
            "banking_data_webhook_update",
            json!({"id": webhook["id"], "url": "https://hooks.example.com/kobana/new", "events": ["ping"]}),
        ),
    ];
    for (product, tool, args) in calls {
        for tag in ["pt-BR", "en"] {
            let c = s.client(product, "demo-full").with_language(tag);
            let a = c.call_tool(tool, args.clone(), None, None).await;
            assert!(a.is_input_required(), "{tool}: {}", a.body);
            println!("----- {tool} ({tag})\n{}\n", a.question());
        }
    }
    let finance = s.client("finance", "demo-full");
    let accounts = records_of(
        &finance
            .call_tool("finance_financial_accounts_list", json!({}), None, None)
            .await,
    );
    let from = accounts[0]["uid"].clone();
    let to = accounts[1]["uid"].clone();
    for tag in ["pt-BR", "en"] {
        let c = s.client("finance", "demo-full").with_language(tag);
        let a = c
            .call_tool(
                "finance_transfers_create",
                json!({"from_account_id": from, "to_account_id": to, "amount": 2500, "description": "Reforço de caixa", "scheduled_for": "2026-05-12"}),
                None,
                None,
            )
            .await;
        assert!(a.is_input_required(), "{}", a.body);
        println!("----- finance_transfers_create ({tag})\n{}\n", a.question());
    }
}

/// The `(pt-BR, es, en)` word for each language tag.
fn per_language<'a>(tag: &str, words: [&'a str; 3]) -> &'a str {
    match tag {
        "pt-BR" => words[0],
        "es" => words[1],
        _ => words[2],
    }
}

/// A finance transfer's question names both accounts, with their ids beside, in the three
/// languages; an account that cannot be found is shown by its id, said so, and the question is
/// still asked (issue 35: accounts were shown by their id only).
#[tokio::test]
async fn a_transfer_names_its_accounts() {
    let s = start(Options::all_products()).await;
    let finance = s.client("finance", "demo-full");
    let accounts = records_of(
        &finance
            .call_tool("finance_financial_accounts_list", json!({}), None, None)
            .await,
    );
    let named = |r: &Value| {
        let uid = r["uid"].as_str().expect("an account uid").to_string();
        let name = r["name"].as_str().expect("an account name").to_string();
        (uid, name)
    };
    let ((from, from_name), (to, to_name)) = (named(&accounts[0]), named(&accounts[1]));
    assert_ne!(from_name, to_name);
    for tag in ["pt-BR", "es", "en"] {
        let from_label = per_language(tag, ["Conta de origem", "Cuenta de origen", "From account"]);
        let to_label = per_language(tag, ["Conta de destino", "Cuenta de destino", "To account"]);
        let c = finance.clone().with_language(tag);
        let ask = |to: &str| {
            c.call_tool(
                "finance_transfers_create",
                json!({"from_account_id": from, "to_account_id": to, "amount": 2500, "description": "Reforço de caixa"}),
                None,
                None,
            )
        };
        let a = ask(&to).await;
        assert!(a.is_input_required(), "{tag}: {}", a.body);
        let q = a.question();
        assert!(
            q.contains(&format!("• {from_label}: {from_name} ({from})")),
            "{tag}:\n{q}"
        );
        assert!(
            q.contains(&format!("• {to_label}: {to_name} ({to})")),
            "{tag}:\n{q}"
        );
        // An account the read does not find: its id, and why it has no name; still asked.
        let a = ask("conta-que-nao-existe").await;
        assert!(a.is_input_required(), "{tag}: {}", a.body);
        let q = a.question();
        let missing = per_language(tag, ["não existe", "no existe", "does not exist"]);
        assert!(
            q.lines().any(
                |l| l.starts_with(&format!("• {to_label}: conta-que-nao-existe ("))
                    && l.contains(missing)
            ),
            "{tag}:\n{q}"
        );
    }
}

/// A mailbox channel, which no listing finds (so the walk above does not reach it), names its
/// mailbox in the question too.
#[tokio::test]
async fn a_mailbox_channel_names_its_mailbox() {
    let s = start(Options::all_products()).await;
    let banking = s.client("banking", "demo-full");
    let entries = records_of(
        &banking
            .call_tool("banking_mailbox_entry_list", json!({}), None, None)
            .await,
    );
    let mut asked = 0;
    for entry in &entries {
        let (uid, name) = (
            entry["uid"].as_str().expect("an entry uid"),
            entry["name"].as_str().expect("an entry name"),
        );
        for tag in ["pt-BR", "en"] {
            let a = banking
                .clone()
                .with_language(tag)
                .call_tool(
                    "banking_mailbox_channels_email_delete",
                    json!({"entry_id": uid}),
                    None,
                    None,
                )
                .await;
            if !a.is_input_required() {
                // This mailbox has no e-mail channel: refused at once.
                assert_eq!(
                    a.tool_error_code().as_deref(),
                    Some("not_found"),
                    "{}",
                    a.body
                );
                continue;
            }
            let label = per_language(tag, ["Caixa postal", "Buzón", "Mailbox"]);
            let q = a.question();
            assert!(
                q.contains(&format!("• {label}: {name} ({uid})")),
                "{tag}:\n{q}"
            );
            asked += 1;
        }
    }
    assert!(
        asked > 0,
        "no mailbox with an e-mail channel among {}",
        entries.len()
    );
}

/// A Pix transfer's question shows its key type by its label and its source account by its
/// name, for a new transfer (from the arguments) and a seeded one (from the record, whose key
/// type follows its key), and a destination bank's code with the bank's name.
#[tokio::test]
async fn a_pix_transfer_shows_its_key_type_and_accounts_in_words() {
    let s = start(Options::all_products()).await;
    let banking = s.client("banking", "demo-full");
    let accounts = records_of(
        &banking
            .call_tool("banking_financial_account_list", json!({}), None, None)
            .await,
    );
    let account = accounts[0]["uid"].as_str().expect("an account uid");
    let account_name = accounts[0]["name"].as_str().expect("an account name");
    let transfers = records_of(
        &banking
            .call_tool("banking_transfer_pix_list", json!({}), None, None)
            .await,
    );
    let product = generated::product("banking").expect("banking");
    let facts = product
        .facts_of("transfer_pix")
        .expect("transfer_pix facts");
    let key_type = facts
        .facts
        .iter()
        .find(|f| f.field == "key_type")
        .expect("a key type fact");
    let open = transfers
        .iter()
        .find(|r| r["status"] == "awaiting_approval" || r["status"] == "scheduled")
        .expect("a transfer that can be cancelled");
    let seeded_type = open["key_type"].as_str().expect("a seeded key type");
    let key = open["key"].as_str().unwrap_or_default();
    if key.contains('@') {
        assert_eq!(seeded_type, "email", "{open}");
    }
    for (locale, tag) in [
        (Locale::PtBr, "pt-BR"),
        (Locale::Es, "es"),
        (Locale::En, "en"),
    ] {
        let c = banking.clone().with_language(tag);
        let type_label = per_language(tag, ["Tipo de chave", "Tipo de clave", "Key type"]);
        let from_label = per_language(tag, ["Conta de origem", "Cuenta de origen", "From account"]);
        let email = per_language(tag, ["E-mail", "Correo electrónico", "E-mail"]);
        let a = c
            .call_tool(
                "banking_transfer_pix_create",
                json!({"amount": 1500.5, "financial_account_uid": account, "type": "key", "key_type": "email", "key": "maria@example.com", "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}}),
                None,
                None,
            )
            .await;
        let q = a.question();
        assert!(
            q.contains(&format!("• {type_label}: {email}\n")),
            "{tag}:\n{q}"
        );
        assert!(
            q.contains(&format!("• {from_label}: {account_name} ({account})")),
            "{tag}:\n{q}"
        );
        // The seeded transfer, read before asking.
        let a = c
            .call_tool(
                "banking_transfer_pix_cancel",
                json!({"uid": open["uid"]}),
                None,
                None,
            )
            .await;
        let q = a.question();
        let label = key_type
            .value_label(seeded_type, locale)
            .expect("a labelled key type");
        assert!(
            q.contains(&format!("• {type_label}: {label}\n")),
            "{tag}:\n{q}"
        );
        assert!(
            unnamed_references(facts, open, locale, &q).is_empty(),
            "{tag}:\n{q}"
        );
        // To a bank account: the bank's code with its name, as the API documents it.
        let a = c
            .call_tool(
                "banking_transfer_pix_create",
                json!({"amount": 80, "financial_account_uid": account, "type": "bank_account", "bank_account": {"compe_number": 237, "agency_number": "0001", "account_number": "12345", "account_digit": "6"}, "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}}),
                None,
                None,
            )
            .await;
        let q = a.question();
        assert!(q.contains("237 — Bradesco"), "{tag}:\n{q}");
    }
}

/// The question says what will happen in the product's words, never "new record of …", and the
/// confirmation field's answer line reads "Sim: …; Não: …" in each language.
#[tokio::test]
async fn the_question_and_its_answer_line_read_naturally() {
    let s = start(Options::all_products()).await;
    let banking = s.client("banking", "demo-full");
    for tag in ["pt-BR", "es", "en"] {
        let a = banking
            .clone()
            .with_language(tag)
            .call_tool(
                "banking_transfer_pix_create",
                json!({"amount": 10, "financial_account_uid": "fa-1", "type": "key", "key_type": "cpf", "key": "12345678909", "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}}),
                None,
                None,
            )
            .await;
        let q = a.question();
        for machine in [
            "registro de",
            "record of",
            "a chamada",
            "la llamada",
            "the call",
        ] {
            assert!(!q.contains(machine), "{tag}: `{machine}` in:\n{q}");
        }
        let field = &a.result()["inputRequests"]["confirm"]["params"]["requestedSchema"]
            ["properties"]["confirm"];
        let answer = field["description"].as_str().unwrap_or_default();
        let (yes, no) = match tag {
            "pt-BR" => ("Sim: ", "; Não: "),
            "es" => ("Sí: ", "; No: "),
            _ => ("Yes: ", "; No: "),
        };
        assert!(
            answer.starts_with(yes) && answer.contains(no),
            "{tag}: {answer}"
        );
    }
}

/// The arguments a listing needs beyond the workspace, from the records listed so far: a parent's
/// id (`financial_account_uid`, `pix_uid`) from the parent type's records, a filter (`email`,
/// `cnpj_cpf`) from a record of the listing's own type, a documented value (`collection_name`)
/// from its enum; `None` while one of them is not known yet, or once the parents run out (the
/// `attempt`th parent is taken: not every parent has children).
fn list_args(
    p: &Product,
    list: &Tool,
    listed: &HashMap<&str, Vec<Value>>,
    attempt: usize,
) -> Option<Value> {
    let Operation::List { record } = list.operation else {
        return None;
    };
    let (req, schema) = required_args(list);
    let mut m = Map::new();
    for arg in req.into_iter().filter(|a| a != "workspace_id") {
        let parent_id = || {
            let (stem, field) = match arg.strip_suffix("_uid") {
                Some(stem) => (stem, "uid"),
                None => (arg.strip_suffix("_id")?, "id"),
            };
            // The parent type: `financial_account` → `financial_accounts`; `pix` of
            // `charge_pix_commands` → `charge_pix` (the one the child's name starts with).
            let parent = [format!("{stem}s"), format!("{stem}es"), stem.to_string()]
                .into_iter()
                .find_map(|name| {
                    let named = |r: &&RecordType| r.name.ends_with(&name);
                    p.records
                        .iter()
                        .filter(named)
                        .find(|r| record.starts_with(r.name))
                        .or_else(|| p.records.iter().find(|r| r.name == name))
                        .or_else(|| p.records.iter().find(named))
                })?;
            listed
                .get(parent.name)?
                .iter()
                .filter_map(|r| match &r[field] {
                    Value::Null => Some(r[parent.id_field].clone()).filter(|v| !v.is_null()),
                    v => Some(v.clone()),
                })
                .nth(attempt)
        };
        // A search's `q` is the field the tool is named after (`…_find_by_email`: `email`).
        let field = match (arg.as_str(), list.name.rsplit_once("_find_by_")) {
            ("q", Some((_, by))) => by,
            _ => arg.as_str(),
        };
        let own_field = || {
            listed
                .get(record)?
                .iter()
                .find_map(|r| Some(r[field].clone()).filter(|v| !v.is_null()))
        };
        let documented = || {
            let prop = &schema["properties"][&arg];
            prop["enum"].is_array().then(|| sample(prop))
        };
        m.insert(
            arg.clone(),
            parent_id().or_else(own_field).or_else(documented)?,
        );
    }
    Some(Value::Object(m))
}

/// Ids as the API gives them (issue 35): every list tool of every product is walked (a nested
/// one with a parent's id from the parent's listing), and every id its records carry, sent as it
/// is (a JSON integer stays an integer), is taken by every tool that takes that record type's
/// id: its gets (read for real), and its updates, deletes and actions (a destructive one goes as
/// far as its question; the others run, on the sandbox). None answers `invalid_arguments` about
/// the id.
#[tokio::test]
async fn every_id_a_listing_gives_is_taken_as_it_is() {
    let s = start(Options::all_products()).await;
    let mut problems = Vec::new();
    let (mut fed, mut numbers, mut walked, mut samples_refused) = (0, 0, 0, 0);
    for p in generated::PRODUCTS.iter().copied() {
        // English details name the argument (`argument `id`: …`), whatever the product's default.
        let c = s.client(p.name, "demo-full").with_language("en");
        let mut listed: HashMap<&str, Vec<Value>> = HashMap::new();
        let mut pending: Vec<(&Tool, &str)> = p
            .tools
            .iter()
            .filter_map(|l| match l.operation {
                Operation::List { record } => Some((l, record)),
                _ => None,
            })
            .collect();
        let mut lists = Vec::new();
        // In rounds: a nested listing runs once its parent's records are known.
        while !pending.is_empty() {
            let mut rest = Vec::new();
            for (list, record) in std::mem::take(&mut pending) {
                let Some(mut args) = list_args(p, list, &listed, 0) else {
                    rest.push((list, record));
                    continue;
                };
                // The first parent with records of this type.
                let mut attempt = 0;
                let (a, records) = loop {
                    let a = c.call_tool(list.name, args.clone(), None, None).await;
                    let records = if is_error(&a) {
                        Vec::new()
                    } else {
                        records_of(&a)
                    };
                    attempt += 1;
                    match list_args(p, list, &listed, attempt) {
                        Some(next) if records.is_empty() && next != args => args = next,
                        _ => break (a, records),
                    }
                };
                match records.first() {
                    Some(_) => {
                        listed.entry(record).or_default().extend(records.clone());
                        lists.push((list, record, args, records));
                    }
                    None => {
                        problems.push(format!("{} ({args}) lists nothing: {}", list.name, a.body))
                    }
                }
            }
            let stuck = rest
                .iter()
                .all(|(l, _)| list_args(p, l, &listed, 0).is_none());
            if stuck {
                for (l, _) in &rest {
                    problems.push(format!(
                        "{}: no listing gives the parent id it needs",
                        l.name
                    ));
                }
                break;
            }
            pending = rest;
        }
        for (list, record, list_args, records) in lists {
            walked += 1;
            let rec = p.record(record).expect("record type");
            // Two records, so that a type whose ids vary in shape is seen both ways.
            for r in records.iter().take(2) {
                // The record's id field, and the API's numeric `id` beside a `uid` (for the
                // arguments named as ids: `id`, `…_id`; a `uid` argument takes the `uid`).
                let mut ids: Vec<(Value, bool)> = vec![(r[rec.id_field].clone(), false)];
                if r["id"] != r[rec.id_field] {
                    ids.push((r["id"].clone(), true));
                }
                ids.retain(|(v, _)| !v.is_null());
                if ids.is_empty() {
                    problems.push(format!("{}: a record without an id: {r}", list.name));
                    continue;
                }
                let takes = |arg: &str, numeric_id: bool| {
                    !numeric_id || arg == "id" || arg.ends_with("_id")
                };
                for (id, numeric_id) in ids {
                    numbers += usize::from(id.is_number());
                    // Gets first (reads), then the writes.
                    let mut takers: Vec<(&Tool, &str)> = p
                        .tools
                        .iter()
                        .filter_map(|t| match t.operation {
                            Operation::Get { record: r, id_arg }
                            | Operation::GetWhere {
                                record: r, id_arg, ..
                            } if r == record => Some((t, id_arg)),
                            _ => None,
                        })
                        .collect();
                    takers.extend(p.tools.iter().filter_map(|t| {
                        t.touched_record()
                            .filter(|(r, _, _)| *r == record)
                            .map(|(_, id_arg, _)| (t, id_arg))
                    }));
                    for (tool, id_arg) in takers.into_iter().filter(|(_, a)| takes(a, numeric_id)) {
                        let (req, schema) = required_args(tool);
                        let mut m = Map::new();
                        for a in req.iter().filter(|a| *a != "workspace_id") {
                            m.insert(a.clone(), sample(&schema["properties"][a]));
                        }
                        // The parent's id the listing was given, where the tool takes it too.
                        for (k, v) in list_args.as_object().into_iter().flatten() {
                            if schema["properties"].get(k).is_some() {
                                m.insert(k.clone(), v.clone());
                            }
                        }
                        m.insert(id_arg.to_string(), id.clone());
                        let args = Value::Object(m);
                        let a = c.call_tool(tool.name, args.clone(), None, None).await;
                        fed += 1;
                        if a.tool_error_code().as_deref() != Some("invalid_arguments") {
                            continue;
                        }
                        let error = a.result()["structuredContent"]["error"].to_string();
                        if error.contains(&format!("`{id_arg}`")) {
                            problems.push(format!(
                                "{} refuses the id {id} {} gives ({args}): {error}",
                                tool.name, list.name
                            ));
                        } else {
                            samples_refused += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        numbers > 0,
        "no listing gave a numeric id: the walk proves nothing"
    );
    eprintln!(
        "walked {walked} listings, fed {fed} ids ({numbers} numeric); \
         {samples_refused} calls refused only their other (sample) arguments"
    );
}
