//! Every text a person or a model reads, in the language the request asked for (issue 14).
//!
//! For every product and locale, through the real HTTP transport: the listings (tools with their
//! argument descriptions, resources, templates, prompts), the instructions, every prompt's
//! message, a confirmation form and its decline and cancel answers, and an application error are
//! read and checked to be in that locale by a language identifier (whatlang, limited to
//! Portuguese, Spanish and English, after identifiers and code are stripped), which fails on the
//! other two. Then the ways a request chooses its language: the 2026 `_meta` acceptLanguage, the
//! HTTP `Accept-Language` header, the server's `--locale` / `KOBANA_LOCALE` over stdio, each
//! with BCP 47 fallback, and the answer saying which it used.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use harness::{start, Options, TestServer, MODERN};
use runtime::catalog::{Operation, Product};
use runtime_model::errors;
use runtime_model::locale::Locale;
use serde_json::{json, Value};
use whatlang::{Detector, Lang};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

/// Texts of at least this many words (identifiers stripped) are checked one by one; every text
/// is also checked with the others of its item (a tool's title, description and argument
/// descriptions together), since a six-word sentence says too little for a trigram identifier
/// to tell Portuguese from Spanish; items shorter than this are checked together.
const MIN_WORDS: usize = 12;

fn lang(locale: Locale) -> Lang {
    match locale {
        Locale::PtBr => Lang::Por,
        Locale::Es => Lang::Spa,
        Locale::En => Lang::Eng,
    }
}

