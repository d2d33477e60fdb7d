//! Texts per locale: every text a person or a model reads, in pt-BR, es and en.
//!
//! A text in a catalog is either a plain string, whose locale versions come from the product's
//! translation table (`catalog/texts/<product>/*.yaml`, every file of the folder merged), or an
//! inline map `{en: …, pt-BR: …, es: …}`. A translation table is a YAML mapping keyed by the exact
//! source text as the catalog writes it; each value is a mapping with exactly `en`, `pt-BR` and
//! `es`, and `review: true` on an entry [`crate::reword::rekey`] moved to a reworded text: its
//! versions are served as they are, and every generation warns about it until an editor
//! has checked them against the new text and removed the marker. Which keys hold texts ([`visit_texts`]): under `tools`, `records`, `templates`,
//! `resources` and `toolsets`, every `title`, `description`, `destructive_clause`, `limitation`
//! and `task_note` at any depth (input-schema property descriptions included); the product's `title` and `instructions`; each
//! prompt's `title`, `description`, `template` and argument descriptions. Identifiers (names,
//! fields, codes, URIs) are never texts.
//!
//! The generator localizes the catalog's YAML value once per locale, then deserializes each copy
//! into a [`Catalog`]: the same emitters then write per-locale descriptors and docs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use runtime_model::locale::Locale;
use serde_yaml::{Mapping, Value};

use crate::diag::Diagnostic;
use crate::locate::{index_path, key_path, PositionIndex};
use crate::model::Catalog;

/// The folder of translation tables, inside the catalog folder.
pub const TEXTS_DIR: &str = "texts";

/// The keys whose string values are texts, under `tools`, `records`, `templates`, `resources`,
/// `toolsets` (a toolset's title and description reach people in the docs and in discovery).
pub const TEXT_KEYS: &[&str] = &[
    "title",
    "description",
    "destructive_clause",
    "limitation",
    "task_note",
];

/// Products whose missing translations are reported as warnings, not errors, while their
/// tables are being written (the texts are served in their source language meanwhile).
pub const LENIENT_PRODUCTS: &[&str] = &[];

/// One entry of a translation table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub en: String,
    pub pt_br: String,
    pub es: String,
    /// Where it is written (`catalog/texts/billing/texts.yaml`, line).
    pub file: String,
    pub line: usize,
    /// Marked `review: true`: moved to a reworded text, its versions not yet checked against it.
    pub review: bool,
}

impl Translation {
    pub fn get(&self, locale: Locale) -> &str {
        match locale {
            Locale::En => &self.en,
            Locale::PtBr => &self.pt_br,
            Locale::Es => &self.es,
        }
    }
}

/// A product's translation table: source text → its three versions.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub entries: BTreeMap<String, Translation>,
}

/// `catalog/texts/<product>`.
pub fn table_dir(catalog_dir: &Path, product: &str) -> PathBuf {
    catalog_dir.join(TEXTS_DIR).join(product)
}

