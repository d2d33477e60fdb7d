//! The runtime's own texts: the words the server writes around the catalog's (errors, notices,
//! the discovery tools, the confirmation form, rate-limit and result-budget notes, task status
//! messages), in pt-BR, es and en.
//!
//! They live in one table, `catalog/texts/runtime.yaml`, beside the products' translation tables,
//! and are checked the same way: the generator refuses the table, naming its file, line and key,
//! when an entry lacks a locale, when a locale's placeholders (`{tool}`) differ from the others',
//! when a brace is not part of a placeholder, or when no runtime source names the entry (a text
//! nobody says is a translation left behind). An unknown key is the compiler's to refuse: the
//! table becomes the `Text` enum, and a source naming a variant it lacks does not build. The
//! sources are read whenever the generator runs (`cargo run -p codegen`, its `--check` in CI, and
//! `generated/build.rs` after a catalog edit; not after every runtime edit, which would rerun the
//! generator on each build of the runtime).
//!
//! The generated table is `generated/runtime/texts.rs`. The runtime crates cannot import the
//! `generated` crate (it depends on `runtime-model`, which they all depend on), so
//! `runtime-model` includes that one file (`runtime_model::texts`): the dependency stays one-way,
//! catalog → generator → generated file → runtime, and the file is under the same drift gate as
//! the rest of `generated/`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_yaml::Value;

use crate::diag::Diagnostic;
use crate::locate::PositionIndex;

/// The table, inside the catalog folder.
pub const TABLE: &str = "texts/runtime.yaml";

/// Where the generated table goes, inside `generated/`.
pub const OUTPUT: &str = "runtime/texts.rs";

/// The sources that say the runtime's texts (`Text::Name`), from the repository root. A text
/// none of them names is refused as unused.
pub const SOURCES: &[&str] = &[
    "runtime/src",
    "runtime/model/src",
    "runtime/sandbox/src",
    "src",
];

/// The locales as the table spells them, in `Locale::ALL` order (pt-BR, es, en).
const LOCALES: [&str; 3] = ["pt-BR", "es", "en"];

/// One entry of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key (`unknown_tool`); the enum variant is its CamelCase (`UnknownTool`).
    pub key: String,
    /// The text per locale, in `LOCALES` order (pt-BR, es, en).
    pub texts: [String; 3],
    /// The placeholders, in order of first appearance in the English text.
    pub placeholders: Vec<String>,
    pub line: usize,
}

/// `unknown_tool` → `UnknownTool`.
pub fn variant(key: &str) -> String {
    key.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The placeholders of `text` in order (repeats kept), or what is wrong with its braces.
pub fn placeholders(text: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        if rest.as_bytes()[i] == b'}' {
            return Err("a `}` that closes no placeholder".into());
        }
        let after = &rest[i + 1..];
        let Some(end) = after.find('}') else {
            return Err("a `{` that opens no placeholder".into());
        };
        let name = &after[..end];
        let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok {
            return Err(format!(
                "`{{{name}}}` is not a placeholder (a lowercase name: `{{tool}}`, `{{max_results}}`)"
            ));
        }
        out.push(name);
        rest = &after[end + 1..];
    }
    Ok(out)
}

fn is_key(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !key.contains("__")
        && !key.ends_with('_')
}

