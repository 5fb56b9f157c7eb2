/**
 * `npm run eval -- --set real`: Braid on the real corpus (issue 38, bench/real/README.md), scored
 * against the ground truth committed before the first run.
 *
 *   node --import tsx bench/realEval.ts [id...]                      the committed recordings (test/fixtures/real)
 *   node --import tsx bench/realEval.ts --live [id...] [--plain N] [--confirm] [--seed S]
 *       records each subject as a user would (run.json: `braid test` with its defaults, or
 *       `braid record` with its defaults), N plain runs for the plain failure rate and time
 *       (default 5), and with --confirm `braid confirm` (the CLI, the recording's command) on the
 *       first pattern and on a decoy (a pattern without evidence, in the most passing runs), then
 *       the confirm table: subject × seed × pattern → verdict, each group's failing runs and the
 *       runs whose constraint was met (issue 40)
 *   --confirm-seeds S,S,…   the seeds of the confirmations (default: --seed), one recording per subject
 *   --reuse   reuse the subject's last live recording of this --seed (test-output/real-live/) instead
 *       of recording again (the confirmations only)
 *   BRAID_CONFIRM_ARGS="--any-caller …"   more `braid confirm` flags for every confirmation
 *   node --import tsx bench/realEval.ts --record [id...] [--seed S]
 *       records as --live and writes the recording into test/fixtures/real/<id>/ (gzip traces,
 *       runs.json with the BRAID-TRUTH labels of multi-bug subjects, manifest.json)
 *   --checkouts DIR   where the projects of the project tests (kind project-test) are checked out,
 *       one folder per subject id at its buggyCommit (default $BRAID_REAL_CHECKOUTS, else
 *       ~/.cache/braid-real); a missing or different checkout is reported with how to make it
 *   --absence on|off   evidence by absence (AnalysisOptions.absence; default: the analysis' default)
 *   --symptoms evidence|last   symptoms listed by their evidence or after every cause (AnalysisOptions.symptomsLast)
 *   --discovery on|off   presence evidence only for Benjamini–Hochberg discoveries (AnalysisOptions.discovery; default on)
 *   --cleared-read on|off   cleared read first (AnalysisOptions.clearedRead; default: the analysis' default)
 *   --silent-last on|off   silent writes last (AnalysisOptions.silentLast; default: the analysis' default)
 *   --order-ties on|off   order within a tie (AnalysisOptions.orderTies; default: the analysis' default, on)
 *   --start-order on|off   evidence by start order (AnalysisOptions.startOrder; default: the analysis' default, on)
 *   --pair-first on|off   pair before its combination (AnalysisOptions.pairFirst; default: the analysis' default, off)
 *   --json    the scores as JSON
 *   BRAID_BIN=<file>   the CLI entry to run instead of bin/braid.js (a build of another checkout)
 *
 * Figures are printed, never asserted (test/unit/realRecorded.test.ts checks what holds on the
 * committed recordings). Needs dist/ (npm run build) for --live/--record.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { analyzeTraceFiles, AnalysisOptions, AnalysisResult, patternAt, patternCount } from '../server/src/engine/analysis';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import type { RankedPattern } from '../server/src/engine/analysis';
import { isRootCause } from '../test/helpers/rootCause';
import { decoyOf, realSubjects, recordedRoot, repoRoot, RealScore, RealSubject, scoreRecording } from './realCorpus';

/** the CLI the bench runs: bin/braid.js, or BRAID_BIN (another build's entry, to compare before and after a change) */
const braid = process.env.BRAID_BIN ? path.resolve(process.env.BRAID_BIN) : path.join(repoRoot, 'bin/braid.js');

export interface LiveFigures {
  plain?: { runs: number; failed: number; seconds: number };
  recording?: { runs: number; failed: number; seconds: number; folder: string; stopped?: string; error?: string };
  confirm?: { rank1?: string; decoy?: string };
  /** every confirmation run (--confirm), per seed and pattern */
  confirmations?: ConfirmRow[];
}