/// The prose of a text: code spans, template tags, URIs and identifiers (anything with `_`, `/`,
/// `@`, a digit or an inner dot, and all-caps acronyms) are taken out before identification.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    // A span in double quotes cites another document (the OpenAPI operation's own name).
    let mut in_quote = false;
    let mut depth = 0usize;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if c == '"' && !in_code {
            in_quote = !in_quote;
            out.push(' ');
        } else if c == '{' && matches!(next, Some('{') | Some('%')) {
            depth += 1;
            i += 1;
        } else if matches!(c, '}' | '%') && next == Some('}') && depth > 0 {
            depth -= 1;
            i += 1;
            out.push(' ');
        } else if !in_code && !in_quote && depth == 0 {
            out.push(c);
        }
        i += 1;
    }
    out.split_whitespace()
        .filter(|w| {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            let code = core.contains(['_', '/', '@', ':', '{', '}', '=', '<', '>'])
                || core.chars().any(|c| c.is_ascii_digit())
                || core.trim_end_matches('.').contains('.');
            let acronym = core.len() > 1 && core.chars().all(|c| c.is_uppercase() || c == '-');
            !(core.is_empty() || code || acronym)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Function words that belong to one of the three languages only (a word the others share, like
/// `de`, `que`, `para`, `a`, `o`, is left out), and spellings only one of them uses.
const PT_WORDS: &[&str] = &[
    "não", "é", "são", "do", "da", "dos", "das", "um", "uma", "em", "na", "nas", "ao", "aos", "à",
    "às", "pelo", "pela", "pelos", "pelas", "ou", "com", "seu", "sua", "seus", "suas", "você",
    "já", "também", "até", "isso", "então", "mas", "sem", "só", "quando", "mais", "ele", "ela",
    "onde", "há", "foi", "tem", "pode", "podem", "deve", "nenhum", "nenhuma", "muito", "apenas",
    "depois", "essa", "esse", "aqui", "agora", "ainda", "sempre", "qual", "quais", "dele", "dela",
];
const ES_WORDS: &[&str] = &[
    "el", "los", "las", "del", "y", "es", "un", "una", "en", "al", "con", "su", "sus", "usted",
    "ya", "también", "hasta", "eso", "pero", "sin", "solo", "cuando", "más", "él", "ella", "donde",
    "hay", "fue", "tiene", "tienen", "puede", "pueden", "debe", "ningún", "ninguna", "muy",
    "después", "esa", "ese", "aquí", "ahora", "todavía", "siempre", "cual", "cuales", "lo", "le",
    "les", "la", "si", "ej",
];
const EN_WORDS: &[&str] = &[
    "the", "of", "and", "is", "are", "to", "in", "on", "with", "for", "by", "that", "it", "its",
    "this", "or", "be", "was", "when", "from", "at", "only", "until", "but", "without", "which",
    "what", "an", "not", "as", "has", "have", "can", "will", "each", "any", "all", "who", "how",
    "if", "than", "then", "there", "into", "per", "their", "does", "do", "you", "your", "one",
    "new", "get", "gets", "reads", "creates", "lists", "about", "every",
];
const PT_MARKS: &[&str] = &["ção", "ções", "ã", "õ", "ç", "ê", "ô", "lh", "nh", "agem"];
const ES_MARKS: &[&str] = &["ñ", "ción", "¿", "¡", "aje", "ías", "ío"];
const EN_MARKS: &[&str] = &["th", "ing", "tion"];

/// `[pt, es, en]` hits of each language's own words and spellings.
fn scores(text: &str) -> [usize; 3] {
    let lower = text.to_lowercase();
    let mut s = [0usize; 3];
    for w in lower.split(|c: char| !c.is_alphabetic()) {
        for (i, list) in [PT_WORDS, ES_WORDS, EN_WORDS].iter().enumerate() {
            if list.contains(&w) {
                s[i] += 1;
            }
        }
    }
    for (i, marks) in [PT_MARKS, ES_MARKS, EN_MARKS].iter().enumerate() {
        for m in *marks {
            s[i] += lower.matches(m).count();
        }
    }
    s
}

/// The language of a text's prose: the function-word scorer when one language clearly leads
/// (more than twice the hits of the next; it tells Portuguese from Spanish where trigrams
/// hesitate), else whatlang.
fn identify(detector: &Detector, prose: &str) -> Option<Lang> {
    let s = scores(prose);
    let langs = [Lang::Por, Lang::Spa, Lang::Eng];
    let best = (0..3).max_by_key(|i| s[*i]).unwrap_or(0);
    let second = (0..3)
        .filter(|i| *i != best)
        .map(|i| s[i])
        .max()
        .unwrap_or(0);
    if s[best] > 2 * second {
        return Some(langs[best]);
    }
    detector.detect_lang(prose)
}

/// The texts of one product in one locale, gathered from what the client received.
#[derive(Default)]
struct Texts {
    /// `(where, text)`.
    items: Vec<(String, String)>,
}

impl Texts {
    fn add(&mut self, place: impl Into<String>, text: &str) {
        if !text.trim().is_empty() {
            self.items.push((place.into(), text.to_string()));
        }
    }

    /// Every `title` and `description` string in a JSON value (a schema), at any depth.
    fn add_schema(&mut self, place: &str, v: &Value) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("title" | "description", Value::String(s)) => {
                            self.add(format!("{place}.{k}"), s)
                        }
                        _ => self.add_schema(&format!("{place}.{k}"), v),
                    }
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    self.add_schema(&format!("{place}[{i}]"), v);
                }
            }
            _ => {}
        }
    }

    /// Checks every long text alone and the short ones together; panics naming each text that
    /// is not in `locale`. Returns how many texts were checked.
    fn check(&self, product: &str, locale: Locale) -> usize {
        let detector = Detector::with_allowlist(vec![Lang::Por, Lang::Spa, Lang::Eng]);
        let want = lang(locale);
        let mut wrong = Vec::new();
        let mut short = String::new();
        let mut short_count = 0;
        // By item (the text's place up to its first `.` or space), in order.
        let mut items: Vec<(&str, String)> = Vec::new();
        for (place, text) in &self.items {
            let p = prose(text);
            if p.split_whitespace().count() >= MIN_WORDS {
                let got = identify(&detector, &p);
                if got != Some(want) {
                    wrong.push(format!("{place}: {got:?}: {text:?}"));
                }
            }
            let item = place.split(['.', ' ']).next().unwrap_or(place);
            match items.last_mut() {
                Some((name, all)) if *name == item => {
                    all.push_str(". ");
                    all.push_str(&p);
                }
                _ => items.push((item, p)),
            }
        }
        for (item, all) in &items {
            if all.split_whitespace().count() < MIN_WORDS {
                short.push_str(all);
                short.push_str(". ");
                short_count += 1;
                continue;
            }
            let got = identify(&detector, all);
            if got != Some(want) {
                wrong.push(format!("{item} (all its texts): {got:?}: {all:?}"));
            }
        }
        if short_count > 0 {
            let got = identify(&detector, &short);
            if got != Some(want) {
                wrong.push(format!(
                    "the {short_count} short items together: {got:?}: {short:?}"
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "{product} in {locale}: {} of {} texts are not in {locale}:\n{}",
            wrong.len(),
            self.items.len(),
            wrong.join("\n")
        );
        self.items.len()
    }
}

/// One JSON-RPC request over HTTP: `meta_lang` goes into the 2026 `_meta` acceptLanguage,
/// `header` into `Accept-Language`; `legacy` sends a sessionless 2025 request instead.
async fn rpc(
    url: &str,
    method: &str,
    params: Value,
    meta_lang: Option<&str>,
    header: Option<&str>,
    legacy: Option<&str>,
) -> (reqwest::header::HeaderMap, Value) {
    let mut params = params.as_object().cloned().unwrap_or_default();
    let http = reqwest::Client::new();
    let mut req = http
        .post(url)
        .bearer_auth("demo-full")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    match legacy {
        None => {
            let mut meta = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            });
            if let Some(l) = meta_lang {
                meta["io.modelcontextprotocol/acceptLanguage"] = json!(l);
            }
            // A request's own `_meta` entries (e.g. other client capabilities) win.
            if let Some(Value::Object(own)) = params.get("_meta") {
                for (k, v) in own {
                    meta[k] = v.clone();
                }
            }
            params.insert("_meta".into(), meta);
            req = req
                .header("mcp-protocol-version", MODERN)
                .header("mcp-method", method);
            let name = match method {
                "tools/call" | "prompts/get" => params.get("name").and_then(Value::as_str),
                "tasks/get" | "tasks/cancel" | "tasks/update" => {
                    params.get("taskId").and_then(Value::as_str)
                }
                _ => None,
            };
            if let Some(n) = name {
                req = req.header("mcp-name", n);
            }
        }
        Some(v) => req = req.header("mcp-protocol-version", v),
    }
    if let Some(h) = header {
        req = req.header("accept-language", h);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let resp = req.json(&body).send().await.expect("HTTP request");
    let headers = resp.headers().clone();
    let text = resp.text().await.expect("body");
    let v = if text.starts_with("event:") || text.starts_with("data:") || text.contains("\ndata:") {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .rfind(|m| m.get("id").is_some())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
    };
    (headers, v)
}

fn url(s: &TestServer, p: &Product) -> String {
    format!("{}/{}/mcp", s.base, p.name)
}

/// Arguments that pass a tool's input schema: each required property gets a value of its type.
fn args_for(schema_json: &str) -> Value {
    let schema: Value = serde_json::from_str(schema_json).unwrap_or(Value::Null);
    let mut args = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let p = &schema["properties"][name];
        let v = if let Some(e) = p["enum"].as_array().and_then(|e| e.first()) {
            e.clone()
        } else {
            match p["type"].as_str() {
                Some("integer") => json!(1),
                Some("number") => json!(1234.56),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ if p["format"] == "date" => json!("2026-12-01"),
                _ if p["contentEncoding"] == "base64" => json!("aGVsbG8="),
                _ if name.contains("email") => json!("ana@example.com"),
                _ => json!("abc12345678901234567"),
            }
        };
        args.insert(name.to_string(), v);
    }
    Value::Object(args)
}

