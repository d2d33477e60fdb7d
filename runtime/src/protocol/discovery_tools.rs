//! The discovery tools' data, apart from the engine: which names they have, their descriptors,
//! and the search index (BM25 over each tool's name, title, description and argument names, with
//! words lowercased, accents folded and a plural `s` dropped). The listing and the engine read
//! it; [`super::discovery`] answers the calls.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use runtime_model::catalog::Product;
use runtime_model::locale::Locale;
use runtime_model::selection::discovery_tool_names;
use runtime_model::texts::Text;
use serde_json::{json, Value};

/// Which discovery tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Search,
    Describe,
    Call,
}

/// Most results of one search.
pub const MAX_RESULTS: usize = 50;
/// Results of a search that does not say.
pub const DEFAULT_RESULTS: usize = 10;
/// Most bytes of a search query: a search is a few words, and ranking costs in its length.
pub const MAX_QUERY_BYTES: usize = 1024;
/// Most tools one `describe_tools` call describes.
pub const MAX_DESCRIBE: usize = 20;

/// The discovery tool `name` names, if any.
pub fn which(product: &Product, name: &str) -> Option<Kind> {
    let prefix = product.tool_prefix;
    let rest = name.strip_prefix(prefix)?;
    match rest {
        "search_tools" => Some(Kind::Search),
        "describe_tools" => Some(Kind::Describe),
        "call_tool" => Some(Kind::Call),
        _ => None,
    }
}

/// The three descriptors of a product's discovery tools in each locale (by [`Locale::index`]),
/// built once per product (kept for the process's life, like the generated tables they
/// describe), so a listing in any locale costs nothing more.
pub fn descriptors(product: &'static Product) -> [[&'static str; 3]; 3] {
    type Built = HashMap<usize, [[&'static str; 3]; 3]>;
    static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
    let key = product as *const Product as usize;
    let map = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = match map.lock() {
        Ok(m) => m,
        Err(poisoned) => poisoned.into_inner(),
    };
    *map.entry(key)
        .or_insert_with(|| Locale::ALL.map(|l| build(product, l)))
}

fn build(product: &'static Product, locale: Locale) -> [&'static str; 3] {
    let [search, describe, call] = discovery_tool_names(product.tool_prefix);
    let title = product
        .texts(locale)
        .map(|t| t.title)
        .filter(|t| !t.is_empty())
        .or(Some(product.title).filter(|t| !t.is_empty()))
        .unwrap_or(product.name);
    let text = |t: Text| t.get(locale);
    let leak = |v: Value| -> &'static str { Box::leak(v.to_string().into_boxed_str()) };
    [
        leak(json!({
            "name": search,
            "title": text(Text::DiscoverySearchTitle),
            "description": Text::DiscoverySearchDescription.fill(locale, &[("title", &title), ("describe", &describe), ("call", &call)]),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": text(Text::DiscoveryQuery)},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": Text::DiscoveryLimit.fill(locale, &[("default", &DEFAULT_RESULTS)])}
                },
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
        })),
        leak(json!({
            "name": describe,
            "title": text(Text::DiscoveryDescribeTitle),
            "description": Text::DiscoveryDescribeDescription.fill(locale, &[("title", &title), ("call", &call)]),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBE, "description": text(Text::DiscoveryNames)}
                },
                "required": ["names"]
            },
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
        })),
        leak(json!({
            "name": call,
            "title": text(Text::DiscoveryCallTitle),
            "description": Text::DiscoveryCallDescription.fill(locale, &[("title", &title), ("describe", &describe)]),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": text(Text::DiscoveryName)},
                    "arguments": {"type": "object", "description": text(Text::DiscoveryArguments)}
                },
                "required": ["name"]
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
        })),
    ]
}

/// Words of a text for matching: lowercase, accents folded, split on anything that is not a
/// letter or digit, one-letter words dropped, a final plural `s` dropped.
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(fold)
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() > 2 => stem.to_string(),
            _ => w.to_string(),
        })
        .collect()
}

fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        other => other,
    }
}

/// The search index of one product: each tool's words with their weights.
#[derive(Debug)]
pub struct Index {
    /// Per tool: word → weighted count.
    docs: Vec<HashMap<String, f64>>,
    /// Per tool: weighted length.
    lengths: Vec<f64>,
    average: f64,
    /// Word → how many tools have it.
    df: HashMap<String, usize>,
}

impl Index {
    /// Names weigh 3, titles 2, argument names 1.5, descriptions 1; every locale's title and
    /// description count.
    pub fn build(product: &Product) -> Self {
        let mut docs = Vec::with_capacity(product.tools.len());
        for (i, t) in product.tools.iter().enumerate() {
            let mut doc: HashMap<String, f64> = HashMap::new();
            let mut add = |text: &str, weight: f64| {
                for w in words(text) {
                    *doc.entry(w).or_default() += weight;
                }
            };
            let bare = t.name.strip_prefix(product.tool_prefix).unwrap_or(t.name);
            add(bare, 3.0);
            add(t.title, 2.0);
            add(t.description, 1.0);
            // Each locale's title and description too, so a model finds a tool in the words of
            // whichever language it is speaking (the English ones are the table's own).
            for texts in product.locales.iter().filter(|l| l.locale != Locale::En) {
                if let Some(x) = texts.tools.get(i) {
                    add(x.title, 2.0);
                    add(x.description, 1.0);
                }
            }
            if let Ok(Value::Object(schema)) = serde_json::from_str::<Value>(t.input_schema_json) {
                if let Some(Value::Object(props)) = schema.get("properties") {
                    for name in props.keys() {
                        add(name, 1.5);
                    }
                }
            }
            docs.push(doc);
        }
        let lengths: Vec<f64> = docs.iter().map(|d| d.values().sum()).collect();
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        let mut df: HashMap<String, usize> = HashMap::new();
        for d in &docs {
            for w in d.keys() {
                *df.entry(w.clone()).or_default() += 1;
            }
        }
        Index {
            docs,
            lengths,
            average,
            df,
        }
    }

    /// BM25 scores of the tools `eligible` allows, best first (ties by catalog order), zero
    /// scores left out.
    pub fn rank(&self, query: &str, eligible: impl Fn(usize) -> bool) -> Vec<(usize, f64)> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let n = self.docs.len() as f64;
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(i, _)| eligible(*i))
            .map(|(i, doc)| {
                let score: f64 = terms
                    .iter()
                    .filter_map(|t| {
                        let tf = *doc.get(t)?;
                        let df = *self.df.get(t)? as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let norm = K1 * (1.0 - B + B * self.lengths[i] / self.average);
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum();
                (i, score)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_fold_accents_case_and_plurals() {
        assert_eq!(words("Emissão de Boletos"), vec!["emissao", "de", "boleto"]);
        assert_eq!(words("bank_billet_list"), vec!["bank", "billet", "list"]);
        assert_eq!(words("a PIX"), vec!["pix"]);
    }
}
