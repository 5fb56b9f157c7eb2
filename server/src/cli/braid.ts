/**
 * The `braid` command line: headless analysis for terminals and CI.
 *
 *   braid analyze <files or dirs...> [--format text|json|sarif] [--access-window N]
 *         [--pair-window N] [--formula jaccard|ochiai|tarantula] [--top N]
 *         [--strategy unicorn|falcon] [--output FILE]
 *   braid record --runs N ... -- <command...>
 */
import { AnalysisOptions, AnalysisResult, fileHash, Strategy } from '../engine/analysis';
import { analyzeInputs, analyzeInputsRanked } from '../engine/summary/workspaceAnalysis';
import { outputPathProblem } from './outputPath';
import { JSON_DEFAULT_TOP, withBugs, writeReport } from './reportOutput';
import { writeSummaryFile } from '../engine/summary/summaryFile';
import { Formula } from '../engine/ranking/suspiciousness';
import { formatDiagnostic } from '../engine/trace/traceFormat';
import { jsonReportSections } from '../engine/report/jsonReport';
import { textReportLines } from '../engine/report/textReport';
import { droppedLocationsWarning, sarifReportSections } from '../engine/report/sarifReport';
import { writeJson, writeLines } from '../engine/report/jsonStream';
import { extraCommands } from './commands';
import { terminalLine, terminalText } from '../engine/outputEscaping';
import { AnalyzeConfirmArgs, confirmInAnalysis, DEFAULT_CONFIRM_RUNS } from './analyzeConfirm';
import { Bug, explainBugs, GriffinClustering, GriffinOptions } from '../engine/griffin/griffin';
import type { Scoring } from '../engine/griffin/suspiciousPatterns';

export { JSON_DEFAULT_TOP } from './reportOutput';

const VERSION = '0.1.0';

