#!/usr/bin/env python3
"""The install snippets of one product, taken from generated/docs/install.md, and the checks of
the blocks no client of ours can run here (VS Code, Cursor) against those clients' published
configuration formats. Used by scripts/real_clients.sh.

  client_formats.py extract INSTALL_MD PRODUCT PORT OUT_DIR
      writes OUT_DIR/claude.txt (the `claude mcp add` lines, one a line), desktop-stdio.json and
      desktop-http.json (the Claude Desktop blocks, the token placeholder filled with demo-full),
      and the VS Code and Cursor snippets (vscode-*.json, code-add-mcp.txt, cursor-*.json,
      cursor-links.txt); in what runs (Claude Code, Claude Desktop) `127.0.0.1:8080` becomes
      `127.0.0.1:PORT`.
  client_formats.py check OUT_DIR PRODUCT
      checks the VS Code and Cursor snippets (below); exits 1 naming each problem.
  client_formats.py readme-inspector README PORT
      prints the README's Inspector line (port moved as above).

The facts checked, from the clients' documentation (paraphrased, not copied):
- VS Code, "MCP configuration reference" (code.visualstudio.com/docs/copilot/reference/
  mcp-configuration): `.vscode/mcp.json` holds a `servers` object (name → server) and an
  optional `inputs` array; a server's `type` is `stdio`, `http` or `sse`; a stdio server needs a
  `command` (string) and may have `args` (strings) and `env` (string values); an http server
  needs a `url` and may have `headers` (string values); an input of type `promptString` has an
  `id`, a `description` and `password` (boolean), and `${input:<id>}` refers to a declared one.
  `code --add-mcp '<json>'` takes one server's configuration with its `name` (the documented
  example gives a stdio server no `type`).
- Cursor, "Model Context Protocol" and "MCP Install Links" (cursor.com/docs): `mcp.json` holds
  an `mcpServers` object; a server is either `command` (+ `args`, `env`) or `url` (+ `headers`);
  an install link is `cursor://anysphere.cursor-deeplink/mcp/install?name=<name>&config=<base64
  of the server's JSON configuration>`.
"""

import base64
import json
import re
import sys
import urllib.parse
from pathlib import Path

TOKEN_PLACEHOLDER = "<your Kobana access token>"
DEMO_TOKEN = "demo-full"


def section(text: str, product: str) -> str:
    start = re.search(r"^## .*\(`%s`\)\s*$" % re.escape(product), text, re.M)
    if not start:
        sys.exit(f"client_formats: install.md has no section for `{product}`")
    rest = text[start.end():]
    end = re.search(r"^## ", rest, re.M)
    return rest[: end.start()] if end else rest


def blocks(text: str):
    """(client heading, language, body) of each fenced block."""
    client = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("### "):
            client = line[4:].strip()
        m = re.match(r"^```(\w*)\s*$", line)
        if m:
            lang, body = m.group(1), []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            yield client, lang, "\n".join(body)
        i += 1


def extract(install_md: str, product: str, port: str, out: str) -> None:
    text = Path(install_md).read_text()
    # What runs here reaches this run's server; what is only checked stays as written.
    here = lambda s: s.replace("127.0.0.1:8080", f"127.0.0.1:{port}")  # noqa: E731
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    claude, desktop, vscode, add_mcp, cursor, links = [], [], [], [], [], []
    for client, lang, body in blocks(section(text, product)):
        if client == "Claude Code" and lang == "bash":
            claude += [here(l) for l in body.splitlines() if l.strip() and not l.startswith("#")]
        elif client == "Claude Desktop" and lang == "json":
            desktop.append(json.loads(here(body)))
        elif client == "VS Code" and lang == "json":
            vscode.append(json.loads(body))
        elif client == "VS Code" and lang == "bash":
            add_mcp += [l for l in body.splitlines() if l.startswith("code --add-mcp ")]
        elif client == "Cursor" and lang == "json":
            cursor.append(json.loads(body))
        elif client == "Cursor" and lang == "text":
            links += [l for l in body.splitlines() if l.startswith("cursor://")]
    if not (claude and desktop and vscode and add_mcp and cursor and links):
        sys.exit(f"client_formats: `{product}` lacks a client's snippets in {install_md}")
    (out_dir / "claude.txt").write_text("\n".join(claude) + "\n")
    for config in desktop:
        server = next(iter(config["mcpServers"].values()))
        kind = "http" if "mcp-remote" in server.get("args", []) else "stdio"
        filled = json.loads(json.dumps(config).replace(TOKEN_PLACEHOLDER, DEMO_TOKEN))
        (out_dir / f"desktop-{kind}.json").write_text(json.dumps(filled, indent=2))
    for n, config in enumerate(vscode):
        (out_dir / f"vscode-{n}.json").write_text(json.dumps(config, indent=2))
    (out_dir / "code-add-mcp.txt").write_text("\n".join(add_mcp) + "\n")
    for n, config in enumerate(cursor):
        (out_dir / f"cursor-{n}.json").write_text(json.dumps(config, indent=2))
    (out_dir / "cursor-links.txt").write_text("\n".join(links) + "\n")