/// Reads every `*.yaml` of `dir` (absent folder: an empty table). Problems name the table's
/// file and line: a malformed entry, a duplicate key (within the folder), a file that is not a
/// mapping.
pub fn load_table(dir: &Path, display_dir: &str) -> (Table, Vec<Diagnostic>) {
    let mut table = Table::default();
    let mut problems = Vec::new();
    let Ok(read) = std::fs::read_dir(dir) else {
        return (table, problems);
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("yaml") | Some("yml")
                )
        })
        .collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let display = format!("{display_dir}/{name}");
        let problem = |line: usize, column: usize, key: &str, message: String| Diagnostic {
            file: display.clone(),
            line,
            column,
            path: key.to_string(),
            message,
            hint: None,
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(problem(0, 0, "", format!("cannot read the file: {e}")));
                continue;
            }
        };
        let value: Value = match serde_yaml::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
                problems.push(problem(line, column, "", format!("YAML syntax: {e}")));
                continue;
            }
        };
        let map = match value {
            Value::Null => continue,
            Value::Mapping(m) => m,
            _ => {
                problems.push(problem(
                    1,
                    1,
                    "",
                    "a translation table is a mapping: source text → {en, pt-BR, es}".into(),
                ));
                continue;
            }
        };
        let index = PositionIndex::build(&text);
        for (k, v) in map {
            let Value::String(key) = k else {
                problems.push(problem(
                    0,
                    0,
                    "",
                    format!("a key that is not a string: {k:?}"),
                ));
                continue;
            };
            let pos = index.key(&key);
            let (v, review) = match take_review(v) {
                Ok(taken) => taken,
                Err(why) => {
                    problems.push(problem(pos.line, pos.column, &key, why));
                    continue;
                }
            };
            match entry(&v) {
                Ok((en, pt_br, es)) => {
                    if let Some(first) = table.entries.get(&key) {
                        problems.push(Diagnostic {
                            hint: Some("each source text is translated once per product".into()),
                            ..problem(
                                pos.line,
                                pos.column,
                                &key,
                                format!(
                                    "duplicate key: already translated at {}:{}",
                                    first.file, first.line
                                ),
                            )
                        });
                        continue;
                    }
                    table.entries.insert(
                        key,
                        Translation {
                            en,
                            pt_br,
                            es,
                            file: display.clone(),
                            line: pos.line,
                            review,
                        },
                    );
                }
                Err(why) => problems.push(Diagnostic {
                    hint: Some("write `{en: …, pt-BR: …, es: …}`, three strings".into()),
                    ..problem(pos.line, pos.column, &key, why)
                }),
            }
        }
    }
    (table, problems)
}

/// An entry without its `review` marker, and whether it had one (`review: true`).
fn take_review(v: Value) -> Result<(Value, bool), String> {
    let Value::Mapping(mut m) = v else {
        return Ok((v, false));
    };
    match m.remove("review") {
        None => Ok((Value::Mapping(m), false)),
        Some(Value::Bool(b)) => Ok((Value::Mapping(m), b)),
        Some(_) => Err("`review` is `true` (or absent), nothing else".into()),
    }
}

/// The three versions of one table entry, or what is wrong with it.
pub(crate) fn entry(v: &Value) -> Result<(String, String, String), String> {
    let Value::Mapping(m) = v else {
        return Err("the translation is not a mapping of en, pt-BR and es".into());
    };
    let mut found: BTreeMap<&str, String> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (k, v) in m {
        match (k.as_str(), v) {
            (Some(l @ ("en" | "pt-BR" | "es")), Value::String(s)) => {
                if s.trim().is_empty() {
                    wrong.push(format!("`{l}` is empty"));
                }
                found.insert(l, s.clone());
            }
            (Some(l @ ("en" | "pt-BR" | "es")), _) => wrong.push(format!("`{l}` is not a string")),
            (Some(other), _) => wrong.push(format!("unknown locale `{other}`")),
            (None, _) => wrong.push("a locale key that is not a string".into()),
        }
    }
    for l in ["en", "pt-BR", "es"] {
        if !found.contains_key(l) && !wrong.iter().any(|w| w.contains(&format!("`{l}`"))) {
            wrong.push(format!("`{l}` is missing"));
        }
    }
    if !wrong.is_empty() {
        return Err(wrong.join("; "));
    }
    let get = |l: &str| found.get(l).cloned().unwrap_or_default();
    Ok((get("en"), get("pt-BR"), get("es")))
}

/// An inline text `{en: …, pt-BR: …, es: …}`: exactly those three keys, each a string.
pub fn inline(v: &Value) -> Option<(String, String, String)> {
    let Value::Mapping(m) = v else { return None };
    if m.len() != 3 {
        return None;
    }
    let get = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    Some((get("en")?, get("pt-BR")?, get("es")?))
}

fn pick(t: (String, String, String), locale: Locale) -> String {
    match locale {
        Locale::En => t.0,
        Locale::PtBr => t.1,
        Locale::Es => t.2,
    }
}

