/**
 * The JS/TS lens' time against one plain run (issue 42, item 5; docs/recorder-node.md "Repetitions in
 * one process"): on the TypeScript e2e fixture test/fixtures/e2e/ts-flaky, the lens' command (node:test
 * with tsx, one test by name) run plainly, recorded once (the recorder's overhead per run), and recorded
 * as the lens records it (N runs, noise 0.5, 2 jobs) and analyzed — with repetitions in one process (the
 * default, node/nodeRepetitions.ts) and with --fresh-process (one process per run, as before), in
 * paired rounds whose order alternates, each round with a plain run of its own. Figures are printed,
 * never asserted. `--runner mocha`: the same with the lens' mocha command on the mocha project of
 * test/recorder/nodeMochaRepetitions.test.ts (test-output/npm-runners/mocha-repeat, installed by that
 * test), `npx --no -- mocha test/accounts.spec.js --grep …`. Each round also records the repetitions
 * with their next worker not started ahead (BRAID_NODE_REPEAT_AHEAD=0, nodeRepeatDriver.ts), the paired
 * figure of what starting ahead saves; `--no-fresh` leaves out the one-process-per-run recording.
 *
 *   node --import tsx bench/nodeLensTime.ts [--runs N] [--pairs K] [--runner node-test|mocha] [--no-fresh]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../server/src/engine/analysis';

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const runner = args.includes('--runner') ? args[args.indexOf('--runner') + 1] : 'node-test';
if (runner !== 'node-test' && runner !== 'mocha') throw new Error(`--runner ${runner}: node-test or mocha`);
const project = runner === 'mocha' ? path.join(root, 'test-output/npm-runners/mocha-repeat') : path.join(root, 'test/fixtures/e2e/ts-flaky');
if (runner === 'mocha' && !existsSync(path.join(project, 'node_modules', 'mocha'))) throw new Error(`${project} has no mocha: run node scripts/test.mjs nodeMochaRepetitions first (it installs the project)`);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? Number(args[k + 1]) : Number(d);
};
const runs = value('--runs', '30');
const pairs = value('--pairs', '3');
const command =
  runner === 'mocha'
    ? ['npx', '--no', '--', 'mocha', 'test/accounts.spec.js', '--grep', '^two withdrawals are both taken$']
    : ['node', '--import', 'tsx', '--test', '--test-name-pattern=^two concurrent orders are both reserved$', 'src/inventory.test.ts'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function plainRun(): number {
  const t = Date.now();
  spawnSync(command[0], command.slice(1), { cwd: project, stdio: 'ignore' });
  return Date.now() - t;
}

interface Lens {
  recordMs: number;
  analyzeMs: number;
  failed: number;
  first: string;
  processes?: number;
}

type Mode = 'before' | 'not-ahead' | 'after';
const MODE_NAME: Record<Mode, string> = { before: 'one process per run (--fresh-process)', 'not-ahead': 'repetitions, next worker not started ahead', after: 'repetitions, next worker started ahead' };

async function lens(out: string, seed: number, mode: Mode): Promise<Lens> {
  const fresh = mode === 'before';
  if (mode === 'not-ahead') process.env.BRAID_NODE_REPEAT_AHEAD = '0';
  else delete process.env.BRAID_NODE_REPEAT_AHEAD;
  const t = Date.now();
  const s = await recordRuns(parseRecordArgs(['--runs', String(runs), '--noise', '0.5', '--seed', String(seed), '--jobs', '2', ...(fresh ? ['--fresh-process'] : []), '--out', out, '--', ...command], project));
  const recordMs = Date.now() - t;
  const a = Date.now();
  const r = await analyzeTraceFiles(s.traces);
  const analyzeMs = Date.now() - a;
  const first = r.patterns[0]?.accesses.map((x) => `${x.type} ${path.basename(x.file)}:${x.line}`).join(' / ') ?? 'none';
  return { recordMs, analyzeMs, failed: s.failed, first, ...(s.nodeRepetitions ? { processes: s.nodeRepetitions.processes } : {}) };
}

async function main(): Promise<void> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'braid-lens-time-'));
  try {
    // one recorded run without noise, one process (the recorder's overhead on a whole test process)
    const one: number[] = [];
    const plain: number[] = [];
    for (let k = 0; k < 3; k++) {
      plain.push(plainRun());
      const s = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', String(k + 1), '--fresh-process', '--out', path.join(out, `one-${k}`), '--', ...command], project));
      one.push(s.runs[0]?.durationMs ?? Number.NaN);
    }
    console.log(`${path.basename(project)}, ${command.join(' ')}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(`plain run (median of 3): ${median(plain)} ms; recorded run, no noise, a process of its own (median of 3): ${median(one)} ms — recorder overhead ${(median(one) / median(plain)).toFixed(2)}×`);
    const modes: Mode[] = args.includes('--no-fresh') ? ['not-ahead', 'after'] : ['before', 'not-ahead', 'after'];
    const ratio: Record<Mode, number[]> = { before: [], 'not-ahead': [], after: [] };
    const perRun: Record<Mode, number[]> = { before: [], 'not-ahead': [], after: [] };
    for (let k = 0; k < pairs; k++) {
      const p = plainRun();
      const order = k % 2 === 0 ? modes : [...modes].reverse();
      for (const which of order) {
        const l = await lens(path.join(out, `${which}-${k}`), 1 + k, which);
        ratio[which].push((l.recordMs + l.analyzeMs) / p);
        perRun[which].push((l.recordMs * 2) / runs);
        console.log(
          `round ${k + 1} ${MODE_NAME[which]}: ${runs} runs ${(l.recordMs / 1000).toFixed(1)} s (${l.failed} failed${l.processes !== undefined ? `, ${l.processes} processes` : ''}), analysis ${(l.analyzeMs / 1000).toFixed(1)} s, plain run ${p} ms → ${((l.recordMs + l.analyzeMs) / p).toFixed(1)}× one plain run; per run (2 jobs) ${Math.round((l.recordMs * 2) / runs)} ms; first pattern ${l.first}`,
        );
      }
    }
    for (const which of modes) {
      console.log(`${MODE_NAME[which]}: median ${median(ratio[which]).toFixed(1)}× one plain run, per run ${Math.round(median(perRun[which]))} ms (issue 42 target: 3×)`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
