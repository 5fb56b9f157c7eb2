/**
 * The summary file: the analysis of one or more runs, small and portable, so
 * runs analyzed in another process (a worker thread, the on-disk cache, or
 * another machine recording a shard) are merged into one ranking exactly as
 * if their traces had been read here.
 *
 * Registry ids are local to a process, so a summary carries its own tables
 * (variables, locations, call stacks, static accesses) and each pattern by its
 * Table 1 number and static accesses with thread roles (its stable key is
 * made of these), plus the stacks and values of its first occurrence and
 * thread names when recorded; each run lists
 * its patterns as indices into the file's pattern table. A pattern's
 * description is that of its first occurrence in the first run of the file
 * that has it (the order runs are read in, as for traces).
 *
 * Format (JSON, `*.braid-summary.json`), docs/cli.md#summaries.
 */
import { checkedFailure, RunFailure } from '../runFailure';
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from '../../workspace/atomicWrite';
import type { CollectorStats } from '../unicorn/unicornCollector';
import type { Diagnostic, Outcome, UncaughtInfo } from '../trace/traceFormat';
import type { LocInfo } from '../unicorn/patternRegistry';
import { patternDefinition } from '../unicorn/patternCatalog';
import { MAX_STACK_DEPTH } from '../trace/traceSymbols';

export const SUMMARY_FORMAT = 'braid-summary';
export const SUMMARY_VERSION = 1;
/**
 * Version of run collection (UNICORN Steps 1–2, FALCON). Bump it whenever a
 * change to the engine can change the patterns found in a trace: cached
 * summaries of another engine version are not used.
 */
export const ENGINE_VERSION = 'braid-engine-4';
/** File names of summaries in folders given to `braid analyze`. */
export const SUMMARY_FILE_PATTERN = /\.braid-summary\.json$/;

/** The options that decide what a run's summary holds (ranking options do not). */
export interface CollectionOptions {
  strategy: 'unicorn' | 'falcon';
  accessWindow: number;
  pairWindow: number;
  happensBefore: boolean;
  /** locations per library call (AnalysisOptions.callLocations); absent: per line */
  callLocations?: boolean;
  /** AnalysisOptions.windowWrites; absent: 'adjacent' */
  windowWrites?: 'adjacent' | 'latest';
}

/**
 * The file's patterns, column by column (one JSON array each, no object per
 * pattern: a run of a busy program has tens of thousands). Pattern k has
 * `n[k]`'s number of accesses (patternDefinition(n).kind.length); its
 * accesses, roles and stacks are the next that many entries of the flat
 * columns. Its stable key (PatternInfo.key) is rebuilt from its Table 1
 * number and its static accesses with their roles.
 */
export interface SummaryPatterns {
  /** Table 1 number (1..17) per pattern */
  n: number[];
  /** indices into the file's accesses, in execution order, all patterns one after the other */
  accesses: number[];
  /** thread roles (1|2), aligned with accesses */
  roles: number[];
  /** indices into the file's stacks (-1: no stack), aligned with accesses */
  stacks: number[];
  /** [pattern index, access index within the pattern, value] for recorded values */
  values: [number, number, unknown][];
  /** indices into the file's threadNames (-1: the trace names no thread), aligned with accesses */
  names: number[];
}

export interface SummaryRun {
  file: string;
  execution: string;
  outcome: Outcome;
  outcomeReason?: string;
  outcomeDetail?: string;
  program?: string;
  test?: string;
  seed?: string;
  /** the run's noise plan (trace header recorder.options.plan) */
  plan?: { name: string; file?: string };
  events: number;
  failPoint?: number;
  /** failing runs: the assertion or exception message and where (runFailure.ts) */
  failure?: RunFailure;
  stats: CollectorStats;
  uncaught: UncaughtInfo[];
  droppedEvents: number;
  /** SHA-1 of the trace file's bytes (tells copies from execution id clashes) */
  hash?: string;
  /** indices into the file's patterns */
  patterns: number[];
  /** per entry of `patterns`: how many times it occurred in the run (absent: once each; evidence by order reads it) */
  occurrences?: number[];
  /** per entry of `patterns`: how many of its occurrences were overtaken (evidence by start order reads it; absent: none) */
  overtaken?: number[];
  afterFailure?: number[];
  /** problems found reading the trace (warnings: the run was still analyzed) */
  diagnostics: Diagnostic[];
}

export interface SummaryFile {
  format: typeof SUMMARY_FORMAT;
  version: number;
  engine: string;
  options: CollectionOptions;
  variables: string[];
  /** thread names (trace `def thread`) of the patterns' first occurrences */
  threadNames: string[];
  locs: LocInfo[];
  /** frames (indices into locs), bottom first */
  stacks: number[][];
  /** [write ? 1 : 0, variable index, loc index] */
  accesses: [0 | 1, number, number][];
  patterns: SummaryPatterns;
  runs: SummaryRun[];
}