/** One `braid confirm` of the confirm table. */
export interface ConfirmRow {
  seed: string;
  /** rank 1 or the decoy */
  role: 'rank 1' | 'decoy';
  /** the pattern's list position and id (`#11 P1`), and whether it is a root cause of the subject's truth */
  pattern: string;
  rootCause: boolean;
  verdict: string;
  forced?: ConfirmGroup;
  opposite?: ConfirmGroup;
  control?: { runs: number; failed: number };
  counterfactual?: string;
  reason?: string;
  runs?: number;
  seconds: number;
  /**
   * a confirmed combination's smaller pattern forced alone (braid confirm's `within`, causeWithin.ts):
   * when it is confirmed it is the pattern braid names as the cause, and the row is judged by it
   */
  within?: { pattern: string; rootCause: boolean; verdict: string; forced?: ConfirmGroup; opposite?: ConfirmGroup; /** the other parts forced (withinOthers): `#6 P2 refuted` */ others?: string[] };
}

interface ConfirmGroup {
  runs: number;
  failed: number;
  forcedOk: number;
}

export interface RealRow {
  subject: RealSubject;
  score?: RealScore;
  live?: LiveFigures;
  error?: string;
}

export async function analyzeRecording(s: RealSubject, folder: string, options: Partial<AnalysisOptions> = {}): Promise<{ result: AnalysisResult; score: RealScore }> {
  const result = await analyzeTraceFiles([folder], { ...options, testCode: s.run.testCode ?? [] });
  const bugs = explainBugs(undefined, result);
  return { result, score: scoreRecording(s.truth, result, bugs) };
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 15 * 60_000): { status: number | null; stdout: string; stderr: string; seconds: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 << 20 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ? String(r.error) : ''), seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/** The default folder of the project tests' checkouts (`--checkouts`). */
export function defaultCheckouts(): string {
  return process.env.BRAID_REAL_CHECKOUTS || path.join(os.homedir(), '.cache', 'braid-real');
}

/**
 * Where a subject is built and run: its own folder, or for a project test (kind project-test, no
 * pom.xml here) the Maven module of its checkout `<checkouts>/<id>/<module>`; an error (what is
 * missing and how to make it) when the checkout is absent or at another commit.
 */
export function workFolder(s: RealSubject, checkouts: string): { dir: string } | { error: string } {
  if (s.truth.kind !== 'project-test' || existsSync(path.join(s.dir, 'pom.xml'))) return { dir: s.dir };
  const root = path.join(checkouts, s.id);
  const how = `git clone ${s.truth.repo} ${root} && git -C ${root} checkout ${s.truth.buggyCommit} (the buggyCommit of ${path.relative(repoRoot, path.join(s.dir, 'truth.json'))}; bench/real/README.md), or --checkouts DIR naming the folder that holds ${s.id}/`;
  if (!existsSync(root)) return { error: `the project's checkout is missing: ${root}. Make it: ${how}` };
  if (existsSync(path.join(root, '.git'))) {
    const head = spawnSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
    const at = (head.stdout ?? '').trim();
    if (head.status === 0 && at !== s.truth.buggyCommit) return { error: `the checkout ${root} is at ${at}, not at the buggyCommit ${s.truth.buggyCommit}: git -C ${root} checkout ${s.truth.buggyCommit}` };
  }
  const dir = path.join(root, s.truth.module ?? '.');
  if (!existsSync(path.join(dir, 'pom.xml'))) return { error: `no pom.xml in ${dir} (the module ${JSON.stringify(s.truth.module ?? '.')} of ${root}): ${how}` };
  return { dir };
}

/** The project's Maven: its wrapper when it has one (a build may require a newer Maven than the system's), else mvn. */
function mavenIn(dir: string): string {
  const wrapper = path.join(dir, 'mvnw');
  return existsSync(wrapper) ? wrapper : 'mvn';
}

