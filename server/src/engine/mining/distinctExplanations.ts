/**
 * Explanations as people read them (issue 30, point 5): one row per distinct explanation — groups
 * that show the same events and the same dependencies are one row, the others listed as "alike" —
 * and each explanation's events as steps in words (`copier R size :33 → adder W size :46`), for the
 * Explanations tree and webview to wrap instead of cutting. Pure, types only: importable by the
 * client and the webviews.
 */
import type { ExplainedEventDto, ExplanationGroupDto } from '../../protocol/explanations';
import { shortVariable } from '../displayNames';

const eventKey = (e: ExplainedEventDto | undefined) => (e ? [e.thread, e.kind, e.target, e.file ?? '', e.line ?? -1] : null);

/** What a group shows: its best pattern's events per macro and its dependencies (ranks and supports aside). */
export function explanationKey(g: ExplanationGroupDto): string {
  const p = g.patterns?.[0];
  return JSON.stringify([
    (p?.macros ?? []).map((m) => [m.thread, (m.events ?? []).map(eventKey)]),
    (g.dependencies ?? []).map((d) => [d.kind, eventKey(d.from), eventKey(d.to)]).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
  ]);
}

export interface DistinctExplanation {
  group: ExplanationGroupDto;
  /** groups showing the same (listed after the first, best first) */
  alike: ExplanationGroupDto[];
  /** another distinct explanation has the same rank */
  tied: boolean;
}

/** The groups in their order, those showing the same as an earlier one folded into it. */
export function distinctExplanations(groups: readonly ExplanationGroupDto[]): DistinctExplanation[] {
  const byKey = new Map<string, DistinctExplanation>();
  const out: DistinctExplanation[] = [];
  for (const g of groups) {
    const k = explanationKey(g);
    const seen = byKey.get(k);
    if (seen) seen.alike.push(g);
    else {
      const d = { group: g, alike: [], tied: false };
      byKey.set(k, d);
      out.push(d);
    }
  }
  const perRank = new Map<number, number>();
  for (const d of out) perRank.set(d.group.rank, (perRank.get(d.group.rank) ?? 0) + 1);
  for (const d of out) d.tied = (perRank.get(d.group.rank) ?? 0) > 1;
  return out;
}

/** One event as a step: `copier R size :33` (the variable's short name; a statement as it is). */
export function explanationStep(e: ExplainedEventDto): string {
  const target = e.kind === 'R' || e.kind === 'W' ? shortVariable(e.target) : e.target;
  return `${e.thread} ${e.kind} ${target}${e.line !== undefined ? ` :${e.line}` : ''}`;
}

/** The best pattern's events as steps, in execution order (all of them: callers wrap, not cut). */
export function explanationSteps(g: ExplanationGroupDto): string[] {
  return (g.patterns?.[0]?.macros ?? []).flatMap((m) => (m.events ?? []).map(explanationStep));
}
