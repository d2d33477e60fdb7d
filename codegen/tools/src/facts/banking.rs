//! Reading the banking document (pt-BR, Markdown-like tables with `|`): its template table, its
//! prompt table and the numbers of its completion table.

use anyhow::{bail, Context};

use super::docs::{Arg, DocFacts, Phrase, Prompt, Resource};

/// The cells of a table row (`a | b | c |`), trimmed, without the empty trailing cell.
fn cells(line: &str) -> Vec<String> {
    let mut out: Vec<String> = line.split('|').map(|c| c.trim().to_string()).collect();
    while out.last().is_some_and(|c| c.is_empty()) {
        out.pop();
    }
    out
}

/// The first number in the completion-table row that starts with `arg`.
fn completion_number(doc: &str, arg: &str) -> anyhow::Result<u64> {
    let row = doc
        .lines()
        .find(|l| l.trim_start().starts_with(arg) && l.contains('|'))
        .with_context(|| format!("the completion table has no row for {arg}"))?;
    row.split(|c: char| !c.is_ascii_digit())
        .find_map(|w| w.parse().ok())
        .with_context(|| format!("the completion row of {arg} gives no number"))
}

pub fn derive(doc: &str) -> anyhow::Result<DocFacts> {
    let mut facts = DocFacts::default();
    for l in doc
        .lines()
        .filter(|l| l.trim_start().starts_with("kobana://banking/") && l.contains('|'))
    {
        let c = cells(l);
        if c.len() != 3 {
            bail!("template row with {} cells: {}", c.len(), c[0]);
        }
        facts.resources.push(Resource {
            uri: c[0].clone(),
            what: Phrase::of(&c[1]),
            kind: "json".into(),
            read_by: Some(c[2].clone()),
        });
    }
    for l in doc
        .lines()
        .filter(|l| l.trim_start().starts_with("banking_") && l.matches('|').count() >= 4)
    {
        let c = cells(l);
        let args = c[1]
            .split(';')
            .next()
            .into_iter()
            .flat_map(|a| a.split(','))
            .filter_map(|a| {
                let word = a.split_whitespace().next()?;
                let name = word.trim_matches(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'));
                let looks_like_arg = name.contains('_')
                    && name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_');
                looks_like_arg.then(|| Arg {
                    name: name.to_string(),
                    required: !c[1].contains("opcional"),
                    format: if c[1].contains("YYYY-MM-DD") {
                        "date"
                    } else {
                        "any"
                    }
                    .into(),
                    default: None,
                })
            })
            .collect();
        facts.prompts.push(Prompt {
            name: c[0].clone(),
            what: Some(Phrase::of(&c[2])),
            args,
            writes: Some(c[3].starts_with("Sim")),
        });
    }
    facts.numbers.insert(
        "billet_suggestions".into(),
        completion_number(doc, "bank_billet_uid")?,
    );
    facts.numbers.insert(
        "due_before_months".into(),
        completion_number(doc, "due_before (prompt)")?,
    );
    // "resources/list traz as URIs dos 20 registros mais recentes de cada tipo"
    let recent = doc
        .split("registros mais recentes")
        .next()
        .and_then(|before| {
            before
                .rsplit(|c: char| !c.is_ascii_digit())
                .find(|w| !w.is_empty())
        })
        .and_then(|n| n.parse().ok())
        .context("the document says how many recent records resources/list gives")?;
    facts.numbers.insert("recent_records".into(), recent);
    Ok(facts)
}
