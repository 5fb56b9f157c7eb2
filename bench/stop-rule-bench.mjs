// The stop rule of `braid test --runs auto` (issue 40 item 5) on two JUnit tests of
// test/fixtures/junit5-twobugs: `sellAndBook`, two independent bugs behind one test (the Stock's
// oversell, frequent; the Ledger's lost posting, rare), and `countPages`, a race inside
// java.util.HashMap that no recorded pattern separates. Each test is run N times (default 10) with
// the defaults and seeds 1..N (`braid test … --format json --seed k`), one after the other, each on a
// fresh copy of the project. Prints per run: runs, failed (and which bug made each failing run, from
// the runs' failure messages), why it stopped, the GRIFFIN bugs with their evidence, whether each
// bug's root cause is a bug's lead (its lead pattern's accesses all on the bug's variable) and the
// exit code; then the totals. Prints, never asserts. Needs dist/ (npm run build).
//   nice -n 10 node bench/stop-rule-bench.mjs [--n 10] [--only twobugs|hashmap] [-- extra braid test options]
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/braid.js');
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const extra = dash >= 0 ? args.slice(dash + 1) : [];
const opts = dash >= 0 ? args.slice(0, dash) : args;
const opt = (name, dflt) => (opts.includes(name) ? opts[opts.indexOf(name) + 1] : dflt);
const N = Number(opt('--n', 10));
const only = opt('--only', undefined);

const SUBJECTS = [
  {
    name: 'twobugs',
    test: 'shop.ShopTest#sellAndBook',
    bugs: [
      { name: 'oversell', variable: 'shop.Stock.available', message: /reserved twice/ },
      { name: 'lost-post', variable: 'shop.Ledger.balance', message: /ledger balance/ },
    ],
  },
  { name: 'hashmap', test: 'shop.ShopTest#countPages', bugs: [] },
];

function run(cmd, argv, cwd) {
  return new Promise((resolve) => {
    const p = spawn(cmd, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Which bug made each failing run (its failure message), from the trace folder's outcome lines. */
function groundTruth(traces, bugs) {
  const counts = Object.fromEntries(bugs.map((b) => [b.name, 0]));
  for (const f of readdirSync(traces).filter((x) => x.endsWith('.trace.jsonl'))) {
    const text = readFileSync(path.join(traces, f), 'utf8');
    const k = text.lastIndexOf('{"outcome"');
    if (k < 0) continue;
    const o = JSON.parse(text.slice(k, text.indexOf('\n', k) > 0 ? text.indexOf('\n', k) : undefined));
    if (o.outcome !== 'fail') continue;
    for (const b of bugs) if (b.message.test(o.message ?? '')) counts[b.name]++;
  }
  return counts;
}

const variablesOf = (key) => [...key.matchAll(/[RW]\d:([^@|]+)@/g)].map((m) => m[1]);

const totals = {};
console.log(`stop-rule-bench: ${N} runs per test, seeds 1..${N}, defaults${extra.length ? ` + ${extra.join(' ')}` : ''}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const s of SUBJECTS) {
  if (only && s.name !== only) continue;
  const t = (totals[s.name] = { both: 0, codes: {}, stopped: {}, runs: [], seconds: [] });
  console.log(`\n== ${s.name}: braid test ${s.test}`);
  for (let seed = 1; seed <= N; seed++) {
    const ws = mkdtempSync(path.join(tmpdir(), 'stop-rule-bench-'));
    cpSync(path.join(root, 'test/fixtures/junit5-twobugs'), ws, { recursive: true });
    const started = Date.now();
    const r = await run(process.execPath, [cli, 'test', s.test, '--project', ws, '--format', 'json', '--seed', String(seed), ...extra], ws);
    const wall = (Date.now() - started) / 1000;
    let j;
    try {
      j = JSON.parse(r.out);
    } catch {
      console.log(`seed ${seed}: exit ${r.code}, no JSON report: ${r.err.trim().split('\n').slice(-3).join(' | ')}`);
      t.codes[r.code] = (t.codes[r.code] ?? 0) + 1;
      rmSync(ws, { recursive: true, force: true });
      continue;
    }
    const rec = j.recording;
    const truth = s.bugs.length ? groundTruth(rec.traces, s.bugs) : {};
    const bugs = (j.bugs ?? []).map((b) => ({ lead: b.patternKeys?.[0] ?? '', failing: b.evidence.failingRuns, p: b.evidence.pValue }));
    const withEvidence = bugs.filter((b) => b.p < 0.05);
    const found = s.bugs.map((b) => withEvidence.some((x) => variablesOf(x.lead).length > 0 && variablesOf(x.lead).every((v) => v === b.variable)));
    const both = s.bugs.length > 0 && found.every(Boolean);
    if (both) t.both++;
    t.codes[r.code] = (t.codes[r.code] ?? 0) + 1;
    t.stopped[rec.stopped] = (t.stopped[rec.stopped] ?? 0) + 1;
    t.runs.push(rec.runs);
    t.seconds.push(wall);
    const bugText = bugs.map((b) => `[${variablesOf(b.lead)[0] ?? '?'} ${b.failing} failing, p ${b.p.toPrecision(2)}]`).join(' ');
    const truthText = s.bugs.length ? ` (${s.bugs.map((b) => `${b.name} ${truth[b.name]}`).join(', ')})` : '';
    console.log(
      `seed ${seed}: ${rec.runs} runs, ${rec.failed} failed${truthText}, ${wall.toFixed(0)} s, stopped ${rec.stopped}, lead p ${rec.leadPValue === null ? 'none' : rec.leadPValue.toPrecision(2)}; ` +
        `bugs ${bugs.length} (${withEvidence.length} with evidence) ${bugText}${s.bugs.length ? `; ${s.bugs.map((b, k) => `${b.name} ${found[k] ? 'reported' : 'MISSED'}`).join(', ')}` : ''}; exit ${r.code}` +
        (rec.message ? `\n    message: ${rec.message.slice(0, 300)}` : ''),
    );
    rmSync(ws, { recursive: true, force: true });
  }
}

const median = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
console.log('\n== totals');
for (const [name, t] of Object.entries(totals)) {
  const codes = Object.entries(t.codes).map(([c, n]) => `exit ${c}: ${n}`).join(', ');
  const stopped = Object.entries(t.stopped).map(([c, n]) => `${c} ${n}`).join(', ');
  console.log(`${name}: ${name === 'twobugs' ? `both bugs reported in ${t.both} of ${t.runs.length}; ` : ''}${codes}; stopped: ${stopped}; runs median ${median(t.runs)} (${Math.min(...t.runs)}–${Math.max(...t.runs)}); wall median ${median(t.seconds).toFixed(0)} s`);
}
console.log(`load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
