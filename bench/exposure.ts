/**
 * Exposure (issue 41, docs/noise.md "Adaptive exposure"): for each subject of the evaluation sets
 * (test/recorder/recorderHarness.ts: the samples, the evaluation subjects, the bug set) and the two
 * windows without a field access (lostnotify: a lost notification; twolocks: a window between two
 * synchronized blocks; earlystart: a thread started before the state it reads is published), records
 * N runs at the defaults of `braid test` (noise 0.1 at accesses) with `--noise-mode uniform` and
 * `adaptive` (adaptiveExposure.ts, as a RecordControl deciding when a level's 20th run finishes like the
 * evidence rounds; its last level for the Java agent is PCT scheduling), and with `--noise-mode pct` (the agent's PCT scheduler, depth 3, the run length
 * learned from the runs before: pctNoise.ts), for each seed, and prints runs to the first failure and
 * failing runs per 100 in one markdown table (adaptive: the steps, each level's failed/runs). Figures are printed, never asserted.
 *
 * `--set real` measures the Java subjects of the real corpus (bench/real/java, those with a Maven
 * project here or, for a project test, a checkout of its project under `--checkouts DIR` as
 * bench/realEval.ts finds it; `--set real-held-out` the held-out ones, bench/real/README.md) as `braid test` runs
 * them: `braid test <run.json's test> --runs 1` builds the project and resolves the test's class path
 * once (bin/braid.js, needs dist/), and its recording.json gives the command (the JUnit console
 * launcher's repetitions in one JVM), working folder, include list and time limit; the bench then
 * records that command with each mode, one run at a time (braid test's default jobs), as above.
 * `--enough F` ends a cell once F runs failed (the acceptance of issue 41 asks ≥ 5 in 200): the
 * cell's failing per 100 is then over the runs made, said with the run count.
 *
 * The Node.js subjects of the real corpus (bench/real/node, with node_modules installed) are recorded
 * as `braid record` runs run.json's command in the subject's folder: the Node.js recorder, one run at
 * a time (repetitions in one process for a `node --test` of one file; with pct, one process per run: PCT for the event loop, runtime.ts).
 * `--set node` measures the team's own Node.js subjects (test/fixtures/node/<name>/, those with a
 * truth.json; bench/nodeEval.ts runs them the same way): truth.json's command, run from the
 * subject's own folder (so that its files are not under `test/`), the Node.js recorder, `--jobs J`
 * at once (2, as nodeEval records them), a time limit of 30 s.
 * `--noise P --noise-at W` start elsewhere than braid test's default (a level of the ladder alone, with
 * `--modes uniform`).
 *
 *   nice -n 10 node --import tsx bench/exposure.ts [subject...] [--runs N] [--seeds S1,S2] [--jobs J] [--set all|own|bugset|node|real|real-held-out] [--modes uniform,adaptive,pct] [--enough F] [--noise P] [--noise-at W] [--checkouts DIR]
 */
import { adaptiveExposureFor, NoiseMode } from '../server/src/recorder/runs/adaptiveExposure';
import { DEFAULT_PCT_DEPTH } from '../server/src/recorder/runs/pctNoise';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRecordingManifest } from '../server/src/recorder/runs/recordingManifest';
import { RecordControl, recordRuns } from '../server/src/recorder/runs/recordRuns';
import type { NoiseAt, RecordOptions } from '../server/src/recorder/runs/recordOptions';
import { ALL_SUBJECTS, BUG_SET, classesDir, FAST_JVM, prepare, root, SampleProgram, workDir } from '../test/recorder/recorderHarness';
import { realSubjects, RealSubject } from './realCorpus';
import { defaultCheckouts, workFolder } from './realEval';

