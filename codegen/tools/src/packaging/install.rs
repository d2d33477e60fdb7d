//! Install snippets for the MCP clients, for every product and both transports: Claude Code
//! (`claude mcp add`), Claude Desktop (`claude_desktop_config.json`, or the MCPB bundle), VS Code
//! (`.vscode/mcp.json`, `code --add-mcp`) and Cursor (`.cursor/mcp.json`, an install deeplink).
//!
//! Rendered into `generated/docs/install.md` (all of them) and into the README's install section
//! (between [`README_BEGIN`] and [`README_END`]; a shorter digest). Both come from the catalogs'
//! product list, so they cannot name a product the server does not serve.
//!
//! Shell commands take the token from the user's environment (`"$KOBANA_ACCESS_TOKEN"`) so they run
//! as pasted; JSON files show a placeholder, except VS Code's, which asks for the token once
//! (`password` input) instead of keeping it in the file.

use std::path::Path;

use base64::Engine;
use serde_json::{json, Value};

use super::facts::{Distribution, ProductFacts};

/// The README lines that delimit the generated install section.
pub const README_BEGIN: &str =
    "<!-- BEGIN install: generated from catalog/*.yaml by `cargo run -p codegen-tools`; do not edit -->";
pub const README_END: &str = "<!-- END install -->";
/// What labels the proxy variant of the stdio line (install page and README): the default lines
/// run on the sandbox; this one reaches the Kobana API with a real token.
pub const PROXY_LABEL: &str =
    "stdio, proxy to the Kobana API (your own Kobana access token; every call acts on real data)";
/// The README, from the repository root.
pub const README_PATH: &str = "README.md";

/// The install page, among the docs of `generated/` (listed in [`codegen::TOOLS_DOCS`]).
pub const PAGE_PATH: &str = "docs/install.md";

/// The stdio server entry the JSON configs share (Claude Desktop, Cursor, `code --add-mcp`): on
/// the embedded sandbox, like the HTTP entries' local server; [`proxy_env_note`] says how to
/// reach the Kobana API instead.
fn stdio_entry(p: &ProductFacts, token: &str) -> Value {
    json!({
        "command": Distribution::BINARY,
        "args": p.stdio_args(),
        "env": { (Distribution::TOKEN_ENV): token }
    })
}

