//! The generated diff a catalog edit makes is one a reviewer can read: a small edit to the real
//! catalogs (on a scratch copy) changes a few short lines of `generated/`, not a whole listing.

use std::collections::HashMap;
use std::path::Path;

use codegen::GeneratedFile;

/// No generated line a small edit touches may be longer than this.
const LINE_MAX: usize = 300;

/// A scratch copy of the repository's `catalog/` folder.
fn scratch_catalogs() -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog");
    let dir = tempfile::tempdir().expect("a temp folder");
    copy_dir(&from, &dir.path().join("catalog"));
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a folder");
    for entry in std::fs::read_dir(from).expect("read the catalogs") {
        let entry = entry.expect("a folder entry");
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy a file");
        }
    }
}

/// The Rust tables and the docs (the runtime's texts come from the runtime's sources, which a
/// catalog edit does not touch).
fn generate(catalog_dir: &Path) -> Vec<GeneratedFile> {
    codegen::load_all(catalog_dir)
        .and_then(|loaded| codegen::generate_from(&loaded))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Replaces the `nth` occurrence (0-based) of `from` in `file` by `to`.
fn edit(file: &Path, from: &str, to: &str, nth: usize) {
    let text = std::fs::read_to_string(file).expect("read the catalog");
    let at = text
        .match_indices(from)
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("{from:?} not found in {}", file.display()));
    let edited = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
    std::fs::write(file, edited).expect("write the catalog");
}

/// The lines each changed file gained and lost (as a line diff counts them: the lines only one
/// side has, with multiplicity), by path.
fn changed_lines(before: &[GeneratedFile], after: &[GeneratedFile]) -> Vec<(String, Vec<String>)> {
    let old: HashMap<&str, &str> = before
        .iter()
        .map(|f| (f.path.as_str(), f.contents.as_str()))
        .collect();
    let mut out = Vec::new();
    for f in after {
        let was = old.get(f.path.as_str()).copied().unwrap_or("");
        if was == f.contents {
            continue;
        }
        let mut count: HashMap<&str, i64> = HashMap::new();
        for l in was.lines() {
            *count.entry(l).or_default() -= 1;
        }
        for l in f.contents.lines() {
            *count.entry(l).or_default() += 1;
        }
        let mut lines = Vec::new();
        for l in was.lines().chain(f.contents.lines()) {
            if let Some(n) = count.get_mut(l) {
                if *n != 0 {
                    let sign = if *n > 0 { '+' } else { '-' };
                    for _ in 0..n.unsigned_abs() {
                        lines.push(format!("{sign}{l}"));
                    }
                    *n = 0;
                }
            }
        }
        out.push((f.path.clone(), lines));
    }
    out
}

fn report(changes: &[(String, Vec<String>)]) -> String {
    changes
        .iter()
        .flat_map(|(path, lines)| {
            std::iter::once(format!("{path}:")).chain(lines.iter().map(|l| {
                let shown: String = l.chars().take(160).collect();
                format!("  {shown} ({} chars)", l.chars().count() - 1)
            }))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_short(changes: &[(String, Vec<String>)]) {
    for (path, lines) in changes {
        for l in lines {
            assert!(
                l.chars().count() - 1 <= LINE_MAX,
                "{path}: a changed line of {} characters:\n{}",
                l.chars().count() - 1,
                report(changes)
            );
        }
    }
}

/// The changed lines of the Rust tables only (`src/`), each counted once per side.
fn rust_lines(changes: &[(String, Vec<String>)], sign: char) -> usize {
    changes
        .iter()
        .filter(|(p, _)| p.starts_with("src/"))
        .map(|(_, lines)| lines.iter().filter(|l| l.starts_with(sign)).count())
        .sum()
}

#[test]
fn one_number_in_one_tool_and_one_template_change_a_few_short_lines() {
    let scratch = scratch_catalogs();
    let catalog = scratch.path().join("catalog");
    let before = generate(&catalog);

    // (a) One banking tool's `per_page` maximum, 50 → 40.
    edit(
        &catalog.join("banking.yaml"),
        "      per_page:\n        type: integer\n        default: 50\n        maximum: 50\n",
        "      per_page:\n        type: integer\n        default: 50\n        maximum: 40\n",
        0,
    );
    let one_number = generate(&catalog);
    let changes = changed_lines(&before, &one_number);
    println!("(a) one number:\n{}", report(&changes));
    assert!(!changes.is_empty(), "the edit changes the generated files");
    assert_short(&changes);
    let (added, removed) = (rust_lines(&changes, '+'), rust_lines(&changes, '-'));
    assert!(
        (1..=8).contains(&added) && added == removed,
        "{added} lines added, {removed} removed:\n{}",
        report(&changes)
    );
    let touched: Vec<&str> = changes.iter().map(|(p, _)| p.as_str()).collect();
    assert!(
        touched
            .iter()
            .all(|p| *p == "src/banking.rs" || p.starts_with("docs/")),
        "{touched:?}"
    );

    // (b) One resource template more in billing, its texts inline.
    edit(
        &catalog.join("billing.yaml"),
        "  - uri_template: \"kobana://billing/subscriptions/{id}\"",
        "  - uri_template: \"kobana://billing/customer-cards/{id}\"\n    \
         name: customer_card\n    \
         title: {en: Customer card, pt-BR: Ficha do cliente, es: Ficha del cliente}\n    \
         description: {en: A customer's card (JSON)., pt-BR: A ficha de um cliente (JSON)., es: La ficha de un cliente (JSON).}\n    \
         mime_type: application/json\n    \
         read_by: billing_customers_get\n    \
         content: json\n    \
         complete: {id: customer_ids}\n\n  \
         - uri_template: \"kobana://billing/subscriptions/{id}\"",
        0,
    );
    let one_template = generate(&catalog);
    let changes = changed_lines(&one_number, &one_template);
    println!("(b) one template:\n{}", report(&changes));
    assert_short(&changes);
    let (added, removed) = (rust_lines(&changes, '+'), rust_lines(&changes, '-'));
    assert!(
        (1..=40).contains(&added) && removed <= 2,
        "{added} lines added, {removed} removed:\n{}",
        report(&changes)
    );
}
