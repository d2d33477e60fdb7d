//! The facts every packaging file shares: where the project is published ([`Distribution`]) and
//! what each product contributes ([`ProductFacts`]).

use serde_json::Value;

use codegen::model::Catalog;

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
    /// The package name `cargo install` builds (from the repository: no release publishes the
    /// crates to crates.io).
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
    /// The variable that says an upstream implements this project's paths for products Kobana
    /// publishes no API for (`--upstream-serves`).
    pub const UPSTREAM_SERVES_ENV: &'static str = "KOBANA_UPSTREAM_SERVES";
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
    /// `(name, title)` of the tools a client naming no toolset lists (the default toolsets).
    pub default_tools: Vec<(String, String)>,
    /// The names of the product's toolsets, in catalog order (what the product is about).
    pub toolsets: Vec<String>,
    /// Kobana publishes an API for the product (the catalog names its OpenAPI specs): only then
    /// is there a proxy line to give; the others' proxy paths are this project's own.
    pub published_api: bool,
}

impl ProductFacts {
    pub fn from_catalog(c: &Catalog) -> ProductFacts {
        let sorted = codegen::descriptors::sorted_tools(c);
        ProductFacts {
            default_tools: codegen::toolsets::default_selection(c)
                .into_iter()
                .map(|i| (sorted[i].name.clone(), sorted[i].title.clone()))
                .collect(),
            toolsets: c.toolsets.iter().map(|t| t.name.clone()).collect(),
            name: c.product.name.clone(),
            title: c.product.title.clone(),
            api_base_url: c.product.api_base_url.clone(),
            published_api: c.product.published_api(),
            tools: codegen::descriptors::sorted_tools(c)
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
