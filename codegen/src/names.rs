//! Tool names that fit the clients' limits.
//!
//! Clients prefix tool names with the server's name (`mcp__kobana-banking__…`) and many cap the
//! result at 64 characters, so a tool name should leave room: at most [`DEFAULT_NAME_BUDGET`]
//! characters unless configured otherwise.

/// The default name budget: 64 (the common cap) minus room for a client's prefix.
pub const DEFAULT_NAME_BUDGET: usize = 48;

use std::collections::BTreeSet;
use std::path::Path;

use crate::load::Loaded;

/// The name budget of a catalog.
pub fn budget(l: &Loaded) -> usize {
    l.catalog
        .product
        .tool_name_budget
        .unwrap_or(DEFAULT_NAME_BUDGET)
}

/// The identifiers the product's documents write (`identifiers` of
/// `catalog/facts/product-docs/<product>.json`), empty when the product has no fact file (the
/// fixtures): tools named there keep their names whatever their length.
pub fn documented(l: &Loaded) -> BTreeSet<String> {
    let Some(dir) = l.source.path.parent() else {
        return BTreeSet::new();
    };
    documented_in(dir, &l.catalog.product.name)
}

/// [`documented`] for a product of the catalogs in `catalog_dir`.
pub fn documented_in(catalog_dir: &Path, product: &str) -> BTreeSet<String> {
    let path = catalog_dir
        .join("facts/product-docs")
        .join(format!("{product}.json"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return BTreeSet::new();
    };
    v["identifiers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The tools of `l` over its name budget, each with whether the documents name it (and so keep
/// it).
pub fn over_budget(l: &Loaded) -> Vec<(String, bool)> {
    let budget = budget(l);
    let documented = documented(l);
    l.catalog
        .tools
        .iter()
        .filter(|t| t.name.chars().count() > budget)
        .map(|t| (t.name.clone(), documented.contains(&t.name)))
        .collect()
}
