//! Long string literals kept out of `syn` and `prettyplease`, then put back into the printed text.
//!
//! The generated tables are mostly string literals (descriptors, schemas, descriptions; 18 MB of
//! them in a 3,000-tool catalog). Passing them through the token pipeline cost most of codegen's
//! time: `quote` escapes each one a character at a time, `syn` copies and re-reads a literal every
//! time it peeks at it, and `prettyplease` only ever copies it to the output. So a literal of at
//! least [`HELD_MIN`] bytes goes in as a short placeholder literal of [`PLACEHOLDER_LEN`] bytes,
//! and the printed text gets the real literal back, laid out by [`super::pieces`] (one literal, or
//! a `concat!` of pieces a line when it is long).
//!
//! Why the layout cannot change: `prettyplease` (an Oppen pretty printer) reads a literal only
//! through its printed length, and only to compare it with the room left on a line, which is at
//! most its margin (89 columns). Every literal held here, and every placeholder, is longer than
//! that: each breaks every group around it and leaves no room after it on its line, whatever its
//! exact length; and a literal laid out over several lines starts where the placeholder stood
//! and ends where it ended. `rust::tests::held_literals_print_what_the_plain_pipeline_prints`
//! checks the result, token for token and with every literal's value, against the plain pipeline.

use std::cell::RefCell;

use proc_macro2::Literal;

use super::pieces;

/// Texts at least this long (in bytes, before escaping) are held out. Longer than any line
/// `prettyplease` fills (its margin is 89 columns).
pub const HELD_MIN: usize = 128;

/// The length of a placeholder literal, quotes included: also longer than any line.
pub const PLACEHOLDER_LEN: usize = HELD_MIN;

/// What a placeholder's text starts with (then its number and padding).
const MARKER: &str = "@@codegen-held-literal-";

/// The literals of one generated file held out of the token pipeline, in the order they were made.
#[derive(Debug, Default)]
pub struct Held {
    texts: RefCell<Vec<String>>,
}

impl Held {
    /// A string literal of `text`: the literal itself when short, else a placeholder standing for
    /// it (numbered, so the order literals are made in does not matter).
    pub fn lit(&self, text: &str) -> Literal {
        if text.len() < HELD_MIN {
            return Literal::string(text);
        }
        let mut texts = self.texts.borrow_mut();
        let repr = placeholder(texts.len());
        texts.push(text.to_string());
        // The placeholder is plain ASCII without escapes: it lexes as the literal it spells.
        repr.parse::<Literal>()
            .unwrap_or_else(|_| Literal::string(text))
    }

    /// `printed` (what `prettyplease` printed from tokens made with [`Held::lit`]) with every
    /// placeholder replaced by its literal, laid out by [`pieces::write`] (a literal interpolated
    /// twice is printed twice). `None`
    /// if a placeholder did not come out whole, which would be a bug here, never a property of the
    /// catalog.
    pub fn restore(&self, printed: &str) -> Option<String> {
        let texts = self.texts.borrow();
        let extra: usize = texts.iter().map(|t| t.len() + 2).sum();
        let mut out = String::with_capacity(printed.len() + extra);
        let mut rest = printed;
        let head = format!("\"{MARKER}");
        while let Some(at) = rest.find(&head) {
            let digits = rest.get(at + head.len()..at + head.len() + 8)?;
            let i: usize = digits.parse().ok()?;
            let repr = placeholder(i);
            if !rest[at..].starts_with(&repr) {
                return None;
            }
            out.push_str(&rest[..at]);
            pieces::write(texts.get(i)?, &mut out);
            rest = &rest[at + repr.len()..];
        }
        out.push_str(rest);
        Some(out)
    }
}

/// The source text of placeholder `i`: a string literal of [`PLACEHOLDER_LEN`] bytes.
fn placeholder(i: usize) -> String {
    let mut repr = format!("\"{MARKER}{i:08}@@");
    while repr.len() < PLACEHOLDER_LEN - 1 {
        repr.push('_');
    }
    repr.push('"');
    repr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_matches_proc_macro2() {
        let samples = [
            "",
            "plain text",
            "quotes \" and 'apostrophes' and \\ backslashes",
            "lines\nand\ttabs\r\n",
            "nul \0 then \u{0}7 octal and \0a letter, last \0",
            "control \u{1} \u{7f} \u{1b}[0m",
            "accents: ação, niño, über — “curly” ‘quotes’ … €",
            "combining e\u{301} and zero width \u{200b} \u{feff} \u{2028}",
            "emoji 🙂 and private use \u{e000} and unassigned \u{10ffff}",
            "{\"type\":\"object\",\"properties\":{\"a\":{\"description\":\"x \\\"y\\\"\"}}}",
        ];
        for s in samples {
            let mut ours = String::from("\"");
            pieces::escape(s, &mut ours);
            ours.push('"');
            assert_eq!(ours, Literal::string(s).to_string(), "{s:?}");
        }
    }

    #[test]
    fn placeholders_are_long_literals_that_lex() {
        for i in [0, 7, 12_345_678] {
            let p = placeholder(i);
            assert_eq!(p.len(), PLACEHOLDER_LEN);
            assert_eq!(p.parse::<Literal>().map(|l| l.to_string()).ok(), Some(p));
        }
    }

    #[test]
    fn restore_puts_every_literal_back_in_order() {
        let held = Held::default();
        // Short enough to stay one literal each (see `pieces`).
        let long_a = "a'".repeat(70);
        let long_b = "b é ".repeat(33);
        // Made in one order, printed in another.
        let (b, short, a) = (held.lit(&long_b), held.lit("short"), held.lit(&long_a));
        let printed = format!("x = {a};\ny = ({short}, {b});\n");
        let restored = held.restore(&printed).expect("every placeholder is found");
        assert_eq!(
            restored,
            format!(
                "x = {};\ny = (\"short\", {});\n",
                Literal::string(&long_a),
                Literal::string(&long_b)
            )
        );
        // Printed twice, restored twice.
        assert_eq!(
            held.restore(&format!("{a}{a}")),
            Some(format!("{0}{0}", Literal::string(&long_a)))
        );
        // A placeholder cut short, or one this file never made, is reported, not left in.
        let cut = a.to_string();
        assert_eq!(held.restore(&format!("x = {}\";", &cut[..40])), None);
        assert_eq!(held.restore(&placeholder(3)), None);
    }
}
