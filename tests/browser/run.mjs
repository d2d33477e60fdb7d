// The views' browser test (issue 39): every MCP Apps view of kobana-mcp, rendered from the sandbox
// in headless Chromium (Debian's, driven by puppeteer-core) by a host page built on the official
// host SDK and TypeScript client (host.js), in pt-BR, es and en. Checks: the record's values are
// shown in the locale's format; no console error; no request leaves the page's own origin; a
// screenshot per view and locale; the barcode and QR code the view drew decode (zbarimg) to the
// record's barcode and Pix payload; the billet's cancel button ends in the server's confirmation
// question; a read-only token gets no write button. A record's status shows the catalog's label;
// the cash flow shows receivables, payables and their net for the 13 weeks from the current one;
// in pt-BR at 360 px and at 900 px nothing scrolls horizontally, chart axis labels are short
// dates that do not overlap, and the codes decode from the view as drawn at 360 px.
//
// Environment: KOBANA_MCP_BIN (the binary, default target/debug/kobana-mcp), CHROMIUM (default
// /usr/bin/chromium), VIEWS_SHOTS_DIR (screenshots, default target/views-shots).
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const BIN = process.env.KOBANA_MCP_BIN || path.join(root, "target/debug/kobana-mcp");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SHOTS = path.resolve(process.env.VIEWS_SHOTS_DIR || path.join(root, "target/views-shots"));
const LOCALES = ["pt-BR", "es", "en"];
const failures = [];
const fail = (what) => {
  failures.push(what);
  console.error(`FAIL ${what}`);
};

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} never answered`);
}

// The server, on the sandbox, in a data directory of its own.
const data = mkdtempSync(path.join(os.tmpdir(), "kobana-views-"));
const mcpPort = await freePort();
const server = spawn(BIN, ["serve", "all", "--toolsets", "all", "--http", `127.0.0.1:${mcpPort}`, "--data-dir", data], {
  stdio: ["ignore", "inherit", "inherit"],
});
const cleanup = () => {
  server.kill();
  rmSync(data, { recursive: true, force: true });
};
process.on("exit", cleanup);
await waitFor(`http://127.0.0.1:${mcpPort}/healthz`);

