//! `generated/packaging/mcpb-<product>.manifest.json`: one MCPB bundle manifest per product
//! (manifest version 0.3, a `binary` server).
//!
//! A bundle holds one platform's binary at `server/kobana-mcp` (`server/kobana-mcp.exe` on
//! Windows); `scripts/build_mcpb.sh` copies the manifest into the bundle and narrows
//! `compatibility.platforms` (and, for Windows, `entry_point`) to the platform of the binary it
//! packs. The access token is a `sensitive` user setting, so the desktop client keeps it in the
//! operating system's keychain and passes it as `KOBANA_ACCESS_TOKEN`.
//!
//! As every install line, a bundle starts on the embedded sandbox (no token needed; the API URL
//! setting empty); the Kobana API is one setting away, with the user's token. Its `tools` are the
//! default listing (what the client sees), its keywords the product's own toolsets. A product
//! Kobana publishes no API for has no API URL setting: the server would refuse such an upstream
//! at start (`--upstream-serves`), and its bundle is the sandbox only.

use serde_json::{json, Value};

use super::facts::{Distribution, ProductFacts};

/// The MCPB manifest version written (the `latest` schema of `@anthropic-ai/mcpb`).
pub const MANIFEST_VERSION: &str = "0.3";

/// `mcpb-banking.manifest.json`.
pub fn manifest_file_name(product: &str) -> String {
    format!("mcpb-{product}.manifest.json")
}

/// The manifest's path relative to `generated/`.
pub fn manifest_path(product: &str) -> String {
    format!("packaging/{}", manifest_file_name(product))
}

/// The manifest of one product's bundle.
pub fn manifest(p: &ProductFacts) -> Value {
    let mut m = full_manifest(p);
    if !p.published_api {
        if let Some(env) = m["server"]["mcp_config"]["env"].as_object_mut() {
            env.remove(Distribution::UPSTREAM_ENV);
        }
        if let Some(config) = m["user_config"].as_object_mut() {
            config.remove("api_url");
        }
        m["long_description"] = json!(format!(
            "Runs `{} serve {} --stdio` on this computer, on the embedded sandbox with demo data \
             (Kobana publishes no API for {} that the server could call).",
            Distribution::BINARY,
            p.name,
            p.title
        ));
    }
    m
}

/// The manifest with the API URL setting.
fn full_manifest(p: &ProductFacts) -> Value {
    let binary = Distribution::BINARY;
    let tools: Vec<Value> = p
        .default_tools
        .iter()
        .map(|(name, title)| json!({ "name": name, "description": title }))
        .collect();
    json!({
        "manifest_version": MANIFEST_VERSION,
        "name": p.server_key(),
        "display_name": p.title,
        "version": Distribution::VERSION,
        "description": format!("{} through MCP: its API operations as tools, its records as resources, and ready-made prompts.", p.title),
        "long_description": format!(
            "Runs `{binary} serve {} --stdio` on this computer, on the embedded sandbox with demo \
             data until the API URL setting names the Kobana API ({}); then calls go to the API with \
             your access token, and writes that destroy or move money ask for confirmation first.",
            p.name, p.api_base_url
        ),
        "author": { "name": "Kobana", "url": "https://kobana.com.br" },
        "repository": { "type": "git", "url": Distribution::REPOSITORY },
        "homepage": Distribution::REPOSITORY,
        "documentation": format!("{}/blob/main/generated/docs/{}.md", Distribution::REPOSITORY, p.name),
        "license": "MIT",
        "keywords": keywords(p),
        "server": {
            "type": "binary",
            "entry_point": format!("server/{binary}"),
            "mcp_config": {
                "command": format!("${{__dirname}}/server/{binary}"),
                "args": p.stdio_args(),
                "env": {
                    (Distribution::TOKEN_ENV): "${user_config.access_token}",
                    (Distribution::UPSTREAM_ENV): "${user_config.api_url}",
                    (Distribution::WORKSPACE_ENV): "${user_config.workspace_id}"
                },
                "platform_overrides": {
                    "win32": { "command": format!("${{__dirname}}/server/{binary}.exe") }
                }
            }
        },
        "tools": tools,
        "tools_generated": false,
        "compatibility": { "platforms": ["darwin", "linux", "win32"] },
        "user_config": {
            "access_token": {
                "type": "string",
                "title": "Kobana access token",
                "description": "Your Kobana API access token; every call runs as its owner. Not needed on the sandbox.",
                "sensitive": true,
                "required": false
            },
            "api_url": {
                "type": "string",
                "title": "Kobana API URL",
                "description": format!("The Kobana API the tools call ({}). Empty: the embedded sandbox with demo data.", p.api_base_url),
                "default": "",
                "required": false
            },
            "workspace_id": {
                "type": "string",
                "title": "Default workspace",
                "description": "Workspace id used when a call names none (accounts with several workspaces).",
                "default": "",
                "required": false
            }
        }
    })
}

/// The manifest's keywords: Kobana, the product, and its toolsets' names (a product's own words:
/// no payment terms on a product that has no payment tools).
fn keywords(p: &ProductFacts) -> Vec<String> {
    let mut words = vec!["kobana".to_string(), p.name.clone(), "brazil".to_string()];
    for t in &p.toolsets {
        if !words.contains(t) {
            words.push(t.clone());
        }
    }
    words
}
