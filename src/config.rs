//! Configuration of the `kobana-mcp` command: a TOML file (`--config`, `KOBANA_CONFIG`, or
//! `./kobana-mcp.toml` when present), then environment variables (`KOBANA_*`), then flags —
//! each later source wins. `kobana-mcp.example.toml` documents every key; `crate::settings` merges
//! the sources.

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
    /// Rate limits, scope challenges, trusted proxy headers (`crate::access`).
    #[serde(default)]
    pub access: AccessSection,
    #[serde(default)]
    pub telemetry: TelemetrySection,
}

/// Metrics, traces and the audit trail (`[telemetry]`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySection {
    /// Serve `/metrics` on this address instead of the MCP listener.
    pub metrics_addr: Option<String>,
    /// OTLP/HTTP collector base URL (metrics and traces).
    pub otlp_endpoint: Option<String>,
    /// Audit trail: a JSON Lines file.
    pub audit_file: Option<std::path::PathBuf>,
    pub audit_max_bytes: Option<u64>,
    pub audit_keep: Option<usize>,
    /// Audit trail on stderr.
    #[serde(default)]
    pub audit_stderr: bool,
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
    /// Toolsets served (`["billets", "pix"]`; `default`, `all`, `discovery` too).
    pub toolsets: Option<Vec<String>>,
    /// Tools added to the toolsets.
    pub tools: Option<Vec<String>>,
    /// Tools taken out (wins over inclusions).
    pub exclude_tools: Option<Vec<String>>,
    /// Only read-only tools (wins over inclusions).
    pub read_only: Option<bool>,
    /// Discovery mode (adds toolset `discovery`).
    pub discovery: Option<bool>,
    /// The server's language (`pt-BR`, `es`, `en`, or any tag matching one): stdio's, and what an
    /// HTTP request naming no language of ours gets. Default: each product's own.
    pub locale: Option<String>,
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
    /// The products without a published Kobana API whose paths the upstream implements.
    pub serves: Option<Vec<String>>,
    pub timeout_ms: Option<u64>,
    pub max_attempts: Option<u32>,
    /// Most calls in flight (connections) to one API host; 0: no cap.
    pub max_connections: Option<usize>,
    /// Most of those one tool may hold; 0: only the host's cap.
    pub max_per_tool: Option<usize>,
}

impl FileConfig {
    /// Reads the explicit file, or `./kobana-mcp.toml` if it exists, or nothing; with the path
    /// read. Only `crate::settings` calls it, once per run.
    pub fn load(explicit: Option<&Path>) -> anyhow::Result<(FileConfig, Option<PathBuf>)> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let local = PathBuf::from("kobana-mcp.toml");
                if !local.exists() {
                    return Ok((FileConfig::default(), None));
                }
                local
            }
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the config file {}", path.display()))?;
        let config =
            toml::from_str(&text).with_context(|| format!("config file {}", path.display()))?;
        Ok((config, Some(path)))
    }
}

/// The config file's `[access]` section.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSection {
    pub rate_limit_reads: Option<u32>,
    pub rate_limit_writes: Option<u32>,
    pub rate_limit_ip: Option<u32>,
    pub rate_limit_window_secs: Option<u64>,
    pub scope_challenge: Option<bool>,
    pub trust_proxy_headers: Option<bool>,
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
    fn telemetry_keys_parse() {
        let c: FileConfig = toml::from_str(
            "[telemetry]\nmetrics_addr = \"127.0.0.1:9464\"\notlp_endpoint = \"http://c:4318\"\naudit_file = \"/var/log/a.jsonl\"\naudit_max_bytes = 10\naudit_keep = 3\n",
        )
        .unwrap();
        assert_eq!(c.telemetry.metrics_addr.as_deref(), Some("127.0.0.1:9464"));
        assert_eq!(c.telemetry.audit_keep, Some(3));
        assert!(!c.telemetry.audit_stderr);
    }

    #[test]
    fn the_readme_deployment_with_an_authorization_server_parses() {
        let readme = include_str!("../README.md");
        let block = readme
            .split("```toml\n")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .expect("the README shows a kobana-mcp.toml");
        let c: FileConfig = toml::from_str(block).unwrap();
        assert_eq!(c.serve.authorization_servers, ["https://auth.example.com"]);
        assert_eq!(c.access.scope_challenge, Some(true));
        assert_eq!(c.access.trust_proxy_headers, Some(true));
    }

    #[test]
    fn the_example_config_sets_the_documented_rate_limits() {
        let c: FileConfig = toml::from_str(include_str!("../kobana-mcp.example.toml")).unwrap();
        let d = runtime::limits::RateLimits::default();
        assert_eq!(c.access.rate_limit_reads, Some(d.reads));
        assert_eq!(c.access.rate_limit_writes, Some(d.writes));
        assert_eq!(c.access.rate_limit_ip, Some(d.ip));
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
