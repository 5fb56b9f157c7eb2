/**
 * Confirmation by forcing, measured on the committed subjects (issue 28, docs/confirm.md).
 *
 *   node --import tsx bench/confirmEval.ts [subject...] [--runs N] [--seed S] [--decoys] [--fixes] [--set recorded|bugset|all] [--json]
 *
 * Per subject: the first listed pattern of the committed recording (test/fixtures/recorded/<pkg>,
 * or test/fixtures/bugset/<pkg>) is forced with `confirmPattern` on the compiled fixture — N runs
 * forced, N with the opposite order, N unforced — and the verdict, the three failure counts, the runs
 * and seconds are printed, with whether it is a root-cause pattern (all accesses on `// @bug` lines).
 * `--decoys`: also the first harness pattern and the first pattern without evidence (a test driver's
 * own accesses; an order present in every run) — they must never be confirmed.
 * `--reorder`: for every subject whose first pattern (default ranking, and the thesis' mode: `--hb none
 * --grouping off`) is not a root cause, run `braid analyze --confirm 3`'s loop (confirmAndReorder, 10 runs
 * per group, budget 400) and print whether the first pattern after confirmation is a root cause
 * (`--no-calls`: without forcing per library call, `braid analyze --confirm-calls off`; `--verbose`: each
 * confirmation's verdict and reason).
 * `--fixes`: check the fix (fixCheck.ts) after each fix of test/fixtures/confirm-fixes.json, applied
 * to a copy of the subject's sources: real fixes must say fixed, wrong fixes not fixed.
 * Figures are printed, never asserted.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisResult, patternAt, patternCount, RankedPattern } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { confirmPattern, Confirmation } from '../server/src/recorder/runs/confirmRuns';
import { checkFix } from '../server/src/recorder/runs/fixCheck';
import { confirmAndReorder } from '../server/src/cli/analyzeConfirm';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { ALL_SUBJECTS, BUG_SET, bugTags, classesDir, FAST_JVM, fixturesDir, prepare, root, SampleProgram, workDir } from '../test/recorder/recorderHarness';
import { isRootCause } from '../test/helpers/rootCause';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = Number(value('--runs', '20'));
/** the confirmations' seed (issue 40: the same verdicts across seeds) */
const seed = Number(value('--seed', '5000'));
const set = value('--set', 'recorded');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--set', '--seed'].includes(args[k - 1]));
const subjects = [...(set === 'bugset' ? [] : ALL_SUBJECTS), ...(set === 'recorded' ? [] : BUG_SET)].filter((s) => !named.length || named.includes(s.pkg));

async function ranking(s: SampleProgram, thesis = false, callLocations = false): Promise<AnalysisResult> {
  const dir = path.join(root, 'test/fixtures', BUG_SET.includes(s) ? 'bugset' : 'recorded', s.pkg);
  const { files } = await findTraceFiles([dir]);
  return analyzeTraceFiles(files, {
    ...(s.testCode ? { testCode: s.testCode.map((c) => `${c}.*`) } : {}),
    ...(thesis ? { happensBefore: false, grouping: false, windowWrites: 'latest' as const } : {}),
    ...(callLocations ? { callLocations: true } : {}),
  });
}

/** Position (1-based) of the first root-cause pattern, 0 when none is listed. */
function rootPosition(r: AnalysisResult, s: SampleProgram): number {
  const n = patternCount(r);
  for (let k = 0; k < n; k++) if (isRootCause(patternAt<RankedPattern>(r, k)!, bugTags(s.pkg))) return k + 1;
  return 0;
}

async function reorder() {
  console.log('\nConfirmation reorders the ranking (braid analyze --confirm 3: 10 runs per group, budget 400)');
  let cases = 0;
  let fixed = 0;
  for (const s of subjects) {
    for (const thesis of [false, true]) {
      const r = await ranking(s, thesis);
      const before = rootPosition(r, s);
      if (before === 1 || patternCount(r) === 0) continue;
      cases++;
      const bugs = explainBugs(undefined, r, {});
      const t0 = Date.now();
      // --confirm-calls on (the default): the same runs ranked with locations per call, when needed
      const perCallRanking = flag('--no-calls') ? undefined : () => ranking(s, thesis, true);
      const c = await confirmAndReorder(r, bugs, { top: 3, runs: 10, budget: 400, perCallRanking }, (p, offset) =>
        confirmPattern(p, { ...options(s), runs: 10, seed: 7000 + offset }),
      );
      const after = rootPosition(c.result, s);
      if (after === 1) fixed++;
      const tried = [...c.verdicts].map(([key, v]) => {
        const k = r.patterns.findIndex((p) => p.key === key);
        return `#${k + 1}${isRootCause(r.patterns[k], bugTags(s.pkg)) ? '(root)' : ''} ${v.verdict}${v.forcedKey ? ' (per call)' : ''}`;
      });
      if (flag('--verbose')) console.log(c.lines.join('\n'));
      console.log(`${`${s.pkg} (${thesis ? 'thesis' : 'default'})`.padEnd(26)} root cause at ${before || '–'} → ${after || '–'}  ${c.spent} runs ${((Date.now() - t0) / 1000).toFixed(0)} s  [${tried.join(', ')}]`);
    }
  }
  console.log(`root cause first after confirmation: ${fixed} of ${cases}`);
}

