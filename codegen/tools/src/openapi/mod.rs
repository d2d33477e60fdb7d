//! OpenAPI import and the coverage gate.
//!
//! The catalog is the source of truth for tools, but the Kobana API has about 300 operations: the
//! importer proposes entries for new operations ([`import_openapi`]) and the gate ([`coverage()`])
//! keeps catalog and specs in step, so no operation is silently missing or bound to nothing.

pub mod contract;
pub mod convert;
pub mod coverage;
pub mod fill;
pub mod import;
pub mod location;
pub mod naming;
pub mod output;
pub mod spec;

use std::path::{Path, PathBuf};

/// Proposes catalog entries (YAML text) for OpenAPI operations the catalog does not map yet.
pub fn import_openapi(catalog: &Path, specs: &[PathBuf]) -> anyhow::Result<String> {
    import::run(catalog, specs)
}

/// Checks every catalog that names OpenAPI specs: each operation mapped or excluded, each binding
/// pointing to an existing operation. Returns one line per catalog, e.g.
/// `banking: 302/312 operations mapped, 10 excluded, 0 unaccounted`, or an error listing problems.
pub fn coverage(catalog_dir: &Path, repo_root: &Path) -> anyhow::Result<Vec<String>> {
    coverage::run(catalog_dir, repo_root)
}
