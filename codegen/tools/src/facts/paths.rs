//! Where the fact files live (a leaf module: the parsers and the command both name these paths).

use std::path::{Path, PathBuf};

/// Where the fact files live, relative to the repository root.
pub const FACTS_DIR: &str = "catalog/facts";
/// The command that refreshes the fact files.
pub const WRITE_COMMAND: &str = "cargo run -p codegen-tools -- facts --write";
/// `catalog/facts/openapi/<file stem>.lock.json` of a spec path (any folder).
pub fn lock_path(spec: &Path) -> PathBuf {
    let stem = spec
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Path::new(FACTS_DIR)
        .join("openapi")
        .join(format!("{stem}.lock.json"))
}

/// `catalog/facts/product-docs/<product>.json`.
pub fn doc_facts_path(product: &str) -> PathBuf {
    Path::new(FACTS_DIR)
        .join("product-docs")
        .join(format!("{product}.json"))
}
