//! `generated/packaging/mcpb-<product>.manifest.json`: one MCPB bundle manifest per product
//! (manifest version 0.3, a `binary` server).
//!
//! A bundle holds one platform's binary at `server/kobana-mcp` (`server/kobana-mcp.exe` on
//! Windows); `scripts/build_mcpb.sh` copies the manifest into the bundle and narrows
//! `compatibility.platforms` (and, for Windows, `entry_point`) to the platform of the binary it
//! packs. The access token is a `sensitive` user setting, so the desktop client keeps it in the
//! operating system's keychain and passes it as `KOBANA_ACCESS_TOKEN`.

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
    let binary = Distribution::BINARY;
    let tools: Vec<Value> = p
        .tools
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
            "Runs `{binary} serve {} --stdio` on this computer. Calls go to the Kobana API \
             with your access token; writes that destroy or move money ask for confirmation first. \
             Clear the API URL setting's value to try the embedded sandbox with demo data instead.",
            p.name
        ),
        "author": { "name": "Kobana", "url": "https://kobana.com.br" },
        "repository": { "type": "git", "url": Distribution::REPOSITORY },
        "homepage": Distribution::REPOSITORY,
        "documentation": format!("{}/blob/main/generated/docs/{}.md", Distribution::REPOSITORY, p.name),
        "license": "MIT",
        "keywords": ["kobana", p.name, "banking", "brazil", "pix", "boleto"],
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
                "description": "Your Kobana API access token; every call runs as its owner.",
                "sensitive": true,
                "required": true
            },
            "api_url": {
                "type": "string",
                "title": "Kobana API URL",
                "description": "The Kobana API the tools call. Empty: the embedded sandbox with demo data.",
                "default": p.api_base_url,
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
