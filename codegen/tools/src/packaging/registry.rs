//! `generated/packaging/server.json`: the MCP Registry entry.
//!
//! One server with every product, not one server per product: the registry verifies an OCI
//! package through the image's `io.modelcontextprotocol.server.name` label, and one image can
//! carry one name. The product is an argument of each package (`serve <product> --stdio`) and a
//! variable of the remote (`/<product>/mcp`), with the catalog's products as its choices.
//!
//! Format: the registry's published schema of 2025-12-11 ([`SCHEMA_URL`]); CI validates the file
//! against that schema (`tests/packaging.rs`, the schema fetched by `scripts/test.sh`).

use serde_json::{json, Value};

use super::facts::{Distribution, ProductFacts};

/// The published schema this file follows (the newest release of the registry's schema).
pub const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// Where the file is, relative to `generated/`.
pub const SERVER_JSON_PATH: &str = "packaging/server.json";

/// The registry caps `description` at 100 characters.
pub const DESCRIPTION: &str =
    "Kobana banking, billing, finance, dashboards and inbox APIs as MCP tools, resources and prompts";

fn product_choices(products: &[ProductFacts]) -> Vec<String> {
    products.iter().map(|p| p.name.clone()).collect()
}

/// The variables a local (stdio) package reads. Nothing is required: without an upstream the
/// server answers from its embedded sandbox, which needs no token (issue 36); a default for the
/// upstream would send a registry client that fills defaults to the live API, which does.
fn environment(products: &[ProductFacts]) -> Value {
    let api = products
        .first()
        .map(|p| p.api_base_url.clone())
        .unwrap_or_default();
    json!([
        {
            "name": Distribution::TOKEN_ENV,
            "description": format!("Kobana API access token (Bearer); every call runs as its owner. Needed with {}; the embedded sandbox needs none.", Distribution::UPSTREAM_ENV),
            "isRequired": false,
            "isSecret": true
        },
        {
            "name": Distribution::UPSTREAM_ENV,
            "description": format!("Kobana API base URL ({api}); without it the server answers from its embedded sandbox (demo data)."),
            "isRequired": false
        },
        {
            "name": Distribution::WORKSPACE_ENV,
            "description": "Default workspace id for products with several workspaces (finance, inbox).",
            "isRequired": false
        }
    ])
}

/// `serve <product> --stdio`, with the product chosen among the catalogs'.
fn serve_arguments(products: &[ProductFacts]) -> Value {
    let choices = product_choices(products);
    let default = choices.first().cloned().unwrap_or_default();
    json!([
        { "type": "positional", "value": "serve" },
        {
            "type": "positional",
            "valueHint": "product",
            "description": "The Kobana product to serve",
            "isRequired": true,
            "default": default,
            "choices": choices
        },
        { "type": "positional", "value": "--stdio" }
    ])
}

/// The whole `server.json`.
pub fn server_json(products: &[ProductFacts]) -> Value {
    let version = Distribution::VERSION;
    let choices = product_choices(products);
    let default = choices.first().cloned().unwrap_or_default();
    json!({
        "$schema": SCHEMA_URL,
        "name": Distribution::REGISTRY_NAME,
        "title": "Kobana",
        "description": DESCRIPTION,
        "repository": { "url": Distribution::REPOSITORY, "source": "github" },
        "version": version,
        "websiteUrl": format!("{}#install", Distribution::REPOSITORY),
        "packages": [
            // The container image a release pushes; no release publishes the crates to
            // crates.io, so no cargo package is declared.
            {
                "registryType": "oci",
                "identifier": format!("{}:{version}", Distribution::IMAGE),
                "transport": { "type": "stdio" },
                "runtimeHint": "docker",
                "runtimeArguments": [
                    { "type": "positional", "value": "run" },
                    { "type": "named", "name": "-i" },
                    { "type": "named", "name": "--rm" },
                    { "type": "named", "name": "-e", "value": Distribution::TOKEN_ENV },
                    { "type": "named", "name": "-e", "value": Distribution::UPSTREAM_ENV },
                    { "type": "named", "name": "-e", "value": Distribution::WORKSPACE_ENV }
                ],
                "packageArguments": serve_arguments(products),
                "environmentVariables": environment(products)
            }
        ],
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://{host}/{product}/mcp",
                "variables": {
                    "host": {
                        "description": "Host (and port) of your kobana-mcp deployment, e.g. the load balancer of compose.yaml",
                        "isRequired": true,
                        "placeholder": "mcp.example.com"
                    },
                    "product": {
                        "description": "The Kobana product to use",
                        "isRequired": true,
                        "default": default,
                        "choices": choices
                    }
                },
                "headers": [
                    {
                        "name": "Authorization",
                        "description": "Bearer followed by your Kobana API access token",
                        "value": "Bearer {token}",
                        "isRequired": true,
                        "isSecret": true,
                        "variables": {
                            "token": {
                                "description": "Kobana API access token",
                                "isRequired": true,
                                "isSecret": true
                            }
                        }
                    }
                ]
            }
        ]
    })
}