/// Gathers every text of `p` the client reads in `locale`, asking through `_meta`.
async fn gather(s: &TestServer, p: &'static Product, locale: Locale) -> Texts {
    let u = url(s, p);
    let tag = Some(locale.tag());
    let ask = |method: &'static str, params: Value| {
        let u = u.clone();
        async move { rpc(&u, method, params, tag, None, None).await }
    };
    let mut t = Texts::default();
    let (_, d) = ask("server/discover", json!({})).await;
    t.add(
        "instructions",
        d["result"]["instructions"].as_str().unwrap_or(""),
    );

    let (h, v) = ask("tools/list", json!({})).await;
    assert_eq!(
        h.get("content-language").and_then(|v| v.to_str().ok()),
        Some(locale.tag()),
        "{}: Content-Language",
        p.name
    );
    let r = &v["result"];
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/contentLanguage"],
        locale.tag(),
        "{}: contentLanguage of tools/list",
        p.name
    );
    let tools = r["tools"].as_array().cloned().unwrap_or_default();
    assert!(!tools.is_empty(), "{}: tools listed", p.name);
    // Nothing missing: every tool is listed in the locale, with its texts from the locale table.
    let texts = p
        .texts(locale)
        .expect("the product has texts in every locale");
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or("");
        t.add(
            format!("{name}.title"),
            tool["title"].as_str().unwrap_or(""),
        );
        t.add(
            format!("{name}.description"),
            tool["description"].as_str().unwrap_or(""),
        );
        t.add_schema(&format!("{name}.inputSchema"), &tool["inputSchema"]);
        t.add_schema(&format!("{name}.outputSchema"), &tool["outputSchema"]);
        let i = p
            .tools
            .iter()
            .position(|x| x.name == name)
            .expect("known tool");
        assert_eq!(
            tool["title"], texts.tools[i].title,
            "{name}: the locale's title"
        );
        assert!(
            !texts.tools[i].description.is_empty(),
            "{name}: a description in {locale}"
        );
    }
    for (method, key) in [
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
        ("prompts/list", "prompts"),
    ] {
        let (_, v) = ask(method, json!({})).await;
        for item in v["result"][key].as_array().into_iter().flatten() {
            let name = item["name"].as_str().unwrap_or("");
            let uri = item["uri"].as_str().unwrap_or("");
            if key == "resources" && !p.resources.iter().any(|r| r.uri == uri) {
                // A recent record: its template's title in the locale, then the record's own
                // data (a name, a subject), which is not a text to translate.
                let (i, _) = p
                    .templates
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| name.starts_with(&format!("{}_", t.name)))
                    .max_by_key(|(_, t)| t.name.len())
                    .unwrap_or_else(|| panic!("{}: {name} comes from a template", p.name));
                let title = texts.templates[i].title;
                assert!(
                    item["title"].as_str().unwrap_or("").starts_with(title),
                    "{}: {name} is titled in {locale}: {item}",
                    p.name
                );
                continue;
            }
            t.add(
                format!("{name}.title"),
                item["title"].as_str().unwrap_or(""),
            );
            t.add(
                format!("{name}.description"),
                item["description"].as_str().unwrap_or(""),
            );
            for a in item["arguments"].as_array().into_iter().flatten() {
                t.add(
                    format!("{name}.{}", a["name"].as_str().unwrap_or("")),
                    a["description"].as_str().unwrap_or(""),
                );
            }
        }
    }
    // Every prompt's message, with its required arguments given.
    for q in p.prompts {
        let mut args = serde_json::Map::new();
        for a in q.arguments.iter().filter(|a| a.required) {
            args.insert(a.name.to_string(), json!("id_123"));
        }
        let (_, v) = ask("prompts/get", json!({"name": q.name, "arguments": args})).await;
        let text = v["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: prompt {} renders: {v}", p.name, q.name));
        if q.name == p.prompts[0].name {
            println!("--- prompt {} / {locale}: {}\n{text}\n", p.name, q.name);
        }
        t.add(format!("prompt {}", q.name), text);
        t.add(
            format!("prompt {} description", q.name),
            v["result"]["description"].as_str().unwrap_or(""),
        );
    }
    // A confirmation form, and what decline and cancel answer.
    let form = confirmation_form(&u, p, locale).await;
    for (place, text) in form {
        t.add(place, &text);
    }
    // An application error: a record that does not exist.
    if let Some(get) = p
        .tools
        .iter()
        .find(|x| matches!(x.operation, Operation::Get { .. }) && x.annotations.read_only)
    {
        let args = args_for(get.input_schema_json);
        let (_, v) = ask("tools/call", json!({"name": get.name, "arguments": args})).await;
        let msg = v["result"]["structuredContent"]["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: {} answers an error: {v}", p.name, get.name));
        let code = v["result"]["structuredContent"]["error"]["code"]
            .as_str()
            .unwrap_or("");
        let err = errors::by_code(code).expect("a known code");
        assert!(
            msg.starts_with(err.message_in(locale)),
            "{}: the error is written in {locale}: {msg}",
            p.name
        );
        t.add("error", err.message_in(locale));
    }
    t
}