/// The labelled proxy variant of the JSON stdio entries: the one variable to add; for a product
/// Kobana publishes no API for, why there is none (the server refuses such an upstream unless
/// the operator says it implements this project's paths).
fn proxy_env_note(p: &ProductFacts) -> String {
    if !p.published_api {
        return format!(
            "No proxy line: Kobana publishes no API for {title}, so its proxy paths are this \
             project's own and `serve {name} --upstream` refuses to start unless the upstream \
             implements them and you say so (`--upstream-serves {name}`, `{serves}`; README, \
             *behind a proxy*).",
            title = p.title,
            name = p.name,
            serves = Distribution::UPSTREAM_SERVES_ENV,
        );
    }
    format!(
        "{PROXY_LABEL}: add `\"{up}\": \"{url}\"` to the stdio entry's `env`.",
        up = Distribution::UPSTREAM_ENV,
        url = p.api_base_url
    )
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn json_block(value: &Value) -> String {
    format!(
        "```json\n{}\n```\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

fn bash_block(line: &str) -> String {
    format!("```bash\n{line}\n```\n")
}

/// `claude mcp add` over stdio, on the embedded sandbox (no upstream: a demo token such as
/// `demo-full` works as pasted, like the HTTP line against a local `serve all`).
///
/// The server name comes right after `add`, before any option: Claude Code's `--env` and
/// `--header` are variadic, so a name after them is taken as one more value (`Invalid environment
/// variable format: kobana-banking`); `--` ends them before the command.
pub fn claude_code_stdio(p: &ProductFacts) -> String {
    claude_code_stdio_with(p, "")
}

/// `claude mcp add` over stdio in proxy mode: every call goes to the Kobana API as the token's
/// owner (a real Kobana access token).
pub fn claude_code_stdio_proxy(p: &ProductFacts) -> String {
    claude_code_stdio_with(
        p,
        &format!(
            " --env {up}={url}",
            up = Distribution::UPSTREAM_ENV,
            url = p.api_base_url
        ),
    )
}

fn claude_code_stdio_with(p: &ProductFacts, more_env: &str) -> String {
    format!(
        "claude mcp add {key} --transport stdio --env {tok}=\"${tok}\"{more_env} -- {bin} {args}",
        tok = Distribution::TOKEN_ENV,
        key = p.server_key(),
        bin = Distribution::BINARY,
        args = p.stdio_args().join(" ")
    )
}

/// `claude mcp add` over Streamable HTTP: name and URL first, then the options (`--header` is
/// variadic, see [`claude_code_stdio`]).
pub fn claude_code_http(p: &ProductFacts) -> String {
    format!(
        "claude mcp add {key} {url} --transport http --header \"Authorization: Bearer ${tok}\"",
        key = p.server_key(),
        url = p.local_url(),
        tok = Distribution::TOKEN_ENV
    )
}

/// `claude_desktop_config.json` over stdio.
pub fn claude_desktop_stdio(p: &ProductFacts) -> Value {
    json!({ "mcpServers": { (p.server_key()): stdio_entry(p, Distribution::TOKEN_PLACEHOLDER) } })
}

/// `claude_desktop_config.json` over HTTP: the configuration file launches local commands only,
/// so `mcp-remote` bridges to the HTTP endpoint (a public HTTPS deployment can be added as a
/// custom connector in the app's settings instead).
pub fn claude_desktop_http(p: &ProductFacts) -> Value {
    json!({ "mcpServers": { (p.server_key()): {
        "command": "npx",
        "args": ["-y", "mcp-remote", p.local_url(), "--header", "Authorization:${KOBANA_AUTH}"],
        "env": { "KOBANA_AUTH": bearer(Distribution::TOKEN_PLACEHOLDER) }
    } } })
}

const VSCODE_INPUT: &str = "kobana-access-token";

fn vscode_inputs() -> Value {
    json!([{
        "type": "promptString",
        "id": VSCODE_INPUT,
        "description": "Kobana access token",
        "password": true
    }])
}

/// `.vscode/mcp.json` over stdio.
pub fn vscode_stdio(p: &ProductFacts) -> Value {
    let mut entry = stdio_entry(p, &format!("${{input:{VSCODE_INPUT}}}"));
    entry["type"] = json!("stdio");
    json!({ "inputs": vscode_inputs(), "servers": { (p.server_key()): entry } })
}

/// `.vscode/mcp.json` over HTTP.
pub fn vscode_http(p: &ProductFacts) -> Value {
    json!({ "inputs": vscode_inputs(), "servers": { (p.server_key()): {
        "type": "http",
        "url": p.local_url(),
        "headers": { "Authorization": bearer(&format!("${{input:{VSCODE_INPUT}}}")) }
    } } })
}

fn single_quoted_json(value: &Value) -> String {
    // JSON has no single quote of its own but in strings; none of ours has one.
    format!("'{}'", serde_json::to_string(value).unwrap_or_default())
}

/// `code --add-mcp` over stdio.
pub fn vscode_add_stdio(p: &ProductFacts) -> String {
    let mut entry = stdio_entry(p, Distribution::TOKEN_PLACEHOLDER);
    entry["name"] = json!(p.server_key());
    format!("code --add-mcp {}", single_quoted_json(&entry))
}

/// `code --add-mcp` over HTTP.
pub fn vscode_add_http(p: &ProductFacts) -> String {
    let entry = json!({
        "name": p.server_key(),
        "type": "http",
        "url": p.local_url(),
        "headers": { "Authorization": bearer(Distribution::TOKEN_PLACEHOLDER) }
    });
    format!("code --add-mcp {}", single_quoted_json(&entry))
}

/// The Cursor server entry over HTTP.
fn cursor_http_entry(p: &ProductFacts) -> Value {
    json!({ "url": p.local_url(), "headers": { "Authorization": bearer(Distribution::TOKEN_PLACEHOLDER) } })
}

/// `.cursor/mcp.json` over stdio.
pub fn cursor_stdio(p: &ProductFacts) -> Value {
    json!({ "mcpServers": { (p.server_key()): stdio_entry(p, Distribution::TOKEN_PLACEHOLDER) } })
}

/// `.cursor/mcp.json` over HTTP.
pub fn cursor_http(p: &ProductFacts) -> Value {
    json!({ "mcpServers": { (p.server_key()): cursor_http_entry(p) } })
}

/// Cursor's install deeplink: the server entry as base64 JSON, percent-encoded for the query.
pub fn cursor_deeplink(name: &str, entry: &Value) -> String {
    let config = base64::engine::general_purpose::STANDARD
        .encode(serde_json::to_string(entry).unwrap_or_default());
    let config = config
        .replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D");
    format!("cursor://anysphere.cursor-deeplink/mcp/install?name={name}&config={config}")
}

/// The deeplinks of one product: stdio, HTTP.
pub fn cursor_deeplinks(p: &ProductFacts) -> (String, String) {
    (
        cursor_deeplink(
            &p.server_key(),
            &stdio_entry(p, Distribution::TOKEN_PLACEHOLDER),
        ),
        cursor_deeplink(&p.server_key(), &cursor_http_entry(p)),
    )
}

fn product_section(p: &ProductFacts) -> String {
    let mut s = String::new();
    let key = p.server_key();
    s.push_str(&format!("## {} (`{}`)\n\n", p.title, p.name));
    s.push_str(&format!(
        "stdio runs `{} {}` on the embedded sandbox; HTTP connects to `{}`.\n\n",
        Distribution::BINARY,
        p.stdio_args().join(" "),
        p.local_url()
    ));
    s.push_str(&format!("{}\n\n", proxy_env_note(p)));

    s.push_str("### Claude Code\n\n");
    s.push_str("stdio (the embedded sandbox; a demo token such as `demo-full`):\n\n");
    s.push_str(&bash_block(&claude_code_stdio(p)));
    if p.published_api {
        s.push_str(&format!("\n{PROXY_LABEL}:\n\n"));
        s.push_str(&bash_block(&claude_code_stdio_proxy(p)));
    }
    s.push_str("\nHTTP (a running `serve all`, on the sandbox):\n\n");
    s.push_str(&bash_block(&claude_code_http(p)));

    s.push_str("\n### Claude Desktop\n\n");
    s.push_str(&format!(
        "One click: open the release's `{key}-<platform>.mcpb` bundle (built by \
         `scripts/build_mcpb.sh`); Claude Desktop asks for the token and keeps it in the \
         system keychain. Or edit `claude_desktop_config.json` (Settings → Developer → Edit Config).\n\n"
    ));
    s.push_str("stdio:\n\n");
    s.push_str(&json_block(&claude_desktop_stdio(p)));
    s.push_str("\nHTTP (through `mcp-remote`; a public HTTPS deployment can be added as a custom connector instead):\n\n");
    s.push_str(&json_block(&claude_desktop_http(p)));

    s.push_str("\n### VS Code\n\n");
    s.push_str("`.vscode/mcp.json` (VS Code asks for the token once), stdio:\n\n");
    s.push_str(&json_block(&vscode_stdio(p)));
    s.push_str("\nHTTP:\n\n");
    s.push_str(&json_block(&vscode_http(p)));
    s.push_str("\nFrom the command line (user settings), stdio:\n\n");
    s.push_str(&bash_block(&vscode_add_stdio(p)));
    s.push_str("\nHTTP:\n\n");
    s.push_str(&bash_block(&vscode_add_http(p)));

    let (stdio_link, http_link) = cursor_deeplinks(p);
    s.push_str("\n### Cursor\n\n");
    s.push_str("`.cursor/mcp.json` (or `~/.cursor/mcp.json` for every project), stdio:\n\n");
    s.push_str(&json_block(&cursor_stdio(p)));
    s.push_str("\nHTTP:\n\n");
    s.push_str(&json_block(&cursor_http(p)));
    s.push_str(&format!(
        "\nInstall links (Cursor opens its install dialog; replace the token placeholder there): \
         [stdio]({stdio_link}) · [HTTP]({http_link})\n\n"
    ));
    s.push_str(&format!("```text\n{stdio_link}\n{http_link}\n```\n\n"));
    s
}

/// `generated/docs/install.md`.
pub fn install_page(products: &[ProductFacts]) -> String {
    let mut s = String::new();
    s.push_str(&crate::command::preamble());
    s.push_str("\n\n# Installing the Kobana MCP servers\n\n");
    s.push_str(&intro());
    s.push_str("\n## Products\n\n| product | stdio | HTTP endpoint |\n|---|---|---|\n");
    for p in products {
        s.push_str(&format!(
            "| [{}](#{}) | `{} {}` | `{}` |\n",
            p.title,
            anchor(p),
            Distribution::BINARY,
            p.stdio_args().join(" "),
            p.local_url()
        ));
    }
    s.push('\n');
    for p in products {
        s.push_str(&product_section(p));
    }
    s.trim_end().to_string() + "\n"
}

/// GitHub's heading anchor of a product section: `## Kobana Banking (`banking`)`.
fn anchor(p: &ProductFacts) -> String {
    format!("{}-{}", p.title.to_lowercase().replace(' ', "-"), p.name)
}

fn intro() -> String {
    format!(
        "Every product is one MCP server. Two ways to connect:\n\n\
         - **stdio**: the client launches `{bin}` itself. The token goes in `{tok}`; with \
         `{up}` set (the proxy lines below set it to the Kobana API) every call goes to the API \
         as the token's owner; without it (every other snippet) the binary answers from its \
         embedded sandbox (demo data; a demo token such as `demo-full`, or none).\n\
         - **HTTP**: the client connects to a running server: `{bin} serve all --http \
         127.0.0.1:8080` on this machine, or the reference deployment (`docker compose up`, \
         `compose.yaml`), which also listens on `{base}`. The token goes in the `Authorization` \
         header; against the sandbox, use a demo token such as `demo-full` (README, *Demo tokens*).\n\n\
         Getting `{bin}`: the release installers (shell script, PowerShell; configured in \
         `dist-workspace.toml`), `cargo install --locked --git {repo} {krate}`, or the container image \
         (`docker run -i --rm -e {tok} {image}:{version} serve banking --stdio`). Shell commands \
         below read the token from your environment: `export {tok}=…` first.\n",
        bin = Distribution::BINARY,
        tok = Distribution::TOKEN_ENV,
        up = Distribution::UPSTREAM_ENV,
        base = Distribution::LOCAL_HTTP_BASE,
        krate = Distribution::CRATE,
        repo = Distribution::REPOSITORY,
        image = Distribution::IMAGE,
        version = Distribution::VERSION,
    )
}

/// The README's install section, between the markers (markers excluded).
pub fn readme_section(products: &[ProductFacts]) -> String {
    let mut s = String::new();
    s.push_str(&format!("\nmcp-name: {}\n\n", Distribution::REGISTRY_NAME));
    s.push_str(&format!(
        "One line per product for Claude Code (stdio: the client launches `{bin}`; HTTP: a running \
         `{bin} serve all` or `docker compose up`), both on the embedded sandbox with a demo token; \
         the proxy lines at the end reach the Kobana API with your own token (for the products it publishes an API for). Claude Desktop (config file or MCPB bundle), \
         VS Code and Cursor snippets for every product: [`generated/docs/install.md`](generated/docs/install.md).\n\n",
        bin = Distribution::BINARY
    ));
    s.push_str("```bash\n");
    s.push_str(&format!(
        "export {}=demo-full   # a sandbox demo token (README, *Demo tokens*)\n",
        Distribution::TOKEN_ENV
    ));
    for p in products {
        s.push_str(&format!(
            "# {}: stdio, or HTTP\n{}\n{}\n",
            p.title,
            claude_code_stdio(p),
            claude_code_http(p)
        ));
    }
    s.push_str(&format!(
        "# {PROXY_LABEL}\nexport {}=…\n",
        Distribution::TOKEN_ENV
    ));
    for p in products.iter().filter(|p| p.published_api) {
        s.push_str(&format!("{}\n", claude_code_stdio_proxy(p)));
    }
    s.push_str("```\n\n");
    if let Some(p) = products.first() {
        s.push_str(&format!(
            "Claude Desktop, `claude_desktop_config.json` ({}, stdio):\n\n",
            p.title
        ));
        s.push_str(&json_block(&claude_desktop_stdio(p)));
        s.push_str(&format!("\n{}\n\n", proxy_env_note(p)));
    }
    s
}

/// The README with its install section replaced, or why it cannot be.
pub fn readme_with_section(readme: &str, section: &str) -> Result<String, String> {
    let begin = readme
        .find(README_BEGIN)
        .ok_or_else(|| format!("{README_PATH} has no line `{README_BEGIN}`"))?;
    let after_begin = begin + README_BEGIN.len();
    let end = readme[after_begin..]
        .find(README_END)
        .map(|i| after_begin + i)
        .ok_or_else(|| {
            format!("{README_PATH} has no line `{README_END}` after `{README_BEGIN}`")
        })?;
    Ok(format!(
        "{}\n{}{}",
        &readme[..after_begin],
        section,
        &readme[end..]
    ))
}

/// The drift gate for the README's install section: `None` when current, or when the tree has no
/// README at all (a catalog folder generated on its own, as the generator's tests do).
pub fn check_readme(root: &Path, products: &[ProductFacts]) -> Option<String> {
    let path = root.join(README_PATH);
    let readme = match std::fs::read_to_string(&path) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(format!("{}: {e}", path.display())),
    };
    match readme_with_section(&readme, &readme_section(products)) {
        Ok(updated) if updated == readme => None,
        Ok(_) => Some(format!(
            "{README_PATH}: the install section is stale (differs from what the catalogs generate)"
        )),
        Err(e) => Some(e),
    }
}

/// Rewrites the README's install section; `true` when the file changed (never when there is no
/// README).
pub fn write_readme(root: &Path, products: &[ProductFacts]) -> Result<bool, String> {
    let path = root.join(README_PATH);
    let readme = match std::fs::read_to_string(&path) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let updated = readme_with_section(&readme, &readme_section(products))?;
    if updated == readme {
        return Ok(false);
    }
    std::fs::write(&path, updated).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn banking() -> ProductFacts {
        ProductFacts {
            name: "banking".into(),
            title: "Kobana Banking".into(),
            api_base_url: "https://api.kobana.com.br".into(),
            tools: vec![],
            default_tools: vec![],
            toolsets: vec![],
            published_api: true,
        }
    }

    #[test]
    fn the_cursor_deeplink_carries_the_server_entry() {
        let p = banking();
        let (stdio, _) = cursor_deeplinks(&p);
        let raw = stdio.split("&config=").nth(1).expect("a config parameter");
        // Base64's `+`, `/` and `=` are percent-encoded, so the query survives URL parsing.
        assert!(!raw.contains(['+', '/', '=']), "{raw}");
        let config = raw
            .replace("%2B", "+")
            .replace("%2F", "/")
            .replace("%3D", "=");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(config)
            .expect("base64");
        let entry: Value = serde_json::from_slice(&decoded).expect("JSON");
        assert_eq!(entry, stdio_entry(&p, Distribution::TOKEN_PLACEHOLDER));
        assert!(stdio.starts_with(
            "cursor://anysphere.cursor-deeplink/mcp/install?name=kobana-banking&config="
        ));
    }

    #[test]
    fn the_claude_code_lines_name_the_product_and_read_the_token_from_the_environment() {
        let p = banking();
        assert_eq!(
            claude_code_stdio(&p),
            "claude mcp add kobana-banking --transport stdio \
             --env KOBANA_ACCESS_TOKEN=\"$KOBANA_ACCESS_TOKEN\" -- kobana-mcp serve banking --stdio"
        );
        assert_eq!(
            claude_code_stdio_proxy(&p),
            "claude mcp add kobana-banking --transport stdio \
             --env KOBANA_ACCESS_TOKEN=\"$KOBANA_ACCESS_TOKEN\" \
             --env KOBANA_UPSTREAM_URL=https://api.kobana.com.br -- kobana-mcp serve banking --stdio"
        );
        assert_eq!(
            claude_code_http(&p),
            "claude mcp add kobana-banking http://127.0.0.1:8080/banking/mcp --transport http \
             --header \"Authorization: Bearer $KOBANA_ACCESS_TOKEN\""
        );
    }

    #[test]
    fn the_readme_section_is_replaced_between_its_markers_and_its_drift_is_reported() {
        let readme = format!("# x\n\nbefore\n{README_BEGIN}\nold text\n{README_END}\nafter\n");
        let updated = readme_with_section(&readme, "new\n").expect("markers");
        assert_eq!(
            updated,
            format!("# x\n\nbefore\n{README_BEGIN}\nnew\n{README_END}\nafter\n")
        );
        let err = readme_with_section("# no markers\n", "new\n").expect_err("no markers");
        assert!(err.contains(README_BEGIN), "{err}");

        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(README_PATH), &readme).expect("write");
        let products = [banking()];
        let drift = check_readme(dir.path(), &products).expect("stale");
        assert!(drift.contains("install section is stale"), "{drift}");
        assert!(write_readme(dir.path(), &products).expect("written"));
        assert_eq!(check_readme(dir.path(), &products), None);
        assert!(!write_readme(dir.path(), &products).expect("unchanged"));
    }
}
