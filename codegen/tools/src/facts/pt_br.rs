//! Reading the pt-BR documents written as tab-separated tables (billing, dashboards). A document is
//! extracted HTML, so it is read loosely: tabs or spaces, words run together after inline code.

use std::collections::BTreeMap;

use anyhow::{bail, Context};

use super::docs::{
    split_top_level, Arg, Completions, Destructive, DocFacts, Phrase, Prompt, ReadBy, Resource,
};

/// The destructive verbs these documents use (the tests map each to tool actions).
const VERBS: &[&str] = &[
    "apagam",
    "cancelam",
    "anulam",
    "estornam",
    "encerram",
    "suspendem",
    "desativam",
    "enviam",
];

/// Statements the tests rely on, by name.
const CLAIMS: &[(&str, &str)] = &[
    (
        "binds_person_and_organization",
        "a mesma pessoa e organização",
    ),
    ("mentions_workspace", "workspace"),
    ("unconfirmable_runs_directly", "a tool roda direto"),
    ("reused_answer_asks_again", "pergunta de novo"),
    ("fixed_uris_listed", "resources/list traz as URIs fixas"),
];

/// The lines after the line that is exactly `heading`, up to the next line that is exactly one
/// of `next` (or the end).
fn section<'a>(text: &'a str, heading: &str, next: &[&str]) -> anyhow::Result<Vec<&'a str>> {
    let mut lines = text.lines().map(str::trim_end);
    if !lines.by_ref().any(|l| l.trim() == heading) {
        bail!("the document has no section `{heading}`");
    }
    Ok(lines.take_while(|l| !next.contains(&l.trim())).collect())
}

/// The rows of a tab-separated table whose header line starts with `header`, up to a blank line.
fn table_rows(lines: &[&str], header: &str) -> anyhow::Result<Vec<Vec<String>>> {
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(header))
        .with_context(|| format!("no table with header `{header}`"))?;
    Ok(lines[start + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(|c| c.trim().to_string()).collect())
        .collect())
}

/// The `kobana://…` URI starting at `at`: path segments of `[a-z0-9_]` or `{var}`, so a word run
/// into the URI by the HTML extraction (`{id}é`) is left out.
pub fn uri_at(text: &str, at: usize) -> String {
    let rest = &text[at..];
    let mut end = "kobana://".len().min(rest.len());
    let bytes = rest.as_bytes();
    loop {
        let seg_start = end;
        if bytes.get(end) == Some(&b'{') {
            match rest[end..].find('}') {
                Some(close) => end += close + 1,
                None => break,
            }
        } else {
            while end < bytes.len()
                && (bytes[end].is_ascii_lowercase()
                    || bytes[end].is_ascii_digit()
                    || bytes[end] == b'_')
            {
                end += 1;
            }
        }
        if end == seg_start || bytes.get(end) != Some(&b'/') {
            break;
        }
        end += 1;
    }
    rest[..end].trim_end_matches('/').to_string()
}

/// The identifier (`[a-z0-9_]+`) at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

fn without_final_period(s: &str) -> &str {
    s.trim().trim_end_matches('.')
}

/// The resources table, `URI <tab> O que volta`: `(uri, what)`.
fn resources(doc: &str) -> anyhow::Result<Vec<(String, String)>> {
    let lines = section(doc, "Resources", &["Prompts"])?;
    let rows = table_rows(&lines, "URI")?;
    if rows.is_empty() {
        bail!("the resources table is empty");
    }
    rows.iter()
        .map(|row| {
            let line = row.join("\t");
            let at = line
                .find("kobana://")
                .with_context(|| format!("resource row without URI: {line}"))?;
            let uri = uri_at(&line, at);
            let what = line[at + uri.len()..].trim().to_string();
            if what.is_empty() {
                bail!("resource {uri} has no description in the document");
            }
            Ok((uri, what))
        })
        .collect()
}

fn kind(what: &str) -> &'static str {
    if what.contains("(JSON)") {
        "json"
    } else if what.contains("PDF") || what.contains("DANFE") {
        "pdf"
    } else if what.contains("XML") {
        if what.contains("(texto)") {
            "xml-text"
        } else {
            "xml"
        }
    } else {
        "unknown"
    }
}

/// One cell of the arguments column: `—`, `customer_id`, `month (opcional, YYYY-MM)`.
fn parse_args(cell: &str) -> anyhow::Result<Vec<Arg>> {
    let cell = cell.trim();
    if cell.is_empty() || cell == "—" || cell == "-" {
        return Ok(Vec::new());
    }
    split_top_level(cell)
        .iter()
        .map(|a| {
            let name = ident(a).to_string();
            if name.is_empty() {
                bail!("cannot read the argument `{a}`");
            }
            let notes = a[name.len()..]
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')');
            let notes: Vec<&str> = notes.split(',').map(str::trim).collect();
            let format = if notes.contains(&"YYYY-MM-DD") {
                "date"
            } else if notes.contains(&"YYYY-MM") {
                "month"
            } else {
                "any"
            };
            Ok(Arg {
                name,
                required: !notes.contains(&"opcional"),
                format: format.to_string(),
                default: None,
            })
        })
        .collect()
}

/// The prompts table: `Prompt <tab> Argumentos <tab> O que faz`.
fn prompts(doc: &str) -> anyhow::Result<Vec<Prompt>> {
    let lines = section(doc, "Prompts", &["Completions"])?;
    let rows = table_rows(&lines, "Prompt\t")?;
    if rows.is_empty() {
        bail!("the prompts table is empty");
    }
    rows.iter()
        .map(|row| {
            if row.len() != 3 {
                bail!("a prompt row has three columns: {row:?}");
            }
            Ok(Prompt {
                name: row[0].clone(),
                what: Some(Phrase::of(&row[2])),
                args: parse_args(&row[1])?,
                writes: None,
            })
        })
        .collect()
}

