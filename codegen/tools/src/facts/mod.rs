//! Fact files: what the tests and the coverage gate need from Kobana's OpenAPI specs and the
//! product documents, which live outside the repository (`KOBANA_SPECS_DIR`, by default
//! `../shared` next to the clone). The project writes them itself, checks them in under
//! `catalog/facts/`, and verifies them against the sources when those are present:
//!
//! ```text
//! cargo run -p codegen-tools -- facts --check [--allow-missing]   # CI: the fact files match the sources
//! cargo run -p codegen-tools -- facts --write                     # refresh them from the sources
//! ```
//!
//! - `catalog/facts/openapi/<spec>.lock.json`: per operation, method, path, operationId and the
//!   SHA-256 of each request and response schema ([`openapi_lock`]).
//! - `catalog/facts/product-docs/<product>.json`: URIs, MIME/content kinds, tools, prompts and
//!   their arguments, completion rules, destructive verbs, codes and numbers; the documents'
//!   prose only as digests or named claims ([`docs`]).

pub mod banking;
pub mod docs;
pub mod es;
pub mod openapi_lock;
pub mod paths;
pub mod phrase;
pub mod pt_br;

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::openapi::spec::Spec;

pub use crate::openapi::location::{specs_dir, SPECS_DIR_VAR as SPECS_ENV};
/// The OpenAPI specs, relative to the sources folder.
pub const SPECS: &[&str] = &[
    "kobana-openapi/kobana-api-v1_0-openapi-3_1.json",
    "kobana-openapi/kobana-api-v2_0-openapi-3_1.json",
];

pub use paths::{doc_facts_path, lock_path, FACTS_DIR, WRITE_COMMAND};

/// One fact file: its path relative to the root, and its content.
#[derive(Debug, Clone, PartialEq)]
pub struct FactFile {
    pub path: PathBuf,
    pub text: String,
}

/// Every source the fact files derive from, relative to the sources folder.
pub fn sources() -> Vec<String> {
    SPECS
        .iter()
        .map(|s| s.to_string())
        .chain(
            docs::DOCUMENTS
                .iter()
                .map(|d| format!("product-docs/{}", d.file)),
        )
        .collect()
}

fn comment(source: &str) -> String {
    format!(
        "generated from {source} (under ${SPECS_ENV}, default ../shared) by `{WRITE_COMMAND}`; do not edit"
    )
}

fn to_text<T: serde::Serialize>(value: &T) -> anyhow::Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Derives every fact file from the sources in `specs_dir`.
pub fn derive(specs_dir: &Path) -> anyhow::Result<Vec<FactFile>> {
    let mut out = Vec::new();
    for rel in SPECS {
        let spec = Spec::load(&specs_dir.join(rel))?;
        let lock = openapi_lock::lock(&spec, rel, comment(rel))?;
        out.push(FactFile {
            path: lock_path(Path::new(rel)),
            text: to_text(&lock)?,
        });
    }
    for doc in docs::DOCUMENTS {
        let rel = format!("product-docs/{}", doc.file);
        let path = specs_dir.join(&rel);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the product document {}", path.display()))?;
        let facts = derive_doc(doc, &text, comment(&rel))?;
        out.push(FactFile {
            path: doc_facts_path(doc.product),
            text: to_text(&facts)?,
        });
    }
    Ok(out)
}