const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = Number(value('--runs', '60'));
const seeds = value('--seeds', '1000,2000').split(',').map(Number);
const jobs = Number(value('--jobs', '2'));
const set = value('--set', 'all');
const enough = Number(value('--enough', '0'));
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--seeds', '--jobs', '--set', '--modes', '--enough', '--noise', '--noise-at', '--checkouts'].includes(args[k - 1]));
/** where the project tests (kind project-test) are checked out, as bench/realEval.ts --checkouts */
const checkouts = path.resolve(value('--checkouts', defaultCheckouts()));
const WINDOWS: SampleProgram[] = [
  { pkg: 'lostnotify', main: 'lostnotify.HandOff', include: ['lostnotify'], noise: 0.3 },
  { pkg: 'twolocks', main: 'twolocks.PriceFeed', include: ['twolocks'], noise: 0.1 },
  { pkg: 'earlystart', main: 'earlystart.Indexer', include: ['earlystart'], noise: 0.1 },
];
const REAL = set === 'real' || set === 'real-held-out';
const NODE = set === 'node';
/** one of the team's Node.js subjects (test/fixtures/node/<name>/truth.json) */
interface NodeSubject {
  node: string;
  dir: string;
  command: string[];
}
/** the own Node.js subjects: truth.json's command with the paths made relative to the subject's folder (bench/nodeEval.ts) */
function nodeSubjects(): NodeSubject[] {
  const base = path.join(root, 'test/fixtures/node');
  return readdirSync(base)
    .filter((n) => existsSync(path.join(base, n, 'truth.json')) && (!named.length || named.includes(n)))
    .map((n) => {
      const prefix = `test/fixtures/node/${n}/`;
      const truth = JSON.parse(readFileSync(path.join(base, n, 'truth.json'), 'utf8')) as { command: string };
      return { node: n, dir: path.join(base, n), command: truth.command.split(' ').map((w) => (w.startsWith(prefix) ? w.slice(prefix.length) : w)) };
    });
}
/** a subject: one of the team's (a main class in the compiled fixtures, or a Node.js subject) or a subject of the real corpus */
type Subject = SampleProgram | NodeSubject | RealSubject;
/** the Maven project of a Java subject: its folder here, or a project test's module in its checkout (realEval.ts workFolder) */
const projectOf = (r: RealSubject): string | undefined => {
  const w = workFolder(r, checkouts);
  return 'dir' in w ? w.dir : undefined;
};
/** a Java subject with a Maven project here or a checkout of its project (braid test), or a Node.js one with a command (braid record) */
const measurable = (r: RealSubject) =>
  r.language === 'java' ? !!r.run.test && !!projectOf(r) && existsSync(path.join(projectOf(r)!, 'pom.xml')) : !!r.run.command?.length && existsSync(path.join(r.dir, 'node_modules'));
const realOnes = (): RealSubject[] =>
  realSubjects(named).filter((r) => !r.error && measurable(r) && (named.length > 0 || r.truth.heldOut === (set === 'real-held-out')));
const subjects: Subject[] = REAL ? realOnes() : NODE ? nodeSubjects() : [...WINDOWS, ...(set === 'bugset' ? [] : ALL_SUBJECTS), ...(set === 'own' ? [] : BUG_SET)].filter((s) => !named.length || named.includes(s.pkg));
const nameOf = (s: Subject) => ('pkg' in s ? s.pkg : 'node' in s ? s.node : s.id);
const MODES = value('--modes', 'uniform,adaptive,pct').split(',') as NoiseMode[];
for (const m of MODES) if (m !== 'uniform' && m !== 'adaptive' && m !== 'pct') throw new Error(`--modes: ${m} is not uniform, adaptive or pct`);
/** braid test's default noise: the table measures what a user gets without options (--noise P --noise-at W: another start) */
const NOISE = Number(value('--noise', '0.1'));
const NOISE_AT = value('--noise-at', 'accesses') as NoiseAt;
if (!(NOISE >= 0 && NOISE <= 1) || !['accesses', 'sync', 'all'].includes(NOISE_AT)) throw new Error(`--noise ${NOISE} --noise-at ${NOISE_AT}: expected 0..1 and accesses, sync or all`);

interface Cell {
  first: (number | undefined)[];
  failed: number;
  total: number;
  steps: string[];
}