/// Reads and checks the table at `path` (shown as `display`). `None` when there is no table
/// (test catalogs); the entries when it is sound; every problem otherwise.
pub fn load(path: &Path, display: &str) -> Result<Option<Vec<Entry>>, Vec<Diagnostic>> {
    let problem =
        |line: usize, column: usize, key: &str, message: String, hint: Option<&str>| Diagnostic {
            file: display.to_string(),
            line,
            column,
            path: key.to_string(),
            message,
            hint: hint.map(str::to_string),
        };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(vec![problem(0, 0, "", format!("cannot read: {e}"), None)]),
    };
    let value: Value = match serde_yaml::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            return Err(vec![problem(
                line,
                column,
                "",
                format!("YAML syntax: {e}"),
                None,
            )]);
        }
    };
    let Value::Mapping(map) = value else {
        return Err(vec![problem(
            1,
            1,
            "",
            "the runtime's text table is a mapping: key → {pt-BR, es, en}".into(),
            None,
        )]);
    };
    let index = PositionIndex::build(&text);
    let mut problems = Vec::new();
    let mut entries = Vec::new();
    for (k, v) in &map {
        let Some(key) = k.as_str() else {
            problems.push(problem(
                0,
                0,
                "",
                format!("a key that is not a string: {k:?}"),
                None,
            ));
            continue;
        };
        let pos = index.key(key);
        if !is_key(key) {
            problems.push(problem(
                pos.line,
                pos.column,
                key,
                format!("`{key}` is not a key"),
                Some("snake_case: lowercase words joined by `_` (`unknown_tool`)"),
            ));
            continue;
        }
        let texts = match crate::texts::entry(v) {
            Ok((en, pt_br, es)) => [pt_br, es, en],
            Err(why) => {
                problems.push(problem(
                    pos.line,
                    pos.column,
                    key,
                    why,
                    Some("write `{pt-BR: …, es: …, en: …}`, three strings"),
                ));
                continue;
            }
        };
        let mut sets: Vec<BTreeSet<&str>> = Vec::new();
        let mut sound = true;
        for (locale, t) in LOCALES.iter().zip(&texts) {
            let at = index.value(&format!("{key}.{locale}"));
            match placeholders(t) {
                Ok(names) => sets.push(names.into_iter().collect()),
                Err(why) => {
                    sound = false;
                    problems.push(problem(
                        at.line,
                        at.column,
                        &format!("{key}.{locale}"),
                        why,
                        Some("a placeholder is `{name}`; the texts hold no other braces"),
                    ));
                }
            }
        }
        if !sound {
            continue;
        }
        // Every locale says what the others say: a placeholder one locale lacks, or one only it
        // has, is named with the locales that differ.
        let all: BTreeSet<&str> = sets.iter().flatten().copied().collect();
        for name in &all {
            let without: Vec<&str> = LOCALES
                .iter()
                .zip(&sets)
                .filter(|(_, s)| !s.contains(name))
                .map(|(l, _)| *l)
                .collect();
            if without.is_empty() {
                continue;
            }
            let with: Vec<&str> = LOCALES
                .iter()
                .zip(&sets)
                .filter(|(_, s)| s.contains(name))
                .map(|(l, _)| *l)
                .collect();
            let at = index.value(&format!("{key}.{}", without[0]));
            problems.push(problem(
                at.line,
                at.column,
                key,
                format!(
                    "the placeholder `{{{name}}}` is in {} but not in {}",
                    with.join(", "),
                    without.join(", ")
                ),
                Some("every locale of a text uses the same placeholders"),
            ));
            sound = false;
        }
        if !sound {
            continue;
        }
        let mut order: Vec<String> = Vec::new();
        for name in placeholders(&texts[2]).unwrap_or_default() {
            if !order.iter().any(|o| o == name) {
                order.push(name.to_string());
            }
        }
        entries.push(Entry {
            key: key.to_string(),
            texts,
            placeholders: order,
            line: pos.line,
        });
    }
    if problems.is_empty() {
        Ok(Some(entries))
    } else {
        Err(problems)
    }
}

/// Every `Text::Name` the `.rs` files under `dirs` say (comment lines left out).
pub fn named_in(dirs: &[PathBuf]) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|e| e.to_str()) == Some("rs") {
                let Ok(source) = std::fs::read_to_string(&p) else {
                    continue;
                };
                for line in source.lines() {
                    if line.trim_start().starts_with("//") {
                        continue;
                    }
                    collect_names(line, &mut named);
                }
            }
        }
    }
    named
}

fn collect_names(line: &str, named: &mut BTreeSet<String>) {
    const NEEDLE: &str = "Text::";
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(i) = line[from..].find(NEEDLE) {
        let at = from + i;
        from = at + NEEDLE.len();
        let own = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !own {
            continue;
        }
        let rest = &line[from..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 {
            named.insert(rest[..end].to_string());
        }
    }
}

/// The table's entries no runtime source names, as problems at their lines.
pub fn unused(entries: &[Entry], named: &BTreeSet<String>, display: &str) -> Vec<Diagnostic> {
    entries
        .iter()
        .filter(|e| !named.contains(&variant(&e.key)))
        .map(|e| Diagnostic {
            file: display.to_string(),
            line: e.line,
            column: 1,
            path: e.key.clone(),
            message: format!(
                "no runtime source says `Text::{}` (left from a removed text?)",
                variant(&e.key)
            ),
            hint: Some(format!(
                "remove the entry, or use it in {}",
                SOURCES.join(", ")
            )),
        })
        .collect()
}

/// The runtime's table checked and rendered: the contents of [`OUTPUT`], or nothing when the
/// catalog folder has no table. `catalog_dir`'s parent is the repository root the sources are
/// read from.
pub fn render_table(catalog_dir: &Path) -> Result<Option<String>, Vec<Diagnostic>> {
    let display = format!("catalog/{TABLE}");
    let Some(entries) = load(&catalog_dir.join(TABLE), &display)? else {
        return Ok(None);
    };
    let root = catalog_dir.parent().unwrap_or(catalog_dir);
    let dirs: Vec<PathBuf> = SOURCES.iter().map(|s| root.join(s)).collect();
    let problems = unused(&entries, &named_in(&dirs), &display);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Some(render(&entries, &display)))
}