/// The `.json` files under the fact folders that are not among `files` (paths from the root).
fn extra_files(root: &Path, files: &[FactFile]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["openapi", "product-docs"] {
        let dir = Path::new(FACTS_DIR).join(sub);
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let rel = dir.join(entry.file_name());
            let json = rel.extension().is_some_and(|e| e == "json");
            if json && !files.iter().any(|f| f.path == rel) {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// What `facts` should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Check,
    Write,
}

/// `codegen-tools facts --check|--write [--allow-missing]`: the arguments after `facts`.
pub fn parse_args(args: &[String]) -> Result<(Mode, bool), String> {
    let mut mode = None;
    let mut allow_missing = false;
    for a in args {
        match a.as_str() {
            "--check" if mode.is_none() => mode = Some(Mode::Check),
            "--write" if mode.is_none() => mode = Some(Mode::Write),
            "--check" | "--write" => return Err("facts takes one of --check and --write".into()),
            "--allow-missing" => allow_missing = true,
            other => return Err(format!("facts: unknown argument `{other}`")),
        }
    }
    let mode = mode.ok_or("facts needs --check or --write")?;
    Ok((mode, allow_missing))
}

/// Runs `codegen-tools facts` on the repository at `root`: the lines to print, or the error.
pub fn run(root: &Path, args: &[String]) -> Result<Vec<String>, String> {
    run_with(root, &specs_dir(root), args)
}

/// [`run`] with the sources in `dir`.
pub fn run_with(root: &Path, dir: &Path, args: &[String]) -> Result<Vec<String>, String> {
    let (mode, allow_missing) = parse_args(args)?;
    let missing: Vec<String> = sources()
        .iter()
        .map(|s| dir.join(s))
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if !missing.is_empty() {
        let what = format!(
            "the sources of the fact files are missing (set {SPECS_ENV}; default ../shared):\n  {}",
            missing.join("\n  ")
        );
        if allow_missing && mode == Mode::Check {
            return Ok(vec![format!("facts: NOT VERIFIED: {what}")]);
        }
        return Err(format!("facts: {what}"));
    }
    let files = derive(dir).map_err(|e| format!("facts: {e:#}"))?;
    let mut lines = Vec::new();
    let mut stale = Vec::new();
    for f in &files {
        let path = root.join(&f.path);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() == Some(f.text.as_str()) {
            continue;
        }
        match mode {
            Mode::Write => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("facts: {}: {e}", parent.display()))?;
                }
                std::fs::write(&path, &f.text)
                    .map_err(|e| format!("facts: {}: {e}", path.display()))?;
                lines.push(format!("wrote {}", f.path.display()));
            }
            Mode::Check => stale.push(format!(
                "{} {}",
                if current.is_some() {
                    "stale:"
                } else {
                    "missing:"
                },
                f.path.display()
            )),
        }
    }
    // Files in the fact folders that no source gives any more.
    for extra in extra_files(root, &files) {
        match mode {
            Mode::Write => {
                std::fs::remove_file(root.join(&extra))
                    .map_err(|e| format!("facts: {}: {e}", extra.display()))?;
                lines.push(format!("removed {}", extra.display()));
            }
            Mode::Check => stale.push(format!("extra: {}", extra.display())),
        }
    }
    if !stale.is_empty() {
        return Err(format!(
            "facts: the fact files differ from the sources in {}:\n  {}\nrun `{WRITE_COMMAND}`, review the diff and commit it",
            dir.display(),
            stale.join("\n  ")
        ));
    }
    lines.push(format!(
        "facts: {} fact files {} the sources in {}",
        files.len(),
        if mode == Mode::Write {
            "written from"
        } else {
            "match"
        },
        dir.display()
    ));
    Ok(lines)
}

/// Reads the facts of `doc` from its text.
fn derive_doc(doc: &docs::Document, text: &str, comment: String) -> anyhow::Result<docs::DocFacts> {
    let mut facts = match doc.dialect {
        docs::Dialect::Banking => banking::derive(text),
        docs::Dialect::PtBr => pt_br::derive(text),
        docs::Dialect::Es => es::derive(doc.product, text),
    }
    .with_context(|| format!("reading the {} document {}", doc.product, doc.file))?;
    facts.comment = comment;
    facts.product = doc.product.to_string();
    facts.document = doc.file.to_string();
    facts.identifiers = docs::identifiers(text);
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments_need_one_mode() {
        assert_eq!(parse_args(&args(&["--check"])), Ok((Mode::Check, false)));
        assert_eq!(
            parse_args(&args(&["--write", "--allow-missing"])),
            Ok((Mode::Write, true))
        );
        assert!(parse_args(&args(&[])).is_err());
        assert!(parse_args(&args(&["--check", "--write"])).is_err());
        assert!(parse_args(&args(&["--frobnicate"])).is_err());
    }

    #[test]
    fn missing_sources_fail_the_check_unless_allowed_and_never_allow_a_write() {
        let root = tempfile::tempdir().unwrap();
        let absent = root.path().join("no-shared");
        let err = run_with(root.path(), &absent, &args(&["--check"])).unwrap_err();
        assert!(
            err.starts_with("facts: the sources of the fact files are missing"),
            "{err}"
        );
        assert!(
            err.contains("no-shared/kobana-openapi/kobana-api-v1_0-openapi-3_1.json"),
            "{err}"
        );
        assert!(
            err.contains("no-shared/product-docs/000_38c8db6d274b3892.txt"),
            "{err}"
        );
        let lines = run_with(root.path(), &absent, &args(&["--check", "--allow-missing"])).unwrap();
        assert!(lines[0].starts_with("facts: NOT VERIFIED"), "{lines:?}");
        assert!(run_with(root.path(), &absent, &args(&["--write", "--allow-missing"])).is_err());
    }

    #[test]
    fn files_no_source_gives_are_extra() {
        let root = tempfile::tempdir().unwrap();
        let docs = root.path().join(FACTS_DIR).join("product-docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("billing.json"), "{}").unwrap();
        std::fs::write(docs.join("gone.json"), "{}").unwrap();
        std::fs::write(docs.join("notes.txt"), "").unwrap();
        let files = vec![FactFile {
            path: doc_facts_path("billing"),
            text: "{}".into(),
        }];
        assert_eq!(
            extra_files(root.path(), &files),
            vec![Path::new("catalog/facts/product-docs/gone.json").to_path_buf()]
        );
    }

    #[test]
    fn fact_files_are_named_after_their_source() {
        assert_eq!(
            lock_path(Path::new(
                "../shared/kobana-openapi/kobana-api-v1_0-openapi-3_1.json"
            )),
            Path::new("catalog/facts/openapi/kobana-api-v1_0-openapi-3_1.lock.json")
        );
        assert_eq!(
            doc_facts_path("billing"),
            Path::new("catalog/facts/product-docs/billing.json")
        );
    }
}
