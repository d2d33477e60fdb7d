#!/usr/bin/env python3
"""The MCP side of scripts/image_check.sh: real requests to the containers it started.

Standard library only (it runs before any virtualenv exists). Every check prints one line;
a failed check raises CheckFailed naming what failed, and the process exits 1.

  image_check_mcp.py http BASE                  initialize + tools/list (2025-11-25, a session)
  image_check_mcp.py stdio-answer               reads a stdio server's output on stdin, checks it
  image_check_mcp.py balance LB A B             LB requests reach both instances (their /metrics)
  image_check_mcp.py confirm A B STATE_FILE     a confirmation asked on A runs on B, once
  image_check_mcp.py replay A STATE_FILE        the used confirmation is still a replay on A
  image_check_mcp.py targets PROMETHEUS A B     Prometheus scraped both instances
"""

import json
import re
import sys
import time
import urllib.error
import urllib.request

TOKEN = "demo-full"
# The servers accept only the Host of their public URL (DNS rebinding protection): the check
# reaches containers by their network address but names the host users reach them by.
# compose.yaml's KOBANA_PUBLIC_URL; the image alone is reached on 127.0.0.1 anyway.
PUBLIC_HOST = "127.0.0.1:8080"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


class CheckFailed(Exception):
    pass


def ok(msg):
    print(f"  ok: {msg}", flush=True)


def post(url, body, headers=None, timeout=30):
    """POSTs JSON-RPC; returns (status, headers, the JSON-RPC answer: the last SSE message with an id)."""
    h = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {TOKEN}",
    }
    if "127.0.0.1" not in url:
        h["host"] = PUBLIC_HOST
    h.update(headers or {})
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, rh, text = r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        status, rh, text = e.code, e.headers, e.read().decode()
    except OSError as e:
        raise CheckFailed(f"POST {url}: {e}") from e
    if (rh.get("content-type") or "").startswith("text/event-stream"):
        msgs = [json.loads(l[5:]) for l in text.splitlines() if l.startswith("data:") and l[5:].strip()]
        msgs = [m for m in msgs if "id" in m]
        answer = msgs[-1] if msgs else None
    else:
        answer = json.loads(text) if text.strip() else None
    return status, rh, answer


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        raise CheckFailed(f"GET {url}: {e}") from e


def result_of(answer, what):
    if not isinstance(answer, dict) or "result" not in answer:
        raise CheckFailed(f"{what}: expected a JSON-RPC result, got {answer}")
    return answer["result"]


def modern_call(base, product, method, params, capabilities=None):
    """One 2026-07-28 request (no session): the protocol version and capabilities ride in _meta."""
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities if capabilities is not None else {"elicitation": {}},
    }
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"]
    _, _, answer = post(f"{base}/{product}/mcp", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers)
    return answer


def tool_error_code(result):
    if result.get("isError") is not True:
        return None
    return ((result.get("structuredContent") or {}).get("error") or {}).get("code") or "error"


def records(result):
    body = result.get("structuredContent")
    if not isinstance(body, (dict, list)):
        try:
            body = json.loads(result["content"][0]["text"])
        except (KeyError, IndexError, ValueError):
            body = None
    if isinstance(body, list):
        return body
    return (body or {}).get("data") or []


# ---- the image alone ------------------------------------------------------------------------


def check_http(base):
    """initialize, notifications/initialized, tools/list on one session, as a 2025 client does."""
    url = f"{base}/banking/mcp"
    status, headers, answer = post(
        url,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "image_check", "version": "1"},
            },
        },
    )
    init = result_of(answer, f"initialize at {url} (HTTP {status})")
    session = headers.get("mcp-session-id")
    if not session:
        raise CheckFailed(f"initialize at {url}: no Mcp-Session-Id header")
    ok(f"initialize: {init['serverInfo']['name']} {init['serverInfo'].get('version', '')}, protocol {init['protocolVersion']}")
    sh = {"mcp-session-id": session, "mcp-protocol-version": init["protocolVersion"]}
    status, _, _ = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sh)
    if status != 202:
        raise CheckFailed(f"notifications/initialized: HTTP {status}, expected 202")
    _, _, answer = post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, sh)
    tools = result_of(answer, "tools/list")["tools"]
    if not tools:
        raise CheckFailed("tools/list: no tools")
    ok(f"tools/list on the session: {len(tools)} tools (first: {tools[0]['name']})")


def check_stdio_answer():
    """The stdout of `docker run -i … serve banking --stdio` fed an initialize and a tools/list."""
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    answers = {}
    for l in lines:
        try:
            m = json.loads(l)
        except ValueError as e:
            raise CheckFailed(f"stdio: a line that is not JSON: {l[:200]}") from e
        answers[m.get("id")] = m
    init = result_of(answers.get(1), "stdio initialize")
    tools = result_of(answers.get(2), "stdio tools/list")["tools"]
    if not tools:
        raise CheckFailed("stdio tools/list: no tools")
    ok(f"stdio: initialize ({init['serverInfo']['name']}, {init['protocolVersion']}) and tools/list ({len(tools)} tools)")


# ---- the reference deployment -----------------------------------------------------------------


