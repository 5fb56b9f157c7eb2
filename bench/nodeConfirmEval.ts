/**
 * Confirm by Forcing on JavaScript/TypeScript programs (issue 42, docs/recorder-node.md "Forcing"):
 * the first listed pattern of each committed Node recording is forced with `confirmPattern` through
 * the Node.js recorder — N runs forced, N with the counterfactual order, N unforced — and the verdict,
 * the three failure counts (with the runs whose waits were all met) and the seconds are printed, with
 * whether the pattern is a root cause (all its accesses on `// @bug` lines of the subject).
 *
 *   node --import tsx bench/nodeConfirmEval.ts [subject...] [--set subjects|real|all] [--runs N] [--seed S]
 *
 * `subjects`: test/fixtures/node/<name> with the recordings of test/fixtures/node-recorded (commands in
 * its manifest.json, run from the repository root); `real`: the JS part of the real corpus,
 * bench/real/node/<id> (run.json: command, include; run from that folder, whose node_modules must be
 * installed) with the recordings of test/fixtures/real/<id>. Figures are printed, never asserted.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles, patternAt, RankedPattern } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { confirmPattern } from '../server/src/recorder/runs/confirmRuns';
import { bugLinesIn, isRootCause } from '../test/helpers/rootCause';

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = Number(value('--runs', '10'));
const seed = Number(value('--seed', '1'));
const set = value('--set', 'subjects');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--seed', '--set'].includes(args[k - 1]));

interface Case {
  name: string;
  traces: string;
  command: string[];
  cwd: string;
  include: string[];
  timeoutSeconds: number;
  sources: string;
}

function cases(): Case[] {
  const out: Case[] = [];
  if (set === 'subjects' || set === 'all') {
    const manifest = JSON.parse(readFileSync(path.join(root, 'test/fixtures/node-recorded/manifest.json'), 'utf8')) as Record<string, { command: string }>;
    for (const [name, m] of Object.entries(manifest)) {
      out.push({ name, traces: path.join(root, 'test/fixtures/node-recorded', name), command: m.command.split(' '), cwd: root, include: [], timeoutSeconds: 60, sources: path.join(root, 'test/fixtures/node', name) });
    }
  }
  if (set === 'real' || set === 'all') {
    const base = path.join(root, 'bench/real/node');
    for (const id of readdirSync(base).sort()) {
      const run = path.join(base, id, 'run.json');
      if (!existsSync(run)) continue;
      const r = JSON.parse(readFileSync(run, 'utf8')) as { command: string[]; include?: string[]; timeoutSeconds?: number };
      out.push({ name: `real/${id}`, traces: path.join(root, 'test/fixtures/real', id), command: r.command, cwd: path.join(base, id), include: r.include ?? [], timeoutSeconds: r.timeoutSeconds ?? 60, sources: path.join(base, id) });
    }
  }
  return out.filter((c) => !named.length || named.includes(c.name) || named.includes(c.name.replace(/^real\//, '')));
}

async function main(): Promise<void> {
  console.log(`Confirm by Forcing through the Node.js recorder: ${runs} runs per group, seed ${seed}, jobs 2`);
  console.log('| subject | first pattern | root cause | verdict | forced failed (met) | counterfactual failed (met) | unforced failed | seconds |');
  console.log('|---|---|---|---|---|---|---|---:|');
  for (const c of cases()) {
    if (!existsSync(c.traces)) {
      console.log(`| ${c.name} | no committed recording | | | | | | |`);
      continue;
    }
    const { files } = await findTraceFiles([c.traces]);
    const r = await analyzeTraceFiles(files);
    const p = patternAt<RankedPattern>(r, 0);
    if (!p) {
      console.log(`| ${c.name} | no pattern | | | | | | |`);
      continue;
    }
    const bugs = bugLinesIn(c.sources, ['.js', '.mjs', '.cjs', '.ts']);
    const outRoot = mkdtempSync(path.join(os.tmpdir(), 'braid-node-confirm-'));
    const started = Date.now();
    try {
      const v = await confirmPattern({ ...p, rank: 1 }, { command: c.command, cwd: c.cwd, include: c.include, exclude: [], runs, noise: 0, timeoutSeconds: c.timeoutSeconds, jobs: 2, seed, name: c.name.replace('/', '-'), outRoot });
      const cf = v.opposite ? `${v.opposite.failed}/${v.opposite.runs} (${v.opposite.forcedOk})` : '–';
      const un = v.control ? `${v.control.failed}/${v.control.runs}` : '–';
      const where = p.accesses.map((a) => `${a.type}${a.thread} ${path.basename(a.file)}:${a.line}`).join(' ');
      console.log(`| ${c.name} | ${p.id} ${where} | ${isRootCause(p, bugs) ? 'yes' : 'no'} | ${v.verdict} | ${v.forced.failed}/${v.forced.runs} (${v.forced.forcedOk}) | ${cf} | ${un} | ${((Date.now() - started) / 1000).toFixed(0)} |`);
      if (v.verdict !== 'confirmed') console.log(`|   | ${v.reason.slice(0, 300).replace(/\|/g, '/')} | | | | | | |`);
    } catch (e) {
      console.log(`| ${c.name} | ${p.id} | | error: ${(e as Error).message.slice(0, 200)} | | | | |`);
    } finally {
      rmSync(outRoot, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