function options(s: SampleProgram, cp = classesDir, tag = '') {
  return {
    command: ['java', ...FAST_JVM, '-cp', cp, s.main],
    cwd: root,
    include: s.include,
    exclude: [],
    runs,
    noise: 0,
    timeoutSeconds: 30,
    jobs: 2,
    seed,
    name: `${s.pkg}${tag}`,
    outRoot: path.join(workDir, 'confirm'),
    ...(s.testCode ? { agentOptions: [`testCode=${s.testCode.join(',')}`] } : {}),
  };
}

const pct = (k: number, n: number) => (n ? `${k}/${n}` : '–');

function row(label: string, c: Confirmation, root?: boolean): string {
  return `${label.padEnd(34)} ${c.verdict.padEnd(19)} forced ${pct(c.forced.failed, c.forced.runs).padStart(6)} (ok ${String(c.forced.forcedOk).padStart(2)})  ${c.counterfactual === 'serialised' ? 'serialised' : 'opposite  '} ${c.opposite ? `${pct(c.opposite.failed, c.opposite.runs).padStart(6)} (ok ${String(c.opposite.forcedOk).padStart(2)})` : '     –       '}  unforced ${c.control ? pct(c.control.failed, c.control.runs).padStart(6) : '     –'}  ${String(c.runsSpent).padStart(3)} runs ${c.seconds.toFixed(1).padStart(6)} s${root === undefined ? '' : root ? '  root cause' : '  NOT root cause'}${c.verdict !== 'confirmed' ? `  — ${c.reason}` : ''}`;
}

async function main() {
  prepare();
  mkdirSync(path.join(workDir, 'confirm'), { recursive: true });
  const out: Record<string, unknown>[] = [];
  let confirmed = 0;
  let strong = 0;
  let total = 0;
  let decoyConfirmed = 0;
  let window = 0;
  let rootTotal = 0;
  let rootConfirmed = 0;
  let nonRootConfirmed = 0;
  let decoys = 0;
  let spent = 0;
  let seconds = 0;
  for (const s of flag('--reorder-only') ? [] : subjects) {
    const r = await ranking(s);
    if (patternCount(r) === 0) {
      console.log(`${s.pkg}: no pattern`);
      continue;
    }
    const first = { ...patternAt<RankedPattern>(r, 0)!, rank: 1 };
    const c = await confirmPattern(first, options(s));
    total++;
    spent += c.runsSpent;
    seconds += c.seconds;
    if (c.verdict === 'confirmed') confirmed++;
    if (c.verdict === 'confirms the window') window++;
    if (c.verdict === 'confirmed' && c.forced.failed >= 0.9 * c.forced.runs && (c.opposite?.failed ?? 0) <= 0.1 * (c.opposite?.runs ?? 1)) strong++;
    const isRoot = isRootCause(first, bugTags(s.pkg));
    if (isRoot) rootTotal++;
    if (isRoot && c.verdict === 'confirmed') rootConfirmed++;
    if (!isRoot && c.verdict === 'confirmed') nonRootConfirmed++;
    console.log(row(`${s.pkg} #1 ${first.id} ${first.kind}`, c, isRoot));
    out.push({ subject: s.pkg, pattern: '#1', verdict: c.verdict, forced: c.forced, opposite: c.opposite, control: c.control, runs: c.runsSpent, seconds: c.seconds, rootCause: isRoot, reason: c.reason });
    if (flag('--decoys')) {
      const n = patternCount(r);
      const pick: [string, RankedPattern][] = [];
      for (let k = 0; k < n; k++) {
        const p = patternAt<RankedPattern>(r, k)!;
        // a decoy is never on the root cause's lines (racytest's bug is in its own test code)
        if (isRootCause(p, bugTags(s.pkg))) continue;
        if (p.group === 'harness' && !pick.some(([l]) => l === 'harness')) pick.push(['harness', { ...p, rank: k + 1 }]);
        if (p.evidence === false && !pick.some(([l]) => l === 'no evidence')) pick.push(['no evidence', { ...p, rank: k + 1 }]);
      }
      for (const [label, p] of pick) {
        const d = await confirmPattern(p, options(s));
        decoys++;
        spent += d.runsSpent;
        seconds += d.seconds;
        if (d.verdict === 'confirmed') decoyConfirmed++;
        console.log(row(`  decoy (${label}) #${p.rank} ${p.id} ${p.kind}`, d));
        out.push({ subject: s.pkg, pattern: `#${p.rank}`, decoy: label, verdict: d.verdict, forced: d.forced, opposite: d.opposite, control: d.control, runs: d.runsSpent, seconds: d.seconds, reason: d.reason });
      }
    }
  }
  console.log(`\nseed ${seed}: rank 1 confirmed on ${confirmed} of ${total} subjects (forced ≥ 90 % failing and opposite ≤ 10 %: ${strong}); confirms the window ${window}`);
  console.log(`rank 1 is a root cause on ${rootTotal}: confirmed ${rootConfirmed} of ${rootTotal}; rank 1 not a root cause and confirmed: ${nonRootConfirmed}`);
  if (flag('--decoys')) console.log(`decoys confirmed: ${decoyConfirmed} of ${decoys}`);
  console.log(`${spent} runs in ${seconds.toFixed(0)} s: ${(spent / Math.max(1, total + decoys)).toFixed(1)} runs and ${(seconds / Math.max(1, total + decoys)).toFixed(1)} s per confirmation`);
  if (flag('--reorder')) await reorder();
  if (flag('--fixes')) await fixes();
  if (flag('--json')) writeFileSync(path.join(root, 'bench/out/confirm-eval.json'), JSON.stringify(out, null, 2));
}