def operations(base):
    """The instance's count of answered MCP operations (all methods), from its /metrics."""
    status, text = get(f"{base}/metrics")
    if status != 200:
        raise CheckFailed(f"{base}/metrics: HTTP {status}")
    total = 0.0
    for line in text.splitlines():
        if line.startswith("mcp_server_operation_duration_seconds_count"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def check_balance(lb, a, b):
    before = {n: operations(u) for n, u in (("kobana-mcp-1", a), ("kobana-mcp-2", b))}
    n = 12
    for _ in range(n):
        result_of(modern_call(lb, "banking", "tools/list", {}), "tools/list through the load balancer")
    after = {n_: operations(u) for n_, u in (("kobana-mcp-1", a), ("kobana-mcp-2", b))}
    got = {k: int(after[k] - before[k]) for k in after}
    if any(v == 0 for v in got.values()):
        raise CheckFailed(f"{n} requests through the load balancer did not reach both instances: {got}")
    ok(f"{n} tools/list through the load balancer, answered per instance: {got}")


PRODUCT = "dashboards"  # replay policy `refuse`: a used confirmation answers confirmation_replayed


def delete_target(base):
    """A destructive delete tool with a list and a get tool beside it, and a record to delete."""
    tools = result_of(modern_call(base, PRODUCT, "tools/list", {}), "tools/list")["tools"]
    names = {t["name"]: t for t in tools}
    for t in tools:
        if not (t["name"].endswith("_delete") and (t.get("annotations") or {}).get("destructiveHint")):
            continue
        stem = t["name"][: -len("_delete")]
        required = t["inputSchema"].get("required") or []
        if f"{stem}_list" not in names or f"{stem}_get" not in names or len(required) != 1:
            continue
        listed = records(result_of(modern_call(base, PRODUCT, "tools/call", {"name": f"{stem}_list", "arguments": {}}), "list"))
        ids = [r.get("id") for r in listed if isinstance(r, dict) and isinstance(r.get("id"), str)]
        if ids:
            return {"tool": t["name"], "get": f"{stem}_get", "arg": required[0], "id": ids[0]}
    raise CheckFailed(f"{PRODUCT}: no destructive delete tool with a listed record")


def exists(base, t):
    get_tool = result_of(modern_call(base, PRODUCT, "tools/call", {"name": t["get"], "arguments": {t["arg"]: t["id"]}}), t["get"])
    code = tool_error_code(get_tool)
    if code not in (None, "not_found"):
        raise CheckFailed(f"{t['get']}: {code}")
    return code is None


def yes():
    return {"confirm": {"action": "accept", "content": {"confirm": True}}}


def call_confirmed(base, t, state):
    params = {"name": t["tool"], "arguments": {t["arg"]: t["id"]}, "requestState": state, "inputResponses": yes()}
    return result_of(modern_call(base, PRODUCT, "tools/call", params), f"{t['tool']} with the confirmation")


def check_confirm(a, b, state_file):
    t = delete_target(a)
    asked = result_of(modern_call(a, PRODUCT, "tools/call", {"name": t["tool"], "arguments": {t["arg"]: t["id"]}}), t["tool"])
    if asked.get("resultType") != "input_required" or not asked.get("requestState"):
        raise CheckFailed(f"{t['tool']} on kobana-mcp-1 did not ask for a confirmation: {json.dumps(asked)[:300]}")
    ok(f"{t['tool']} {t['id']} on kobana-mcp-1: asks for a confirmation (input_required)")
    ran = call_confirmed(b, t, asked["requestState"])
    if tool_error_code(ran) is not None:
        raise CheckFailed(f"the confirmation asked on kobana-mcp-1 failed on kobana-mcp-2: {json.dumps(ran)[:300]}")
    if exists(a, t):
        raise CheckFailed(f"{t['tool']} answered success on kobana-mcp-2 but {t['id']} still exists")
    ok("the confirmation answered on kobana-mcp-2 ran there (the record is gone)")
    with open(state_file, "w") as f:
        json.dump({"target": t, "state": asked["requestState"]}, f)
    check_replay(a, state_file, "kobana-mcp-1, the instance that asked")


def check_replay(base, state_file, where):
    with open(state_file) as f:
        saved = json.load(f)
    again = call_confirmed(base, saved["target"], saved["state"])
    code = tool_error_code(again)
    if code != "confirmation_replayed":
        raise CheckFailed(
            f"the used confirmation replayed on {where}: expected confirmation_replayed (the shared Redis ledger), got {code}: {json.dumps(again)[:300]}"
        )
    ok(f"the same confirmation replayed on {where}: confirmation_replayed (shared ledger)")


def check_targets(prom, a_name, b_name, timeout=90):
    want = {a_name, b_name}
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        status, text = get(f"{prom}/api/v1/targets")
        if status == 200:
            active = json.loads(text)["data"]["activeTargets"]
            last = {(t["labels"].get("instance"), t["labels"].get("job")): (t["health"], t.get("lastError")) for t in active}
            up = {inst.split(":")[0] for (inst, job), (health, _) in last.items() if job == "kobana-mcp" and health == "up"}
            if want <= up:
                ok(f"Prometheus scraped both instances: {sorted(up)} up; all targets: {sorted(f'{j}/{i}={h[0]}' for (i, j), h in last.items())}")
                return
        time.sleep(3)
    raise CheckFailed(f"Prometheus did not scrape both instances within {timeout}s: {last}")


def main(argv):
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "http":
            check_http(*args)
        elif cmd == "stdio-answer":
            check_stdio_answer()
        elif cmd == "balance":
            check_balance(*args)
        elif cmd == "confirm":
            check_confirm(*args)
        elif cmd == "replay":
            check_replay(args[0], args[1], args[2] if len(args) > 2 else args[0])
        elif cmd == "targets":
            check_targets(*args)
        else:
            raise CheckFailed(f"unknown check {cmd}")
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr, flush=True)
        return 1
    except (KeyError, TypeError, ValueError) as e:
        print(f"FAILED: {cmd}: unexpected answer ({type(e).__name__}: {e})", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
