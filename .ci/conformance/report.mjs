// Scores one conformance run: `node report.mjs <results-dir> <revision>`.
//
// Reads the frozen requirement list of <revision> from the installed suite, then every
// `<results-dir>/server-<scenario>-<timestamp>/checks.json`. A required scenario passes when none of
// its checks is a FAILURE; a required scenario with no result file counts as failed. Prints the
// failures (and warnings), the not-scored scenarios for information, and a closing line
// `conformance-<rev>: N passed, M failed`. Exits 1 when any required scenario failed.
//
// Then the full run (every scenario the suite ran for <revision>, required or not scored, e.g. the
// Tasks extension and json-schema-2020-12): its check totals, and a second closing line
// `conformance-<rev>-full: N passed, M failed` (scenarios). The full run gates too: a FAILURE
// check anywhere fails it, and so does a WARNING unless deliberate.json lists it (scenario:check,
// with the reason we keep it); a listed warning that no longer occurs is reported as stale.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

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

// The full run.
const deliberatePath = join(dirname(fileURLToPath(import.meta.url)), "deliberate.json");
const deliberate = existsSync(deliberatePath) ? JSON.parse(readFileSync(deliberatePath, "utf8")) : {};
const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
let fullPassed = 0;
const fullFailed = [];
const seenDeliberate = new Set();
for (const [name, checks] of [...results.entries()].sort()) {
  let bad = false;
  for (const c of checks) {
    counts[c.status] = (counts[c.status] ?? 0) + 1;
    const key = `${name}:${c.id}`;
    if (c.status === "FAILURE") {
      bad = true;
      console.log(`FULL-RUN FAILURE ${key}: ${c.errorMessage ?? c.description}`);
    } else if (c.status === "WARNING") {
      if (deliberate[key]) {
        seenDeliberate.add(key);
        console.log(`full-run warning (deliberate) ${key}: ${deliberate[key]}`);
      } else {
        bad = true;
        console.log(`FULL-RUN WARNING ${key}: ${c.errorMessage ?? c.description}`);
      }
    }
  }
  if (bad) fullFailed.push(name);
  else fullPassed++;
}
for (const key of Object.keys(deliberate)) {
  const scenario = key.slice(0, key.indexOf(":"));
  if (results.has(scenario) && !seenDeliberate.has(key)) console.log(`note: deliberate.json lists ${key}, which did not warn in this run`);
}
for (const name of scored) if (!results.has(name)) fullFailed.push(name);
console.log(
  `conformance-${rev} full run: ${Object.entries(counts).map(([k, v]) => `${v} ${k.toLowerCase()}`).join(", ")} (checks)`,
);
console.log(`conformance-${rev}-full: ${fullPassed} passed, ${fullFailed.length} failed`);
process.exit(failed.length || fullFailed.length ? 1 : 0);