interface FixEdit {
  file: string;
  find: string;
  replace: string;
}
interface FixCase {
  subject: string;
  kind: 'real' | 'wrong';
  what: string;
  edits: FixEdit[];
}

/** Applies a fix to a copy of the subject's package, compiles it with the rest of the fixtures' classes on the class path. */
function build(fix: FixCase): string {
  const dir = path.join(workDir, 'fixes', `${fix.subject}-${fix.kind}-${fix.what.replace(/[^a-z0-9]+/gi, '-').slice(0, 30)}`);
  rmSync(dir, { recursive: true, force: true });
  const src = path.join(dir, 'src', fix.subject);
  mkdirSync(src, { recursive: true });
  const files = new Map<string, string>();
  for (const e of fix.edits) {
    const text = files.get(e.file) ?? readFileSync(path.join(fixturesDir, fix.subject, e.file), 'utf8');
    if (!text.includes(e.find)) throw new Error(`fix ${fix.subject}/${fix.what}: ${e.file} has no "${e.find}"`);
    files.set(e.file, text.replace(e.find, e.replace));
  }
  for (const [f, text] of files) writeFileSync(path.join(src, f), text);
  const out = path.join(dir, 'classes');
  mkdirSync(out, { recursive: true });
  const javac = spawnSync('javac', ['-g', '-cp', classesDir, '-d', out, ...[...files.keys()].map((f) => path.join(src, f))], { encoding: 'utf8' });
  if (javac.status !== 0) throw new Error(`javac of fix ${fix.subject}/${fix.what} failed:\n${javac.stderr}`);
  return `${out}${path.delimiter}${classesDir}`;
}

async function fixes() {
  const cases: FixCase[] = JSON.parse(readFileSync(path.join(root, 'test/fixtures/confirm-fixes.json'), 'utf8')).fixes;
  let right = 0;
  let realFixed = 0;
  let realTotal = 0;
  let wrongCaught = 0;
  let wrongTotal = 0;
  console.log('\nCheck the fix');
  for (const fix of cases) {
    if (named.length && !named.includes(fix.subject)) continue;
    const s = [...ALL_SUBJECTS, ...BUG_SET].find((x) => x.pkg === fix.subject);
    if (!s) throw new Error(`confirm-fixes.json: no subject ${fix.subject}`);
    const r = await ranking(s);
    const first = { ...patternAt<RankedPattern>(r, 0)!, rank: 1 };
    const cp = build(fix);
    const t0 = Date.now();
    const f = await checkFix(first, { runs: r.executions.total, failed: r.executions.failed }, { ...options(s, cp, '-fix'), recordNoise: s.noise });
    const ok = (fix.kind === 'real') === (f.verdict === 'fixed');
    if (ok) right++;
    if (fix.kind === 'real') {
      realTotal++;
      if (f.verdict === 'fixed') realFixed++;
    } else {
      wrongTotal++;
      if (f.verdict === 'not fixed') wrongCaught++;
    }
    console.log(`${`${fix.subject} (${fix.kind}: ${fix.what})`.padEnd(60)} ${f.verdict.padEnd(10)} ${ok ? 'right' : 'WRONG'}  ${((Date.now() - t0) / 1000).toFixed(1)} s — ${f.reason}`);
  }
  console.log(`real fixes said fixed: ${realFixed} of ${realTotal}; wrong fixes said not fixed: ${wrongCaught} of ${wrongTotal}; right ${right} of ${realTotal + wrongTotal}`);
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
void existsSync;
