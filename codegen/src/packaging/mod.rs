//! Distribution files derived from the catalogs: the install snippets of every product for the
//! MCP clients (`docs/install.md` and the README's install section), the MCP Registry's
//! `server.json`, and one MCPB bundle manifest per product.
//!
//! They live here, not by hand, because each one lists the products (and the MCPB manifests list
//! the tools): a product added to `catalog/` appears in every install path at the next build,
//! and the drift gate fails when a checked-in copy is stale.
//!
//! The distribution coordinates (registry name, repository, container image) are in one place,
//! [`Distribution`], so a move of the repository or the image is a one-line change.

pub mod install;
pub mod mcpb;
pub mod registry;

use serde_json::Value;

use crate::model::Catalog;
use crate::{GenerateError, GeneratedFile};

/// Where the project is published. The container image's label
/// `io.modelcontextprotocol.server.name` (Dockerfile) and the `mcp-name:` line of the README must
/// carry [`Distribution::REGISTRY_NAME`]: the registry checks both before it accepts a version.
pub struct Distribution;

impl Distribution {
    /// The server's name in the MCP Registry: reverse DNS of kobana.com.br, so the registry
    /// verifies it through a DNS TXT record of the domain.
    pub const REGISTRY_NAME: &'static str = "br.com.kobana/kobana-mcp";
    /// The source repository (also the release download base of cargo-dist's installers).
    pub const REPOSITORY: &'static str = "https://github.com/kobana/kobana-mcp";
    /// The container image, without its tag (the tag is the crate version).
    pub const IMAGE: &'static str = "ghcr.io/kobana/kobana-mcp";
    /// The crate published on crates.io (`cargo install kobana-mcp`).
    pub const CRATE: &'static str = "kobana-mcp";
    /// The binary the packages install.
    pub const BINARY: &'static str = "kobana-mcp";
    /// The version every package carries: the workspace version, so a release bump regenerates
    /// (and the drift gate demands) new packaging files.
    pub const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    /// The local HTTP base the HTTP snippets point at: what `kobana-mcp serve all` and the
    /// reference `compose.yaml` listen on.
    pub const LOCAL_HTTP_BASE: &'static str = "http://127.0.0.1:8080";
    /// The stdio access token variable (read by `runtime::auth::stdio`).
    pub const TOKEN_ENV: &'static str = "KOBANA_ACCESS_TOKEN";
    /// The stdio default-workspace variable.
    pub const WORKSPACE_ENV: &'static str = "KOBANA_WORKSPACE_ID";
    /// The proxy-mode upstream variable: without it the binary serves the embedded sandbox.
    pub const UPSTREAM_ENV: &'static str = "KOBANA_UPSTREAM_URL";
    /// The placeholder the snippets show where the user's token goes.
    pub const TOKEN_PLACEHOLDER: &'static str = "<your Kobana access token>";
}

/// The facts of one product the packaging files need.
#[derive(Debug, Clone)]
pub struct ProductFacts {
    pub name: String,
    pub title: String,
    /// The Kobana API the product proxies to in production.
    pub api_base_url: String,
    /// `(name, title)` of every tool, sorted by name.
    pub tools: Vec<(String, String)>,
}

impl ProductFacts {
    pub fn from_catalog(c: &Catalog) -> ProductFacts {
        ProductFacts {
            name: c.product.name.clone(),
            title: c.product.title.clone(),
            api_base_url: c.product.api_base_url.clone(),
            tools: crate::descriptors::sorted_tools(c)
                .into_iter()
                .map(|t| (t.name.clone(), t.title.clone()))
                .collect(),
        }
    }

    /// The name a client lists the server under: `kobana-banking`.
    pub fn server_key(&self) -> String {
        format!("kobana-{}", self.name)
    }

    /// The product's Streamable HTTP endpoint on a `serve all` listener.
    pub fn local_url(&self) -> String {
        format!("{}/{}/mcp", Distribution::LOCAL_HTTP_BASE, self.name)
    }

    /// The stdio command line after the binary.
    pub fn stdio_args(&self) -> Vec<String> {
        vec!["serve".into(), self.name.clone(), "--stdio".into()]
    }
}

/// Renders JSON as the checked-in files are written: two-space indentation, final newline.
pub fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Every packaging file of `generated/`, for the products (not the test fixtures) in the
/// canonical product order.
pub fn files(products: &[&Catalog]) -> Result<Vec<GeneratedFile>, GenerateError> {
    let facts: Vec<ProductFacts> = products
        .iter()
        .map(|c| ProductFacts::from_catalog(c))
        .collect();
    let mut files = vec![
        GeneratedFile {
            path: "docs/install.md".into(),
            contents: install::install_page(&facts),
        },
        GeneratedFile {
            path: registry::SERVER_JSON_PATH.into(),
            contents: pretty(&registry::server_json(&facts)),
        },
        GeneratedFile {
            path: "packaging/README.md".into(),
            contents: packaging_readme(&facts),
        },
    ];
    for p in &facts {
        files.push(GeneratedFile {
            path: mcpb::manifest_path(&p.name),
            contents: pretty(&mcpb::manifest(p)),
        });
    }
    Ok(files)
}

/// `generated/packaging/README.md`: JSON carries no comment, so the "do not edit" notice of the
/// JSON files lives beside them.
fn packaging_readme(products: &[ProductFacts]) -> String {
    let mut out = String::new();
    out.push_str(&crate::docs::preamble("catalog/*.yaml"));
    out.push_str("\n\n# Packaging files\n\n");
    out.push_str(
        "Generated from the catalogs by `codegen/src/packaging/`; do not edit. The JSON files here \
         are regenerated by `cargo build` and checked by `cargo run -p codegen -- --check`.\n\n",
    );
    out.push_str(&format!(
        "- `server.json`: the MCP Registry entry `{}` (cargo and OCI packages, a streamable-http \
         remote). Publish with `mcp-publisher publish generated/packaging/server.json`.\n",
        Distribution::REGISTRY_NAME
    ));
    for p in products {
        out.push_str(&format!(
            "- `{}`: the MCPB manifest of {} (`scripts/build_mcpb.sh {} <binary> <target>`).\n",
            mcpb::manifest_file_name(&p.name),
            p.title,
            p.name
        ));
    }
    out
}

/// The products of already validated catalogs (fixtures left out), in the canonical order.
pub fn product_facts(loaded: &[crate::load::Loaded]) -> Vec<ProductFacts> {
    let mut products: Vec<&Catalog> = loaded
        .iter()
        .map(|l| &l.catalog)
        .filter(|c| !c.product.fixture)
        .collect();
    products.sort_by_key(|c| {
        let name = c.product.name.as_str();
        let rank = crate::rust::PRODUCT_ORDER
            .iter()
            .position(|p| *p == name)
            .unwrap_or(crate::rust::PRODUCT_ORDER.len());
        (rank, name.to_string())
    });
    products
        .into_iter()
        .map(ProductFacts::from_catalog)
        .collect()
}

/// The drift gate for the README's install section (outside `generated/`): `None` when current.
pub fn check_readme(root: &std::path::Path, loaded: &[crate::load::Loaded]) -> Option<String> {
    install::check_readme(root, &product_facts(loaded))
}

/// Rewrites the README's install section; `true` when it changed.
pub fn write_readme(
    root: &std::path::Path,
    loaded: &[crate::load::Loaded],
) -> Result<bool, String> {
    install::write_readme(root, &product_facts(loaded))
}