def strings(value) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def vscode_server(where: str, name: str, server: dict, inputs: set, problems: list) -> None:
    kind = server.get("type")
    if kind is None and where == "code --add-mcp" and "command" in server:
        kind = "stdio"  # the documented `--add-mcp` example names a command and no type
    if not re.match(r"^[a-zA-Z][a-zA-Z0-9_-]*$", name):
        problems.append(f"{where}: server name {name!r}")
    if kind == "stdio":
        if not isinstance(server.get("command"), str):
            problems.append(f"{where}: a stdio server needs a `command`")
        if not all(isinstance(a, str) for a in server.get("args", [])):
            problems.append(f"{where}: `args` must be strings")
        if "env" in server and not strings(server["env"]):
            problems.append(f"{where}: `env` values must be strings")
        unknown = set(server) - {"type", "command", "args", "env", "envFile", "cwd", "name"}
    elif kind in ("http", "sse"):
        if not isinstance(server.get("url"), str):
            problems.append(f"{where}: an {kind} server needs a `url`")
        if "headers" in server and not strings(server["headers"]):
            problems.append(f"{where}: `headers` values must be strings")
        unknown = set(server) - {"type", "url", "headers", "name"}
    else:
        problems.append(f"{where}: `type` is {kind!r}, not stdio, http or sse")
        unknown = set()
    if unknown:
        problems.append(f"{where}: fields VS Code does not know: {sorted(unknown)}")
    for ref in re.findall(r"\$\{input:([^}]*)\}", json.dumps(server)):
        if ref not in inputs:
            problems.append(f"{where}: ${{input:{ref}}} names no declared input")


def check(out: str, product: str) -> None:
    out_dir = Path(out)
    name = f"kobana-{product}"
    problems: list = []
    vscode_files = sorted(out_dir.glob("vscode-*.json"))
    for f in vscode_files:
        config = json.loads(f.read_text())
        if set(config) - {"servers", "inputs"} or "servers" not in config:
            problems.append(f"{f.name}: top level must be `servers` (and `inputs`): {sorted(config)}")
            continue
        inputs = set()
        for i in config.get("inputs", []):
            ok = (i.get("type") == "promptString" and isinstance(i.get("id"), str)
                  and isinstance(i.get("description"), str) and isinstance(i.get("password"), bool))
            if not ok:
                problems.append(f"{f.name}: input {i}")
            inputs.add(i.get("id"))
        for n, server in config["servers"].items():
            vscode_server(f.name, n, server, inputs, problems)
        if name not in config["servers"]:
            problems.append(f"{f.name}: no server {name}")
    kinds = {next(iter(json.loads(f.read_text())["servers"].values())).get("type") for f in vscode_files}
    if kinds != {"stdio", "http"}:
        problems.append(f"VS Code blocks: expected a stdio and an http server, found {sorted(kinds)}")
    for line in (out_dir / "code-add-mcp.txt").read_text().splitlines():
        m = re.match(r"^code --add-mcp '(.*)'$", line)
        if not m:
            problems.append(f"code --add-mcp: not one quoted JSON argument: {line}")
            continue
        server = json.loads(m.group(1))
        if server.get("name") != name:
            problems.append(f"code --add-mcp: name is {server.get('name')!r}, not {name}")
        # The command line prompts for nothing: no ${input:…} there.
        vscode_server("code --add-mcp", server.get("name", ""), server, set(), problems)
    cursor_servers = []
    for f in sorted(out_dir.glob("cursor-*.json")):
        config = json.loads(f.read_text())
        if list(config) != ["mcpServers"]:
            problems.append(f"{f.name}: top level must be `mcpServers`: {sorted(config)}")
            continue
        server = config["mcpServers"].get(name)
        if server is None:
            problems.append(f"{f.name}: no server {name}")
            continue
        cursor_servers.append(server)
        if "command" in server:
            extra = set(server) - {"command", "args", "env", "type"}
            if not all(isinstance(a, str) for a in server.get("args", [])) or not strings(server.get("env", {})):
                problems.append(f"{f.name}: args and env values must be strings")
        elif "url" in server:
            extra = set(server) - {"url", "headers", "type"}
            if not strings(server.get("headers", {})):
                problems.append(f"{f.name}: headers values must be strings")
        else:
            problems.append(f"{f.name}: a server needs a `command` or a `url`")
            extra = set()
        if extra:
            problems.append(f"{f.name}: fields Cursor does not know: {sorted(extra)}")
    links = (out_dir / "cursor-links.txt").read_text().split()
    decoded = []
    for link in links:
        parsed = urllib.parse.urlparse(link)
        query = urllib.parse.parse_qs(parsed.query)
        if (parsed.scheme, parsed.netloc, parsed.path) != ("cursor", "anysphere.cursor-deeplink", "/mcp/install"):
            problems.append(f"Cursor link: not an MCP install link: {link}")
            continue
        if query.get("name") != [name]:
            problems.append(f"Cursor link: name is {query.get('name')}, not {name}")
        try:
            decoded.append(json.loads(base64.b64decode(query["config"][0])))
        except (KeyError, ValueError) as e:
            problems.append(f"Cursor link: config is not base64 JSON ({e}): {link}")
    if sorted(map(json.dumps, decoded)) != sorted(map(json.dumps, cursor_servers)):
        problems.append(f"Cursor links: their configurations {decoded} are not the mcp.json blocks' {cursor_servers}")
    if problems:
        for p in problems:
            print(f"client_formats: {p}", file=sys.stderr)
        sys.exit(1)


def readme_inspector(readme: str, port: str) -> None:
    for line in Path(readme).read_text().splitlines():
        if "@modelcontextprotocol/inspector" in line and "--cli" in line:
            print(line.replace("127.0.0.1:8080", f"127.0.0.1:{port}"))
            return
    sys.exit("client_formats: the README has no Inspector line (`npx @modelcontextprotocol/inspector --cli …`)")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:] or [""]
    if cmd == "extract" and len(args) == 4:
        extract(*args)
    elif cmd == "check" and len(args) == 2:
        check(*args)
    elif cmd == "readme-inspector" and len(args) == 2:
        readme_inspector(*args)
    else:
        sys.exit(__doc__)