/// The Rust of the table: the `Text` enum and its three lookup tables, for `include!` into
/// `runtime_model::texts` (which names `Locale`).
pub fn render(entries: &[Entry], source: &str) -> String {
    let n = entries.len();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// generated from {source}; do not edit by hand — run `cargo build` (or `cargo run -p codegen`)"
    );
    out.push_str(
        "// Included by runtime/model/src/texts.rs, which says what the table is for.\n\n\
         /// One text of the runtime, by its key in `catalog/texts/runtime.yaml`.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\n\
         pub enum Text {\n",
    );
    for e in entries {
        let _ = writeln!(out, "    /// `{}`: {:?}", e.key, e.texts[2]);
        let _ = writeln!(out, "    {},", variant(&e.key));
    }
    out.push_str("}\n\n");
    let _ = writeln!(
        out,
        "impl Text {{\n    /// Every text, in the table's order.\n    pub const ALL: [Text; {n}] = ["
    );
    for e in entries {
        let _ = writeln!(out, "        Text::{},", variant(&e.key));
    }
    out.push_str(
        "    ];\n\n    \
         /// The key in the table.\n    \
         pub const fn key(self) -> &'static str {\n        KEYS[self as usize]\n    }\n\n    \
         /// The text in `locale`, its placeholders (`{tool}`) as they are.\n    \
         pub const fn get(self, locale: Locale) -> &'static str {\n        TEXTS[self as usize][locale.index()]\n    }\n\n    \
         /// The placeholders every locale's text holds, in the English text's order.\n    \
         pub const fn placeholders(self) -> &'static [&'static str] {\n        PLACEHOLDERS[self as usize]\n    }\n}\n\n",
    );
    let _ = writeln!(out, "const KEYS: [&str; {n}] = [");
    for e in entries {
        let _ = writeln!(out, "    {:?},", e.key);
    }
    out.push_str("];\n\n");
    let _ = writeln!(
        out,
        "/// Per text, its versions in `Locale::ALL` order (pt-BR, es, en).\nconst TEXTS: [[&str; 3]; {n}] = ["
    );
    for e in entries {
        let _ = writeln!(out, "    [");
        for t in &e.texts {
            let _ = writeln!(out, "        {t:?},");
        }
        let _ = writeln!(out, "    ],");
    }
    out.push_str("];\n\n");
    let _ = writeln!(out, "const PLACEHOLDERS: [&[&str]; {n}] = [");
    for e in entries {
        let names: Vec<String> = e.placeholders.iter().map(|p| format!("{p:?}")).collect();
        let _ = writeln!(out, "    &[{}],", names.join(", "));
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_lowercase_names_in_braces() {
        assert_eq!(
            placeholders("Unknown tool: {name} ({name}, {max_2})"),
            Ok(vec!["name", "name", "max_2"])
        );
        assert!(placeholders("a {Name}").is_err());
        assert!(placeholders("a {name").is_err());
        assert!(placeholders("a } b").is_err());
        assert!(placeholders("{}").is_err());
        assert_eq!(variant("error_not_found"), "ErrorNotFound");
    }

    #[test]
    fn names_are_read_from_sources() {
        let mut named = BTreeSet::new();
        collect_names(
            "let a = Text::UnknownTool.get(l); x(MyText::Other); Text::A_b;",
            &mut named,
        );
        assert_eq!(
            named.into_iter().collect::<Vec<_>>(),
            ["A_b", "UnknownTool"]
        );
    }
}
