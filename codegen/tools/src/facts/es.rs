//! Reading the es documents written as Markdown-like tables (finance, inbox). A document is text
//! extracted from HTML, so inline code runs into the next word (`{id}esfinance_payables_get`).

use anyhow::{bail, Context};

use super::docs::{
    between, split_top_level, squash, Arg, Completions, Destructive, DocFacts, NamedTools, Phrase,
    Prompt, ReadBy, Resource,
};

/// Where a claim's phrase is looked for.
#[derive(Clone, Copy)]
enum Scope {
    Doc,
    DocSquashed,
    /// The confirmation section.
    Confirmation,
    ConfirmationSquashed,
    /// The completion rules (from `completion/complete sugiere` to `Sin fuente de sugerencias`).
    Rules,
    RulesSquashed,
}

/// How one es document is worded where the two differ.
struct Wording {
    /// The words that end the permissions paragraph.
    permissions_end: &'static str,
    /// The words that end the confirmation section.
    confirmation_end: &'static str,
    /// The part of a resource row's description the catalog and docs repeat.
    shown: fn(&str) -> &str,
    /// The verbs of the destructive rule are read with its parenthesized groups left out.
    verbs_without_parentheses: bool,
    claims: &'static [(&'static str, Scope, &'static str)],
}

/// Claims both es documents make.
const COMMON_CLAIMS: &[(&str, Scope, &str)] = &[(
    "binds_person_organization_workspace_for_5_minutes",
    Scope::Confirmation,
    "la misma persona, organización y workspace, durante 5 minutos",
)];

const FINANCE: Wording = Wording {
    permissions_end: "Solo aparece",
    confirmation_end: "confirmation_unavailable",
    shown: |what| what.trim_end_matches(" (JSON)").trim_end_matches('.'),
    verbs_without_parentheses: false,
    claims: &[
        (
            "fixed_uris_listed",
            Scope::Doc,
            "resources/list trae las URIs fijas y resources/templates/list los templates",
        ),
        (
            "no_prompt_writes",
            Scope::Doc,
            "Ninguno mueve dinero, edita ni borra",
        ),
        (
            "tools_take_workspace_id",
            Scope::DocSquashed,
            "usalastools,queaceptanworkspace_id",
        ),
        (
            "ids_from_default_workspace",
            Scope::Rules,
            "workspace predeterminado",
        ),
        (
            "schema_names_completed",
            Scope::RulesSquashed,
            "{schema}dekobana://finance/schemas/{schema}",
        ),
        (
            "declined_answers_code",
            Scope::Confirmation,
            "USER_DECLINED",
        ),
        (
            "reused_answer_refused",
            Scope::Confirmation,
            "devuelve confirmation_replayed",
        ),
        (
            "unconfirmable_refused",
            Scope::ConfirmationSquashed,
            "devuelveisErrorconconfirmation_requiredynadacambia",
        ),
    ],
};

const INBOX: Wording = Wording {
    permissions_end: "Solo se lista",
    confirmation_end: "inténtalo de nuevo más tarde",
    shown: |what| what.trim_end_matches('.').trim_end_matches(" (JSON)"),
    verbs_without_parentheses: true,
    claims: &[
        (
            "fixed_uris_listed",
            Scope::Doc,
            "resources/list devuelve las URIs fijas y resources/templates/list las plantillas con parámetros",
        ),
        (
            "no_secret_resource",
            Scope::Doc,
            "No hay resource de secret — ni siquiera los metadatos. Usa las tools",
        ),
        ("secrets_tools_named", Scope::DocSquashed, "secrets_*"),
        ("no_prompt_writes", Scope::Doc, "Ninguno escribe"),
        ("all_read_only", Scope::Doc, "Todos los resources y prompts de aquí solo leen"),
        (
            "missing_record_in_workspace",
            Scope::Doc,
            "un registro que no existe en este workspace",
        ),
        (
            "reused_answer_refused",
            Scope::Confirmation,
            "responde confirmation_replayed sin ejecutar nada",
        ),
        (
            "unconfirmable_refused",
            Scope::Confirmation,
            "la llamada responde confirmation_required y no se ejecuta nada",
        ),
        ("declined_answers_code", Scope::ConfirmationSquashed, "isErrorconuser_declined"),
    ],
};