export function collectionOptions(o: CollectionOptions): CollectionOptions {
  return {
    strategy: o.strategy,
    accessWindow: o.accessWindow,
    pairWindow: o.pairWindow,
    happensBefore: o.happensBefore,
    ...(o.callLocations ? { callLocations: true } : {}),
    ...(o.windowWrites === 'latest' ? { windowWrites: 'latest' as const } : {}),
  };
}

/** The command-line flags of collection options that differ, e.g. "--access-window 5 (this analysis: 10)". */
export function optionMismatch(summary: CollectionOptions, here: CollectionOptions): string | undefined {
  const flags: [keyof CollectionOptions, string, (v: unknown) => string][] = [
    ['strategy', '--strategy', String],
    ['accessWindow', '--access-window', String],
    ['pairWindow', '--pair-window', String],
    ['happensBefore', '--hb', (v) => (v ? 'on' : 'none')],
    ['callLocations', 'locations per call', (v) => (v ? 'on' : 'off')],
    ['windowWrites', '--window-writes', (v) => String(v ?? 'adjacent')],
  ];
  const same = (k: keyof CollectionOptions) =>
    k === 'callLocations' ? !!summary[k] === !!here[k] : k === 'windowWrites' ? (summary[k] ?? 'adjacent') === (here[k] ?? 'adjacent') : summary[k] === here[k];
  const diff = flags.filter(([k]) => !same(k)).map(([k, flag, show]) => `${flag} ${show(summary[k])} (this analysis: ${show(here[k])})`);
  return diff.length ? diff.join(', ') : undefined;
}

class SummaryError extends Error {}

function fail(what: string): never {
  throw new SummaryError(what);
}

/**
 * A shard's run statistics, type-checked (issue 39: strings in a shard's `stats` ended up in the
 * JSON report's `stats`): the counts integers ≥ 0, `hbOff` a boolean; only these fields are kept.
 */
function checkedStats(st: Record<string, unknown>, w: string): CollectorStats {
  const count = (f: string, optional: boolean): number | undefined => {
    const v = st[f];
    if (v === undefined && optional) return undefined;
    if (!isInt(v, 0, Number.MAX_SAFE_INTEGER)) throw new SummaryError(`${w}.${f} must be an integer ≥ 0`);
    return v;
  };
  const out: CollectorStats = { accesses: count('accesses', false)!, locations: count('locations', false)!, pairs: count('pairs', false)!, latePairs: count('latePairs', false)! };
  const spilled = count('spilledPairs', true);
  const ordered = count('orderedPairs', true);
  if (spilled !== undefined) out.spilledPairs = spilled;
  if (ordered !== undefined) out.orderedPairs = ordered;
  if (st.hbOff !== undefined) {
    if (typeof st.hbOff !== 'boolean') throw new SummaryError(`${w}.hbOff must be true or false`);
    out.hbOff = st.hbOff;
  }
  return out;
}

function isInt(x: unknown, lo: number, hi: number): x is number {
  return Number.isInteger(x) && (x as number) >= lo && (x as number) < hi;
}

function intList(x: unknown, what: string, lo: number, hi: number): number[] {
  if (!Array.isArray(x)) fail(`${what} must be a list`);
  for (let k = 0; k < x.length; k++) if (!isInt(x[k], lo, hi)) fail(`${what}[${k}] must be an integer from ${lo} to ${hi - 1}, got ${JSON.stringify(x[k])}`);
  return x as number[];
}

/** The first entry of `xs` already stamped with `mark` (listed twice), stamping the others; undefined when none. */
function repeated(xs: readonly number[], stamp: Int32Array, mark: number): number | undefined {
  for (const x of xs) {
    if (stamp[x] === mark) return x;
    stamp[x] = mark;
  }
  return undefined;
}

function str(x: unknown, what: string): string {
  if (typeof x !== 'string') fail(`${what} must be a string`);
  return x;
}

/**
 * Checks a parsed summary: every table entry well formed, every index in
 * range. Throws an Error whose message says which entry is wrong.
 */
