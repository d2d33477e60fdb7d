//! Where the OpenAPI specs a catalog names are: `product.openapi` writes them as they sit in the
//! shared reference folder (`../shared/kobana-openapi/…`), which `KOBANA_SPECS_DIR` can move.

use std::path::{Path, PathBuf};

/// The environment variable naming the folder of shared reference material (the OpenAPI specs are
/// under its `kobana-openapi/`); default `../shared` beside the repository.
pub const SPECS_DIR_VAR: &str = "KOBANA_SPECS_DIR";

/// How catalogs write spec paths that live in the shared folder (`product.openapi`).
const SHARED_PREFIX: &str = "../shared/";

/// The shared folder: `$KOBANA_SPECS_DIR`, else `<repo_root>/../shared`.
pub fn specs_dir(repo_root: &Path) -> PathBuf {
    match std::env::var_os(SPECS_DIR_VAR) {
        // A relative setting is relative to the repository root (an absolute one replaces it).
        Some(dir) if !dir.is_empty() => repo_root.join(dir),
        _ => repo_root.join("../shared"),
    }
}

/// Where a spec named in `product.openapi` is: a `../shared/…` path is looked up in
/// [`specs_dir`], any other path is relative to the repository root.
pub fn spec_path(repo_root: &Path, rel: &str) -> PathBuf {
    match rel.strip_prefix(SHARED_PREFIX) {
        Some(rest) => specs_dir(repo_root).join(rest),
        None => repo_root.join(rel),
    }
}