/// Calls `f(path, value)` on every text of a catalog's YAML value (see the module docs).
pub fn visit_texts(root: &mut Value, f: &mut dyn FnMut(&str, &mut Value)) {
    let Value::Mapping(top) = root else { return };
    for (k, v) in top.iter_mut() {
        let Some(section) = k.as_str() else { continue };
        match section {
            "product" => {
                if let Value::Mapping(m) = v {
                    for key in ["title", "instructions"] {
                        if let Some(t) = m.get_mut(key) {
                            f(&key_path("product", key), t);
                        }
                    }
                }
            }
            "tools" | "records" | "templates" | "resources" | "toolsets" => {
                any_depth(&mut section.to_string(), v, f)
            }
            "prompts" => {
                let Value::Sequence(prompts) = v else {
                    continue;
                };
                for (i, p) in prompts.iter_mut().enumerate() {
                    let at = index_path("prompts", i);
                    let Value::Mapping(m) = p else { continue };
                    for key in ["title", "description", "template"] {
                        if let Some(t) = m.get_mut(key) {
                            f(&key_path(&at, key), t);
                        }
                    }
                    if let Some(Value::Sequence(args)) = m.get_mut("arguments") {
                        for (j, a) in args.iter_mut().enumerate() {
                            if let Some(t) = a.get_mut("description") {
                                f(
                                    &key_path(
                                        &index_path(&key_path(&at, "arguments"), j),
                                        "description",
                                    ),
                                    t,
                                );
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// `path` is the path of `v` ([`key_path`] and [`index_path`] spell it); one buffer, grown and cut
/// back at each step, instead of a new string per node of a catalog of 100,000 nodes.
fn any_depth(path: &mut String, v: &mut Value, f: &mut dyn FnMut(&str, &mut Value)) {
    match v {
        Value::Mapping(m) => visit_mapping(path, m, f),
        Value::Sequence(s) => {
            for (i, item) in s.iter_mut().enumerate() {
                let len = path.len();
                path.push('[');
                path.push_str(&i.to_string());
                path.push(']');
                any_depth(path, item, f);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn visit_mapping(path: &mut String, m: &mut Mapping, f: &mut dyn FnMut(&str, &mut Value)) {
    for (k, v) in m.iter_mut() {
        let Some(key) = k.as_str() else { continue };
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        let is_text = TEXT_KEYS.contains(&key) && (v.is_string() || inline(v).is_some());
        if is_text {
            f(path, v);
        } else {
            any_depth(path, v, f);
        }
        path.truncate(len);
    }
}

/// Replaces every inline text by its `locale` version (how the source catalog reads them).
pub fn resolve_inline(value: &mut Value, locale: Locale) {
    visit_texts(value, &mut |_, v| {
        if let Some(t) = inline(v) {
            *v = Value::String(pick(t, locale));
        }
    });
}

/// The product's default locale as the YAML value says it (`product.locale`, default `en`).
pub fn default_locale(value: &Value) -> Locale {
    value
        .get("product")
        .and_then(|p| p.get("locale"))
        .and_then(Value::as_str)
        .and_then(Locale::from_tag)
        .unwrap_or(Locale::En)
}

/// The table's entries no text of the catalog says (a removed or reworded text leaves its
/// translation behind): `(source text, entry)`, in table order.
pub fn unused<'t>(value: &Value, table: &'t Table) -> Vec<(&'t str, &'t Translation)> {
    // An empty table leaves nothing unused, and the walk below works on a copy of the catalog.
    if table.entries.is_empty() {
        return Vec::new();
    }
    let mut said = std::collections::BTreeSet::new();
    let mut copy = value.clone();
    visit_texts(&mut copy, &mut |_, v| {
        if let Some(text) = v.as_str() {
            said.insert(text.to_string());
        }
    });
    table
        .entries
        .iter()
        .filter(|(k, _)| !said.contains(k.as_str()))
        .map(|(k, t)| (k.as_str(), t))
        .collect()
}

/// A text the table does not translate: where it is and what it says.
#[derive(Debug, Clone)]
pub struct Missing {
    pub path: String,
    pub text: String,
}

/// The catalog's value in `locale`: every plain text replaced by the table's version, every
/// inline text by its own. Texts the table lacks keep their source version and are returned.
pub fn localize(value: &Value, locale: Locale, table: &Table) -> (Value, Vec<Missing>) {
    let mut missing = Vec::new();
    let out = localize_into(value, locale, table, Some(&mut missing));
    (out, missing)
}

/// [`localize`] without the list of missing texts, for a locale whose gaps nobody reports (each
/// gap would cost its path and text as new strings: every text, in a catalog with no table).
pub fn localize_quietly(value: &Value, locale: Locale, table: &Table) -> Value {
    localize_into(value, locale, table, None)
}

fn localize_into(
    value: &Value,
    locale: Locale,
    table: &Table,
    mut missing: Option<&mut Vec<Missing>>,
) -> Value {
    let mut out = value.clone();
    visit_texts(&mut out, &mut |path, v| {
        if let Some(t) = inline(v) {
            *v = Value::String(pick(t, locale));
            return;
        }
        let Some(text) = v.as_str() else { return };
        if text.is_empty() {
            return;
        }
        match table.entries.get(text) {
            Some(t) => *v = Value::String(t.get(locale).to_string()),
            None => {
                if let Some(missing) = missing.as_deref_mut() {
                    missing.push(Missing {
                        path: path.to_string(),
                        text: text.to_string(),
                    })
                }
            }
        }
    });
    out
}

/// A catalog in one locale.
#[derive(Debug, Clone)]
pub struct Localized {
    pub locale: Locale,
    pub catalog: Catalog,
}

/// A short label for a form field, from the first phrase of its description (the field's
/// name when it has none), in plain words: a person reads it in the confirmation form, where
/// Markdown is not rendered, so links keep their text, code and emphasis marks go, and a list of
/// documented values (`` `key`: Chave ``) is not part of the phrase.
pub fn label(name: &str, description: &str) -> String {
    let d = plain_words(description.trim());
    let d = d.trim();
    if d.is_empty() {
        return name.to_string();
    }
    let mut end = d.len();
    // "Tipo do Pix `key`: Chave": the first documented value starts the list, not the label.
    if let Some(i) = value_list_start(d).filter(|&i| i > 0) {
        end = i;
    }
    for stop in [". ", "; ", " (", ": ", ", ", " — ", " - "] {
        if let Some(i) = d.find(stop) {
            end = end.min(i);
        }
    }
    let mut l = d[..end]
        .replace(['`', '*'], "")
        .trim_end_matches(['.', ':'])
        .trim()
        .to_string();
    if l.chars().count() > 60 {
        let cut: String = l.chars().take(60).collect();
        l = match cut.rfind(' ') {
            Some(i) => format!("{}…", &cut[..i]),
            None => format!("{cut}…"),
        };
    }
    if l.is_empty() {
        name.to_string()
    } else {
        l
    }
}

/// `text` with each Markdown link `[words](target)` replaced by its words.
fn plain_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let link = after.find("](").and_then(|close| {
            let target = &after[close + 2..];
            target.find(')').map(|end| (close, close + 2 + end + 1))
        });
        match link {
            Some((close, skip)) if !after[..close].contains('[') => {
                out.push_str(&rest[..open]);
                out.push_str(&after[..close]);
                rest = &after[skip..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where a list of documented values starts in a description: the first code span followed by
/// a colon (`` `key`: Chave ``).
fn value_list_start(d: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(open) = d[from..].find('`').map(|i| from + i) {
        let close = d[open + 1..].find('`').map(|i| open + 1 + i)?;
        if d[close + 1..].starts_with(':') {
            return Some(open);
        }
        from = close + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &str, &str, &str)]) -> Table {
        Table {
            entries: entries
                .iter()
                .map(|(k, en, pt, es)| {
                    (
                        k.to_string(),
                        Translation {
                            en: en.to_string(),
                            pt_br: pt.to_string(),
                            es: es.to_string(),
                            file: "t.yaml".into(),
                            line: 1,
                            review: false,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn texts_are_found_and_identifiers_left_alone() {
        let v: Value = serde_yaml::from_str(
            "product: {name: p, title: P, instructions: Hi}\n\
             tools:\n  - name: t_x\n    title: Do x\n    input_schema:\n      properties:\n        title: {type: string, description: The title}\n\
             prompts:\n  - name: q\n    description: Q\n    template: T\n    arguments: [{name: a, description: A}]\n",
        )
        .unwrap();
        let mut seen = Vec::new();
        let mut v2 = v.clone();
        visit_texts(&mut v2, &mut |p, t| {
            seen.push((p.to_string(), t.as_str().unwrap_or("").to_string()))
        });
        let paths: Vec<&str> = seen.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "product.title",
                "product.instructions",
                "tools[0].title",
                "tools[0].input_schema.properties.title.description",
                "prompts[0].description",
                "prompts[0].template",
                "prompts[0].arguments[0].description"
            ]
        );
        let t = table(&[
            ("Do x", "Do x", "Faça x", "Haz x"),
            ("Hi", "Hi", "Oi", "Hola"),
        ]);
        let (es, missing) = localize(&v, Locale::Es, &t);
        assert_eq!(es["tools"][0]["title"].as_str(), Some("Haz x"));
        assert_eq!(es["tools"][0]["name"].as_str(), Some("t_x"));
        assert_eq!(es["product"]["instructions"].as_str(), Some("Hola"));
        let missing: Vec<&str> = missing.iter().map(|m| m.path.as_str()).collect();
        assert!(missing.contains(&"product.title") && missing.contains(&"prompts[0].template"));
    }

    #[test]
    fn inline_texts_need_no_table() {
        let mut v: Value = serde_yaml::from_str(
            "product: {locale: es, title: {en: Bank, pt-BR: Banco, es: Banco ES}}\n",
        )
        .unwrap();
        let (pt, missing) = localize(&v, Locale::PtBr, &Table::default());
        assert!(missing.is_empty());
        assert_eq!(pt["product"]["title"].as_str(), Some("Banco"));
        let locale = default_locale(&v);
        resolve_inline(&mut v, locale);
        assert_eq!(v["product"]["title"].as_str(), Some("Banco ES"));
    }

    #[test]
    fn malformed_entries_are_named() {
        let dir = std::env::temp_dir().join(format!("texts-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("a.yaml"),
            "Good: {en: Good, pt-BR: Bom, es: Bueno}\nBad:\n  en: Bad\n  pt-BR: Ruim\n",
        )
        .unwrap();
        std::fs::write(dir.join("b.yaml"), "Good: {en: G, pt-BR: B, es: B}\n").unwrap();
        let (t, problems) = load_table(&dir, "catalog/texts/x");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(t.entries.len(), 1);
        let text: Vec<String> = problems.iter().map(|d| d.to_string()).collect();
        assert!(
            text.iter().any(
                |d| d.starts_with("catalog/texts/x/a.yaml:2:") && d.contains("`es` is missing")
            ),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|d| d.starts_with("catalog/texts/x/b.yaml:1:")
                    && d.contains("already translated at catalog/texts/x/a.yaml:1")),
            "{text:?}"
        );
    }

    #[test]
    fn labels_are_the_first_phrase() {
        assert_eq!(
            label("amount", "Amount in BRL, two decimals."),
            "Amount in BRL"
        );
        assert_eq!(label("uid", ""), "uid");
        assert_eq!(
            label("x", "The billet's uid (from the list)."),
            "The billet's uid"
        );
    }

    #[test]
    fn labels_are_plain_words() {
        assert_eq!(
            label(
                "type",
                "Tipo do Pix `key`: Chave. `bank_account`: Dados bancários"
            ),
            "Tipo do Pix"
        );
        assert_eq!(
            label("slug", "[Slug da Carteira](/reference/bancos-suportados)"),
            "Slug da Carteira"
        );
        assert_eq!(
            label("cursor", "Cursor devolvido em `pagination.next_cursor`."),
            "Cursor devolvido em pagination.next_cursor"
        );
        assert_eq!(label("p", "Slug *Pode ser*"), "Slug Pode ser");
    }
}
