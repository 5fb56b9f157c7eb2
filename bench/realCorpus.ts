/**
 * The real corpus (issue 38, bench/real/README.md): subjects, their ground truth, and the scores of
 * an analysis against it. Pure reading and scoring; recording is in bench/realEval.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles, type AnalysisResult, type RankedPattern } from '../server/src/engine/analysis';
import type { Bug } from '../server/src/engine/griffin/griffin';
import { isRootCause, BugLine } from '../test/helpers/rootCause';

export const repoRoot = path.resolve(__dirname, '..');
export const corpusRoot = path.join(repoRoot, 'bench/real');
export const recordedRoot = path.join(repoRoot, 'test/fixtures/real');

export interface TruthAccess {
  file: string;
  line: number;
  access?: string;
  what?: string;
}

export interface TruthBug {
  symptom?: string;
  rootCause?: string;
  accesses: TruthAccess[];
  fixMethods: string[];
}

export interface RealTruth {
  id: string;
  language: 'java' | 'node';
  subject: string;
  fixedIn?: string;
  report?: string;
  fix?: string;
  kind?: 'release-driver' | 'project-test';
  /** project-test: the project's GitHub URL, the commit where the test is flaky (the accesses' lines), the fixing commit, the Maven module's folder */
  repo?: string;
  buggyCommit?: string;
  fixCommit?: string;
  module?: string;
  /**
   * project-test: the lines of the checkout's own `.mvn/maven.config` that make its build run with
   * the system's Maven and JDK (e.g. `-Dmaven.compiler.source=1.8` where the project asks for a
   * source level JDK 17 no longer compiles); bench/realCheckouts.ts writes them
   */
  mavenConfig?: string[];
  /** project-test: `pkg.Class#method` as braid test takes it */
  test?: string;
  summary?: string;
  heldOut: boolean;
  ci?: boolean;
  bugs: Record<string, TruthBug>;
}

export interface RunSpec {
  /** Java: `Class#method` for braid test */
  test?: string;
  /** a command for braid record (run in the subject's folder) */
  command?: string[];
  include?: string[];
  exclude?: string[];
  timeoutSeconds?: number;
  /** test-code globs (`--test-code`) a user would give, if any */
  testCode?: string[];
}

export interface RealSubject {
  id: string;
  language: 'java' | 'node';
  dir: string;
  truth: RealTruth;
  run: RunSpec;
  /** the truth could not be read: the reason (the subject is listed, not scored) */
  error?: string;
}

