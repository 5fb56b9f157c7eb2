/**
 * The localization process (seed 003, Algorithm 1) on Braid traces: every trace file is one
 * execution with its outcome (the oracle); its events become calls (callGraph.ts), the calls
 * become the weighted totally reduced graph with temporal edges (totalReduction.ts,
 * temporalEdges.ts), and the methods are ranked by the InfoGain of their outgoing edges
 * (methodRanking.ts). Unreadable traces become diagnostics and are left out.
 */
import { Diagnostic } from '../trace/traceFormat';
import { readTrace } from '../trace/traceReader';
import { findTraceFiles } from '../traceDiscovery';
import { CallGraphBuilder, MethodInfo, MethodTable } from './callGraph';
import { methodExtent } from './linesOfCode';
import { compareMethods, MethodRanking, MethodRankingOptions, rankMethods } from './methodRanking';
import { InterThreadReading, TemporalEdgeTracker } from './temporalEdges';
import { WeightedGraphSet } from './totalReduction';

export interface CallGraphOptions extends Omit<MethodRankingOptions, 'linesOfCode'> {
  /** inter-thread edges between adjacent calls (Definition 3 as written) or only when the first callee is interrupted (default) */
  interThread?: InterThreadReading;
  /** the text of a source file named in the traces, or undefined (LOC then come from recorded lines) */
  readSource?: (file: string) => string | undefined;
}

export interface CallGraphResult extends MethodRanking {
  diagnostics: Diagnostic[];
  stats: { files: number; calls: number; vertices: number; edges: number; readMs: number; rankMs: number };
}

/** Collects the graphs of many runs: feed one trace's events between beginRun and endRun. */
export class CallGraphCollector {
  readonly table = new MethodTable();
  readonly graphs = new WeightedGraphSet();
  private readonly tracker: TemporalEdgeTracker;
  readonly builder: CallGraphBuilder;
  calls = 0;

  constructor(interThread: InterThreadReading = 'interrupting') {
    this.tracker = new TemporalEdgeTracker(this.graphs, interThread);
    this.builder = new CallGraphBuilder(this.table, this.tracker);
  }

  beginRun(): void {
    this.tracker.reset();
    this.builder.beginRun();
  }

  endRun(execution: string, outcome: 'pass' | 'fail', file?: string): void {
    this.calls += this.builder.calls;
    this.graphs.endRun({ execution, outcome, file, calls: this.builder.calls });
  }

  abortRun(): void {
    this.graphs.abortRun();
  }
}

/** LOC of methods from their source files, cached per file. */
export function sourceLinesOfCode(readSource: (file: string) => string | undefined): (m: MethodInfo) => { loc: number; line: number; endLine: number } | undefined {
  const texts = new Map<string, string | undefined>();
  return (m) => {
    if (!m.file || m.minLine <= 0) return undefined;
    let text = texts.get(m.file);
    if (!texts.has(m.file)) texts.set(m.file, (text = readSource(m.file)));
    if (text === undefined) return undefined;
    const ext = methodExtent(text, m.name, m.entryLine || m.minLine);
    // the declaration found must enclose the recorded lines
    if (!ext || ext.endLine < m.maxLine) return undefined;
    return { loc: ext.loc, line: ext.line, endLine: ext.endLine };
  };
}

/**
 * Lines of code from the sources for methods ranked without them (e.g. in a worker that cannot
 * read the workspace's sources): updates `loc`/`line` and re-sorts by the same criteria.
 */
export function applySourceLinesOfCode(ranking: MethodRanking, readSource: (file: string) => string | undefined): void {
  const loc = sourceLinesOfCode(readSource);
  for (const m of ranking.methods) {
    if (m.locSource === 'source') continue;
    const got = loc({ id: 0, name: m.method, file: m.file, minLine: m.span.min, maxLine: m.span.max, entryLine: m.span.entry });
    if (!got) continue;
    m.loc = got.loc;
    m.line = got.line;
    m.endLine = Math.max(m.endLine, got.endLine);
    m.locSource = 'source';
  }
  ranking.methods.sort(compareMethods);
  ranking.methods.forEach((m, k) => (m.rank = k + 1));
}

export async function rankMethodsOfTraceFiles(inputs: string[], options: CallGraphOptions = {}): Promise<CallGraphResult> {
  const t0 = performance.now();
  const { files, diagnostics } = await findTraceFiles(inputs);
  const c = new CallGraphCollector(options.interThread);
  for (const file of files) {
    c.beginRun();
    const res = await readTrace(file, { event: (ev, sym) => c.builder.event(ev, sym) });
    diagnostics.push(...res.diagnostics);
    if (!res.ok || !res.outcome) {
      c.abortRun();
      continue;
    }
    c.endRun(res.header?.execution ?? file, res.outcome, file);
  }
  const t1 = performance.now();
  const ranking = rankMethods(c.graphs, c.table, {
    ...options,
    linesOfCode: options.readSource ? sourceLinesOfCode(options.readSource) : undefined,
  });
  const t2 = performance.now();
  if (!files.length && !diagnostics.length) diagnostics.push({ severity: 'error', file: inputs.join(', ') || '(no input)', message: 'no trace files (*.trace.jsonl, *.trace.jsonl.gz) found' });
  return {
    ...ranking,
    diagnostics,
    stats: { files: files.length, calls: c.calls, vertices: c.table.size - 1, edges: c.graphs.edges.size, readMs: t1 - t0, rankMs: t2 - t1 },
  };
}
