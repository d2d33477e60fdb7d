//! The facts of the product documents: what the `tests/<product>_docs.rs` tests compare the
//! catalogs, generated docs and servers against. Identifiers (URIs, tool and argument names,
//! codes, numbers) are kept as written; the documents' prose only as [`Phrase`] digests or as
//! named claims (a statement the document makes, true or false).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use super::phrase::Phrase;

/// How a document is written, which decides how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// pt-BR, Markdown-like tables with `|` (banking).
    Banking,
    /// pt-BR, tab-separated tables (billing, dashboards).
    PtBr,
    /// es, Markdown-like tables (finance, inbox).
    Es,
}

/// One product document.
#[derive(Debug, Clone, Copy)]
pub struct Document {
    pub product: &'static str,
    /// The file name under `<sources>/product-docs/`.
    pub file: &'static str,
    pub dialect: Dialect,
}

/// The product documents, one per product.
pub const DOCUMENTS: &[Document] = &[
    Document {
        product: "banking",
        file: "000_38c8db6d274b3892.txt",
        dialect: Dialect::Banking,
    },
    Document {
        product: "billing",
        file: "001_85b6251b381b87a7.txt",
        dialect: Dialect::PtBr,
    },
    Document {
        product: "finance",
        file: "002_891fe1d3e0678253.txt",
        dialect: Dialect::Es,
    },
    Document {
        product: "dashboards",
        file: "003_3ec0f81887b17c41.txt",
        dialect: Dialect::PtBr,
    },
    Document {
        product: "inbox",
        file: "004_696ebcfc2bcd0447.txt",
        dialect: Dialect::Es,
    },
];

/// The facts of one document (`catalog/facts/product-docs/<product>.json`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DocFacts {
    #[serde(rename = "$comment")]
    pub comment: String,
    pub product: String,
    /// The document's file name under `product-docs/`.
    pub document: String,
    /// The resources (or resource templates) table, in the document's order.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// `(URI, tool)` pairs where the prose names the tool that reads a resource.
    #[serde(default)]
    pub read_by: Vec<ReadBy>,
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Completions>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<Destructive>,
    /// Named numbers the document states (`max_blob_mb`, `confirmation_minutes`, …).
    #[serde(default)]
    pub numbers: BTreeMap<String, u64>,
    /// Named lists of identifiers the document states (`uri_prefix`, `writing_prompt`, …).
    #[serde(default)]
    pub names: BTreeMap<String, Vec<String>>,
    /// Every identifier with an underscore the document writes (`user_declined`,
    /// `banking_charge_bank_billet_send_email`), as written, runs of letters, digits and `_`.
    #[serde(default)]
    pub identifiers: BTreeSet<String>,
    /// Named statements and whether the document makes them.
    #[serde(default)]
    pub claims: BTreeMap<String, bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub uri: String,
    /// What the row says the resource is (the part the catalog and docs repeat).
    pub what: Phrase,
    /// `json`, `json-signed-url`, `pdf`, `xml-text`, `xml`, `file`, `unknown`.
    pub kind: String,
    /// The tool the row says reads it (tables with that column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_by: Option<String>,
}