// The host page and its script, and the MCP endpoints proxied on the same origin (no CORS).
const bundle = await esbuild.build({
  entryPoints: [path.join(here, "host.js")],
  bundle: true,
  format: "iife",
  platform: "browser",
  write: false,
});
const script = bundle.outputFiles[0].text;
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:0"><script>${script.replace(/<\/script/g, "<\\/script")}</script></body></html>`;
const hostPort = await freePort();
const host = http.createServer((req, res) => {
  if (req.url === "/favicon.ico") {
    res.writeHead(204);
    res.end();
    return;
  }
  if (req.url === "/" || req.url.startsWith("/?")) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(hostPage);
    return;
  }
  const headers = { ...req.headers, host: `127.0.0.1:${mcpPort}` };
  delete headers.origin;
  const up = http.request({ host: "127.0.0.1", port: mcpPort, path: req.url, method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on("error", () => res.destroy());
  req.pipe(up);
});
await new Promise((r) => host.listen(hostPort, "127.0.0.1", r));
const origin = `http://127.0.0.1:${hostPort}`;

// Records the views show, found through the same server with the TypeScript client.
async function call(product, tool, args, token = "demo-full") {
  const client = new Client({ name: "views-test-setup", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${mcpPort}/${product}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const r = await client.callTool({ name: tool, arguments: args });
  await client.close();
  if (r.isError) throw new Error(`${tool}: ${JSON.stringify(r.content)}`);
  let sc = r.structuredContent;
  if (sc && sc.result !== undefined && Object.keys(sc).length === 1) sc = sc.result;
  return sc;
}
const rowsOf = (sc) => (Array.isArray(sc) ? sc : Object.values(sc).find(Array.isArray) || []);

const billets = rowsOf(await call("banking", "banking_charge_bank_billet_list", { per_page: 50 }));
const billetRow = billets.find((b) => b.status === "opened") || billets[0];
const billet = await call("banking", "banking_charge_bank_billet_get", { id: billetRow.uid });
const pixes = rowsOf(await call("banking", "banking_charge_pix_list", {}));
const pixUid = pixes[0].uid;
const pix = (await call("banking", "banking_charge_pix_get", { uid: pixUid })).data;
// The account whose statement spans the most months.
const accounts = rowsOf(await call("banking", "banking_financial_account_list", {}));
let statementArgs;
let statement = [];
for (const a of accounts.slice(0, 12)) {
  const args = { financial_account_uid: a.uid, group_by: "month" };
  const rows = rowsOf(await call("banking", "banking_financial_statement_summarize", args));
  if (rows.length > statement.length) [statementArgs, statement] = [args, rows];
}
// The cash flow ahead: the 13 weeks from the current one (the server's today, UTC as its prompts'),
// receivables open or charged and payables open due in them, every page.
const iso = (d) => d.toISOString().slice(0, 10);
const today = new Date(`${iso(new Date())}T00:00:00Z`);
const monday = new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * 86400000);
const weeks = Array.from({ length: 13 }, (_, i) => iso(new Date(monday.getTime() + i * 7 * 86400000)));
const windowEnd = iso(new Date(monday.getTime() + (13 * 7 - 1) * 86400000));
async function listAll(tool, args) {
  const out = [];
  for (let page = 1; page < 100; page++) {
    const rows = rowsOf(await call("finance", tool, { ...args, due_date_from: weeks[0], due_date_to: windowEnd, page, per_page: 50 }));
    out.push(...rows);
    if (rows.length < 50) break;
  }
  return out;
}
const receivablesAhead = [
  ...(await listAll("finance_receivables_list", { status: "open" })),
  ...(await listAll("finance_receivables_list", { status: "charged" })),
];
const payablesAhead = await listAll("finance_payables_list", { status: "open" });
const sessions = rowsOf(await call("dashboards", "dashboards_portal_sessions_list", { per_page: 50 }));
const usage = rowsOf(await call("inbox", "usage_list", { per_page: 50 }));

const money = (locale, v) => new Intl.NumberFormat(locale, { style: "currency", currency: "BRL", currencyDisplay: "narrowSymbol" }).format(Number(v));
const day = (locale, v) => new Intl.DateTimeFormat(locale, { dateStyle: "short", timeZone: "UTC" }).format(new Date(`${String(v).slice(0, 10)}T00:00:00Z`));
const sum = (rows, f) => rows.reduce((a, r) => a + (Number(r[f]) || 0), 0);

// Each view: its tool call, the texts it must show in `locale`, and the codes it draws.
const views = [
  {
    name: "billet", product: "banking", tool: "banking_charge_bank_billet_get", args: { id: billet.uid },
    shows: (l) => [billet.customer_person_name, money(l, billet.amount), day(l, billet.expire_at), String(billet.our_number), billet.line.slice(0, 5)],
    codes: [{ field: "barcode", value: billet.barcode }],
    write: "banking_charge_bank_billet_cancel",
    // The status badge shows the catalog's label, never the API's code.
    badge: billet.status === "opened" ? { "pt-BR": "Em aberto", es: "Abierto", en: "Open" } : {},
    status: billet.status,
  },
  {
    name: "pix_charge", product: "banking", tool: "banking_charge_pix_get", args: { uid: pixUid },
    shows: (l) => [pix.payer_name, money(l, pix.amount), pix.txid],
    codes: [{ field: "qrcode.emv", value: pix.qrcode.emv }],
    badge: {},
    status: pix.status,
  },
  {
    name: "statement", product: "banking", tool: "banking_financial_statement_summarize", args: statementArgs,
    shows: (l) => [money(l, sum(statement, "credit_total")), money(l, sum(statement, "debit_total"))],
  },
  {
    name: "cash_flow", product: "finance", tool: "finance_payables_list", args: { per_page: 50 },
    shows: (l) => [
      money(l, sum(receivablesAhead, "amount")),
      money(l, sum(payablesAhead, "amount")),
      money(l, sum(receivablesAhead, "amount") - sum(payablesAhead, "amount")),
    ],
    periods: weeks,
  },
  {
    name: "portal_access", product: "dashboards", tool: "dashboards_portal_sessions_list", args: { per_page: 50 },
    shows: (l) => [new Intl.NumberFormat(l).format(sessions.filter((s) => s.started_at).length)],
  },
  {
    name: "usage", product: "inbox", tool: "usage_list", args: { per_page: 50 },
    shows: (l) => [new Intl.NumberFormat(l).format(sum(usage, "emails_processed")), new Intl.NumberFormat(l).format(sum(usage, "agent_runs"))],
  },
];

mkdirSync(SHOTS, { recursive: true });
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"],
});

