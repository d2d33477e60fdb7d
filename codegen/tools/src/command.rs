//! The command that writes this crate's outputs, as every output and drift report names it.

/// Named in this crate's drift reports and in the notice of every file it writes.
pub const FIX_COMMAND: &str = "cargo run -p codegen-tools";

/// The first line of every Markdown file this crate writes: where it comes from and what writes it.
pub fn preamble() -> String {
    format!("<!-- generated from catalog/*.yaml; do not edit by hand — run `{FIX_COMMAND}` -->")
}