impl Resource {
    pub fn is_template(&self) -> bool {
        self.uri.contains('{')
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadBy {
    pub uri: String,
    pub tool: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    pub name: String,
    /// Its description, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what: Option<Phrase>,
    pub args: Vec<Arg>,
    /// Whether the document says it writes (documents with that column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arg {
    pub name: String,
    pub required: bool,
    /// `any`, `date` (YYYY-MM-DD) or `month` (YYYY-MM).
    pub format: String,
    /// `today+90d`, `today-7d` (documents that state defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Completions {
    /// Prompt arguments completed with ids (`customer_id`).
    pub id_args: Vec<String>,
    /// Template URI prefixes whose `{id}` is completed with ids.
    #[serde(default)]
    pub id_templates: Vec<String>,
    /// `{resource}` of the schemas template is completed with catalog names.
    #[serde(default)]
    pub schema_names: bool,
    /// `month` is completed with the last N months.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_months: Option<u32>,
    /// Without a source, the answer is an empty list.
    #[serde(default)]
    pub otherwise_empty: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Destructive {
    /// The sentence that names `destructiveHint`; `squashed` when digested without whitespace
    /// (extracted HTML loses and adds spaces around inline code).
    pub sentence: Phrase,
    #[serde(default)]
    pub squashed: bool,
    /// Its verbs (`apagam`, `envían un pago al banco`), the codes the tools' clauses cite.
    pub verbs: Vec<String>,
    /// Tools the sentence names, grouped by the words before their parenthesis.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named: Vec<NamedTools>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedTools {
    /// The verb the group follows.
    pub verb: String,
    pub tools: Vec<String>,
}

impl DocFacts {
    /// The facts file of `product` under the repository root.
    pub fn load(repo_root: &Path, product: &str) -> anyhow::Result<DocFacts> {
        let path = repo_root.join(super::paths::doc_facts_path(product));
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read the product-document facts {} (written by `{}`)",
                path.display(),
                super::paths::WRITE_COMMAND
            )
        })?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a product-document facts file", path.display()))
    }

    /// Whether the document makes the statement `name`; panics naming the file when the facts
    /// have no such claim (a misspelt claim must not read as `false`).
    pub fn claim(&self, name: &str) -> bool {
        match self.claims.get(name) {
            Some(v) => *v,
            None => panic!(
                "the facts of {} have no claim `{name}` (known: {:?})",
                self.product,
                self.claims.keys().collect::<Vec<_>>()
            ),
        }
    }

    /// The named number; panics naming the file when absent.
    pub fn number(&self, name: &str) -> u64 {
        match self.numbers.get(name) {
            Some(v) => *v,
            None => panic!("the facts of {} have no number `{name}`", self.product),
        }
    }

    /// The named list of identifiers; panics naming the file when absent.
    pub fn names(&self, name: &str) -> &[String] {
        match self.names.get(name) {
            Some(v) => v,
            None => panic!("the facts of {} have no names `{name}`", self.product),
        }
    }

    /// The one identifier of the list `name`.
    pub fn name(&self, name: &str) -> &str {
        match self.names(name) {
            [one] => one,
            other => panic!(
                "the facts of {}: `{name}` is one name, got {other:?}",
                self.product
            ),
        }
    }

    /// The document writes `identifier` (or an identifier containing it).
    pub fn mentions(&self, identifier: &str) -> bool {
        self.identifiers.iter().any(|i| i.contains(identifier))
    }

    pub fn completions(&self) -> &Completions {
        match &self.completions {
            Some(c) => c,
            None => panic!("the facts of {} have no completion rules", self.product),
        }
    }

    pub fn destructive(&self) -> &Destructive {
        match &self.destructive {
            Some(d) => d,
            None => panic!("the facts of {} have no destructive rule", self.product),
        }
    }
}

/// Every run of ASCII letters, digits and `_` that holds an `_` and a letter.
pub fn identifiers(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.contains('_') && w.chars().any(|c| c.is_ascii_alphabetic()))
        .map(|w| w.trim_matches('_').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Text without any whitespace.
pub fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The text of `rest` up to the first `end` (error naming both when absent).
pub fn between<'a>(text: &'a str, start: &str, end: &str) -> anyhow::Result<&'a str> {
    let from = text
        .find(start)
        .with_context(|| format!("the document has no `{start}`"))?
        + start.len();
    let len = text[from..]
        .find(end)
        .with_context(|| format!("the document has no `{end}` after `{start}`"))?;
    Ok(&text[from..from + len])
}

/// Splits on commas that are not inside parentheses.
pub fn split_top_level(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `(name, phrase)` claims: whether `text` contains each phrase.
pub fn claims_in(facts: &mut DocFacts, text: &str, claims: &[(&str, &str)]) {
    for (name, phrase) in claims {
        facts.claims.insert(name.to_string(), text.contains(phrase));
    }
}
