//! Reworded texts: a catalog text that lost its translation paired with the translation entry it
//! left unused, reported as one problem, and moved by one command (`codegen texts --rekey`).
//!
//! Rewording a text in a catalog leaves two problems behind: the new text has no translation,
//! and the table still translates the old one, which no text says. When the two are alike (most
//! of the characters in common) they are one edit, so the generator names them together, and
//! [`rekey`] moves the entry to the new text. A version that was the old text itself becomes the
//! new text; the others may no longer say what the new text says, so the entry is marked
//! `review: true` (see [`crate::texts`]): served as it is, warned about until an editor checks it
//! and removes the marker.

use std::collections::BTreeMap;
use std::path::Path;

use serde_yaml::{Mapping, Value};

use crate::texts::{self, Missing, Translation};

/// How alike an old and a new text must be (normalized Levenshtein similarity, 0 to 1) to be
/// taken for a rewording: "Cancel a bank billet (boleto)" → "Cancel one bank billet (boleto)" is
/// 0.9; two unrelated titles are well under.
pub const ALIKE: f64 = 0.6;

/// Pairings are not searched beyond this many (new text, old entry) comparisons: a product whose
/// texts are not translated yet is not a rewording.
const MAX_COMPARISONS: usize = 20_000;

/// A reworded text: the first place the catalog says the new text, and the entry of the old one.
#[derive(Debug, Clone)]
pub struct Reword<'t> {
    /// Index in the `missing` list given to [`pair`] (its first occurrence of the new text).
    pub missing: usize,
    pub old: &'t str,
    pub entry: &'t Translation,
}

/// Pairs each text without a translation with the unused entry most like it (at least
/// [`ALIKE`]), each used once, the most alike first.
pub fn pair<'t>(missing: &[Missing], unused: &[(&'t str, &'t Translation)]) -> Vec<Reword<'t>> {
    // Each new text once, at its first place.
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, m) in missing.iter().enumerate() {
        first.entry(m.text.as_str()).or_insert(i);
    }
    if first.is_empty() || unused.is_empty() || first.len() * unused.len() > MAX_COMPARISONS {
        return Vec::new();
    }
    let mut candidates = Vec::new();
    for (text, &i) in &first {
        for (j, (old, _)) in unused.iter().enumerate() {
            let score = strsim::normalized_levenshtein(text, old);
            if score >= ALIKE {
                candidates.push((score, i, j));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut new_taken, mut old_taken) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    for (_, i, j) in candidates {
        if new_taken.contains(&i) || old_taken.contains(&j) {
            continue;
        }
        new_taken.push(i);
        old_taken.push(j);
        let (old, entry) = unused[j];
        out.push(Reword {
            missing: i,
            old,
            entry,
        });
    }
    out.sort_by_key(|r| r.missing);
    out
}

/// A text cut for a message.
pub fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

/// One entry [`rekey`] moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub old: String,
    pub new: String,
    /// The table file (`catalog/texts/banking/part-1.yaml`) and the entry's line there.
    pub file: String,
    pub line: usize,
    /// Marked `review: true`.
    pub review: bool,
}

/// Moves every entry of a reworded text to the new text (see the module docs), in every
/// product's table under `catalog_dir`; returns what it moved. Writes nothing when a catalog or a
/// table does not read.
pub fn rekey(catalog_dir: &Path) -> Result<Vec<Moved>, String> {
    let files = crate::load::discover(catalog_dir).map_err(|e| e.to_string())?;
    let mut edits: BTreeMap<std::path::PathBuf, Vec<(usize, String)>> = BTreeMap::new();
    let mut moved = Vec::new();
    for path in files {
        let loaded = crate::load::read(catalog_dir, &path)
            .and_then(crate::load::parse)
            .map_err(|d| d.to_string())?;
        let product = loaded.catalog.product.name.clone();
        let dir = texts::table_dir(catalog_dir, &product);
        let display = format!("catalog/{}/{product}", texts::TEXTS_DIR);
        let (table, problems) = texts::load_table(&dir, &display);
        if let Some(p) = problems.first() {
            return Err(format!("{p}\nfix the table first: nothing was moved"));
        }
        let unused = texts::unused(&loaded.value, &table);
        let locale = runtime_model::locale::Locale::ALL[0];
        let (_, missing) = texts::localize(&loaded.value, locale, &table);
        for r in pair(&missing, &unused) {
            let new = missing[r.missing].text.clone();
            let (entry, review) = moved_entry(r.old, &new, r.entry);
            let name = r.entry.file.rsplit('/').next().unwrap_or_default();
            edits
                .entry(dir.join(name))
                .or_default()
                .push((r.entry.line, entry));
            moved.push(Moved {
                old: r.old.to_string(),
                new,
                file: r.entry.file.clone(),
                line: r.entry.line,
                review,
            });
        }
        // Each moved entry's block runs to the next entry of its file.
        for (file, list) in &edits {
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let starts: Vec<usize> = table
                .entries
                .values()
                .filter(|t| t.file.ends_with(&format!("/{name}")))
                .map(|t| t.line)
                .collect();
            let at = |e: std::io::Error| format!("{}: {e}", file.display());
            let text = std::fs::read_to_string(file).map_err(at)?;
            let rewritten = replace_entries(&text, list, &starts)?;
            std::fs::write(file, rewritten).map_err(at)?;
        }
        edits.clear();
    }
    Ok(moved)
}