async function open(tag, width = 420) {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900, deviceScaleFactor: 2 });
  page.on("console", (m) => {
    if (m.type() === "error") fail(`${tag}: console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => fail(`${tag}: page error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) console.error(`${tag}: ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on("requestfailed", (r) => {
    if (!r.url().startsWith(origin)) fail(`${tag}: request failed ${r.url()}`);
  });
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith("data:") && !u.startsWith("about:")) fail(`${tag}: request left the page: ${u}`);
  });
  await page.goto(`${origin}/`);
  return page;
}

async function viewFrame(page) {
  const handle = await page.waitForSelector("#view");
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => document.getElementById("waiting")?.hidden === true, { timeout: 15000 });
  return { handle, frame };
}

// A code the view drew, decoded by zbarimg from a screenshot of it alone.
async function decode(frame, field, file) {
  const svg = await frame.$eval(`figure[data-code="${field}"] svg`, (e) => e.outerHTML).catch(() => null);
  if (!svg) return null;
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  await page.setContent(`<body style="margin:20px;background:#fff">${svg}</body>`);
  const el = await page.$("svg");
  await el.screenshot({ path: file });
  await page.close();
  try {
    return execFileSync("zbarimg", ["--raw", "-q", "-Si25.enable", file], { encoding: "utf8" }).trim();
  } catch (e) {
    return `(zbarimg failed: ${e.status})`;
  }
}

// What must hold at any width: nothing scrolls horizontally (not the page, not an element
// inside it), and a chart's axis labels are short dates that neither overlap nor leave the plot.
async function layoutProblems(frame, v, locale) {
  const found = await frame.evaluate(() => {
    const out = [];
    const de = document.documentElement;
    if (de.scrollWidth > window.innerWidth) out.push(`the page is ${de.scrollWidth} px wide in ${window.innerWidth}`);
    for (const e of document.querySelectorAll("body *")) {
      if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && getComputedStyle(e).overflowX !== "visible") {
        out.push(`<${e.tagName.toLowerCase()} class="${e.className}"> scrolls (${e.scrollWidth} in ${e.clientWidth})`);
      }
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > window.innerWidth + 0.5) out.push(`<${e.tagName.toLowerCase()}> ends at ${Math.round(r.right)} px`);
    }
    const plot = document.querySelector("#plot svg");
    const labels = [...document.querySelectorAll("#plot text")].map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
    if (plot) {
      const box = plot.getBoundingClientRect();
      labels.forEach((l, i) => {
        if (l.r.left < box.left - 0.5 || l.r.right > box.right + 0.5) out.push(`axis label ${l.text} leaves the plot`);
        const next = labels[i + 1];
        if (next && next.r.left < l.r.right) out.push(`axis labels ${l.text} and ${next.text} overlap`);
      });
    }
    return { out: [...new Set(out)].slice(0, 6), labels: labels.map((l) => l.text) };
  });
  if (v.periods || ["portal_access", "usage"].includes(v.name)) {
    // Day and week charts: day and month, in the locale's order (dd/mm, or mm/dd in English).
    const short = /^\d{1,2}\/\d{1,2}$/;
    for (const l of found.labels) if (!short.test(l)) found.out.push(`axis label ${JSON.stringify(l)} is not a short date`);
  }
  if (v.name !== "billet" && v.name !== "pix_charge" && found.labels.length === 0) found.out.push("no axis label");
  return found.out;
}

const report = [];
for (const v of views) {
  for (const locale of LOCALES) {
    const tag = `${v.name}.${locale}`;
    const page = await open(tag);
    try {
      await page.evaluate((o) => window.showView(o), { product: v.product, token: "demo-full", locale, tool: v.tool, args: v.args, theme: "light", width: 360 });
      const { handle, frame } = await viewFrame(page);
      await new Promise((r) => setTimeout(r, 300));
      const text = await frame.evaluate(() => document.body.innerText);
      const lang = await frame.evaluate(() => document.documentElement.lang);
      if (lang !== locale) fail(`${tag}: page language ${lang}`);
      for (const want of v.shows(locale)) {
        if (!text.includes(want)) fail(`${tag}: does not show ${JSON.stringify(want)}`);
      }
      for (const p of await layoutProblems(frame, v, locale)) fail(`${tag}: ${p}`);
      if (v.status !== undefined) {
        const badge = await frame.$eval("#badge", (e) => e.textContent).catch(() => null);
        if (!badge || badge === v.status) fail(`${tag}: the status badge shows ${JSON.stringify(badge)}, not the label of ${v.status}`);
        if (v.badge[locale] && badge !== v.badge[locale]) fail(`${tag}: the status badge shows ${JSON.stringify(badge)}, not ${v.badge[locale]}`);
      }
      if (v.periods) {
        const shown = await frame.$$eval("#table tr[data-period]", (rows) => rows.map((r) => r.dataset.period));
        if (JSON.stringify(shown) !== JSON.stringify(v.periods)) fail(`${tag}: periods ${shown.join(", ")}, not ${v.periods.join(", ")}`);
        const series = await frame.$$eval("#legend [data-series]", (s) => s.map((e) => e.dataset.series));
        if (JSON.stringify(series) !== JSON.stringify(["receivables", "payables", "net"])) fail(`${tag}: series ${series.join(", ")}`);
      }
      await handle.screenshot({ path: path.join(SHOTS, `${tag}.png`) });
      for (const c of v.codes || []) {
        const decoded = await decode(frame, c.field, path.join(SHOTS, `${tag}.${c.field}.png`));
        if (decoded !== c.value) fail(`${tag}: ${c.field} decodes to ${decoded}, the record has ${c.value}`);
        else if (locale === "pt-BR") report.push(`${v.name}: ${c.field} decoded ${decoded} = record ${c.value}`);
      }
      if (v.write && locale === "pt-BR") {
        const button = await frame.$(`button[data-tool="${v.write}"]`);
        if (!button) fail(`${tag}: no ${v.write} button for a full token`);
        else {
          await button.click();
          await page.waitForFunction(() => window.questions.length > 0, { timeout: 15000 }).catch(() => {});
          const q = await page.evaluate(() => window.questions);
          if (!q.length) fail(`${tag}: ${v.write} asked no confirmation`);
          else report.push(`${v.name}: ${v.write} button → the server's question: ${q[0]}`);
          const still = await call(v.product, v.tool, v.args);
          if (still.status !== billet.status) fail(`${tag}: the declined ${v.write} changed the record (${still.status})`);
        }
      }
    } catch (e) {
      fail(`${tag}: ${e.stack || e}`);
    }
    await page.close();
  }
  // In pt-BR on a 360 px wide screen, and on a desktop: the same checks, a screenshot of each;
  // the codes decoded from the view as drawn on the small screen (scaled to fit).
  for (const width of [360, 900]) {
    const tag = `${v.name}.pt-BR.${width}`;
    const page = await open(tag, width);
    try {
      await page.evaluate((o) => window.showView(o), { product: v.product, token: "demo-full", locale: "pt-BR", tool: v.tool, args: v.args, theme: "light", width });
      const { handle, frame } = await viewFrame(page);
      await new Promise((r) => setTimeout(r, 300));
      for (const p of await layoutProblems(frame, v, "pt-BR")) fail(`${tag}: ${p}`);
      await handle.screenshot({ path: path.join(SHOTS, `${tag}.png`) });
      for (const c of width === 360 ? v.codes || [] : []) {
        const drawn = await frame.$(`figure[data-code="${c.field}"] svg`);
        const file = path.join(SHOTS, `${tag}.${c.field}.png`);
        await drawn.screenshot({ path: file });
        let decoded;
        try {
          decoded = execFileSync("zbarimg", ["--raw", "-q", "-Si25.enable", file], { encoding: "utf8" }).trim();
        } catch (e) {
          decoded = `(zbarimg failed: ${e.status})`;
        }
        if (decoded !== c.value) fail(`${tag}: ${c.field} as drawn at 360 px decodes to ${decoded}, the record has ${c.value}`);
        else report.push(`${v.name}: ${c.field} at 360 px decoded = record`);
      }
    } catch (e) {
      fail(`${tag}: ${e.stack || e}`);
    }
    await page.close();
  }
  if (v.write) {
    const page = await open(`${v.name}.readonly`);
    await page.evaluate((o) => window.showView(o), { product: v.product, token: "demo-readonly", locale: "pt-BR", tool: v.tool, args: v.args, theme: "dark", width: 360 });
    const { handle, frame } = await viewFrame(page);
    if (await frame.$("button[data-tool]")) fail(`${v.name}: a read-only token got a write button`);
    await handle.screenshot({ path: path.join(SHOTS, `${v.name}.readonly.dark.png`) });
    await page.close();
  }
}

await browser.close();
host.close();
for (const line of report) console.log(line);
console.log(`screenshots: ${SHOTS}`);
if (failures.length) {
  console.error(`${failures.length} failure(s)`);
  process.exit(1);
}
console.log(`views browser test: ${views.length} views × ${LOCALES.length} locales passed`);
process.exit(0);
