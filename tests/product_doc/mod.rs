//! Shared reading of the product documents' facts for the `tests/<product>_docs.rs` integration
//! tests, which each check one product's catalog, generated docs and sandbox against its document.
//!
//! The documents themselves live outside the repository (`../shared/product-docs/*.txt`); the
//! tests read what they need of them from `catalog/facts/product-docs/<product>.json`, which
//! `cargo run -p codegen-tools -- facts --write` derives from the documents and `facts --check`
//! verifies (CI). The parsing of the documents lives there, in `codegen/tools/src/facts/`.
//!
//! Each integration test is its own crate, so the test files include this module with
//! `#[path = "product_doc/mod.rs"] mod product_doc;` (the macros of `pt_br` and `es` refer to it
//! by that name). What every product shares is here; `pt_br` holds the checks of the pt-BR
//! documents written as tab-separated tables (billing, dashboards), `es` those of the es documents
//! written as Markdown-like tables (finance, inbox). The protocol checks reach the server through
//! `harness`, the shared confirmation harness.

// Each test crate uses only part of the shared code.
#![allow(dead_code)]

#[path = "../confirmation_harness/mod.rs"]
pub mod harness;

pub mod es;
pub mod pt_br;

use std::path::PathBuf;

use codegen_tools::facts::docs::{DocFacts, Phrase};
use runtime::catalog::{ArgFormat, Product};

/// One product, specified by its document.
#[derive(Debug, Clone, Copy)]
pub struct ProductDoc {
    /// The product name (`billing`), as `generated::product`, the generated docs and the facts
    /// files know it.
    pub product: &'static str,
    /// The locale of the generated page whose texts the document's phrases are compared with:
    /// the language the catalog's own texts for this product are written in: that of
    /// its document (pt-BR for billing and dashboards, es for finance and inbox), except banking's,
    /// written in English from the OpenAPI specs.
    pub page: &'static str,
}

impl ProductDoc {
    /// The facts of the product document (`catalog/facts/product-docs/<product>.json`).
    pub fn facts(&self) -> DocFacts {
        DocFacts::load(&repo_root(), self.product).unwrap_or_else(|e| panic!("{e:#}"))
    }

    /// `generated/docs/<product>.<page>.md`: the page in the language the catalog's texts are
    /// written in ([`ProductDoc::page`]; `<product>.md` is in the product's default language,
    /// what the server speaks to a client that names none).
    pub fn generated_docs(&self) -> String {
        let path = repo_root()
            .join("generated/docs")
            .join(format!("{}.{}.md", self.product, self.page));
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {} (run `cargo run -p codegen`): {e}",
                path.display()
            )
        })
    }

    /// The compiled catalog of the product.
    pub fn product(&self) -> &'static Product {
        generated::product(self.product)
            .unwrap_or_else(|| panic!("product `{}` is not compiled", self.product))
    }
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One argument of a prompt, as the document's table gives it.
#[derive(Debug)]
pub struct DocArg {
    pub name: String,
    pub required: bool,
    pub format: ArgFormat,
    /// `today+90d` (documents that state defaults).
    pub default: Option<String>,
}

/// One row of the document's prompts table.
#[derive(Debug)]
pub struct DocPrompt {
    pub name: String,
    pub args: Vec<DocArg>,
    /// Its description.
    pub what: Phrase,
}

/// The format the facts write (`any`, `date`, `month`) as the catalog's.
pub fn arg_format(format: &str) -> ArgFormat {
    match format {
        "date" => ArgFormat::Date,
        "month" => ArgFormat::Month,
        "any" => ArgFormat::Any,
        other => panic!("the facts give an unknown argument format `{other}`"),
    }
}

/// The document's prompts table.
pub fn doc_prompts(f: &DocFacts) -> Vec<DocPrompt> {
    f.prompts
        .iter()
        .map(|p| DocPrompt {
            name: p.name.clone(),
            args: p
                .args
                .iter()
                .map(|a| DocArg {
                    name: a.name.clone(),
                    required: a.required,
                    format: arg_format(&a.format),
                    default: a.default.clone(),
                })
                .collect(),
            what: p
                .what
                .clone()
                .unwrap_or_else(|| panic!("the facts give no description of {}", p.name)),
        })
        .collect()
}

/// Today in Brasília (UTC-3), the sandbox's clock, shifted by `days`, as `YYYY-MM-DD`.
pub fn day(days: i64) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs() as i64
        - 3 * 3600
        + days * 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{d:02}")
}

/// `YYYY-MM` of the current month in Brasília (UTC-3), the sandbox's clock.
pub fn current_month() -> String {
    day(0)[..7].to_string()
}

/// `YYYY-MM` of the month before the current one.
pub fn previous_month() -> String {
    let today = day(0);
    let first: i64 = today[8..10].parse().expect("day of month");
    day(-first)[..7].to_string()
}
