//! Configuration of the `kobana-mcp` command: a TOML file (`--config`, `KOBANA_CONFIG`, or
//! `./kobana-mcp.toml` when present), then environment variables (`KOBANA_*`), then flags —
//! each later source wins. `kobana-mcp.example.toml` documents every key.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The configuration file.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Sandbox data directory.
    pub data_dir: Option<PathBuf>,
    /// Seed of the sandbox data.
    pub seed: Option<u64>,
    #[serde(default)]
    pub serve: ServeSection,
    #[serde(default)]
    pub upstream: UpstreamSection,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeSection {
    /// `127.0.0.1:8080`.
    pub http: Option<String>,
    /// Externally visible base URL (OAuth metadata, signed download links).
    pub public_url: Option<String>,
    /// Identities file of the embedded resolver.
    pub identities: Option<PathBuf>,
    /// `embedded` or `upstream`.
    pub auth: Option<String>,
    /// Origins allowed besides loopback.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Host names accepted besides loopback.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// OAuth authorization servers announced in the protected-resource metadata.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Confirmation ledger: `memory` or `redis://…` (shared by several instances).
    pub ledger: Option<String>,
    /// `requestState` keys, `kid:hexkey,…` (first signs); the same on every instance.
    pub state_keys: Option<String>,
    /// A tool's JSON answer larger than this many tokens is cut at a record boundary (0: never).
    pub result_budget_tokens: Option<usize>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSection {
    /// Proxy mode: the Kobana API base URL for every product (`{product}` is replaced).
    pub url: Option<String>,
    /// Per-product base URLs.
    #[serde(default)]
    pub products: HashMap<String, String>,
    pub timeout_ms: Option<u64>,
    pub max_attempts: Option<u32>,
}

impl FileConfig {
    /// Reads the explicit file, or `./kobana-mcp.toml` if it exists, or nothing.
    pub fn load(explicit: Option<&Path>) -> anyhow::Result<FileConfig> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let local = PathBuf::from("kobana-mcp.toml");
                if !local.exists() {
                    return Ok(FileConfig::default());
                }
                local
            }
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the config file {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("config file {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_config_parses() {
        let text = include_str!("../kobana-mcp.example.toml");
        let c: FileConfig = toml::from_str(text).unwrap();
        assert_eq!(c.serve.http.as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(c.seed, Some(42));
    }

    #[test]
    fn multi_instance_keys_parse() {
        let c: FileConfig =
            toml::from_str("[serve]\nledger = \"redis://r:6379\"\nstate_keys = \"k1:00ff\"\n")
                .unwrap();
        assert_eq!(c.serve.ledger.as_deref(), Some("redis://r:6379"));
        assert_eq!(c.serve.state_keys.as_deref(), Some("k1:00ff"));
    }

    #[test]
    fn the_result_budget_is_a_serve_key() {
        let c: FileConfig = toml::from_str("[serve]\nresult_budget_tokens = 5000\n").unwrap();
        assert_eq!(c.serve.result_budget_tokens, Some(5000));
    }

    #[test]
    fn unknown_keys_are_errors() {
        let err = toml::from_str::<FileConfig>("[serve]\nhtpp = \"x\"\n").unwrap_err();
        assert!(err.to_string().contains("htpp"), "{err}");
    }
}