const USAGE = `Braid ${VERSION} — finds the memory-access patterns behind flaky concurrency failures

Usage:
  braid analyze <trace files or folders...> [options]
      --format text|json|sarif   output format (default text)
      --strategy unicorn|falcon  pattern collection (default unicorn)
      --access-window N          access window size (default 5)
      --pair-window N            pair window size (default 100)
      --formula jaccard|ochiai|tarantula   suspiciousness (default jaccard)
      --hb on|none               happens-before filter: drop pairs ordered by thread start/join and
                                 task hand-offs (default on; none = the thesis' UNICORN)
      --grouping on|off          causes first, then harness and symptom patterns; tie groups (default on)
      --window-writes adjacent|latest
                                 a thread's consecutive writes: pair its first and its latest (default
                                 adjacent), or only the latest (the thesis' access window)
      --absence on|off           evidence by absence: a pattern missing from the failing runs and present in
                                 the passing ones (a race's protective order, when most runs fail) is listed
                                 with the patterns with evidence (default off; docs/algorithms.md)
      --order on|off             evidence by order: a pattern in passing runs too whose share of its accesses'
                                 occurrences is larger in the failing runs is listed with the patterns with
                                 evidence (default on; off: the ranking before it; docs/algorithms.md)
      --discovery on|off         evidence among many patterns: a pattern's presence is evidence only when its
                                 p-value is a Benjamini-Hochberg discovery over the patterns seen in a failing
                                 run (default on; off: p < 0.05 alone; docs/algorithms.md)
      --symptoms evidence|last   patterns seen in failing runs only after the failure point (symptoms): listed
                                 by their evidence, before causes without (default evidence), or after every
                                 cause, as consequences of the failure (last; docs/algorithms.md)
      --cleared-read on|off      among patterns equal in every count, one whose last access reads the null or
                                 undefined another thread wrote over a value, by a clear with evidence, first
                                 (default on; off: the static key alone; docs/algorithms.md)
      --silent-last on|off       among patterns equal in every count, one with a write of the value already
                                 there (silent) after the others (default on; off: the static key alone)
      --order-ties on|off        among patterns equal in every count, one whose order (against the same
                                 accesses in other orders) goes with failing first (default on; off: the
                                 static key alone; docs/algorithms.md)
      --start-order on|off       a pattern with no other evidence whose occurrences by the thread that started
                                 later (or by the one that started first) go with failing, listed with evidence
                                 (default on; off: the ranking before it; docs/algorithms.md)
      --pair-first on|off        a three-access combination scored on the counts of a pair it contains that
                                 has evidence, listed right after it (default off: each pattern on its own
                                 counts; docs/algorithms.md)
      --test-code GLOB           test code (file path or qualified method glob; repeatable; !GLOB = code under test)
      --top N|all                patterns to print (default: 20 for text and sarif, 1,000 for json; all = every pattern)
      --output FILE              write the report to FILE instead of stdout
      --griffin-t N              GRIFFIN Algorithm 3: top patterns compared per failing-run cluster (default 30)
      --griffin-s S              GRIFFIN Algorithm 3: similarity to merge failing-run clusters, 0..1 (default 0.8)
      --griffin-pattern-top N    GRIFFIN Algorithm 4: top patterns clustered per failing-run cluster (default 20)
      --griffin-clustering evidence|merge|thesis   how runs and patterns become bugs: evidence (default; one bug per
                                 root cause, each headed by a significant pattern), merge (Algorithms 3/4 + merge step), thesis (Algorithms 3/4)
      --griffin-merge on|off     legacy: on = --griffin-clustering merge, off = thesis
      --griffin-scoring global|cluster   top patterns from the global ranking (thesis, default) or re-scored per cluster
      --griffin-min-score-ratio R   drop pattern clusters scoring below R × their failing cluster's best, 0..1 (default 0 = keep all)
      --griffin-weak-runs N      bugs explaining at most N failing runs are "weak evidence", listed last (default 2)
      --griffin-alpha P          merge step: a pattern cluster whose best pattern has Fisher p > P joins a bug, never starts one (default 0.05)
      --no-bugs                  skip GRIFFIN (no bug sections)
      --confirm K                force the interleaving of the top K patterns with evidence and of each bug's lead
                                 (braid confirm) and list confirmed causes first; the command is the recording's,
                                 or give it after "--" (docs/confirm.md)
      --confirm-runs N           runs per group of a confirmation (default 10)
      --confirm-budget RUNS      most program runs for all confirmations (default max(3 × runs, 400))
      --confirm-calls on|off     when none is confirmed and a pattern's line makes several library calls, rank the
                                 traces again per call and force the best refinements at their calls (default on)
      --confirm-whole            a confirmed pattern of three or four accesses keeps its verdict alone (default: a
                                 smaller listed pattern within it is forced next, then one on its other variable;
                                 one confirmed too is listed first)
      --workers N                worker threads reading traces in parallel (default 1 = this thread; one trace ≥ 64 MiB with N ≥ 2: parsed in a second thread)
      --cache DIR                per-run summary cache (e.g. .braid/cache): traces analyzed before are not read again
      Inputs may also be summary files (*.braid-summary.json, from braid summarize), e.g. shards from many machines.
  braid summarize <trace files, summaries or folders...> --output FILE.braid-summary.json [options]
      writes the runs' summary: small, mergeable; braid analyze takes it like the traces
      (options: --strategy, --access-window, --pair-window, --hb, --workers, --cache)
${Object.values(extraCommands)
  .map((c) => c.usage)
  .join('\n')}
  braid --version | --help

Traces are *.trace.jsonl or *.trace.jsonl.gz files (docs/trace-format.md); folders are searched recursively.`;

export class UsageError extends Error {}

interface AnalyzeArgs {
  inputs: string[];
  /** worker threads (undefined: the cores) */
  workers?: number;
  /** summary cache folder */
  cache?: string;
  format: 'text' | 'json' | 'sarif';
  top?: number;
  /** --top all */
  topAll?: boolean;
  output?: string;
  options: Partial<AnalysisOptions>;
  griffin: GriffinCliOptions;
  /** --confirm K (and --confirm-runs, --confirm-budget, the command after "--") */
  confirm?: AnalyzeConfirmArgs;
}

interface GriffinCliOptions {
  enabled: boolean;
  t?: number;
  s?: number;
  patternTop?: number;
  merge?: boolean;
  clustering?: GriffinClustering;
  scoring?: Scoring;
  minScoreRatio?: number;
  weakRuns?: number;
  alpha?: number;
}

function ratioArg(flag: string, v: string | undefined): number {
  const x = Number(v);
  if (v === undefined || v === '' || !Number.isFinite(x) || x < 0 || x > 1) throw new UsageError(`${flag} must be a number from 0 to 1, got "${v}"`);
  return x;
}

