// The test host page's script (bundled by esbuild in run.mjs): an MCP host built on the official
// host SDK (@modelcontextprotocol/ext-apps, its AppBridge) and the official TypeScript client. It
// connects to kobana-mcp declaring the MCP Apps extension, calls a view's tool, reads the view the
// tool names in `_meta.ui.resourceUri`, renders it in a sandboxed iframe and hands it the result.
// The server's confirmation questions (elicitation) are recorded and declined.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";

window.questions = [];

async function connect(product, token, locale) {
  const client = new Client(
    { name: "kobana-views-test-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} }, extensions: { [UI]: { mimeTypes: [MIME] } } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    window.questions.push(request.params.message);
    return { action: "decline" };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`/${product}/mcp`, location.origin), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, "Accept-Language": locale } },
  });
  await client.connect(transport);
  return client;
}

// One 2026-07-28 request (stateless: its capabilities in `_meta`).
async function modernCall(product, token, locale, method, params) {
  const body = {
    jsonrpc: "2.0",
    id: Date.now(),
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, extensions: { [UI]: { mimeTypes: [MIME] } } },
      },
    },
  };
  const res = await fetch(`/${product}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Accept-Language": locale,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(params.name ? { "Mcp-Name": params.name } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith("{") ? text : text.split("\n").filter((l) => l.startsWith("data:")).pop().slice(5);
  return JSON.parse(data);
}

// Calls `tool` and renders its view at `width` px; answers the result and the page's settings.
window.showView = async ({ product, token, locale, tool, args, theme, width }) => {
  const client = await connect(product, token, locale);
  const ui = client.getServerCapabilities()?.extensions?.[UI];
  if (!ui) throw new Error("the server did not declare the MCP Apps extension");
  const { tools } = await client.listTools();
  const uri = tools.find((t) => t.name === tool)?._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view`);
  const result = await client.callTool({ name: tool, arguments: args });
  const read = await client.readResource({ uri });
  const page = read.contents[0];
  if (page.mimeType !== MIME) throw new Error(`view ${uri} is ${page.mimeType}`);
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.id = "view";
  iframe.style.cssText = `width:${width}px;height:400px;border:0;display:block`;
  document.body.appendChild(iframe);
  const dark = theme === "dark";
  const bridge = new AppBridge(
    client,
    { name: "kobana-views-test-host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, logging: {} },
    {
      hostContext: {
        theme,
        locale,
        displayMode: "inline",
        containerDimensions: { width, maxHeight: 4000 },
        styles: { variables: { "--color-background-primary": dark ? "#0b1220" : "#ffffff", "--color-text-primary": dark ? "#e5e7eb" : "#111827" } },
      },
    },
  );
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // (Set after `connect`, which installs the SDK's own forwarding.) A button's tool call goes to the server as a 2026-07-28 request, whose destructive tools get
  // the server's confirmation question (a 2025 session has no way to be asked): the host shows
  // the question (here: records it) and, declining, answers the view with it.
  bridge.oncalltool = async (params) => {
    const answer = await modernCall(product, token, locale, "tools/call", params);
    if (answer.error) throw new Error(answer.error.message);
    const r = answer.result;
    if (r.resultType === "input_required") {
      const question = r.inputRequests?.confirm?.params?.message ?? JSON.stringify(r.inputRequests);
      window.questions.push(question);
      return { content: [{ type: "text", text: question }], isError: true };
    }
    return r;
  };
  iframe.srcdoc = page.text;
  await initialized;
  await bridge.sendToolResult(result);
  window.bridge = bridge;
  return { uri, result, meta: page._meta };
};