/** Maven resolves the buggy release (and the dependency plugin braid test uses offline) once, online. */
function warmMaven(s: RealSubject, dir: string): string | undefined {
  if (s.language !== 'java' || !existsSync(path.join(dir, 'pom.xml'))) return undefined;
  const r = run(mavenIn(dir), ['-q', '-B', '-DskipTests', 'test-compile', 'dependency:build-classpath', `-Dmdep.outputFile=${path.join(os.tmpdir(), `braid-real-cp-${s.id}.txt`)}`], dir);
  return r.status === 0 ? undefined : `mvn test-compile failed in ${dir}:\n${(r.stdout + r.stderr).split('\n').slice(-15).join('\n')}`;
}

/** The command of one plain run (no Braid). */
function plainCommand(s: RealSubject, dir: string): [string, string[]] | undefined {
  if (s.run.command?.length) return [s.run.command[0], s.run.command.slice(1)];
  if (s.run.test && existsSync(path.join(dir, 'pom.xml'))) {
    // surefire takes the class's simple name (`ThreadedPoolTest#method`)
    const [cls, method] = s.run.test.split('#');
    const simple = cls.slice(cls.lastIndexOf('.') + 1);
    return [mavenIn(dir), ['-q', '-B', '-o', 'test', `-Dtest=${simple}${method ? `#${method}` : ''}`, '-Dsurefire.failIfNoSpecifiedTests=false']];
  }
  return undefined;
}

function plainRuns(s: RealSubject, dir: string, n: number): LiveFigures['plain'] {
  const c = plainCommand(s, dir);
  if (!c || n <= 0) return undefined;
  // the plain runs are offline (`mvn -o test`): surefire and its provider must be in ~/.m2 first,
  // which warmMaven's test-compile does not resolve (every plain run of a fresh checkout failed on
  // "maven-surefire-common … has not been downloaded"): one online run of the same test, not counted
  if (s.run.test && c[1].includes('-o')) run(c[0], c[1].filter((a) => a !== '-o'), dir, 10 * 60_000);
  let failed = 0;
  let seconds = 0;
  for (let k = 0; k < n; k++) {
    const r = run(c[0], c[1], dir, 5 * 60_000);
    if (r.status !== 0) failed++;
    seconds += r.seconds;
  }
  return { runs: n, failed, seconds: seconds / n };
}

/** Records the subject as a user would; returns the trace folder and the figures. */
function recordLive(s: RealSubject, dir: string, seed: string): NonNullable<LiveFigures['recording']> {
  const work = mkdtempSync(path.join(os.tmpdir(), `braid-real-${s.id}-`));
  const include = s.run.include?.length ? ['--include', ...s.run.include] : [];
  if (s.run.test) {
    const report = path.join(work, 'report.json');
    const r = run(process.execPath, [braid, 'test', s.run.test, '--project', dir, ...include, '--seed', seed, '--format', 'json', '-o', report], dir, 20 * 60_000);
    if (!existsSync(report)) return { runs: 0, failed: 0, seconds: r.seconds, folder: '', error: `braid test exited ${r.status}: ${r.stderr.split('\n').slice(-8).join('\n')}` };
    const rec = (JSON.parse(readFileSync(report, 'utf8')) as { recording: { traces: string; runs: number; failed: number; seconds: number; stopped: string } }).recording;
    return { runs: rec.runs, failed: rec.failed, seconds: r.seconds, folder: rec.traces, stopped: rec.stopped };
  }
  if (!s.run.command?.length) return { runs: 0, failed: 0, seconds: 0, folder: '', error: 'run.json has neither test nor command' };
  const out = path.join(work, 'traces');
  const extra = [...(s.run.exclude?.length ? ['--exclude', ...s.run.exclude] : []), ...(s.run.timeoutSeconds ? ['--timeout', String(s.run.timeoutSeconds)] : [])];
  const r = run(process.execPath, [braid, 'record', ...include, ...extra, '--seed', seed, '--out', out, '--name', s.id, '--', ...s.run.command], dir, 30 * 60_000);
  const traces = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('.trace.jsonl')) : [];
  if (!traces.length) return { runs: 0, failed: 0, seconds: r.seconds, folder: out, error: `braid record exited ${r.status}: ${r.stderr.split('\n').slice(-8).join('\n')}` };
  let failed = 0;
  for (const t of traces) {
    const text = readFileSync(path.join(out, t), 'utf8');
    const last = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
    if (/"outcome"\s*:\s*"fail"/.test(last)) failed++;
  }
  return { runs: traces.length, failed, seconds: r.seconds, folder: out };
}

function confirmRun(folder: string, pattern: RankedPattern, rank: number, role: ConfirmRow['role'], rootCause: boolean, seed: string, s: RealSubject, dir: string, isRootKey: (key: string) => boolean): ConfirmRow {
  const base = { seed, role, pattern: `#${rank} ${pattern.id}`, rootCause };
  // a subject recorded with `braid record` (run.command) ran in its own folder, outside the traces'
  // workspace (a temp folder), whose recording.json braid confirm will not run: give the command
  // after "--" (the include list and timeout still come from recording.json)
  const command = s.run.command?.length ? ['--', ...s.run.command] : existsSync(path.join(folder, 'recording.json')) ? [] : undefined;
  if (!command) return { ...base, verdict: 'no command', seconds: 0 };
  // BRAID_CONFIRM_ARGS: more `braid confirm` flags for every confirmation (a paired comparison: `--any-caller`)
  const more = (process.env.BRAID_CONFIRM_ARGS ?? '').split(/\s+/).filter(Boolean);
  const r = run(process.execPath, [braid, 'confirm', folder, '--pattern', pattern.key, '--seed', seed, '--format', 'json', ...more, ...command], dir, 20 * 60_000);
  try {
    type W = { pattern: { rank: number; key: string; id: string }; verdict: string; forced?: ConfirmGroup; opposite?: ConfirmGroup | null };
    const j = JSON.parse(r.stdout) as { verdict: string; forced?: ConfirmGroup; opposite?: ConfirmGroup | null; control?: { runs: number; failed: number } | null; counterfactual?: string; reason?: string; runs?: number; within?: W; withinOthers?: W[] };
    const g = <T extends { runs: number; failed: number }>(x: T | null | undefined) => x ?? undefined;
    const w = j.within;
    const others = (j.withinOthers ?? []).map((x) => `#${x.pattern.rank} ${x.pattern.id}${isRootKey(x.pattern.key) ? ' (root cause)' : ''} ${x.verdict}`);
    const within = w ? { pattern: `#${w.pattern.rank} ${w.pattern.id}`, rootCause: isRootKey(w.pattern.key), verdict: w.verdict, forced: g(w.forced), opposite: g(w.opposite), ...(others.length ? { others } : {}) } : undefined;
    return { ...base, verdict: j.verdict, forced: g(j.forced), opposite: g(j.opposite), control: g(j.control), counterfactual: j.counterfactual, reason: j.reason, runs: j.runs, seconds: r.seconds, ...(within ? { within } : {}) };
  } catch {
    return { ...base, verdict: `error (exit ${r.status}): ${r.stderr.trim().split('\n').pop() ?? ''}`, seconds: r.seconds };
  }
}

function verdictCell(c: ConfirmRow): string {
  const g = (x?: { runs: number; failed: number }) => (x ? `${x.failed}/${x.runs}` : '–');
  const w = c.within ? `; within it ${c.within.pattern}${c.within.rootCause ? ' (root cause)' : ''} ${c.within.verdict} (forced ${g(c.within.forced)}, opposite ${g(c.within.opposite)})` : '';
  return `${c.verdict} (forced ${g(c.forced)}, ${c.counterfactual === 'serialised' ? 'serialised' : 'opposite'} ${g(c.opposite)}, control ${g(c.control)})${w}`;
}

/**
 * What a confirmation claims: the pattern braid names as the cause — the smaller pattern within a
 * confirmed combination when that one was confirmed alone (causeWithin.ts), else the pattern forced —
 * and whether that is a root cause of the truth. undefined: nothing confirmed.
 */
export function confirmedCause(c: ConfirmRow): { rootCause: boolean } | undefined {
  if (c.verdict !== 'confirmed') return undefined;
  if (c.within?.verdict === 'confirmed') return { rootCause: c.within.rootCause };
  return { rootCause: c.rootCause };
}

/** The confirm table (issue 40's acceptance): subject × seed × pattern → verdict and each group's figures. */
export function confirmTable(rows: RealRow[]): string {
  const out: string[] = [];
  const head = ['subject', 'seed', 'pattern', 'root cause', 'verdict', 'forced failed (met)', 'counterfactual failed (met)', 'control failed', 'within it (confirmed alone: the cause named)', 'runs', 's'];
  out.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  const g = (x?: ConfirmGroup) => (x ? `${x.failed}/${x.runs} (${x.forcedOk})` : '–');
  for (const r of rows) {
    for (const c of r.live?.confirmations ?? []) {
      const cf = c.opposite ? `${c.counterfactual === 'serialised' ? 'serialised ' : 'opposite '}${g(c.opposite)}` : '–';
      const w = c.within ? `${c.within.pattern}${c.within.rootCause ? ' (root cause)' : ''}: ${c.within.verdict} (forced ${g(c.within.forced)}, opposite ${g(c.within.opposite)})${c.within.others?.length ? `; also forced: ${c.within.others.join(', ')}` : ''}` : '–';
      const cells = [r.subject.id, c.seed, `${c.role}: ${c.pattern}`, c.rootCause ? 'yes' : 'no', c.verdict, g(c.forced), cf, c.control ? `${c.control.failed}/${c.control.runs}` : '–', w, String(c.runs ?? '–'), c.seconds.toFixed(0)];
      out.push(`| ${cells.map((x) => x.replace(/\|/g, '/')).join(' | ')} |`);
    }
  }
  const all = rows.flatMap((r) => r.live?.confirmations ?? []);
  const roots = all.filter((c) => c.rootCause);
  const others = all.filter((c) => !c.rootCause);
  const confirmed = (c: ConfirmRow) => c.verdict === 'confirmed';
  // the cause braid names: a confirmed combination whose pair within is confirmed alone names the pair
  const namedRoot = others.filter((c) => confirmedCause(c)?.rootCause === true);
  const wrong = all.filter((c) => confirmedCause(c)?.rootCause === false);
  out.push(
    `root cause confirmed ${roots.filter(confirmed).length} of ${roots.length} confirmations (${pct(roots.filter(confirmed).length, roots.length)}); ` +
      `a combination confirmed whose pair within, the root cause, was confirmed alone and named as the cause: ${namedRoot.length}; ` +
      `not a root cause (decoys and a rank 1 that is not the root cause) confirmed ${others.filter(confirmed).length} of ${others.length}, named as the cause ${wrong.length}; ` +
      `verdicts: ${[...new Set(all.map((c) => c.verdict))].map((v) => `${v} ${all.filter((c) => c.verdict === v).length}`).join(', ')}`,
  );
  return out.join('\n');
}

/** Where --live keeps the last recording of a subject and seed (--reuse). */
function liveCacheFile(s: RealSubject, seed: string): string {
  return path.join(repoRoot, 'test-output', 'real-live', `${s.id}-${seed}.json`);
}

/** The BRAID-TRUTH labels of each run, from the runs' logs (multi-bug subjects). */
function truthLabels(folder: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of readdirSync(folder)) {
    if (!f.endsWith('.log')) continue;
    const names = [...readFileSync(path.join(folder, f), 'utf8').matchAll(/^BRAID-TRUTH (\S+)/gm)].map((m) => m[1]);
    if (names.length) out[f.replace(/\.log$/, '')] = [...new Set(names)];
  }
  return out;
}