/// Every `<word>_id` in `text`, even when the next word runs into it (`account_idy el`).
fn id_names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("_id") {
        let start = text[..at]
            .rfind(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &text[start..at + 3];
        if start < at && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// `until (opcional, YYYY-MM-DD; por defecto: 90 días)` → optional, date, `today+90d`.
fn parse_arg(cell: &str) -> anyhow::Result<Arg> {
    let (name, notes) = match cell.split_once('(') {
        Some((n, rest)) => (n.trim(), rest.trim_end_matches(')')),
        None => (cell.trim(), ""),
    };
    let format = if notes.contains("YYYY-MM-DD") {
        "date"
    } else if notes.contains("YYYY-MM") {
        "month"
    } else {
        "any"
    };
    let default = match notes.split_once("por defecto:") {
        Some((_, d)) => {
            let days: String = d.chars().filter(char::is_ascii_digit).collect();
            if days.is_empty() {
                bail!("a default without a number of days: `{d}`");
            }
            let past = d.contains("últimos") || d.contains("pasados");
            Some(format!("today{}{days}d", if past { '-' } else { '+' }))
        }
        None => None,
    };
    Ok(Arg {
        name: name.to_string(),
        required: !notes.contains("opcional"),
        format: format.to_string(),
        default,
    })
}

fn prompts(doc: &str) -> anyhow::Result<Vec<Prompt>> {
    let table = between(doc, "| Prompt |", "Un argumento obligatorio ausente")?;
    table
        .lines()
        .skip(1) // the rest of the header line
        .filter(|l| l.contains(" | ") && !l.starts_with("|---") && !l.starts_with("| Prompt"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").map(str::trim).collect();
            if cells.len() < 3 {
                bail!("a prompt row has three cells: {l}");
            }
            let args = if cells[1] == "—" {
                Vec::new()
            } else {
                split_top_level(cells[1])
                    .iter()
                    .map(|a| parse_arg(a))
                    .collect::<anyhow::Result<_>>()?
            };
            Ok(Prompt {
                name: cells[0].to_string(),
                what: Some(Phrase::of(cells[2].trim_end_matches('|').trim())),
                args,
                writes: None,
            })
        })
        .collect()
}

/// `text` without its parenthesized groups.
fn without_parentheses(text: &str) -> String {
    let mut depth = 0;
    text.chars()
        .filter(|c| {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// The tool names in each parenthesized group of `text`, with the text just before the group.
fn named_tools(text: &str) -> anyhow::Result<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let close = rest[open..].find(')').context("an unclosed parenthesis")? + open;
        let before = rest[..open].trim().to_string();
        let tools = rest[open + 1..close]
            .split(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .filter(|w| w.contains('_'))
            .map(str::to_string)
            .collect();
        out.push((before, tools));
        rest = &rest[close + 1..];
    }
    Ok(out)
}

fn destructive(doc: &str, wording: &Wording) -> anyhow::Result<Destructive> {
    let list = between(doc, "Las tools que ", " están marcadas con destructiveHint")?;
    let sentence = format!("Las tools que {list} están marcadas con destructiveHint");
    let parts = if wording.verbs_without_parentheses {
        without_parentheses(list)
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>()
    } else {
        list.split(", ").map(str::to_string).collect()
    };
    let mut verbs = Vec::new();
    for part in parts {
        for verb in part.split(" o ") {
            verbs.push(verb.trim().to_string());
        }
    }
    let mut named = Vec::new();
    for (before, tools) in named_tools(list)? {
        let verb = verbs
            .iter()
            .find(|v| before.ends_with(v.as_str()))
            .with_context(|| format!("no verb before the tools {tools:?}"))?;
        named.push(NamedTools {
            verb: verb.clone(),
            tools,
        });
    }
    Ok(Destructive {
        sentence: Phrase::of(&squash(&sentence)),
        squashed: true,
        verbs,
        named,
    })
}

pub fn derive(product: &str, doc: &str) -> anyhow::Result<DocFacts> {
    let wording = match product {
        "finance" => &FINANCE,
        "inbox" => &INBOX,
        other => bail!("no es wording for the product `{other}`"),
    };
    let mut facts = DocFacts::default();
    let table = between(doc, "| URI |", "resources/list")?;
    for l in table
        .lines()
        .filter(|l| l.trim_start().starts_with("kobana://"))
    {
        let (uri, rest) = l.split_once('|').context("a table row has cells")?;
        let what = rest.trim().trim_end_matches('|').trim();
        let kind = if !what.contains("(JSON)") {
            "file"
        } else if what.contains("URL firmada de corta duración") {
            "json-signed-url"
        } else {
            "json"
        };
        facts.resources.push(Resource {
            uri: uri.trim().to_string(),
            what: Phrase::of((wording.shown)(what)),
            kind: kind.to_string(),
            read_by: None,
        });
    }
    // The example of the permissions paragraph: a URI run into `es` and the tool that reads it.
    let permisos = between(doc, "Permisos.", wording.permissions_end)?;
    let (uri, tool) = permisos
        .split_once("}es")
        .context("`<uri>es<tool>` in Permisos")?;
    let uri = format!(
        "{}}}",
        &uri[uri.find("kobana://").context("a URI in Permisos")?..]
    );
    let tool: String = tool
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
        .collect();
    facts.read_by.push(ReadBy { uri, tool });
    facts.prompts = prompts(doc)?;
    // "Un argumento obligatorio ausente, o month/until fuera de formato, es -32602."
    let formatted = between(
        doc,
        "Un argumento obligatorio ausente, o ",
        " fuera de formato",
    )?;
    facts.names.insert(
        "formatted_args".into(),
        formatted.split('/').map(|s| s.trim().to_string()).collect(),
    );
    let rules = between(
        doc,
        "completion/complete sugiere",
        "Sin fuente de sugerencias",
    )?;
    facts.completions = Some(Completions {
        id_args: id_names(between(rules, "Ids (", ")")?),
        last_months: rules
            .contains("month: los últimos doce meses")
            .then_some(12),
        otherwise_empty: doc.contains("Sin fuente de sugerencias, la respuesta es una lista vacía"),
        ..Completions::default()
    });
    facts.destructive = Some(destructive(doc, wording)?);
    if doc.contains("Archivos.") {
        let files = between(doc, "Archivos.", "A diferencia")?;
        let mb: u64 = between(files, "hasta ", " MB")?
            .trim()
            .parse()
            .context("`hasta N MB` in Archivos")?;
        facts.numbers.insert("max_blob_mb".into(), mb);
    }
    for lead in ["Las URIs quedan bajo ", "Las URIs viven bajo "] {
        if let Some(at) = doc.find(lead) {
            let prefix: String = doc[at + lead.len()..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ',')
                .collect();
            facts.names.insert("uri_prefix".into(), vec![prefix]);
        }
    }
    let confirmation = between(
        doc,
        "Confirmación de tools destructivas",
        wording.confirmation_end,
    )?;
    for (name, scope, phrase) in COMMON_CLAIMS.iter().chain(wording.claims) {
        let holds = match scope {
            Scope::Doc => doc.contains(phrase),
            Scope::DocSquashed => squash(doc).contains(phrase),
            Scope::Confirmation => confirmation.contains(phrase),
            Scope::ConfirmationSquashed => squash(confirmation).contains(phrase),
            Scope::Rules => rules.contains(phrase),
            Scope::RulesSquashed => squash(rules).contains(phrase),
        };
        facts.claims.insert(name.to_string(), holds);
    }
    Ok(facts)
}
