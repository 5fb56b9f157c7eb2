/**
 * The call-graph method ranking (seed 003, docs/callgraph.md) as the language features use it:
 * methods as DTOs with workspace URIs (lines of code from the workspace's sources), an index
 * source file → methods for the hover and the code lens, and the comparison with GRIFFIN's
 * suspicious methods of the same traces.
 */
import { readFileSync } from 'node:fs';
import type { CodeLens } from 'vscode-languageserver';
import { applySourceLinesOfCode, CallGraphResult } from '../engine/callgraph/localizationProcess';
import type { SuspiciousMethodView } from './analysisState';
import { fileUri } from './analysisState';
import type { GriffinMethodComparisonDto, MethodDto, MethodsResult } from './protocol';
import { labelText, mdText } from '../engine/outputEscaping';

/** methods with rank ≤ this get a code lens (when their score is > 0) */
export const LENS_MAX_METHOD_RANK = 5;
export const REVEAL_METHOD_COMMAND = 'braid.revealMethod';

export class MethodState {
  readonly methods: MethodDto[];
  /** fsPath → indices into `methods` */
  private readonly byFile = new Map<string, number[]>();

  constructor(
    readonly ranking: CallGraphResult,
    private readonly fsPathOf: (file: string) => string | undefined,
    readonly ms: number,
  ) {
    const texts = new Map<string, string | undefined>();
    applySourceLinesOfCode(ranking, (file) => {
      const f = fsPathOf(file);
      if (!f) return undefined;
      if (!texts.has(f)) {
        try {
          texts.set(f, readFileSync(f, 'utf8'));
        } catch {
          texts.set(f, undefined);
        }
      }
      return texts.get(f);
    });
    this.methods = ranking.methods.map((m) => {
      const f = m.file ? fsPathOf(m.file) : undefined;
      return {
        rank: m.rank,
        score: m.score,
        method: m.method,
        file: m.file,
        line: m.line,
        loc: m.loc,
        locSource: m.locSource,
        runs: m.runs,
        edge: m.edge && {
          kind: m.edge.kind,
          source: m.edge.source,
          target: m.edge.target,
          text: m.edge.text,
          failedRuns: m.edge.failedRuns,
          passedRuns: m.edge.passedRuns,
          meanFailed: m.edge.meanFailed,
          meanPassed: m.edge.meanPassed,
        },
        uri: f ? fileUri(f) : undefined,
      };
    });
    this.methods.forEach((m, k) => {
      const f = m.file ? fsPathOf(m.file) : undefined;
      if (!f) return;
      let l = this.byFile.get(f);
      if (!l) this.byFile.set(f, (l = []));
      l.push(k);
    });
  }

  /** The ranked method whose recorded lines enclose this line of this file (the innermost one). */
  methodAt(fsPath: string, line1: number): MethodDto | undefined {
    let best: MethodDto | undefined;
    let bestSpan = Infinity;
    for (const k of this.byFile.get(fsPath) ?? []) {
      const m = this.methods[k];
      const r = this.ranking.methods[k];
      const from = Math.min(m.line, r.span.min || m.line);
      const to = r.endLine;
      if (line1 < from || line1 > to) continue;
      if (to - from < bestSpan) {
        best = m;
        bestSpan = to - from;
      }
    }
    return best;
  }

  /** GRIFFIN's suspicious methods with their call-graph rank. */
  compare(griffin: SuspiciousMethodView[]): GriffinMethodComparisonDto[] {
    const byName = new Map(this.methods.map((m) => [m.method, m]));
    return griffin.map((g) => {
      const m = byName.get(g.method);
      return {
        bug: g.bug,
        thread: g.thread,
        ...(g.threadName ? { threadName: g.threadName } : {}),
        method: g.method,
        file: g.file,
        line: g.line,
        uri: g.fsPath ? fileUri(g.fsPath) : undefined,
        callGraphRank: m?.rank,
        callGraphScore: m?.score,
      };
    });
  }

  result(griffin: SuspiciousMethodView[], top?: number): MethodsResult {
    const r = this.ranking;
    const methods = top !== undefined && top >= 0 ? this.methods.slice(0, top) : this.methods;
    const none = r.executions.total === 0;
    return {
      state: none ? 'none' : 'done',
      methods,
      total: this.methods.length,
      executions: { total: r.executions.total, failed: r.executions.failed, passed: r.executions.passed },
      representation: r.representation,
      griffin: this.compare(griffin),
      stats: { calls: r.stats.calls, edges: r.stats.edges, ms: this.ms },
      message: none ? 'No runs to rank.' : !this.methods.length ? 'No method calls in the traces (no ENTER events and no call stacks).' : r.message,
    };
  }

  codeLenses(fsPath: string, declarationLine: (m: MethodDto) => number): CodeLens[] {
    const out: CodeLens[] = [];
    for (const k of this.byFile.get(fsPath) ?? []) {
      const m = this.methods[k];
      // never on test code (the test method, its lambdas): the lens points at code under test
      if (m.rank > LENS_MAX_METHOD_RANK || m.score <= 0 || isTestMethod(m)) continue;
      const line = declarationLine(m);
      out.push({
        range: { start: { line, character: 0 }, end: { line, character: 0 } },
        command: {
          title: labelText(`Braid: call-graph rank ${m.rank} · score ${m.score.toFixed(3)}${m.edge ? ` · ${m.edge.kind} edge → ${shortName(m.edge.target)}` : ''}`),
          command: REVEAL_METHOD_COMMAND,
          arguments: [m.method],
        },
      });
    }
    return out;
  }
}

/** Test code by its place and name: `src/test/`, a class named `…Test`, `…Tests`, `…IT`, `…TestCase`, `Test…`. */
export function isTestMethod(m: { method: string; file?: string }): boolean {
  const file = (m.file ?? '').replace(/\\/g, '/');
  if (/(^|\/)src\/test\//.test(file)) return true;
  const cls = m.method.replace(/\(.*$/, '').split('.').slice(-2, -1)[0]?.split('$')[0] ?? '';
  return /(?:Tests?|IT|TestCase)$/.test(cls) || /^Test[A-Z]/.test(cls);
}

function shortName(m: string): string {
  const parts = m.split('.');
  return parts.length > 2 ? parts.slice(-2).join('.') : m;
}

/** Trace strings in the hover: engine/outputEscaping.ts `mdText`. */
const esc = mdText;

/** One hover line: the method's call-graph score (markdown, trace strings escaped). */
export function methodHoverLine(m: MethodDto, total: number, ex: { failed: number; passed: number }): string {
  const e = m.edge;
  const edge = e
    ? ` — edge ${esc(shortName(e.source))} ${esc(e.text.slice(e.source.length + 1, e.text.length - e.target.length - 1))} ${esc(shortName(e.target))}: ${e.meanFailed.toFixed(2)} per failed vs ${e.meanPassed.toFixed(2)} per passed run`
    : '';
  return `**Braid** · call-graph method rank **${m.rank}** of ${total} · score **${m.score.toFixed(3)}** (InfoGain) · ${esc(shortName(m.method))} in ${m.runs.failed}/${ex.failed} failed, ${m.runs.passed}/${ex.passed} passed runs${edge}`;
}