/// The question, the confirmation field, and the decline and cancel messages of the first
/// destructive tool that asks with the arguments [`args_for`] builds.
async fn confirmation_form(u: &str, p: &'static Product, locale: Locale) -> Vec<(String, String)> {
    let tag = Some(locale.tag());
    // Tools with an amount among their required arguments first: their forms show the locale's
    // way of writing money (and dates, which come with it).
    let mut candidates: Vec<_> = p
        .tools
        .iter()
        .filter(|t| t.annotations.destructive)
        .collect();
    candidates.sort_by_key(|t| {
        let s: Value = serde_json::from_str(t.input_schema_json).unwrap_or(Value::Null);
        let required = s["required"].as_array().cloned().unwrap_or_default();
        !required.iter().any(|r| r == "amount")
    });
    for tool in candidates.into_iter().take(40) {
        let mut args = args_for(tool.input_schema_json);
        // A tool that acts on an existing record is asked about a real one (a missing record
        // is refused without a question, issue 35).
        if let Some((record, id_arg, _)) = tool.touched_record() {
            let Some(list) = p
                .tools
                .iter()
                .find(|l| matches!(l.operation, Operation::List { record: r } if r == record))
            else {
                continue;
            };
            let (_, v) = rpc(
                u,
                "tools/call",
                json!({"name": list.name, "arguments": {}}),
                tag,
                None,
                None,
            )
            .await;
            let body = &v["result"]["structuredContent"];
            let first = if body.is_array() {
                &body[0]
            } else {
                &body["data"][0]
            };
            let id_field = p.record(record).map_or("id", |r| r.id_field);
            match (&first[id_field], &first["id"]) {
                (Value::Null, Value::Null) => continue,
                (Value::Null, id) | (id, _) => args[id_arg] = id.clone(),
            }
        }
        let call = json!({"name": tool.name, "arguments": args});
        let (_, v) = rpc(u, "tools/call", call.clone(), tag, None, None).await;
        if v["result"]["resultType"] != "input_required" {
            continue;
        }
        let ask = &v["result"]["inputRequests"]["confirm"]["params"];
        let question = ask["message"].as_str().unwrap_or("").to_string();
        let field = &ask["requestedSchema"]["properties"]["confirm"];
        let state = v["result"]["requestState"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let mut answers = Vec::new();
        for action in ["decline", "cancel"] {
            let mut retry = call.clone();
            retry["requestState"] = json!(state);
            retry["inputResponses"] = json!({"confirm": {"action": action}});
            let (_, a) = rpc(u, "tools/call", retry, tag, None, None).await;
            let msg = a["result"]["structuredContent"]["error"]["message"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: {action} answers an error: {a}", p.name))
                .to_string();
            answers.push((format!("{} {action}", tool.name), msg));
        }
        assert_ne!(
            answers[0].1, answers[1].1,
            "{}: decline and cancel say different things",
            p.name
        );
        println!("--- {} / {locale}: {}\n{question}\n", p.name, tool.name);
        let mut out = vec![
            (format!("{} question", tool.name), question),
            (
                format!("{} field title", tool.name),
                field["title"].as_str().unwrap_or("").to_string(),
            ),
            (
                format!("{} field description", tool.name),
                field["description"].as_str().unwrap_or("").to_string(),
            ),
        ];
        out.extend(answers);
        return out;
    }
    panic!("{}: no destructive tool asked for a confirmation", p.name)
}

#[tokio::test]
async fn every_text_of_every_product_is_in_the_requested_locale() {
    let s = start(Options::all_products()).await;
    for p in generated::PRODUCTS {
        assert_eq!(p.locales.len(), 3, "{}: three locales", p.name);
        for locale in Locale::ALL {
            let texts = gather(&s, p, locale).await;
            let n = texts.check(p.name, locale);
            println!("{} {locale}: {n} texts", p.name);
        }
    }
}

/// The runtime's own texts (errors, form phrases, replay outcomes, notes) in each locale.
#[test]
fn the_runtimes_own_texts_are_in_each_locale() {
    use runtime::confirm::form::{replay_outcome, Refusal};
    for locale in Locale::ALL {
        let mut t = Texts::default();
        for e in errors::ALL {
            t.add(e.code, e.message_in(locale));
        }
        t.add("replay notice", errors::replay_notice(locale));
        for r in [Refusal::Declined, Refusal::Cancelled, Refusal::NotConfirmed] {
            t.add(format!("{r:?}"), r.message(locale));
        }
        for state in ["ran", "failed", "replayed", "unknown", "running"] {
            t.add(state, replay_outcome(state, locale));
        }
        t.add(
            "replayed note",
            runtime::protocol::tools::replayed_note(locale),
        );
        t.check("runtime", locale);
    }
}

/// The language identifier tells the three apart (the check above cannot pass by accident).
#[test]
fn the_language_check_fails_on_the_other_two_locales() {
    let billing = generated::product("billing").unwrap();
    for locale in Locale::ALL {
        let mut t = Texts::default();
        t.add("instructions", billing.texts(locale).unwrap().instructions);
        for other in Locale::ALL.into_iter().filter(|o| *o != locale) {
            let r = std::panic::catch_unwind(|| t.check("billing", other));
            assert!(r.is_err(), "{locale} text passes as {other}");
        }
    }
}

/// `_meta` acceptLanguage chooses (es-AR → es, pt → pt-BR, anything else → the product's
/// default) and wins over the header; the answer names it in `_meta`, `Content-Language` and
/// `Vary`.
#[tokio::test]
async fn meta_accept_language_selects_with_fallback() {
    let s = start(Options::all_products()).await;
    let billing = generated::product("billing").unwrap();
    let finance = generated::product("finance").unwrap();
    for (p, asked, header, got) in [
        (billing, "es-AR", None, Locale::Es),
        (billing, "pt", None, Locale::PtBr),
        (billing, "en-GB;q=0.9, fr", None, Locale::En),
        (billing, "fr", None, Locale::PtBr),
        (finance, "fr-CA, de", None, Locale::Es),
        (finance, "pt-PT", Some("en"), Locale::PtBr),
    ] {
        let (h, v) = rpc(
            &url(&s, p),
            "server/discover",
            json!({}),
            Some(asked),
            header,
            None,
        )
        .await;
        let r = &v["result"];
        assert_eq!(
            r["_meta"]["io.modelcontextprotocol/contentLanguage"],
            got.tag(),
            "{} {asked}",
            p.name
        );
        assert_eq!(
            r["instructions"],
            p.texts(got).unwrap().instructions,
            "{} {asked}",
            p.name
        );
        assert_eq!(
            h.get("content-language").and_then(|v| v.to_str().ok()),
            Some(got.tag())
        );
        let vary: Vec<&str> = h
            .get_all("vary")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        assert!(
            vary.iter().any(|v| v.contains("Accept-Language")),
            "{vary:?}"
        );
        // Listings too: the first tool's title in that locale.
        let (_, l) = rpc(
            &url(&s, p),
            "tools/list",
            json!({}),
            Some(asked),
            header,
            None,
        )
        .await;
        let first = &l["result"]["tools"][0];
        let i = p
            .tools
            .iter()
            .position(|t| t.name == first["name"])
            .unwrap();
        assert_eq!(first["title"], p.texts(got).unwrap().tools[i].title);
    }
}

/// HTTP's `Accept-Language` chooses on 2025 requests (and on 2026 ones without `_meta`
/// acceptLanguage), with the same fallback.
#[tokio::test]
async fn the_http_header_selects_with_fallback() {
    let s = start(Options::all_products()).await;
    let inbox = generated::product("inbox").unwrap();
    let dashboards = generated::product("dashboards").unwrap();
    for (p, header, legacy, got) in [
        (inbox, "pt-BR,pt;q=0.9", Some("2025-11-25"), Locale::PtBr),
        (inbox, "de-DE", Some("2025-06-18"), Locale::Es),
        (
            dashboards,
            "es-MX, en;q=0.5",
            Some("2025-11-25"),
            Locale::Es,
        ),
        (dashboards, "en-US", None, Locale::En),
    ] {
        let u = url(&s, p);
        let (h, v) = rpc(&u, "tools/list", json!({}), None, Some(header), legacy).await;
        assert_eq!(
            h.get("content-language").and_then(|v| v.to_str().ok()),
            Some(got.tag()),
            "{} {header}",
            p.name
        );
        assert!(h
            .get_all("vary")
            .iter()
            .any(|v| v.to_str().unwrap_or("").contains("Accept-Language")));
        let first = &v["result"]["tools"][0];
        let i = p
            .tools
            .iter()
            .position(|t| t.name == first["name"])
            .unwrap();
        assert_eq!(
            first["title"],
            p.texts(got).unwrap().tools[i].title,
            "{header}"
        );
        // A 2025 prompt is written in that language too.
        let q = &p.prompts[0];
        let mut args = serde_json::Map::new();
        for a in q.arguments.iter().filter(|a| a.required) {
            args.insert(a.name.to_string(), json!("id_1"));
        }
        let (_, v) = rpc(
            &u,
            "prompts/get",
            json!({"name": q.name, "arguments": args}),
            None,
            Some(header),
            legacy,
        )
        .await;
        assert_eq!(
            v["result"]["description"],
            p.texts(got).unwrap().prompts[0].description
        );
    }
}

/// Over stdio the server's setting is the language: `KOBANA_LOCALE` and `--locale`, matched
/// the same way; a setting naming none of ours stops the server at start with a clear error.
#[test]
fn the_stdio_setting_selects_the_locale() {
    let billing = generated::product("billing").unwrap();
    for (how, value, got) in [
        ("env", "es-419", Locale::Es),
        ("flag", "en", Locale::En),
        ("none", "", Locale::PtBr),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(BIN);
        cmd.arg("--data-dir")
            .arg(dir.path())
            .args(["serve", "billing", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .env_remove("KOBANA_LOCALE")
            .env_remove("KOBANA_CONFIG")
            .current_dir(dir.path());
        match how {
            "env" => {
                cmd.env("KOBANA_LOCALE", value);
            }
            "flag" => {
                cmd.args(["--locale", value]);
            }
            _ => {}
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        writeln!(stdin, "{init}").unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            v["result"]["instructions"],
            billing.texts(got).unwrap().instructions,
            "{how} {value}"
        );
        assert_eq!(
            v["result"]["_meta"]["io.modelcontextprotocol/contentLanguage"],
            got.tag()
        );
        // A 2026 request naming its own language still gets it.
        let discover = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/acceptLanguage": "pt-BR"}}});
        writeln!(stdin, "{discover}").unwrap();
        line.clear();
        out.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            v["result"]["_meta"]["io.modelcontextprotocol/contentLanguage"],
            "pt-BR"
        );
        drop(stdin);
        let _ = child.kill();
        let _ = child.wait();
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "billing", "--stdio", "--locale", "fr"])
        .env("KOBANA_ACCESS_TOKEN", "demo-full")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("locale") && err.contains("fr"), "{err}");
}

/// Prompts compute the same values in every locale and write them the locale's way: the tool
/// arguments keep ISO dates, the prose writes `01/12/2026` (pt-BR, es) or `Dec 1, 2026` (en).
#[tokio::test]
async fn prompts_write_dates_the_locales_way_with_the_same_values() {
    let s = start(Options::all_products()).await;
    let banking = generated::product("banking").unwrap();
    let q = "banking_charge_overdue_bank_billets_review";
    let mut texts = Vec::new();
    for (locale, shown) in [
        (Locale::PtBr, "01/12/2026"),
        (Locale::Es, "01/12/2026"),
        (Locale::En, "Dec 1, 2026"),
    ] {
        let (_, v) = rpc(
            &url(&s, banking),
            "prompts/get",
            json!({"name": q, "arguments": {"due_before": "2026-12-01"}}),
            Some(locale.tag()),
            None,
            None,
        )
        .await;
        let text = v["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(text.contains(shown), "{locale}: {text}");
        assert!(
            text.contains("expire_to \"2026-12-01\""),
            "{locale}: {text}"
        );
        println!("--- banking / {locale}: {q}\n{text}");
        texts.push(text);
    }
    assert!(texts[0] != texts[1] && texts[1] != texts[2]);
}

/// A tool result's text blocks, or a JSON-RPC error's message: what the model reads.
fn read_back(v: &Value) -> Vec<String> {
    if let Some(m) = v["error"]["message"].as_str() {
        return vec![m.to_string()];
    }
    v["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

/// The application error message of an `isError` tool result.
fn tool_error_message(v: &Value) -> String {
    assert_eq!(v["result"]["isError"], true, "{v}");
    v["result"]["structuredContent"]["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message: {v}"))
        .to_string()
}

/// Discovery mode speaks the locale: the three runtime-made tools' titles, descriptions and
/// argument descriptions in every product's listing, a search's answer (the matches' titles and
/// descriptions), and the problems of bad arguments to search and describe.
#[tokio::test]
async fn discovery_tools_and_their_answers_are_in_the_requested_locale() {
    let s = start(Options::all_products()).await;
    for p in generated::PRODUCTS {
        let u = format!("{}/{}/x/discovery/mcp", s.base, p.name);
        let [search, describe, _] = runtime_model::selection::discovery_tool_names(p.tool_prefix);
        let mut english = Vec::new();
        for locale in [Locale::En, Locale::PtBr, Locale::Es] {
            let tag = Some(locale.tag());
            let mut t = Texts::default();
            let (_, l) = rpc(&u, "tools/list", json!({}), tag, None, None).await;
            let tools = l["result"]["tools"].as_array().expect("a tools page");
            let ours: Vec<&Value> = tools
                .iter()
                .filter(|d| {
                    let n = d["name"].as_str().unwrap_or("");
                    n.ends_with("search_tools")
                        || n.ends_with("describe_tools")
                        || n.ends_with("call_tool")
                })
                .collect();
            assert_eq!(ours.len(), 3, "{} {locale}: three discovery tools", p.name);
            for d in &ours {
                t.add_schema(d["name"].as_str().unwrap_or(""), d);
            }
            // A search with a word of the first tool's name finds it, in the locale's words.
            let word = p.tools[0]
                .name
                .strip_prefix(p.tool_prefix)
                .unwrap_or(p.tools[0].name)
                .split('_')
                .next()
                .unwrap_or("");
            let (_, v) = rpc(
                &u,
                "tools/call",
                json!({"name": search, "arguments": {"query": word, "limit": 5}}),
                tag,
                None,
                None,
            )
            .await;
            let found = v["result"]["structuredContent"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("{} {locale}: a search answer: {v}", p.name))
                .clone();
            assert!(
                !found.is_empty(),
                "{} {locale}: {word} finds a tool",
                p.name
            );
            let texts = p.texts(locale).unwrap();
            for m in &found {
                let i = p.tools.iter().position(|x| x.name == m["name"]).unwrap();
                assert_eq!(m["title"], texts.tools[i].title, "{} {locale}", p.name);
                t.add(
                    format!("search:{}", m["name"]),
                    m["title"].as_str().unwrap(),
                );
                t.add(
                    format!("search:{}", m["name"]),
                    m["description"].as_str().unwrap(),
                );
            }
            // A search in the locale's own words finds the tool those words name.
            let (_, v) = rpc(
                &u,
                "tools/call",
                json!({"name": search, "arguments": {"query": texts.tools[0].title, "limit": 10}}),
                tag,
                None,
                None,
            )
            .await;
            let names: Vec<&Value> = v["result"]["structuredContent"]["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| &m["name"])
                .collect();
            assert!(
                names.contains(&&json!(p.tools[0].name)),
                "{} {locale}: searching {:?} finds {}: {names:?}",
                p.name,
                texts.tools[0].title,
                p.tools[0].name
            );
            // Bad arguments: the application error and what was wrong, in the locale.
            let (_, no_query) = rpc(
                &u,
                "tools/call",
                json!({"name": search, "arguments": {}}),
                tag,
                None,
                None,
            )
            .await;
            let (_, bad_names) = rpc(
                &u,
                "tools/call",
                json!({"name": describe, "arguments": {"names": []}}),
                tag,
                None,
                None,
            )
            .await;
            let problems = [
                tool_error_message(&no_query),
                tool_error_message(&bad_names),
            ];
            for (i, m) in problems.iter().enumerate() {
                t.add(format!("problem{i}"), m);
            }
            t.check(p.name, locale);
            let listing: Vec<Value> = ours.into_iter().cloned().collect();
            match locale {
                Locale::En => english = vec![json!(listing), json!(problems)],
                _ => {
                    assert_ne!(json!(listing), english[0], "{} {locale}", p.name);
                    for (m, en) in problems.iter().zip(english[1].as_array().unwrap()) {
                        assert_ne!(json!(m), *en, "{} {locale}: {m}", p.name);
                    }
                }
            }
        }
    }
}

/// The runtime's own answers added with discovery, the result budget, rate limits, the Tasks
/// extension and tool selection, each read as the client receives it, in each locale: a cut
/// answer's note, a rate-limit refusal (by identity, in the engine; by client address, before
/// any product), an unknown task, an unknown tool and a refused selection (HTTP 400). Each
/// differs from its English text, and all of them together are in the locale.
#[tokio::test]
async fn the_runtimes_refusals_and_notes_are_in_the_requested_locale() {
    use runtime::limits::{RateLimiter, RateLimits};
    use std::sync::Arc;
    use std::time::Duration;
    let budget = start(Options {
        result_budget_tokens: Some(300),
        ..Options::all_products()
    })
    .await;
    let banking = generated::product("banking").unwrap();
    let billing = generated::product("billing").unwrap();
    let mut english: Vec<String> = Vec::new();
    for locale in [Locale::En, Locale::PtBr, Locale::Es] {
        let tag = Some(locale.tag());
        let mut got: Vec<(&str, String)> = Vec::new();
        // The result budget's note: the second text block of a cut answer.
        let (_, v) = rpc(
            &url(&budget, banking),
            "tools/call",
            json!({"name": "banking_charge_pix_list", "arguments": {"per_page": 20}}),
            tag,
            None,
            None,
        )
        .await;
        let blocks = read_back(&v);
        assert_eq!(blocks.len(), 2, "a cut answer and its note: {v}");
        got.push(("result budget note", blocks[1].clone()));
        // An unknown task (the Tasks extension declared; banking has task tools).
        let (_, v) = rpc(
            &url(&budget, banking),
            "tasks/get",
            json!({"taskId": "no-such-task", "_meta": {"io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {}, "extensions": {runtime::tasks::EXTENSION_ID: {}}}}}),
            tag,
            None,
            None,
        )
        .await;
        assert_eq!(v["error"]["data"]["taskId"], "no-such-task", "{v}");
        got.push(("unknown task", read_back(&v).remove(0)));
        // An unknown tool.
        let (_, v) = rpc(
            &url(&budget, billing),
            "tools/call",
            json!({"name": "billing_no_such_tool", "arguments": {}}),
            tag,
            None,
            None,
        )
        .await;
        got.push(("unknown tool", read_back(&v).remove(0)));
        // A refused selection: before the body is read, so the header's language.
        let u = format!("{}/{}/x/no_such_set/mcp", budget.base, billing.name);
        let (h, v) = rpc(&u, "tools/list", json!({}), None, tag, None).await;
        assert_eq!(
            h.get("content-language").and_then(|v| v.to_str().ok()),
            Some(locale.tag())
        );
        got.push(("selection refusal", read_back(&v).remove(0)));
        // Rate limits: one read per identity, then one request per client address.
        let limits = |reads, ip| RateLimits {
            reads,
            writes: 0,
            ip,
            window: Duration::from_secs(600),
        };
        let limited = start(Options {
            configure: Some(Box::new(move |c: &mut runtime::server::ServerConfig| {
                c.rate_limiter = Some(Arc::new(RateLimiter::memory(limits(1, 0))))
            })),
            ..Options::all_products()
        })
        .await;
        let call = json!({"name": "banking_charge_pix_list", "arguments": {"per_page": 1}});
        let mut refusal = Value::Null;
        for _ in 0..2 {
            refusal = rpc(
                &url(&limited, banking),
                "tools/call",
                call.clone(),
                tag,
                None,
                None,
            )
            .await
            .1;
        }
        assert_eq!(refusal["error"]["code"], -31029, "{refusal}");
        got.push(("rate limit (identity)", read_back(&refusal).remove(0)));
        let by_ip = start(Options {
            configure: Some(Box::new(move |c: &mut runtime::server::ServerConfig| {
                c.rate_limiter = Some(Arc::new(RateLimiter::memory(limits(0, 1))))
            })),
            ..Options::all_products()
        })
        .await;
        let mut refusal = Value::Null;
        for _ in 0..2 {
            refusal = rpc(
                &url(&by_ip, banking),
                "tools/list",
                json!({}),
                None,
                tag,
                None,
            )
            .await
            .1;
        }
        assert_eq!(refusal["error"]["code"], -31029, "{refusal}");
        got.push(("rate limit (address)", read_back(&refusal).remove(0)));

        let mut t = Texts::default();
        for (place, text) in &got {
            println!("{locale} {place}: {text}");
            t.add(place.replace(' ', "_"), text);
        }
        t.check("runtime", locale);
        match locale {
            Locale::En => english = got.into_iter().map(|(_, m)| m).collect(),
            _ => {
                for ((place, m), en) in got.iter().zip(&english) {
                    assert_ne!(m, en, "{place} in {locale} is the English text");
                }
            }
        }
    }
}

/// Each product's per-locale docs page shows its toolsets' descriptions in that locale (the
/// `- **`name`** — description Tools: …` lines of its Toolsets section).
#[test]
fn the_docs_pages_show_toolset_descriptions_in_their_locale() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/docs");
    let descriptions = |product: &str, locale: Locale| -> Vec<String> {
        let page = docs.join(format!("{product}.{}.md", locale.tag()));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        text.lines()
            .filter(|l| l.starts_with("- **`"))
            .filter_map(|l| l.split_once("** — "))
            .filter_map(|(_, rest)| rest.rsplit_once(" Tools: "))
            .map(|(d, _)| d.to_string())
            .collect()
    };
    for p in generated::PRODUCTS {
        let english = descriptions(p.name, Locale::En);
        assert!(!english.is_empty(), "{}: no toolsets on its page", p.name);
        for locale in Locale::ALL {
            let got = descriptions(p.name, locale);
            assert_eq!(got.len(), english.len(), "{} {locale}", p.name);
            let mut t = Texts::default();
            for (i, d) in got.iter().enumerate() {
                t.add(format!("toolset{i}"), d);
                if locale != Locale::En {
                    assert_ne!(d, &english[i], "{} {locale}: English toolset", p.name);
                }
            }
            t.check(p.name, locale);
        }
    }
}

/// A task's progress (the sandbox's `statusMessage` while a task tool works) and the protocol's
/// answers to ordinary mistakes (invalid params, an unknown method, a missing client
/// capability) are in the requested locale; the names they quote stay as they are.
#[tokio::test]
async fn task_progress_and_protocol_errors_are_in_the_requested_locale() {
    use runtime::tasks::{TaskOptions, EXTENSION_ID};
    use std::time::{Duration, Instant};
    const REPORT: &str = "banking_charge_bank_billet_report_get";
    let s = start(Options {
        sandbox_task_delay: Duration::from_millis(2000),
        tasks: Some(TaskOptions {
            watch_every: Duration::from_millis(20),
            ..TaskOptions::default()
        }),
        ..Options::all_products()
    })
    .await;
    let banking = generated::product("banking").unwrap();
    let billing = generated::product("billing").unwrap();
    let tasker = json!({"io.modelcontextprotocol/clientCapabilities": {
        "elicitation": {}, "extensions": {EXTENSION_ID: {}}}});
    let mut english: Vec<String> = Vec::new();
    for locale in [Locale::En, Locale::PtBr, Locale::Es] {
        let tag = Some(locale.tag());
        let mut got: Vec<(&str, String)> = Vec::new();
        // A task tool's progress, polled until the sandbox reports some.
        let (_, v) = rpc(
            &url(&s, banking),
            "tools/call",
            json!({"name": REPORT, "arguments": {}, "_meta": tasker}),
            tag,
            None,
            None,
        )
        .await;
        let id = v["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task: {v}"))
            .to_string();
        let until = Instant::now() + Duration::from_secs(10);
        let progress = loop {
            let (_, v) = rpc(
                &url(&s, banking),
                "tasks/get",
                json!({"taskId": id, "_meta": tasker}),
                tag,
                None,
                None,
            )
            .await;
            if let Some(m) = v["result"]["statusMessage"].as_str() {
                if m.contains('%') {
                    break m.to_string();
                }
            }
            assert!(Instant::now() < until, "no progress seen: {v}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(progress.starts_with(REPORT), "{progress}");
        got.push(("task progress", progress));
        // `arguments` that are not an object.
        let (_, v) = rpc(
            &url(&s, billing),
            "tools/call",
            json!({"name": "billing_invoices_list", "arguments": [1]}),
            tag,
            None,
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], -32602, "{v}");
        let m = v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(m.contains("`arguments`"), "{m}");
        got.push(("invalid params", m));
        // An unknown method.
        let (_, v) = rpc(
            &url(&s, billing),
            "tools/frobnicate",
            json!({}),
            tag,
            None,
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], -32601, "{v}");
        let m = v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(m.ends_with(": tools/frobnicate"), "{m}");
        got.push(("unknown method", m));
        // A tasks method from a request that did not declare the extension.
        let (_, v) = rpc(
            &url(&s, banking),
            "tasks/get",
            json!({"taskId": id}),
            tag,
            None,
            None,
        )
        .await;
        assert_eq!(v["error"]["code"], -32021, "{v}");
        let m = v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(m.contains(EXTENSION_ID), "{m}");
        got.push(("missing capability", m));

        let mut t = Texts::default();
        for (place, text) in &got {
            println!("{locale} {place}: {text}");
            t.add(place.replace(' ', "_"), text);
        }
        t.check("runtime", locale);
        match locale {
            Locale::En => english = got.into_iter().map(|(_, m)| m).collect(),
            _ => {
                for ((place, m), en) in got.iter().zip(&english) {
                    assert_ne!(m, en, "{place} in {locale} is the English text");
                }
            }
        }
    }
}

/// The text of a docs page without its `Languages:` paragraph (the only part that differs
/// between `<product>.md` and the per-locale page of the same language).
fn without_language_links(page: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in page.lines() {
        if line.starts_with("Languages: ") {
            skipping = true;
        }
        if skipping {
            skipping = !line.is_empty();
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// `generated/docs/<product>.md` is in the language the server speaks to a client that names
/// none (the product's default locale: pt-BR for banking, es for finance), is the per-locale page
/// of that language, and links every language's page; the index links `install.md` and every
/// per-locale page.
#[test]
fn each_products_docs_page_is_in_its_default_language_and_links_the_others() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/docs");
    let read = |name: &str| {
        let path = docs.join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let index = read("README.md");
    assert!(
        index.contains("](install.md)"),
        "the index links install.md"
    );
    for p in generated::PRODUCTS {
        let own = p.default_locale;
        let page = read(&format!("{}.md", p.name));
        let texts = &p.locales[own.index()];
        assert_eq!(texts.locale, own);
        let first = texts.instructions.lines().next().unwrap_or_default();
        assert!(
            page.contains(&format!("\n> {first}")),
            "{}.md quotes the instructions in {own}: {first}",
            p.name
        );
        assert_eq!(
            without_language_links(&page),
            without_language_links(&read(&format!("{}.{}.md", p.name, own.tag()))),
            "{}.md is its {own} page",
            p.name
        );
        let links = page
            .lines()
            .find(|l| l.starts_with("Languages: "))
            .unwrap_or_else(|| panic!("{}.md has no language links", p.name));
        for locale in Locale::ALL {
            let target = format!("{}.{}.md", p.name, locale.tag());
            assert!(docs.join(&target).is_file(), "{target} exists");
            assert!(
                links.contains(&format!("]({target})")),
                "{}.md links {target}",
                p.name
            );
            assert!(
                index.contains(&format!("]({target})")),
                "the index links {target}"
            );
            let other = read(&target);
            let this = other
                .lines()
                .find(|l| l.starts_with("Languages: "))
                .unwrap_or_else(|| panic!("{target} has no language links"));
            for l in Locale::ALL.into_iter().filter(|&l| l != locale) {
                let href = format!("]({}.{}.md)", p.name, l.tag());
                assert!(this.contains(&href), "{target} links {href}");
            }
        }
    }
}
