/**
 * The mining explanations (docs/mining.md) as the language features use them: groups as DTOs
 * with workspace URIs, and an index source file → line → groups of the top ranks for the hover.
 */
import type { MiningReport } from '../engine/mining';
import { withUris } from './analysisState';
import { explanationStep } from '../engine/mining/distinctExplanations';
import type { ExplanationGroupDto, ExplanationsResult } from './protocol';

/** groups with rank ≤ this are named in the hover */
export const HOVER_MAX_EXPLANATION_RANK = 3;

export class ExplanationState {
  readonly groups: ExplanationGroupDto[];
  /** fsPath → 1-based line → indices into `groups` (rank ≤ HOVER_MAX_EXPLANATION_RANK), best first */
  private readonly lines = new Map<string, Map<number, number[]>>();

  constructor(
    readonly report: MiningReport,
    fsPathOf: (file: string) => string | undefined,
    readonly ms = report.stats.ms,
  ) {
    this.groups = report.groups.map((g) => withUris(g, fsPathOf) as ExplanationGroupDto);
    this.groups.forEach((g, k) => {
      if (g.rank > HOVER_MAX_EXPLANATION_RANK) return;
      for (const l of g.lines) {
        const fsPath = fsPathOf(l.file);
        if (!fsPath) continue;
        let byLine = this.lines.get(fsPath);
        if (!byLine) this.lines.set(fsPath, (byLine = new Map()));
        let idx = byLine.get(l.line);
        if (!idx) byLine.set(l.line, (idx = []));
        if (!idx.includes(k)) idx.push(k);
      }
    });
  }

  /** Top groups with an event at this line of this file, best first. */
  groupsAt(fsPath: string, line: number): ExplanationGroupDto[] {
    return (this.lines.get(fsPath)?.get(line) ?? []).map((k) => this.groups[k]);
  }

  result(top?: number): ExplanationsResult {
    const s = this.report.stats;
    const groups = top !== undefined && top >= 0 ? this.groups.slice(0, top) : this.groups;
    let message: string | undefined;
    if (s.failing === 0) message = 'No failing runs: nothing to explain. Record more runs (or raise braid.record.noise) until some fail.';
    else if (!this.groups.length) message = 'No explanation found: no sequence of accesses is frequent in failing runs and rare in passing ones.';
    return {
      state: s.failing === 0 ? 'none' : 'done',
      groups,
      total: this.groups.length,
      stats: { failing: s.failing, passing: s.passing, minSupport: s.minSupport, truncated: s.truncated, ms: this.ms },
      message,
    };
  }
}

/** "T1 W stock :10 → T2 W stock :16 → …": the events of a group's best pattern, in order */
export function explanationSummary(g: ExplanationGroupDto, maxEvents = 6): string {
  const events = g.patterns[0]?.macros.flatMap((m) => m.events) ?? [];
  // the tree's steps (`copier R MyVector.size :33`): short names, as in every other view
  const parts = events.slice(0, maxEvents).map(explanationStep);
  if (events.length > maxEvents) parts.push('…');
  return parts.join(' → ');
}
