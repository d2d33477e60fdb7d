//! The catalog tools that the server build does not need: the OpenAPI importer and the coverage
//! gate ([`openapi`]), the fact files read from the OpenAPI specs and the product documents
//! ([`facts`]), the packaging files ([`packaging`]: `generated/packaging/`,
//! `generated/docs/install.md` and the README's install section), the catalog's editor schema
//! ([`schema`], by `schemars`) and the JSON Schema 2020-12 compilation of every input schema
//! ([`input_schemas`], by `jsonschema`).
//!
//! The catalog compiler (`codegen`, what `generated/build.rs` runs) loads and validates the
//! catalogs and renders the Rust tables and docs; this crate builds on its loaded catalogs. Its
//! binary, `codegen-tools`, writes this crate's outputs (no command) or checks them for drift
//! (`--check`, which CI runs beside `cargo run -p codegen -- --check`).

mod command;
pub mod facts;
pub mod input_schemas;
pub mod openapi;
pub mod packaging;
pub mod schema;

use std::path::Path;

use codegen::load::Loaded;
use codegen::{GeneratedFile, Owner};

pub use command::FIX_COMMAND;

/// This crate's files of `generated/`: the packaging folder, plus [`codegen::TOOLS_DOCS`], which
/// sit among the catalog compiler's docs and are checked file by file.
pub const PACKAGING: Owner = Owner {
    kinds: &[("packaging", "json"), ("packaging", "md")],
    except: &[],
    fix: FIX_COMMAND,
};

/// The packaging files of validated catalogs, in a fixed order.
pub fn generate(loaded: &[Loaded]) -> Vec<GeneratedFile> {
    // Sizes and texts are what a client gets by default: the product in its own language.
    let products: Vec<&codegen::model::Catalog> = codegen::products_in_order(loaded)
        .into_iter()
        .map(codegen::in_default_locale)
        .collect();
    let mut files: Vec<GeneratedFile> = packaging::files(&products)
        .into_iter()
        .map(|(path, contents)| GeneratedFile { path, contents })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// What [`check`] found.
#[derive(Debug, Default)]
pub struct Checked {
    /// Each stale output or failing schema, one line each; empty when all is current.
    pub problems: Vec<String>,
    /// Checks skipped, saying why (the OpenAPI specs absent).
    pub skipped: Vec<String>,
    /// The products whose output-schema sidecars were checked against the specs.
    pub sidecars: Vec<String>,
    /// How many packaging files were compared.
    pub files: usize,
}

/// The drift gate of this crate's outputs under `root`: the packaging files, the README's install
/// section, `catalog/catalog.schema.json`, the output-schema sidecars (against the OpenAPI specs,
/// when present), and every input schema compiles as JSON Schema 2020-12.
pub fn check(root: &Path, loaded: &[Loaded]) -> Result<Checked, String> {
    let layout = codegen::Layout::from_root(root);
    let files = generate(loaded);
    let drift = codegen::check_owned(&PACKAGING, &layout.generated_dir, &files)
        .map_err(|e| format!("{}: {e}", layout.generated_dir.display()))?;
    let mut problems: Vec<String> = drift.iter().map(|d| d.to_string()).collect();
    problems.extend(schema::check_schema(root));
    problems.extend(packaging::check_readme(root, loaded));
    problems.extend(input_schemas::check(loaded).iter().map(|d| d.to_string()));
    let derived = openapi::fill::check(&layout.catalog_dir, root)
        .map_err(|e| format!("output schemas: {e:#}"))?;
    problems.extend(derived.drift);
    Ok(Checked {
        problems,
        skipped: derived.skipped,
        sidecars: derived.current,
        files: files.len(),
    })
}

/// Writes this crate's outputs under `root` where they changed; the lines to print.
pub fn write(root: &Path, loaded: &[Loaded]) -> Result<Vec<String>, String> {
    let layout = codegen::Layout::from_root(root);
    let files = generate(loaded);
    let report = codegen::write_owned(&PACKAGING, &layout.generated_dir, &files)
        .map_err(|e| format!("{}: {e}", layout.generated_dir.display()))?;
    let mut lines: Vec<String> = report
        .written
        .iter()
        .map(|w| format!("wrote generated/{w}"))
        .collect();
    lines.extend(
        report
            .removed
            .iter()
            .map(|r| format!("removed generated/{r}")),
    );
    if packaging::write_readme(root, loaded)? {
        lines.push(format!("wrote {}", packaging::install::README_PATH));
    }
    if schema::write_schema(root).map_err(|e| format!("{}: {e}", schema::SCHEMA_PATH))? {
        lines.push(format!("wrote {}", schema::SCHEMA_PATH));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file this crate writes is its own and not the catalog compiler's: neither one
    /// removes, overwrites or reports the other's files.
    #[test]
    fn the_packaging_files_belong_to_this_crate_alone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let loaded = codegen::load_all(&root.join("catalog")).expect("the catalogs load");
        let ours = generate(&loaded);
        assert!(!ours.is_empty());
        let owns = |o: &Owner, path: &str| {
            o.kinds.iter().any(|(dir, ext)| {
                path.strip_prefix(&format!("{dir}/"))
                    .is_some_and(|name| !name.contains('/') && name.ends_with(&format!(".{ext}")))
            }) && !o.except.contains(&path)
        };
        for f in &ours {
            let ours_by_kind = owns(&PACKAGING, &f.path);
            let listed = codegen::TOOLS_DOCS.contains(&f.path.as_str());
            assert!(ours_by_kind || listed, "{} is nobody's", f.path);
            assert!(
                !owns(&codegen::CATALOG_COMPILER, &f.path),
                "{} is also the catalog compiler's",
                f.path
            );
        }
        let compiled = codegen::generate(&root.join("catalog")).expect("the catalogs render");
        for f in &compiled {
            assert!(!ours.iter().any(|o| o.path == f.path), "{} twice", f.path);
        }
    }
}