function intArg(flag: string, v: string | undefined, min: number): number {
  if (v === undefined) throw new UsageError(`${flag} needs a value`);
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}, got "${v}"`);
  return n;
}

export function parseAnalyzeArgs(all: string[]): AnalyzeArgs {
  const dash = all.indexOf('--');
  const argv = dash < 0 ? all : all.slice(0, dash);
  const command = dash < 0 ? [] : all.slice(dash + 1);
  const a: AnalyzeArgs = { inputs: [], format: 'text', options: {}, griffin: { enabled: true } };
  const confirm = (): AnalyzeConfirmArgs => (a.confirm ??= { top: 0, runs: DEFAULT_CONFIRM_RUNS, budget: 0, command });
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const next = (): string => {
      const v = inline !== undefined ? inline : argv[++k];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--format': {
        const v = next();
        if (v !== 'text' && v !== 'json' && v !== 'sarif') throw new UsageError(`--format must be text, json or sarif, got "${v}"`);
        a.format = v;
        break;
      }
      case '--strategy': {
        const v = next();
        if (v !== 'unicorn' && v !== 'falcon') throw new UsageError(`--strategy must be unicorn or falcon, got "${v}"`);
        a.options.strategy = v as Strategy;
        break;
      }
      case '--formula': {
        const v = next();
        if (v !== 'jaccard' && v !== 'ochiai' && v !== 'tarantula') throw new UsageError(`--formula must be jaccard, ochiai or tarantula, got "${v}"`);
        a.options.formula = v as Formula;
        break;
      }
      case '--access-window':
        a.options.accessWindow = intArg(flag, next(), 2);
        break;
      case '--pair-window':
        a.options.pairWindow = intArg(flag, next(), 0);
        break;
      case '--hb': {
        const v = next();
        if (v !== 'on' && v !== 'none') throw new UsageError(`--hb must be on or none, got "${v}"`);
        a.options.happensBefore = v === 'on';
        break;
      }
      case '--grouping': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--grouping must be on or off, got "${v}"`);
        a.options.grouping = v === 'on';
        break;
      }
      case '--window-writes': {
        const v = next();
        if (v !== 'adjacent' && v !== 'latest') throw new UsageError(`--window-writes must be adjacent or latest, got "${v}"`);
        a.options.windowWrites = v;
        break;
      }
      case '--order': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--order must be on or off, got "${v}"`);
        a.options.order = v === 'on';
        break;
      }
      case '--discovery': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--discovery must be on or off, got "${v}"`);
        a.options.discovery = v === 'on';
        break;
      }
      case '--cleared-read': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--cleared-read must be on or off, got "${v}"`);
        a.options.clearedRead = v === 'on';
        break;
      }
      case '--silent-last': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--silent-last must be on or off, got "${v}"`);
        a.options.silentLast = v === 'on';
        break;
      }
      case '--order-ties': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--order-ties must be on or off, got "${v}"`);
        a.options.orderTies = v === 'on';
        break;
      }
      case '--start-order': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--start-order must be on or off, got "${v}"`);
        a.options.startOrder = v === 'on';
        break;
      }
      case '--pair-first': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--pair-first must be on or off, got "${v}"`);
        a.options.pairFirst = v === 'on';
        break;
      }
      case '--symptoms': {
        const v = next();
        if (v !== 'last' && v !== 'evidence') throw new UsageError(`--symptoms must be last or evidence, got "${v}"`);
        a.options.symptomsLast = v === 'last';
        break;
      }
      case '--absence': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--absence must be on or off, got "${v}"`);
        a.options.absence = v === 'on';
        break;
      }
      case '--test-code': {
        const v = next();
        if (!v) throw new UsageError('--test-code needs a glob, e.g. "**/*Test.java"');
        (a.options.testCode ??= []).push(v);
        break;
      }
      case '--griffin-t':
        a.griffin.t = intArg(flag, next(), 1);
        break;
      case '--griffin-s':
        a.griffin.s = ratioArg(flag, next());
        break;
      case '--griffin-pattern-top':
        a.griffin.patternTop = intArg(flag, next(), 1);
        break;
      case '--griffin-merge': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--griffin-merge must be on or off, got "${v}"`);
        a.griffin.merge = v === 'on';
        break;
      }
      case '--griffin-clustering': {
        const v = next();
        if (v !== 'evidence' && v !== 'merge' && v !== 'thesis') throw new UsageError(`--griffin-clustering must be evidence, merge or thesis, got "${v}"`);
        a.griffin.clustering = v;
        break;
      }
      case '--griffin-scoring': {
        const v = next();
        if (v !== 'global' && v !== 'cluster') throw new UsageError(`--griffin-scoring must be global or cluster, got "${v}"`);
        a.griffin.scoring = v;
        break;
      }
      case '--griffin-min-score-ratio':
        a.griffin.minScoreRatio = ratioArg(flag, next());
        break;
      case '--griffin-weak-runs':
        a.griffin.weakRuns = intArg(flag, next(), 0);
        break;
      case '--griffin-alpha':
        a.griffin.alpha = ratioArg(flag, next());
        break;
      case '--no-bugs':
        a.griffin.enabled = false;
        break;
      case '--confirm':
        confirm().top = intArg(flag, next(), 1);
        break;
      case '--confirm-runs':
        confirm().runs = intArg(flag, next(), 2);
        break;
      case '--confirm-budget':
        confirm().budget = intArg(flag, next(), 1);
        break;
      case '--confirm-whole':
        confirm().whole = true;
        break;
      case '--confirm-calls': {
        const v = next();
        if (v !== 'on' && v !== 'off') throw new UsageError(`--confirm-calls must be on or off, got "${v}"`);
        confirm().perCall = v === 'on';
        break;
      }
      case '--top': {
        const v = next();
        // --top all: every pattern, in every format (JSON's default is JSON_DEFAULT_TOP)
        if (v === 'all') a.topAll = true;
        else a.top = intArg(flag, v, 0);
        break;
      }
      case '--workers':
        a.workers = intArg(flag, next(), 1);
        break;
      case '--cache': {
        const v = next();
        if (!v) throw new UsageError('--cache needs a folder, e.g. .braid/cache');
        a.cache = v;
        break;
      }
      case '--output':
      case '-o': {
        const v = next();
        if (!v) throw new UsageError(`${flag} needs a file name`);
        a.output = v;
        break;
      }
      default:
        if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
        a.inputs.push(arg);
    }
  }
  if (!a.inputs.length) throw new UsageError('give at least one trace file or folder');
  if (command.length && !a.confirm) throw new UsageError('a command after "--" is only for --confirm K');
  if (a.confirm) {
    if (a.confirm.top === 0) throw new UsageError('--confirm-runs, --confirm-budget, --confirm-calls and --confirm-whole go with --confirm K');
    if (a.confirm.budget === 0) a.confirm.budget = Math.max(3 * a.confirm.runs, 400);
  }
  return a;
}

/** GRIFFIN options from the command line (test code: the analysis' test-code globs, when it has them). */
export function griffinOptions(g: GriffinCliOptions): GriffinOptions {
  const { enabled: _enabled, ...rest } = g;
  return rest;
}

/** An --output that cannot be written is a usage error before any trace is read. */
function checkOutput(args: AnalyzeArgs): void {
  const problem = args.output === undefined ? undefined : outputPathProblem(args.output);
  if (problem) throw new UsageError(`--output: ${problem}`);
}

async function analyzeCommand(argv: string[]): Promise<number> {
  const args = parseAnalyzeArgs(argv);
  checkOutput(args);
  const ranked = await analyzeInputsRanked(args.inputs, args.options, { workers: args.workers, cacheDir: args.cache });
  let result = ranked.result;
  for (const d of result.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  let bugs: Bug[] | undefined;
  if (args.griffin.enabled && args.format !== 'sarif') {
    // GRIFFIN failing (e.g. the thesis' Algorithm 3 needs memory ∝ failing runs² on a 200,000-run shard) loses only the bugs
    try {
      bugs = explainBugs(undefined, result, griffinOptions(args.griffin));
    } catch (err) {
      process.stderr.write(formatDiagnostic({ severity: 'error', file: 'GRIFFIN', message: `no bugs: ${(err as Error).message} (the ranking is reported; --griffin-clustering evidence needs no memory per pair of runs)` }) + '\n');
    }
  }
  let confirmLines: string[] = [];
  if (args.confirm && result.executions.failed > 0) {
    const c = await confirmInAnalysis(args.inputs, result, bugs, args.confirm);
    result = c.result;
    bugs = c.bugs;
    confirmLines = c.lines;
  }
  // every format is streamed (report/jsonStream.ts): patterns are described as they are written, never one huge string
  await writeReport(args.output, async (sink) => {
    if (args.format === 'json') {
      await writeJson(jsonReportSections(result, { top: args.topAll ? undefined : (args.top ?? JSON_DEFAULT_TOP), extra: bugs ? { bugs } : undefined }), sink);
      await sink('\n');
    } else if (args.format === 'sarif') {
      const dropped = { count: 0 };
      await writeJson(sarifReportSections(result, args.top ?? 20, undefined, { dropped }), sink);
      await sink('\n');
      if (dropped.count) process.stderr.write(droppedLocationsWarning(dropped.count) + '\n');
    } else {
      const lines = textReportLines(result, args.topAll ? Infinity : (args.top ?? 20));
      await writeLines(withConfirmation(bugs ? withBugs(lines, bugs, result) : lines, confirmLines), sink);
    }
  });
  return result.executions.total === 0 ? 1 : 0;
}

/** `braid summarize`: the runs of traces (and summaries) as one summary file. */
async function summarizeCommand(argv: string[]): Promise<number> {
  const args = parseAnalyzeArgs(argv);
  if (!args.output) throw new UsageError('braid summarize needs --output FILE (e.g. shard-1.braid-summary.json)');
  checkOutput(args);
  const { analyzer, diagnostics } = await analyzeInputs(args.inputs, args.options, { workers: args.workers, cacheDir: args.cache });
  const all = [...diagnostics, ...analyzer.diagnostics()];
  for (const d of all) process.stderr.write(formatDiagnostic(d) + '\n');
  // every run carries its trace's hash, so copies are told from execution id clashes after the merge
  for (const r of analyzer.runResults()) {
    try {
      analyzer.setTraceHash(r.file, await fileHash(r.file));
    } catch {
      // a run from a summary: its hash came with it
    }
  }
  const summary = analyzer.toSummary();
  await writeSummaryFile(args.output, summary);
  const failed = summary.runs.filter((r) => r.outcome === 'fail').length;
  process.stderr.write(`braid summarize: ${summary.runs.length} runs (${failed} failed), ${summary.patterns.n.length} patterns → ${args.output}\n`);
  return summary.runs.length === 0 ? 1 : 0;
}

/** The confirmation block after the report's first two lines (title and options). */
function* withConfirmation(lines: Iterable<string>, block: string[]): Generator<string> {
  let k = 0;
  for (const line of lines) {
    yield line;
    if (++k === 2) for (const b of block) yield terminalLine(b);
  }
}

/** The part of USAGE about one command: its `  braid <name>` line and the lines indented under it. */
export function commandUsage(name: string): string {
  const lines = USAGE.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  braid ${name} `));
  if (start < 0) return USAGE;
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith('    ')) end++;
  return ['Usage:', ...lines.slice(start, end)].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
      process.stdout.write(USAGE + '\n');
      return cmd ? 0 : 2;
    }
    if (cmd === '--version' || cmd === '-v') {
      process.stdout.write(VERSION + '\n');
      return 0;
    }
    if ((cmd === 'analyze' || cmd === 'summarize') && (rest.includes('--help') || rest.includes('-h'))) {
      process.stdout.write(commandUsage(cmd) + '\n');
      return 0;
    }
    if (cmd === 'analyze') return await analyzeCommand(rest);
    if (cmd === 'summarize') return await summarizeCommand(rest);
    const extra = extraCommands[cmd];
    if (extra) return await extra.run(rest);
    throw new UsageError(`unknown command "${cmd}"`);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`braid: ${terminalText(err.message)}\nRun "braid --help" for usage.\n`);
      return 2;
    }
    // an error may quote a trace or summary (outputEscaping.ts: no control character, no workflow command)
    process.stderr.write(`braid: ${terminalText(String((err as Error).message ?? err))}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`braid: ${terminalText(String(err?.stack ?? err))}\n`);
      process.exitCode = 1;
    },
  );
}
