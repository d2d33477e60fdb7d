//! The shell words of a documented command line, so tests run the README's and the install
//! page's commands as a shell would split them. Included with
//! `#[path = "support/shell.rs"] mod shell;`.

// Each test crate uses part of this module.
#![allow(dead_code)]

/// Shell words of one line: whitespace-separated, double and single quotes grouping (what the
/// lines use; `$VAR` stays as written).
pub fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The command a line starts, with the lines its trailing backslashes continue onto joined.
pub fn continued<'a>(first: &str, rest: &mut impl Iterator<Item = &'a str>) -> String {
    let mut cmd = first.trim().to_string();
    while cmd.ends_with('\\') {
        cmd.pop();
        cmd.push(' ');
        cmd.push_str(rest.next().unwrap_or_default().trim());
    }
    cmd
}

/// Every command of a document that starts with `prefix` (continuations joined).
pub fn commands(doc: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if line.trim().starts_with(prefix) {
            out.push(continued(line, &mut lines));
        }
    }
    out
}