async function commit(s: RealSubject, folder: string, figures: NonNullable<LiveFigures['recording']>, seed: string): Promise<string> {
  const dest = path.join(recordedRoot, s.id);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const traces = readdirSync(folder).filter((f) => f.endsWith('.trace.jsonl')).sort();
  for (const t of traces) await pipeline(createReadStream(path.join(folder, t)), createGzip({ level: 9 }), createWriteStream(path.join(dest, `${t}.gz`)));
  const labels = truthLabels(folder);
  if (Object.keys(labels).length) writeFileSync(path.join(dest, 'runs.json'), JSON.stringify({ note: 'which bug each run hit (BRAID-TRUTH lines of its output); for the evaluation only, Braid never reads it', runs: labels }, null, 1) + '\n');
  const manifestFile = path.join(recordedRoot, 'manifest.json');
  const manifest = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>) : {};
  manifest[s.id] = { runs: figures.runs, failed: figures.failed, seed, how: s.run.test ? `braid test ${s.run.test}` : `braid record -- ${s.run.command?.join(' ')}`, include: s.run.include ?? [], recorded: new Date().toISOString().slice(0, 10) };
  writeFileSync(manifestFile, JSON.stringify(Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b))), null, 1) + '\n');
  return dest;
}

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)} %` : '–');

export function table(rows: RealRow[], live: boolean): string {
  const out: string[] = [];
  const head = ['subject', 'lang', 'held out', ...(live ? ['plain failed', 'plain s'] : []), 'runs (failed)', ...(live ? ['recording s', '× plain'] : []), 'root cause at', 'first pattern', 'GRIFFIN bugs', 'bug 1 methods', 'method = fix (first; any)', ...(live ? ['confirm rank 1', 'confirm decoy'] : [])];
  out.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const r of rows) {
    const s = r.score;
    const l = r.live;
    const cells = [r.subject.id, r.subject.language, r.subject.truth.heldOut ? 'yes' : ''];
    if (live) cells.push(l?.plain ? `${l.plain.failed}/${l.plain.runs}` : '–', l?.plain ? l.plain.seconds.toFixed(1) : '–');
    if (r.error || !s) {
      cells.push(`error: ${(r.error ?? '').split('\n')[0].slice(0, 120)}`);
      out.push(`| ${cells.join(' | ')} |`);
      continue;
    }
    cells.push(`${s.runs} (${s.failed})`);
    if (live) cells.push(l?.recording ? l.recording.seconds.toFixed(0) : '–', l?.plain && l.recording ? (l.recording.seconds / l.plain.seconds).toFixed(1) : '–');
    cells.push(s.bugs.map((b) => (s.bugs.length > 1 ? `${b.bug}: ` : '') + (b.rootPosition || 'none') + (b.root ? ` (F${b.root.failed}/P${b.root.passed})` : '')).join(', '));
    cells.push(s.first ? `${s.first.id} ${s.first.group} F${s.first.failed}/P${s.first.passed} ${s.first.where}`.replace(/\|/g, '/') : 'none');
    cells.push(`${s.strongBugs}${s.weakBugs ? ` (+${s.weakBugs} weak)` : ''}`);
    cells.push(s.bug1Methods.join(', ') || '–');
    cells.push(`${s.methodFirst ? 'yes' : 'no'}; ${s.methodAny ? 'yes' : 'no'}`);
    if (live) cells.push(l?.confirm?.rank1 ?? '–', l?.confirm?.decoy ?? '–');
    out.push(`| ${cells.join(' | ')} |`);
  }
  const scored = rows.filter((r) => r.score);
  for (const [label, group] of [
    ['design', scored.filter((r) => !r.subject.truth.heldOut)],
    ['held out', scored.filter((r) => r.subject.truth.heldOut)],
    ['all', scored],
  ] as const) {
    const n = group.length;
    const rank1 = group.filter((r) => r.score!.rank1).length;
    const m1 = group.filter((r) => r.score!.methodFirst).length;
    const conf = group.filter((r) => r.live?.confirm?.rank1?.startsWith('confirmed')).length;
    const dec = group.filter((r) => r.live?.confirm?.decoy?.startsWith('confirmed')).length;
    out.push(`${label}: ${n} subjects; rank 1 = root cause ${rank1} of ${n} (${pct(rank1, n)}); bug 1's first suspicious method = a fixed method ${m1} of ${n} (${pct(m1, n)})` + (live ? `; rank 1 confirmed ${conf}; decoys confirmed ${dec}` : ''));
  }
  return out.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const flag = (f: string) => argv.includes(f);
  const value = (f: string, d: string) => {
    const k = argv.indexOf(f);
    return k >= 0 && argv[k + 1] !== undefined ? argv[k + 1] : d;
  };
  const valued = new Set(['--plain', '--seed', '--set', '--checkouts', '--absence', '--symptoms', '--discovery', '--cleared-read', '--silent-last', '--order-ties', '--start-order', '--pair-first', '--confirm-seeds']);
  const ids = argv.filter((a, k) => !a.startsWith('--') && !valued.has(argv[k - 1]));
  const live = flag('--live') || flag('--record');
  const seed = value('--seed', '1000');
  const plainN = Number(value('--plain', '5'));
  const checkouts = path.resolve(value('--checkouts', defaultCheckouts()));
  const absence = value('--absence', '');
  if (absence && absence !== 'on' && absence !== 'off') {
    console.error(`--absence must be on or off, got "${absence}"`);
    return 2;
  }
  const symptoms = value('--symptoms', '');
  if (symptoms && symptoms !== 'last' && symptoms !== 'evidence') {
    console.error(`--symptoms must be last or evidence, got "${symptoms}"`);
    return 2;
  }
  const discovery = value('--discovery', '');
  if (discovery && discovery !== 'on' && discovery !== 'off') {
    console.error(`--discovery must be on or off, got "${discovery}"`);
    return 2;
  }
  const clearedRead = value('--cleared-read', '');
  if (clearedRead && clearedRead !== 'on' && clearedRead !== 'off') {
    console.error(`--cleared-read must be on or off, got "${clearedRead}"`);
    return 2;
  }
  const silentLast = value('--silent-last', '');
  if (silentLast && silentLast !== 'on' && silentLast !== 'off') {
    console.error(`--silent-last must be on or off, got "${silentLast}"`);
    return 2;
  }
  const orderTies = value('--order-ties', '');
  if (orderTies && orderTies !== 'on' && orderTies !== 'off') {
    console.error(`--order-ties must be on or off, got "${orderTies}"`);
    return 2;
  }
  const startOrder = value('--start-order', '');
  if (startOrder && startOrder !== 'on' && startOrder !== 'off') {
    console.error(`--start-order must be on or off, got "${startOrder}"`);
    return 2;
  }
  const pairFirst = value('--pair-first', '');
  if (pairFirst && pairFirst !== 'on' && pairFirst !== 'off') {
    console.error(`--pair-first must be on or off, got "${pairFirst}"`);
    return 2;
  }
  const options: Partial<AnalysisOptions> = {
    ...(orderTies ? { orderTies: orderTies === 'on' } : {}),
    ...(startOrder ? { startOrder: startOrder === 'on' } : {}),
    ...(pairFirst ? { pairFirst: pairFirst === 'on' } : {}),
    ...(absence ? { absence: absence === 'on' } : {}),
    ...(symptoms ? { symptomsLast: symptoms === 'last' } : {}),
    ...(discovery ? { discovery: discovery === 'on' } : {}),
    ...(clearedRead ? { clearedRead: clearedRead === 'on' } : {}),
    ...(silentLast ? { silentLast: silentLast === 'on' } : {}),
  };
  const subjects = realSubjects(ids);
  if (ids.length && subjects.length !== ids.length) {
    console.error(`unknown subject(s): ${ids.filter((i) => !subjects.some((s) => s.id === i)).join(', ')}`);
    return 2;
  }
  const rows: RealRow[] = [];
  for (const s of subjects) {
    if (s.error) {
      rows.push({ subject: s, error: s.error });
      continue;
    }
    if (!live) {
      const dir = path.join(recordedRoot, s.id);
      if (!existsSync(dir)) continue;
      const { score } = await analyzeRecording(s, dir, options);
      rows.push({ subject: s, score });
      continue;
    }
    const work = workFolder(s, checkouts);
    if ('error' in work) {
      rows.push({ subject: s, error: work.error });
      process.stderr.write(`${s.id}: ${work.error}\n`);
      continue;
    }
    const dir = work.dir;
    process.stderr.write(`${s.id}: `);
    const warm = warmMaven(s, dir);
    if (warm) {
      rows.push({ subject: s, error: warm });
      process.stderr.write('build failed\n');
      continue;
    }
    const figures: LiveFigures = {};
    const cache = liveCacheFile(s, seed);
    const cached = flag('--reuse') && existsSync(cache) ? (JSON.parse(readFileSync(cache, 'utf8')) as LiveFigures) : undefined;
    if (cached?.recording?.folder && existsSync(cached.recording.folder)) {
      figures.plain = cached.plain;
      figures.recording = cached.recording;
      process.stderr.write(`reusing ${cached.recording.folder}… `);
    } else {
      figures.plain = plainRuns(s, dir, plainN);
      process.stderr.write(`plain ${figures.plain ? `${figures.plain.failed}/${figures.plain.runs}` : '–'}, recording… `);
      figures.recording = recordLive(s, dir, seed);
      if (!figures.recording.error) {
        mkdirSync(path.dirname(cache), { recursive: true });
        writeFileSync(cache, JSON.stringify({ plain: figures.plain, recording: figures.recording }, null, 1) + '\n');
      }
    }
    if (!figures.recording) continue;
    if (figures.recording.error) {
      rows.push({ subject: s, live: figures, error: figures.recording.error });
      process.stderr.write('failed\n');
      continue;
    }
    const { result, score } = await analyzeRecording(s, figures.recording.folder, options);
    process.stderr.write(`${score.runs} runs, ${score.failed} failed\n`);
    if (flag('--confirm')) {
      const lines = Object.values(s.truth.bugs).map((b) => b.accesses);
      const decoy = decoyOf(result, lines.flat());
      const first = result.patterns[0];
      const isRoot = (p: RankedPattern) => lines.some((l) => isRootCause(p, l));
      figures.confirmations = [];
      for (const cs of value('--confirm-seeds', seed).split(',')) {
        for (const [role, p] of [['rank 1', first], ['decoy', decoy]] as const) {
          if (!p) continue;
          const c = confirmRun(figures.recording.folder, p, result.patterns.indexOf(p) + 1, role, isRoot(p), cs, s, dir, (key) => {
            let q: RankedPattern | undefined;
            for (let k = 0; k < patternCount(result) && !q; k++) if (patternAt<RankedPattern>(result, k)!.key === key) q = patternAt<RankedPattern>(result, k);
            return q !== undefined && isRoot(q);
          });
          process.stderr.write(`  seed ${cs} ${role} ${c.pattern}${c.rootCause ? ' (root cause)' : ''}: ${verdictCell(c)} ${c.seconds.toFixed(0)} s\n`);
          figures.confirmations.push(c);
        }
      }
      const at = (role: ConfirmRow['role']) => figures.confirmations!.find((c) => c.role === role);
      figures.confirm = { rank1: at('rank 1') && verdictCell(at('rank 1')!), decoy: at('decoy') && verdictCell(at('decoy')!) };
    }
    if (flag('--record')) process.stderr.write(`  committed recording: ${path.relative(repoRoot, await commit(s, figures.recording.folder, figures.recording, seed))}\n`);
    rows.push({ subject: s, score, live: figures });
  }
  if (flag('--json')) console.log(JSON.stringify(rows.map((r) => ({ id: r.subject.id, heldOut: r.subject.truth.heldOut, score: r.score, live: r.live, error: r.error })), null, 1));
  else {
    console.log(table(rows, live));
    if (flag('--confirm')) console.log('\n' + confirmTable(rows));
  }
  return 0;
}

if (require.main === module) main(process.argv.slice(2)).then((c) => process.exit(c));