/** What braid test runs for a real subject (from its recording.json after one run), made once per subject. */
const realRuns = new Map<string, Pick<RecordOptions, 'command' | 'include' | 'exclude' | 'timeoutSeconds' | 'jobs' | 'cwd' | 'recorder'>>();
async function realRun(s: RealSubject): Promise<Pick<RecordOptions, 'command' | 'include' | 'exclude' | 'timeoutSeconds' | 'jobs' | 'cwd' | 'recorder'>> {
  const known = realRuns.get(s.id);
  if (known) return known;
  if (s.language === 'node') {
    // braid record's defaults for run.json's command, in the subject's folder: the Node.js recorder,
    // one run at a time (a node --test command of one file: repetitions in one process)
    const node = { command: s.run.command!, include: s.run.include ?? [], exclude: s.run.exclude ?? [], timeoutSeconds: s.run.timeoutSeconds ?? 60, jobs: 1, cwd: s.dir, recorder: 'node' as const };
    realRuns.set(s.id, node);
    return node;
  }
  const work = mkdtempSync(path.join(os.tmpdir(), `braid-exposure-${s.id}-`));
  const report = path.join(work, 'report.json');
  const include = s.run.include?.length ? ['--include', ...s.run.include] : [];
  const project = projectOf(s)!;
  const r = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'test', s.run.test!, '--project', project, ...include, '--runs', '1', '--format', 'json', '-o', report], { cwd: project, encoding: 'utf8', timeout: 20 * 60_000 });
  if (!existsSync(report)) throw new Error(`${s.id}: braid test --runs 1 exited ${r.status}: ${(r.stderr ?? '').split('\n').slice(-8).join('\n')}`);
  const folder = (JSON.parse(readFileSync(report, 'utf8')) as { recording: { traces: string } }).recording.traces;
  rmSync(work, { recursive: true, force: true });
  const { manifest, problem } = await readRecordingManifest(folder);
  if (!manifest) throw new Error(`${s.id}: ${folder}: ${problem ?? 'no recording.json'}`);
  rmSync(folder, { recursive: true, force: true });
  // braid test's defaults: one run at a time (--jobs 1), its time limit
  const run = { command: manifest.command, include: manifest.include, exclude: manifest.exclude, timeoutSeconds: manifest.timeoutSeconds, jobs: 1, cwd: manifest.cwd };
  realRuns.set(s.id, run);
  return run;
}

/** Ends the recording once `enough` runs failed (0: never); otherwise defers to the exposure control. */
function withEnough(inner: RecordControl | undefined, failed: () => number): RecordControl | undefined {
  if (!(enough > 0)) return inner;
  return {
    beforeRun: async (finished: number) => (failed() >= enough ? false : inner?.beforeRun ? inner.beforeRun(finished) : true),
    ...(inner?.runNoise ? { runNoise: (i: number) => inner.runNoise!(i) } : {}),
  };
}