export function validateSummary(x: unknown): SummaryFile {
  try {
    if (!x || typeof x !== 'object' || Array.isArray(x)) fail('not a JSON object');
    const s = x as Record<string, unknown>;
    if (s.format !== SUMMARY_FORMAT) fail(`not a Braid summary ("format" is ${JSON.stringify(s.format)}, expected "${SUMMARY_FORMAT}")`);
    if (s.version !== SUMMARY_VERSION) fail(`summary format version ${JSON.stringify(s.version)} is not supported (this Braid reads version ${SUMMARY_VERSION})`);
    str(s.engine, 'engine');
    const o = s.options as Record<string, unknown> | undefined;
    if (!o || typeof o !== 'object') fail('options must be an object');
    if (o.strategy !== 'unicorn' && o.strategy !== 'falcon') fail('options.strategy must be unicorn or falcon');
    if (!isInt(o.accessWindow, 2, 2 ** 31) || !isInt(o.pairWindow, 0, 2 ** 31) || typeof o.happensBefore !== 'boolean') fail('options must have accessWindow ≥ 2, pairWindow ≥ 0 and happensBefore true/false');
    if (o.windowWrites !== undefined && o.windowWrites !== 'adjacent' && o.windowWrites !== 'latest') fail('options.windowWrites must be "adjacent" or "latest"');
    if (!Array.isArray(s.variables)) fail('variables must be a list');
    s.variables.forEach((v, k) => str(v, `variables[${k}]`));
    if (!Array.isArray(s.locs)) fail('locs must be a list');
    s.locs.forEach((l: Record<string, unknown>, k) => {
      if (!l || typeof l !== 'object') fail(`locs[${k}] must be an object`);
      str(l.file, `locs[${k}].file`);
      str(l.method, `locs[${k}].method`);
      if (!isInt(l.line, 0, 2 ** 31)) fail(`locs[${k}].line must be an integer ≥ 0`);
      if (l.call !== undefined) str(l.call, `locs[${k}].call`);
      if (l.harness !== undefined && typeof l.harness !== 'boolean') fail(`locs[${k}].harness must be true or false`);
      if (l.mixedCalls !== undefined && typeof l.mixedCalls !== 'boolean') fail(`locs[${k}].mixedCalls must be true or false`);
    });
    const nLocs = s.locs.length;
    if (!Array.isArray(s.stacks)) fail('stacks must be a list');
    s.stacks.forEach((f, k) => {
      intList(f, `stacks[${k}]`, 0, nLocs);
      // as deep as a trace's stacks can be (traceSymbols.ts): a 5 M-frame stack would hold GBs
      if ((f as number[]).length > MAX_STACK_DEPTH) fail(`stacks[${k}] has ${(f as number[]).length} frames (at most ${MAX_STACK_DEPTH})`);
    });
    if (!Array.isArray(s.accesses)) fail('accesses must be a list');
    s.accesses.forEach((a, k) => {
      if (!Array.isArray(a) || a.length !== 3 || (a[0] !== 0 && a[0] !== 1) || !isInt(a[1], 0, (s.variables as unknown[]).length) || !isInt(a[2], 0, nLocs))
        fail(`accesses[${k}] must be [0|1, variable index, loc index], got ${JSON.stringify(a)}`);
    });
    const p = s.patterns as Record<string, unknown> | undefined;
    if (!p || typeof p !== 'object' || Array.isArray(p)) fail('patterns must be an object of columns');
    const ns = intList(p.n, 'patterns.n', 1, 18);
    const width = ns.reduce((a, n) => a + patternDefinition(n).kind.length, 0);
    const acc = intList(p.accesses, 'patterns.accesses', 0, (s.accesses as unknown[]).length);
    const roles = intList(p.roles, 'patterns.roles', 1, 3);
    const stacks = intList(p.stacks, 'patterns.stacks', -1, (s.stacks as unknown[]).length);
    if (acc.length !== width || roles.length !== width || stacks.length !== width)
      fail(`patterns.accesses, .roles and .stacks must each have ${width} entries (the accesses of the ${ns.length} patterns), got ${acc.length}, ${roles.length} and ${stacks.length}`);
    for (let k = 0, at = 0; k < ns.length; at += patternDefinition(ns[k]).kind.length, k++) {
      const d = patternDefinition(ns[k]);
      for (let j = 0; j < d.kind.length; j++)
        if (roles[at + j] !== d.roles[j]) fail(`patterns.roles of pattern ${k} (P${ns[k]}) must be ${d.roles.join(',')} (Table 1), got ${roles.slice(at, at + d.kind.length).join(',')}`);
    }
    if (!Array.isArray(p.values)) fail('patterns.values must be a list');
    p.values.forEach((v, j) => {
      if (!Array.isArray(v) || v.length !== 3 || !isInt(v[0], 0, ns.length) || !isInt(v[1], 0, patternDefinition(ns[v[0]]).kind.length))
        fail(`patterns.values[${j}] must be [pattern index, access index, value], got ${JSON.stringify(v)}`);
    });
    if (!Array.isArray(s.threadNames)) fail('threadNames must be a list');
    s.threadNames.forEach((v, k) => str(v, `threadNames[${k}]`));
    const names = intList(p.names, 'patterns.names', -1, s.threadNames.length);
    if (names.length !== width) fail(`patterns.names must have ${width} entries (one per access), got ${names.length}`);
    if (!Array.isArray(s.runs)) fail('runs must be a list');
    const nPatterns = ns.length;
    // per pattern: the last run (1-based) that listed it, to find a pattern listed twice without a set per run
    const stamp = new Int32Array(nPatterns);
    const stampAfter = new Int32Array(nPatterns);
    s.runs.forEach((r: Record<string, unknown>, k) => {
      const w = `runs[${k}]`;
      if (!r || typeof r !== 'object') fail(`${w} must be an object`);
      str(r.file, `${w}.file`);
      str(r.execution, `${w}.execution`);
      if (r.outcome !== 'pass' && r.outcome !== 'fail') fail(`${w}.outcome must be "pass" or "fail"`);
      if (!isInt(r.events, 0, Number.MAX_SAFE_INTEGER) || !isInt(r.droppedEvents, 0, Number.MAX_SAFE_INTEGER)) fail(`${w}: events and droppedEvents must be integers ≥ 0`);
      if (r.failPoint !== undefined && !isInt(r.failPoint, 0, Number.MAX_SAFE_INTEGER)) fail(`${w}.failPoint must be an integer ≥ 0`);
      if (!r.stats || typeof r.stats !== 'object' || Array.isArray(r.stats)) fail(`${w}.stats must be an object`);
      r.stats = checkedStats(r.stats as Record<string, unknown>, `${w}.stats`);
      if (!Array.isArray(r.uncaught)) fail(`${w}.uncaught must be a list`);
      if (!Array.isArray(r.diagnostics)) fail(`${w}.diagnostics must be a list`);
      (r.diagnostics as unknown[]).forEach((d, j) => {
        const x = d as Record<string, unknown>;
        if (!x || typeof x !== 'object' || !['error', 'warning', 'info'].includes(x.severity as string) || typeof x.message !== 'string' || typeof x.file !== 'string' || (x.line !== undefined && !isInt(x.line, 0, 2 ** 31)))
          fail(`${w}.diagnostics[${j}] must be {severity: error|warning|info, file, line?, message}`);
      });
      for (const f of ['outcomeReason', 'outcomeDetail', 'program', 'test', 'seed', 'hash']) if (r[f] !== undefined) str(r[f], `${w}.${f}`);
      if (checkedFailure(r.failure) === 'bad') fail(`${w}.failure must be {reason, message?, location?: {file, line, method?}}`);
      if (r.plan !== undefined) {
        const pl = r.plan as Record<string, unknown>;
        if (!pl || typeof pl !== 'object' || typeof pl.name !== 'string' || (pl.file !== undefined && typeof pl.file !== 'string')) fail(`${w}.plan must be {name, file?} with strings`);
      }
      intList(r.patterns, `${w}.patterns`, 0, nPatterns);
      // a run shows a pattern or not: a pattern listed twice would count the run twice ("failed 1004" of 5 runs)
      const twice = repeated(r.patterns as number[], stamp, k + 1);
      if (twice !== undefined) fail(`${w}.patterns lists pattern ${twice} more than once`);
      if (r.occurrences !== undefined) {
        intList(r.occurrences, `${w}.occurrences`, 1, 2 ** 31);
        if ((r.occurrences as number[]).length !== (r.patterns as number[]).length)
          fail(`${w}.occurrences has ${(r.occurrences as number[]).length} entries for ${(r.patterns as number[]).length} patterns`);
      }
      if (r.overtaken !== undefined) {
        intList(r.overtaken, `${w}.overtaken`, 0, 2 ** 31);
        const ov = r.overtaken as number[];
        if (ov.length !== (r.patterns as number[]).length) fail(`${w}.overtaken has ${ov.length} entries for ${(r.patterns as number[]).length} patterns`);
        const occ = r.occurrences as number[] | undefined;
        const k = ov.findIndex((o, j) => o > (occ ? occ[j] : 1));
        if (k >= 0) fail(`${w}.overtaken[${k}] is ${ov[k]}, more than the pattern's occurrences (${occ ? occ[k] : 1})`);
      }
      if (r.afterFailure !== undefined) {
        intList(r.afterFailure, `${w}.afterFailure`, 0, nPatterns);
        const again = repeated(r.afterFailure as number[], stampAfter, k + 1);
        if (again !== undefined) fail(`${w}.afterFailure lists pattern ${again} more than once`);
      }
    });
    return s as unknown as SummaryFile;
  } catch (e) {
    if (e instanceof SummaryError) throw new Error(`not a valid Braid summary: ${e.message}`);
    throw e;
  }
}

/** Reads and checks a summary file; the error message names what is wrong. */
export async function readSummaryFile(file: string): Promise<SummaryFile> {
  const text = await fs.readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON (${(e as Error).message})`);
  }
  return validateSummary(parsed);
}

/** Writes a summary (to a temporary name first, so a reader never sees half a file). */
export async function writeSummaryFile(file: string, s: SummaryFile): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(s));
}
