/**
 * The Node.js recorder on the Node.js subjects (issue 32; test/fixtures/node/<name>/, truth.json):
 * each subject recorded N times with noise from its own folder (so that its files are not under
 * `test/`, which the analysis would take for test code), analyzed, and scored: the position of the
 * first root-cause pattern (all accesses on `// @bug` lines), and the GRIFFIN bugs found against the
 * bugs of truth.json, and whether each GRIFFIN bug's suspicious methods are methods the real fix
 * changed (truth.json `fixMethods`; the bug named by the `// @bug <name>` tags of its lead pattern's
 * lines). A method matches a fixed method when it is the same, one names the other with its class
 * (`CacheServer.get` / `get`), or it is a function nested in it (`serveFs/<anonymous>`: the fix goes
 * into serveFs's body; `handle in createApp`: a named function, or the one it was made in) —
 * bench/realCorpus.ts `isFixMethod`.
 *
 *   node --import tsx bench/nodeEval.ts [subject...] [--runs N] [--noise P] [--recorded]
 *
 * `--recorded`: the committed recordings (test/fixtures/node-recorded/<subject>, 60 runs each) instead
 * of new runs.
 *
 * Figures are printed, never asserted. Needs dist/ (node scripts/build.mjs).
 */
import { readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles, patternAt, patternCount, RankedPattern } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { bugLinesIn, isRootCause } from '../test/helpers/rootCause';
import { isFixMethod } from './realCorpus';

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = value('--runs', '40');
const noise = value('--noise', '0.3');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--noise'].includes(args[k - 1]));
const base = path.join(root, 'test/fixtures/node');
const subjects = readdirSync(base).filter((n) => existsSync(path.join(base, n, 'truth.json')) && (!named.length || named.includes(n)));

const recordedOnly = args.includes('--recorded');

/** `// @bug <name>` tags of a subject: file:line → bug name. */
function bugTags(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of bugLinesIn(dir, ['.js', '.mjs', '.cjs', '.ts'])) {
    const text = readFileSync(path.join(dir, b.file), 'utf8').split('\n')[b.line - 1];
    const m = /\/\/\s*@bug\s+([\w-]+)/.exec(text);
    if (m) out.set(`${path.basename(b.file)}:${b.line}`, m[1]);
  }
  return out;
}

async function main() {
  console.log(`| subject | runs (failed) | patterns | first root-cause pattern | bugs in truth | GRIFFIN bugs | suspicious method = fix (first thread; any) | seconds |`);
  console.log(`|---|---|---:|---:|---:|---:|---|---:|`);
  let bugsSeen = 0;
  let firstOk = 0;
  let anyOk = 0;
  for (const name of subjects) {
    const dir = path.join(base, name);
    const truth = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8'));
    const tags = bugTags(dir);
    const prefix = `test/fixtures/node/${name}/`;
    const command = String(truth.command).split(' ').map((w) => (w.startsWith(prefix) ? w.slice(prefix.length) : w));
    const out = recordedOnly ? path.join(root, 'test/fixtures/node-recorded', name) : path.join(os.tmpdir(), `braid-node-eval-${name}`);
    const t0 = Date.now();
    if (!recordedOnly) {
      rmSync(out, { recursive: true, force: true });
      const r = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'record', '--runs', runs, '--noise', noise, '--seed', '1000', '--jobs', '2', '--timeout', '30', '--out', out, '--', ...command], { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) {
        console.log(`| ${name} | record failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-1)[0]} | | | | | | |`);
        continue;
      }
    }
    const seconds = (Date.now() - t0) / 1000;
    const { files } = await findTraceFiles([out]);
    const result = await analyzeTraceFiles(files);
    const bugs = bugLinesIn(dir, ['.js', '.mjs', '.cjs', '.ts']).map((b) => ({ ...b }));
    const n = patternCount(result);
    let first = 0;
    for (let k = 0; k < n; k++) if (isRootCause(patternAt<RankedPattern>(result, k)!, bugs)) { first = k + 1; break; }
    const found = result.executions.failed ? explainBugs(undefined, result, {}).filter((b) => !b.evidence?.weak) : [];
    const methods = found.map((b) => {
      const lead = result.patterns[b.patterns[0]];
      const named = new Set((lead?.accesses ?? []).map((a) => tags.get(`${path.basename(a.file)}:${a.line}`)).filter((x): x is string => !!x));
      const fixes = [...named].flatMap((k) => (truth.bugs?.[k]?.fixMethods as string[] | undefined) ?? []);
      const ms = b.suspiciousMethods.map((m) => m.method);
      const ok1 = ms.length > 0 && isFixMethod(ms[0], fixes);
      const okAny = ms.some((m) => isFixMethod(m, fixes));
      bugsSeen++;
      if (ok1) firstOk++;
      if (okAny) anyOk++;
      return `${[...named].join('+') || '?'}: ${ms.map((m) => `${isFixMethod(m, fixes) ? '✓' : '✗'}${m}`).join(' ')}`;
    });
    console.log(`| ${name} | ${result.executions.total} (${result.executions.failed}) | ${n} | ${first || '–'} | ${Object.keys(truth.bugs ?? {}).length} | ${found.length} | ${methods.join('; ') || '–'} | ${seconds.toFixed(1)} |`);
  }
  console.log(`\nGRIFFIN bugs with evidence: ${bugsSeen}; first thread's suspicious method a fixed method: ${firstOk}; some thread's: ${anyOk}`);
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
