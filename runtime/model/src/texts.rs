//! The runtime's own texts, in each locale: the words the server writes around the catalog's
//! (errors, notices, the discovery tools, the confirmation form, rate-limit and result-budget
//! notes, task status messages).
//!
//! Their one home is `catalog/texts/runtime.yaml`, beside the products' translation tables; the
//! generator checks it (every entry in pt-BR, es and en, the same placeholders in each, every
//! entry used by a runtime source) and compiles it into `generated/runtime/texts.rs`, the
//! [`Text`] enum included below. Rust code names a text (`Text::UnknownTool`) and never spells
//! one per locale.
//!
//! Why an `include!` of a file of `generated/` rather than a dependency on the `generated` crate:
//! `generated` depends on this crate (for the catalog types), and every runtime crate already
//! depends on this one, so the table is reachable everywhere while the crates still depend one
//! way (catalog → codegen → generated file → runtime). The file is under the same drift gate as
//! the rest of `generated/` (`cargo run -p codegen -- --check`). This crate is compiled before
//! `generated/build.rs` runs, so after editing the table run `cargo run -p codegen` (a build picks
//! the new file up only on the next build; the drift gate catches a forgotten one).

use std::fmt::{Display, Write as _};

use crate::locale::Locale;

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../generated/runtime/texts.rs"
));

impl Text {
    /// The text in `locale` with its placeholders filled from `args` (`("tool", &name)`). Every
    /// placeholder of the text needs a value: a missing one stays as `{name}` (and fails a debug
    /// build), so a test that reads the text sees the gap.
    pub fn fill(self, locale: Locale, args: &[(&str, &dyn Display)]) -> String {
        fill(self.get(locale), args)
    }
}

/// `template` with each `{name}` replaced by the value `args` gives it.
pub fn fill(template: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let (literals, names) = split(template);
    for (i, literal) in literals.iter().enumerate() {
        out.push_str(literal);
        let Some(name) = names.get(i) else { break };
        match args.iter().find(|(n, _)| n == name) {
            Some((_, value)) => {
                let _ = write!(out, "{value}");
            }
            None => {
                debug_assert!(false, "no value for {{{name}}} in {template:?}");
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
        }
    }
    out
}

/// A template cut at its placeholders: the literal parts (one more than the placeholders) and
/// the placeholders' names, in order. `"Unknown tool: {name}"` → `(["Unknown tool: ", ""],
/// ["name"])`. The generator refuses any other brace, so every `{…}` is a placeholder.
pub fn split(template: &str) -> (Vec<&str>, Vec<&str>) {
    let mut literals = Vec::new();
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        literals.push(&rest[..open]);
        names.push(&rest[open + 1..open + len]);
        rest = &rest[open + len + 1..];
    }
    literals.push(rest);
    (literals, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_by_name() {
        assert_eq!(
            fill(
                "{tool}: {done}% ({tool})",
                &[("done", &12.5), ("tool", &"x")]
            ),
            "x: 12.5% (x)"
        );
        assert_eq!(fill("no placeholder", &[]), "no placeholder");
        assert_eq!(
            split("a {b} c {d}"),
            (vec!["a ", " c ", ""], vec!["b", "d"])
        );
    }

    /// The table as the generator wrote it: every text in every locale, holding exactly the
    /// placeholders it declares.
    #[test]
    fn every_text_has_its_placeholders_in_every_locale() {
        for t in Text::ALL {
            for l in Locale::ALL {
                let text = t.get(l);
                assert!(!text.trim().is_empty(), "{} in {l}", t.key());
                let mut names = split(text).1;
                names.sort_unstable();
                names.dedup();
                let mut declared = t.placeholders().to_vec();
                declared.sort_unstable();
                assert_eq!(names, declared, "{} in {l}", t.key());
            }
        }
        assert_eq!(Text::UnknownTool.key(), "unknown_tool");
        assert_eq!(
            Text::UnknownTool.fill(Locale::Es, &[("name", &"x_y")]),
            "Herramienta desconocida: x_y"
        );
    }
}
