/**
 * The JS/TS lens' time against one plain run (issue 42, item 5; docs/recorder-node.md "Measured"):
 * on the TypeScript e2e fixture test/fixtures/e2e/ts-flaky, the lens' command (node:test with tsx,
 * one test by name) run plainly, recorded once (the recorder's overhead per run), and recorded as the
 * lens records it (N runs, noise 0.5, 2 jobs) and analyzed. Figures are printed, never asserted.
 *
 *   node --import tsx bench/nodeLensTime.ts [--runs N] [--repeat K]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../server/src/engine/analysis';

const root = path.resolve(__dirname, '..');
const project = path.join(root, 'test/fixtures/e2e/ts-flaky');
const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? Number(args[k + 1]) : Number(d);
};
const runs = value('--runs', '30');
const repeat = value('--repeat', '3');
const command = ['node', '--import', 'tsx', '--test', '--test-name-pattern=^two concurrent orders are both reserved$', 'src/inventory.test.ts'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const plain: number[] = [];
  for (let k = 0; k < repeat; k++) {
    const t = Date.now();
    spawnSync(command[0], command.slice(1), { cwd: project, stdio: 'ignore' });
    plain.push(Date.now() - t);
  }
  const out = mkdtempSync(path.join(os.tmpdir(), 'braid-lens-time-'));
  try {
    const one: number[] = [];
    for (let k = 0; k < repeat; k++) {
      const s = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', String(k + 1), '--out', path.join(out, `one-${k}`), '--', ...command], project));
      one.push(s.runs[0]?.durationMs ?? Number.NaN);
    }
    const t = Date.now();
    const s = await recordRuns(parseRecordArgs(['--runs', String(runs), '--noise', '0.5', '--seed', '1', '--jobs', '2', '--out', path.join(out, 'lens'), '--', ...command], project));
    const recorded = Date.now() - t;
    const a = Date.now();
    const r = await analyzeTraceFiles(s.traces);
    const analyzed = Date.now() - a;
    const p = median(plain);
    console.log(`ts-flaky, ${command.join(' ')}`);
    console.log(`plain run (median of ${repeat}): ${p} ms`);
    console.log(`recorded run, no noise (median of ${repeat}): ${median(one)} ms — recorder overhead ${(median(one) / p).toFixed(2)}×`);
    console.log(`lens-like recording: ${runs} runs, noise 0.5, jobs 2: ${(recorded / 1000).toFixed(1)} s (${s.failed} failed), analysis ${(analyzed / 1000).toFixed(1)} s, first pattern ${r.patterns[0]?.accesses.map((x) => `${x.type} ${path.basename(x.file)}:${x.line}`).join(' / ') ?? 'none'}`);
    console.log(`lens-like total ÷ one plain run: ${((recorded + analyzed) / p).toFixed(1)}× (issue 42 target: 3×)`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