/// The singular noun of a record description (`Um cliente (JSON)` → `cliente`), pluralized on
/// its first word.
fn plural_noun(what: &str) -> Option<String> {
    let rest = what
        .strip_prefix("Uma ")
        .or_else(|| what.strip_prefix("Um "))?;
    let end = rest.find([',', '(']).unwrap_or(rest.len());
    let noun = rest[..end].trim();
    let (first, tail) = noun.split_once(' ').map_or((noun, ""), |(a, b)| (a, b));
    Some(if tail.is_empty() {
        format!("{first}s")
    } else {
        format!("{first}s {tail}")
    })
}

fn completions(doc: &str, resources: &[(String, String)]) -> anyhow::Result<Completions> {
    let lines = section(doc, "Completions", &["Confirmação de tools destrutivas"])?;
    let text = lines.join("\n");
    let mut out = Completions {
        otherwise_empty: text.contains("Sem fonte de sugestão, a resposta é uma lista vazia"),
        ..Completions::default()
    };
    let nouns: BTreeMap<String, String> = resources
        .iter()
        .filter(|(uri, _)| uri.ends_with("/{id}"))
        .filter_map(|(uri, what)| plural_noun(what).map(|n| (n, uri.clone())))
        .collect();
    for bullet in lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.starts_with('•'))
    {
        let body = bullet.trim_start_matches('•').trim();
        if body.starts_with("Ids") {
            let open = body
                .find('(')
                .context("the Ids rule lists its arguments in parentheses")?;
            let close = body[open..]
                .find(')')
                .context("unclosed parenthesis in the Ids rule")?
                + open;
            let items: Vec<String> = body[open + 1..close]
                .split(", ")
                .flat_map(|s| s.split(" e "))
                .map(|s| s.trim().to_string())
                .collect();
            for item in items {
                let noun = match item.split_once("{id} de ") {
                    Some((_, noun)) => noun.trim().to_string(),
                    None if ident(&item) == item && item.ends_with("_id") => {
                        out.id_args.push(item);
                        continue;
                    }
                    None => item,
                };
                let uri = nouns.get(&noun).with_context(|| {
                    format!("the Ids rule names `{noun}`, which matches no record template")
                })?;
                out.id_templates.push(uri.clone());
            }
        } else if body.contains("{resource}") {
            out.schema_names = true;
        } else if body.starts_with("month") {
            let n = if body.contains("doze") {
                12
            } else {
                body.split(|c: char| !c.is_ascii_digit())
                    .find_map(|w| w.parse().ok())
                    .context("the month rule says how many months")?
            };
            out.last_months = Some(n);
        }
    }
    Ok(out)
}

/// The sentence of the confirmation section that names `destructiveHint`, and its verbs.
fn destructive(doc: &str) -> anyhow::Result<Destructive> {
    let lines = section(doc, "Confirmação de tools destrutivas", &[])?;
    let text = lines.join(" ");
    let at = text
        .find("destructiveHint")
        .context("the destructive rule names destructiveHint")?;
    let start = text[..at].rfind(['.', ':']).map_or(0, |i| i + 1);
    let sentence = text[start..at + "destructiveHint".len()].trim().to_string();
    let verbs: Vec<String> = sentence
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| VERBS.contains(w))
        .map(str::to_string)
        .collect();
    if verbs.is_empty() {
        bail!("no destructive verb found in the destructive rule");
    }
    Ok(Destructive {
        sentence: Phrase::of(&sentence),
        squashed: false,
        verbs,
        named: Vec::new(),
    })
}

/// `N` of the first `<before>N <unit>` in `doc`.
fn number_before(doc: &str, before: &str, unit: &str) -> Option<u64> {
    doc.split(before).skip(1).find_map(|s| {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        let rest = &s[digits.len()..];
        (!digits.is_empty() && rest.trim_start().starts_with(unit))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

pub fn derive(doc: &str) -> anyhow::Result<DocFacts> {
    let mut facts = DocFacts::default();
    let rows = resources(doc)?;
    facts.resources = rows
        .iter()
        .map(|(uri, what)| Resource {
            uri: uri.clone(),
            what: Phrase::of(without_final_period(what)),
            kind: kind(what).to_string(),
            read_by: None,
        })
        .collect();
    // "(kobana://billing/invoices/{id} é billing_invoices_get)"
    for (at, _) in doc.match_indices("kobana://") {
        let uri = uri_at(doc, at);
        let after = doc[at + uri.len()..].trim_start();
        if let Some(rest) = after.strip_prefix('é') {
            let tool = ident(rest.trim_start());
            if !tool.is_empty() {
                facts.read_by.push(ReadBy {
                    uri,
                    tool: tool.to_string(),
                });
            }
        }
    }
    facts.prompts = prompts(doc)?;
    facts.completions = Some(completions(doc, &rows)?);
    facts.destructive = Some(destructive(doc)?);
    if let Some(mb) = number_before(doc, "até ", "MB") {
        facts.numbers.insert("max_blob_mb".into(), mb);
    }
    if let Some(min) = number_before(doc, "por ", "minutos") {
        facts.numbers.insert("confirmation_minutes".into(), min);
    }
    // "um prompt que escreve — como collect_overdue_invoices, …"
    if let Some(at) = doc.find("um prompt que escreve") {
        let after = &doc[at..];
        let como = after
            .find("como ")
            .context("… um prompt que escreve … como <prompt>")?;
        let writer = ident(&after[como + "como ".len()..]);
        facts
            .names
            .insert("writing_prompt".into(), vec![writer.to_string()]);
    }
    super::docs::claims_in(&mut facts, doc, CLAIMS);
    Ok(facts)
}