/// The entry moved from `old` to `new` as YAML text, and whether it is marked for review: a
/// version that was the old text itself becomes the new text; any other may need rewording.
fn moved_entry(old: &str, new: &str, t: &Translation) -> (String, bool) {
    let mut versions = Mapping::new();
    let mut review = false;
    for (locale, text) in [("en", &t.en), ("pt-BR", &t.pt_br), ("es", &t.es)] {
        let text = if text == old {
            new.to_string()
        } else {
            review = true;
            text.clone()
        };
        versions.insert(Value::from(locale), Value::from(text));
    }
    if review {
        versions.insert(Value::from("review"), Value::Bool(true));
    }
    let mut entry = Mapping::new();
    entry.insert(Value::from(new), Value::Mapping(versions));
    let text = serde_yaml::to_string(&Value::Mapping(entry)).unwrap_or_default();
    (text, review)
}

/// `text` (a table file) with the entry starting at each line of `moves` (1-based) replaced by
/// the given YAML; an entry runs to the next entry's line (`starts`), less trailing blank and
/// comment lines.
fn replace_entries(
    text: &str,
    moves: &[(usize, String)],
    starts: &[usize],
) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut moves: Vec<&(usize, String)> = moves.iter().collect();
    moves.sort_by_key(|(line, _)| *line);
    for (line, entry) in moves {
        let start = line.saturating_sub(1);
        if start < i
            || lines
                .get(start)
                .is_none_or(|l| l.starts_with([' ', '\t', '#']))
        {
            return Err(format!(
                "line {line} does not start a translation entry: nothing was moved"
            ));
        }
        let mut end = starts
            .iter()
            .copied()
            .filter(|s| *s > *line)
            .min()
            .map_or(lines.len(), |s| s - 1);
        while end > start + 1 && {
            let l = lines[end - 1].trim();
            l.is_empty() || l.starts_with('#')
        } {
            end -= 1;
        }
        out.extend(lines[i..start].iter().copied());
        out.push_str(entry);
        i = end;
    }
    out.extend(lines[i..].iter().copied());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translation(en: &str, pt: &str, es: &str, line: usize) -> Translation {
        Translation {
            en: en.into(),
            pt_br: pt.into(),
            es: es.into(),
            file: "catalog/texts/p/t.yaml".into(),
            line,
            review: false,
        }
    }

    fn missing(text: &str) -> Missing {
        Missing {
            path: "tools[0].title".into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_reworded_text_pairs_with_the_entry_it_left_and_unrelated_ones_do_not() {
        let cancel = translation(
            "Cancel a bank billet (boleto)",
            "Cancelar um boleto",
            "Cancelar un boleto",
            3,
        );
        let other = translation("Webhooks", "Webhooks", "Webhooks", 9);
        let unused = [
            ("Cancel a bank billet (boleto)", &cancel),
            ("Webhooks", &other),
        ];
        let new = [
            missing("List the payments"),
            missing("Cancel one bank billet (boleto)"),
        ];
        let pairs = pair(&new, &unused);
        assert_eq!(pairs.len(), 1);
        assert_eq!(
            (pairs[0].missing, pairs[0].old),
            (1, "Cancel a bank billet (boleto)")
        );
        assert!(pair(&new[..1], &unused).is_empty());
    }

    #[test]
    fn moving_an_entry_keeps_the_others_and_marks_it_for_review() {
        let table = "A: {en: A, pt-BR: Á, es: Á}\n\
                     Cancel a bank billet (boleto):\n  en: Cancel a bank billet (boleto)\n  pt-BR: Cancelar um boleto\n  es: Cancelar un boleto\n\n\
                     # a comment kept\n\
                     Z: {en: Z, pt-BR: Z, es: Z}\n";
        let t = translation(
            "Cancel a bank billet (boleto)",
            "Cancelar um boleto",
            "Cancelar un boleto",
            2,
        );
        let (entry, review) = moved_entry(
            "Cancel a bank billet (boleto)",
            "Cancel one bank billet (boleto)",
            &t,
        );
        assert!(review);
        let out = replace_entries(table, &[(2, entry)], &[1, 2, 8]).unwrap();
        let v: Value = serde_yaml::from_str(&out).unwrap();
        let m = v.as_mapping().unwrap();
        assert_eq!(m.len(), 3);
        let moved = &v["Cancel one bank billet (boleto)"];
        assert_eq!(
            moved["en"].as_str(),
            Some("Cancel one bank billet (boleto)")
        );
        assert_eq!(moved["pt-BR"].as_str(), Some("Cancelar um boleto"));
        assert_eq!(moved["review"].as_bool(), Some(true));
        assert!(out.starts_with("A: {en: A, pt-BR: Á, es: Á}\n"));
        assert!(
            out.ends_with("\n# a comment kept\nZ: {en: Z, pt-BR: Z, es: Z}\n"),
            "{out}"
        );
        // A version-for-version copy of the source needs no review.
        let same = translation("x", "x", "x", 1);
        assert!(!moved_entry("x", "y", &same).1);
    }
}
