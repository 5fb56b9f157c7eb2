// Fresh static state of the libraries under test (issue 41, point 3; docs/recorder.md "Fresh static
// state"): the cost per in-JVM repetition of loading — and so instrumenting again — the jars that hold
// included classes afresh for each repetition (the default), against every jar shared
// (--shared-libraries), on subjects of the real corpus (bench/real/java/<id>: a Maven project driving a
// library at its buggy release; each is copied to a temp folder, built once by `braid test --runs 1`).
// Paired: the two modes alternate, the first mode swapped each round; each recording is `braid record
// --runs N --noise-mode uniform` of the test's console-launcher command (no build step), one JVM.
// Prints per mode the median wall and CPU (user + sys of braid and the JVM) per run, and failing runs.
// Never asserts.
//   nice -n 10 node bench/fresh-libraries-bench.mjs [--runs 60] [--rounds 3] [id...]
//   (default ids: metrics-shareddefault micrometer-otlpindexcache; needs dist/, Maven's ~/.m2 and Debian's junit5)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const braid = path.join(root, 'dist/braid.js');
const argv = process.argv.slice(2);
const option = (name, dflt) => {
  const at = argv.indexOf(name);
  if (at < 0) return dflt;
  const v = Number(argv[at + 1]);
  argv.splice(at, 2);
  return v;
};
const RUNS = option('--runs', 60);
const ROUNDS = option('--rounds', 3);
const ids = argv.length ? argv : ['metrics-shareddefault', 'micrometer-otlpindexcache'];
if (!existsSync(braid) || !existsSync('/usr/bin/time')) {
  console.log('fresh-libraries bench skipped: needs dist/ (npm run build) and /usr/bin/time');
  process.exit(0);
}
const work = mkdtempSync(path.join(os.tmpdir(), 'braid-fresh-libraries-bench-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** wall ms and CPU ms (user + sys of the process and its children) of one command */
function timed(cmd, args, cwd) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '@@cpu %U %S', cmd, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  const m = /@@cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { ms, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN, r };
}

function failedRuns(dir) {
  let failed = 0;
  let runs = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.trace.jsonl'))) {
    runs++;
    const text = readFileSync(path.join(dir, f), 'utf8');
    if (/"outcome"\s*:\s*"fail"/.test(text.slice(text.lastIndexOf('\n', text.length - 2) + 1))) failed++;
  }
  return { runs, failed };
}

console.log(`fresh-libraries bench: ${RUNS} runs per recording, ${ROUNDS} rounds, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
console.log('subject                     mode                 wall ms/run  CPU ms/run  failed (per round)');
for (const id of ids) {
  const src = path.join(root, 'bench/real/java', id);
  const run = JSON.parse(readFileSync(path.join(src, 'run.json'), 'utf8'));
  const ws = path.join(work, id);
  cpSync(src, ws, { recursive: true });
  rmSync(path.join(ws, 'target'), { recursive: true, force: true });
  const include = run.include?.length ? ['--include', ...run.include] : [];
  const first = spawnSync(process.execPath, [braid, 'test', run.test, '--project', ws, ...include, '--runs', '1', '--format', 'json'], { cwd: ws, encoding: 'utf8', maxBuffer: 1 << 28 });
  let command;
  try {
    command = JSON.parse(first.stdout).recording.command;
  } catch {
    console.log(`${id}: braid test failed: ${first.stderr.split('\n').slice(-5).join(' ')}`);
    continue;
  }
  const rows = { fresh: [], shared: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const modes = round % 2 === 0 ? ['fresh', 'shared'] : ['shared', 'fresh'];
    for (const mode of modes) {
      const out = path.join(work, `${id}-${mode}-${round}`);
      const extra = mode === 'shared' ? ['--shared-libraries'] : [];
      const t = timed(process.execPath, [braid, 'record', '--runs', String(RUNS), '--noise-mode', 'uniform', '--seed', String(1000 + round), ...include, ...extra, '--out', out, '--name', id, '--', ...command], ws);
      const f = existsSync(out) ? failedRuns(out) : { runs: 0, failed: 0 };
      rows[mode].push({ wall: t.ms / Math.max(1, f.runs), cpu: t.cpu / Math.max(1, f.runs), ...f });
      rmSync(out, { recursive: true, force: true });
    }
  }
  for (const mode of ['fresh', 'shared']) {
    const r = rows[mode];
    const label = mode === 'fresh' ? 'default (fresh jars)' : '--shared-libraries';
    console.log(
      `${id.padEnd(27)} ${label.padEnd(20)} ${median(r.map((x) => x.wall)).toFixed(0).padStart(11)}  ${median(r.map((x) => x.cpu)).toFixed(0).padStart(10)}  ${r.map((x) => `${x.failed}/${x.runs}`).join(' ')}`,
    );
  }
}
rmSync(work, { recursive: true, force: true });
