// Scores one conformance run: `node report.mjs <results-dir> <revision>`.
//
// Reads the frozen requirement list of <revision> from the installed suite, then every
// `<results-dir>/server-<scenario>-<timestamp>/checks.json`. A required scenario passes when none of
// its checks is a FAILURE; a required scenario with no result file counts as failed. Prints the
// failures (and warnings), the not-scored scenarios for information, and a closing line
// `conformance-<rev>: N passed, M failed`. Exits 1 when any required scenario failed.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

const [resDir, rev] = process.argv.slice(2);
if (!resDir || !rev) {
  console.error("usage: node report.mjs <results-dir> <revision>");
  process.exit(2);
}
const reqFile = join("node_modules/@modelcontextprotocol/conformance/requirements", `${rev}.yaml`);
if (!existsSync(reqFile)) {
  console.error(`report.mjs: no requirement list for revision ${rev} (${reqFile}); run npm ci first`);
  process.exit(2);
}

// The requirement files are flat YAML: a top-level `server:` key followed by `  - name` items.
function serverScenarios(text) {
  const out = [];
  let inServer = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "");
    if (/^\S/.test(line)) inServer = line.trim() === "server:";
    else if (inServer) {
      const m = line.match(/^\s+-\s+(\S+)\s*$/);
      if (m) out.push(m[1]);
    }
  }
  return out;
}

const scored = new Set(serverScenarios(readFileSync(reqFile, "utf8")));
const results = new Map(); // scenario -> checks
if (existsSync(resDir)) {
  for (const dir of readdirSync(resDir)) {
    const m = dir.match(/^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/);
    const file = join(resDir, dir, "checks.json");
    if (!m || !existsSync(file)) continue;
    results.set(m[1], JSON.parse(readFileSync(file, "utf8")));
  }
}

let passed = 0;
const failed = [];
for (const name of [...scored].sort()) {
  const checks = results.get(name);
  if (!checks) {
    failed.push(`${name} (no result: the scenario did not run or crashed)`);
    continue;
  }
  const bad = checks.filter((c) => c.status === "FAILURE");
  const warn = checks.filter((c) => c.status === "WARNING");
  for (const w of warn) console.log(`WARNING ${name}: ${w.id}: ${w.errorMessage ?? w.description}`);
  if (bad.length) failed.push(`${name}: ${bad.map((c) => `${c.id} (${c.errorMessage ?? c.description})`).join("; ")}`);
  else passed++;
}
const extra = [...results.keys()].filter((n) => !scored.has(n)).sort();
for (const name of extra) {
  const bad = results.get(name).filter((c) => c.status === "FAILURE").length;
  console.log(`not scored: ${name}: ${bad ? `${bad} failing check(s)` : "pass"}`);
}
for (const f of failed) console.log(`FAILED ${f}`);
console.log(`conformance-${rev}: ${passed} passed, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
