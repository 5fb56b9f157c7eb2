/**
 * Exposure (issue 41, docs/noise.md "Adaptive exposure"): for each subject of the evaluation sets
 * (test/recorder/recorderHarness.ts: the samples, the evaluation subjects, the bug set) and the two
 * windows without a field access (lostnotify: a lost notification; twolocks: a window between two
 * synchronized blocks; earlystart: a thread started before the state it reads is published), records
 * N runs at the defaults of `braid test` (noise 0.1 at accesses) with `--noise-mode uniform` and
 * `adaptive` (adaptiveExposure.ts, as a RecordControl deciding at every round of 10 runs like the
 * evidence rounds), and with `--noise-mode pct` (the agent's PCT scheduler, depth 3, the run length
 * learned from the runs before: pctNoise.ts), for each seed, and prints runs to the first failure and
 * failing runs per 100 in one markdown table. Figures are printed, never asserted.
 *
 *   nice -n 10 node --import tsx bench/exposure.ts [subject...] [--runs N] [--seeds S1,S2] [--jobs J] [--set all|own|bugset] [--modes uniform,adaptive,pct]
 */
import { adaptiveExposureFor, NoiseMode } from '../server/src/recorder/runs/adaptiveExposure';
import { DEFAULT_PCT_DEPTH } from '../server/src/recorder/runs/pctNoise';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { recordRuns } from '../server/src/recorder/runs/recordRuns';
import { ALL_SUBJECTS, BUG_SET, classesDir, FAST_JVM, prepare, root, SampleProgram, workDir } from '../test/recorder/recorderHarness';

const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = Number(value('--runs', '60'));
const seeds = value('--seeds', '1000,2000').split(',').map(Number);
const jobs = Number(value('--jobs', '2'));
const set = value('--set', 'all');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--seeds', '--jobs', '--set', '--modes'].includes(args[k - 1]));
const WINDOWS: SampleProgram[] = [
  { pkg: 'lostnotify', main: 'lostnotify.HandOff', include: ['lostnotify'], noise: 0.3 },
  { pkg: 'twolocks', main: 'twolocks.PriceFeed', include: ['twolocks'], noise: 0.1 },
  { pkg: 'earlystart', main: 'earlystart.Indexer', include: ['earlystart'], noise: 0.1 },
];
const subjects = [...WINDOWS, ...(set === 'bugset' ? [] : ALL_SUBJECTS), ...(set === 'own' ? [] : BUG_SET)].filter((s) => !named.length || named.includes(s.pkg));
const MODES = value('--modes', 'uniform,adaptive,pct').split(',') as NoiseMode[];
for (const m of MODES) if (m !== 'uniform' && m !== 'adaptive' && m !== 'pct') throw new Error(`--modes: ${m} is not uniform, adaptive or pct`);
/** braid test's default noise: the table measures what a user gets without options */
const NOISE = 0.1;

interface Cell {
  first: (number | undefined)[];
  failed: number;
  total: number;
  steps: string[];
}

async function measure(s: SampleProgram, mode: NoiseMode, seed: number, cell: Cell): Promise<void> {
  const name = `exposure-${s.pkg}-${mode}-${seed}`;
  const outDir = path.join(workDir, 'traces', name);
  rmSync(outDir, { recursive: true, force: true });
  const exposure = adaptiveExposureFor({ noise: NOISE, noiseAt: 'accesses', outDir }, mode);
  const pct = mode === 'pct' ? { pct: { depth: DEFAULT_PCT_DEPTH } } : {};
  let first: number | undefined;
  const r = await recordRuns(
    {
      command: ['java', ...FAST_JVM, '-cp', classesDir, s.main],
      runs,
      noise: mode === 'pct' ? 0 : NOISE,
      ...pct,
      include: s.include,
      exclude: [],
      outDir,
      timeoutSeconds: 20,
      jobs,
      seed,
      name,
      cwd: root,
      ...(s.testCode ? { agentOptions: [`testCode=${s.testCode.join(',')}`] } : {}),
    },
    exposure ? (p) => exposure.runFinished(p) : undefined,
    undefined,
    exposure,
  );
  rmSync(outDir, { recursive: true, force: true });
  for (const run of r.runs) if (run.outcome === 'fail' && (first === undefined || run.index < first)) first = run.index;
  cell.first.push(first === undefined ? undefined : first + 1);
  cell.failed += r.failed;
  cell.total += r.total;
  if (exposure?.steps.length) cell.steps.push(exposure.steps.map((x) => `${x.fromRun}:${x.noiseAt} ${x.noise}`).join(' → '));
}

const fmtFirst = (xs: (number | undefined)[]) => xs.map((x) => (x === undefined ? '–' : String(x))).join(', ');
const per100 = (c: Cell) => (c.total ? Math.round((c.failed / c.total) * 1000) / 10 : 0);

async function main() {
  prepare();
  console.log(`exposure: ${runs} runs per subject, mode and seed; seeds ${seeds.join(', ')}; noise ${NOISE} at accesses to start (pct: depth ${DEFAULT_PCT_DEPTH}, no noise); jobs ${jobs}`);
  console.log(`| subject | ${MODES.map((m) => `${m}: first failure (per seed) | ${m}: failing per 100`).join(' | ')}${MODES.includes('adaptive') ? ' | adaptive steps' : ''} |`);
  console.log(`|---|${MODES.map(() => '---:|---:|').join('')}${MODES.includes('adaptive') ? '---|' : ''}`);
  for (const s of subjects) {
    const cells = new Map<NoiseMode, Cell>(MODES.map((m) => [m, { first: [], failed: 0, total: 0, steps: [] }]));
    for (const seed of seeds) for (const mode of MODES) await measure(s, mode, seed, cells.get(mode)!);
    const a = cells.get('adaptive');
    console.log(`| ${s.pkg} | ${MODES.map((m) => `${fmtFirst(cells.get(m)!.first)} | ${per100(cells.get(m)!)}`).join(' | ')}${a ? ` | ${a.steps.join('; ') || '–'}` : ''} |`);
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