async function measure(s: Subject, mode: NoiseMode, seed: number, cell: Cell): Promise<void> {
  const name = `exposure-${nameOf(s)}-${mode}-${seed}`;
  const outDir = path.join(workDir, 'traces', name);
  rmSync(outDir, { recursive: true, force: true });
  const run: Omit<RecordOptions, 'runs' | 'noise' | 'outDir' | 'seed' | 'name'> = 'pkg' in s
    ? {
        command: ['java', ...FAST_JVM, '-cp', classesDir, s.main],
        include: s.include,
        exclude: [],
        timeoutSeconds: 20,
        jobs,
        cwd: root,
        ...(s.testCode ? { agentOptions: [`testCode=${s.testCode.join(',')}`] } : {}),
      }
    : 'node' in s
      ? { command: s.command, include: [], exclude: [], timeoutSeconds: 30, jobs, cwd: s.dir, recorder: 'node' as const }
      : await realRun(s);
  const exposure = adaptiveExposureFor({ noise: NOISE, noiseAt: NOISE_AT, outDir, recorder: run.recorder }, mode);
  const pct = mode === 'pct' ? { pct: { depth: DEFAULT_PCT_DEPTH } } : {};
  let first: number | undefined;
  let failedSoFar = 0;
  const r = await recordRuns(
    { ...run, runs, noise: mode === 'pct' ? 0 : NOISE, ...(NOISE_AT !== 'accesses' ? { noiseAt: NOISE_AT } : {}), ...pct, outDir, seed, name },
    (p) => {
      if (p.run.outcome === 'fail') failedSoFar++;
      exposure?.runFinished(p);
    },
    undefined,
    withEnough(exposure, () => failedSoFar),
  );
  rmSync(outDir, { recursive: true, force: true });
  // runs that never reached the program (an include glob matching no file, a missing main class) are
  // not counted by recordRuns: said as "not measured", never as 0 failing runs of 0
  if (r.notReached?.stopped || (r.total === 0 && r.notReached)) throw new Error(`no run reached the program (${r.notReached.runs} run(s)): ${r.notReached.reason}`);
  for (const run of r.runs) if (run.outcome === 'fail' && (first === undefined || run.index < first)) first = run.index;
  cell.first.push(first === undefined ? undefined : first + 1);
  cell.failed += r.failed;
  cell.total += r.total;
  if (exposure?.steps.length) {
    // each level's failing runs of its runs (failed/runs), so a step's effect shows
    const levels = exposure.levels;
    const at = (l: number) => r.runs.filter((x) => x.index >= levels[l].fromRun && (l + 1 >= levels.length || x.index < levels[l + 1].fromRun));
    const said = (l: number) => `${at(l).filter((x) => x.outcome === 'fail').length}/${at(l).length}`;
    cell.steps.push(
      `${said(0)} → ` + exposure.steps.map((x, k) => `${x.pct ? `${x.fromRun}:pct d${x.pct.depth}` : `${x.fromRun}:${x.noiseAt} ${x.noise}`} ${said(k + 1)}`).join(' → '),
    );
  }
}

const fmtFirst = (xs: (number | undefined)[]) => xs.map((x) => (x === undefined ? '–' : String(x))).join(', ');
const per100 = (c: Cell) => `${c.total ? Math.round((c.failed / c.total) * 1000) / 10 : 0} (${c.failed}/${c.total})`;

async function main() {
  if (!REAL && !NODE) prepare();
  console.log(
    `exposure: ${runs} runs per subject, mode and seed${enough > 0 ? ` (a cell ends at ${enough} failing runs)` : ''}; seeds ${seeds.join(', ')}; noise ${NOISE} at ${NOISE_AT} to start (pct: depth ${DEFAULT_PCT_DEPTH}, no noise); jobs ${REAL ? "1 (braid test's default)" : jobs}`,
  );
  console.log(`| subject | ${MODES.map((m) => `${m}: first failure (per seed) | ${m}: failing per 100`).join(' | ')}${MODES.includes('adaptive') ? ' | adaptive steps' : ''} |`);
  console.log(`|---|${MODES.map(() => '---:|---:|').join('')}${MODES.includes('adaptive') ? '---|' : ''}`);
  for (const s of subjects) {
    const cells = new Map<NoiseMode, Cell>(MODES.map((m) => [m, { first: [], failed: 0, total: 0, steps: [] }]));
    try {
      for (const seed of seeds) for (const mode of MODES) await measure(s, mode, seed, cells.get(mode)!);
    } catch (e) {
      console.log(`| ${nameOf(s)} | not measured: ${(e as Error).message.replace(/\s+/g, ' ').slice(0, 300)} |`);
      continue;
    }
    const a = cells.get('adaptive');
    console.log(`| ${nameOf(s)} | ${MODES.map((m) => `${fmtFirst(cells.get(m)!.first)} | ${per100(cells.get(m)!)}`).join(' | ')}${a ? ` | ${a.steps.join('; ') || '–'}` : ''} |`);
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