/** The held-out rule of bench/real/README.md: the first byte of SHA-1(id) is divisible by 3. */
export function heldOutById(id: string): boolean {
  return createHash('sha1').update(id).digest()[0] % 3 === 0;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Every subject under bench/real/{java,node}/<id>/ with a truth.json, sorted by id. */
export function realSubjects(only: readonly string[] = []): RealSubject[] {
  const out: RealSubject[] = [];
  for (const language of ['java', 'node'] as const) {
    const base = path.join(corpusRoot, language);
    if (!existsSync(base)) continue;
    for (const id of readdirSync(base).sort()) {
      const dir = path.join(base, id);
      const truthFile = path.join(dir, 'truth.json');
      if (!existsSync(truthFile)) continue;
      if (only.length && !only.includes(id)) continue;
      try {
        const truth = readJson(truthFile) as RealTruth;
        const problems = truthProblems(truth, id);
        const runFile = path.join(dir, 'run.json');
        const run = existsSync(runFile) ? (readJson(runFile) as RunSpec) : {};
        out.push({ id, language, dir, truth, run, ...(problems.length ? { error: `${path.relative(repoRoot, truthFile)}: ${problems.join('; ')}` } : {}) });
      } catch (e) {
        out.push({ id, language, dir, truth: { id, language, subject: '?', heldOut: heldOutById(id), bugs: {} }, run: {}, error: `${path.relative(repoRoot, truthFile)}: ${(e as Error).message}` });
      }
    }
  }
  return out;
}

/** What is wrong with a truth.json (empty: nothing). */
export function truthProblems(t: RealTruth, id: string): string[] {
  const p: string[] = [];
  if (t.id !== id) p.push(`id is ${JSON.stringify(t.id)}, the folder is ${id}`);
  if (t.language !== 'java' && t.language !== 'node') p.push('language must be java or node');
  if (typeof t.heldOut !== 'boolean') p.push('heldOut must be true or false');
  else if (t.heldOut !== heldOutById(id)) p.push(`heldOut is ${t.heldOut}, the SHA-1 rule gives ${heldOutById(id)}`);
  if (!t.bugs || typeof t.bugs !== 'object' || !Object.keys(t.bugs).length) p.push('bugs must name at least one bug');
  else
    for (const [name, b] of Object.entries(t.bugs)) {
      if (!Array.isArray(b.accesses) || !b.accesses.length) p.push(`bugs.${name}.accesses must list the racing accesses`);
      else if (b.accesses.some((a) => typeof a.file !== 'string' || !Number.isInteger(a.line) || a.line < 1)) p.push(`bugs.${name}.accesses: each needs a file and a line ≥ 1`);
      if (!Array.isArray(b.fixMethods) || !b.fixMethods.length) p.push(`bugs.${name}.fixMethods must name the methods the fix changed`);
    }
  if (t.kind === 'project-test') {
    if (typeof t.repo !== 'string' || !/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/.test(t.repo)) p.push('a project test needs repo, the project\'s GitHub URL (https://github.com/<owner>/<name>)');
    for (const k of ['buggyCommit', 'fixCommit'] as const) if (typeof t[k] !== 'string' || !/^[0-9a-f]{40}$/.test(t[k]!)) p.push(`a project test needs ${k}, a full 40-digit commit id`);
    if (typeof t.module !== 'string' || path.isAbsolute(t.module) || t.module.split(/[\\/]/).includes('..')) p.push('a project test needs module, the Maven module\'s folder inside the project (. for a single-module project)');
  }
  return p;
}

/** A suspicious method is a fixed method: the same, class-qualified either way, or a function nested in it (bench/nodeEval.ts' rule). */
export function isFixMethod(method: string, fixes: readonly string[]): boolean {
  // a callback named by the Node.js recorder after what it handles, in the function it was passed in (`then callback of load in Pool.acquire`),
  // or a named nested function with the function it was made in (`handle in createApp`, `saveDatabasecallback in Loki.saveDatabaseInternal`):
  // each function of the chain counts (the named function itself, the functions it is nested in); a callback's description does not
  if (method.includes(' in ')) return method.split(' in ').some((part) => !part.includes(' ') && isFixMethod(part, fixes));
  if (fixes.some((f) => method === f || method.endsWith(`.${f}`) || f.endsWith(`.${method}`) || method.startsWith(`${f}/`) || method.includes(`.${f}/`))) return true;
  // a function nested in a fixed one, each named either way (`auto/<anonymous>` in `async.auto`, which the recorder names `auto`)
  const slash = method.indexOf('/');
  return slash > 0 && !method.slice(0, slash).includes(' ') && isFixMethod(method.slice(0, slash), fixes);
}

export interface BugOutcome {
  bug: string;
  /** 1-based list position of the first pattern all of whose accesses are on this bug's lines (0: none) */
  rootPosition: number;
  /** that pattern's counts */
  root?: { failed: number; passed: number; pValue: number; key: string; id: string };
}

export interface RealScore {
  id: string;
  heldOut: boolean;
  runs: number;
  failed: number;
  /** per truth bug */
  bugs: BugOutcome[];
  /**
   * the first listed pattern is a root cause of some truth bug — and some run failed: with no failing run
   * every pattern has the same score and the first is first by its static key alone, not by evidence
   */
  rank1: boolean;
  /** the first listed pattern (for the table) */
  first?: { id: string; key: string; failed: number; passed: number; pValue: number; group: string; where: string };
  /** GRIFFIN's bugs with evidence / weak */
  strongBugs: number;
  weakBugs: number;
  /** bug 1's suspicious method per thread */
  bug1Methods: string[];
  /** bug 1's first-thread suspicious method is a fixed method (of any truth bug), with some run failing */
  methodFirst: boolean;
  /** some thread's */
  methodAny: boolean;
}

function lineList(b: TruthBug): BugLine[] {
  return b.accesses.map((a) => ({ file: a.file, line: a.line }));
}

export function where(p: RankedPattern): string {
  return p.accesses.map((a) => `${a.thread}${a.type} ${a.variable} ${path.basename(a.file)}:${a.line}`).join(' | ');
}

export function scoreRecording(truth: RealTruth, result: AnalysisResult, bugs: readonly Bug[]): RealScore {
  const outcomes: BugOutcome[] = Object.entries(truth.bugs).map(([name, b]) => {
    const lines = lineList(b);
    const k = result.patterns.findIndex((p) => isRootCause(p, lines));
    const p = k >= 0 ? result.patterns[k] : undefined;
    return { bug: name, rootPosition: k + 1, ...(p ? { root: { failed: p.failed, passed: p.passed, pValue: p.pValue, key: p.key, id: p.id } } : {}) };
  });
  const first = result.patterns[0];
  const allFixes = Object.values(truth.bugs).flatMap((b) => b.fixMethods);
  const strong = bugs.filter((b) => !b.evidence.weak);
  const bug1 = strong[0] ?? bugs[0];
  const methods = bug1 ? bug1.suspiciousMethods.map((m) => m.method) : [];
  return {
    id: truth.id,
    heldOut: truth.heldOut,
    runs: result.executions.failed + result.executions.passed,
    failed: result.executions.failed,
    bugs: outcomes,
    rank1: result.executions.failed > 0 && outcomes.some((o) => o.rootPosition === 1),
    ...(first ? { first: { id: first.id, key: first.key, failed: first.failed, passed: first.passed, pValue: first.pValue, group: first.group, where: where(first) } } : {}),
    strongBugs: strong.length,
    weakBugs: bugs.length - strong.length,
    bug1Methods: methods,
    methodFirst: result.executions.failed > 0 && methods.length > 0 && isFixMethod(methods[0], allFixes),
    methodAny: result.executions.failed > 0 && methods.some((m) => isFixMethod(m, allFixes)),
  };
}

/**
 * A decoy for `braid confirm`: a pattern without evidence, the one present in most passing runs, with
 * no access on a line of the truth (`avoid`: the racing accesses of every bug) — a pattern that shares
 * a line with the root cause may rightly be confirmed (6 of 10 decoys of the first measurement did, and
 * two were confirmed), so it proves nothing about false proofs.
 */
export function decoyOf(result: AnalysisResult, avoid: readonly BugLine[] = []): RankedPattern | undefined {
  const onTruth = (p: RankedPattern) => p.accesses.some((a) => isRootCause({ ...p, accesses: [a] }, avoid));
  let best: RankedPattern | undefined;
  for (const p of result.patterns) if (!p.evidence && p.group === 'cause' && !onTruth(p) && (!best || p.passed > best.passed)) best = p;
  return best;
}

/**
 * The rank 1 and the decoy of each committed real recording (test/fixtures/real/<id>, every subject or
 * those of `only`), with the recording's trace files: what the failing-trace scans read
 * (bench/guardChainScan.ts, bench/instanceCallersScan.ts).
 */
export async function* recordedPatterns(only: readonly string[] = []): AsyncGenerator<{ id: string; role: 'rank 1' | 'decoy'; pattern: RankedPattern; files: string[] }> {
  for (const id of readdirSync(recordedRoot).sort()) {
    const dir = path.join(recordedRoot, id);
    if ((only.length && !only.includes(id)) || !statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir)
      .filter((f) => /\.trace\.jsonl(\.gz)?$/.test(f))
      .map((f) => path.join(dir, f));
    if (!files.length) continue;
    const result = await analyzeTraceFiles([dir]);
    const rank1 = result.patterns[0];
    const decoy = decoyOf(result);
    if (rank1) yield { id, role: 'rank 1', pattern: rank1, files };
    if (decoy) yield { id, role: 'decoy', pattern: decoy, files };
  }
}
