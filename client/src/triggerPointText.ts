/**
 * Texts of the trigger-point features (seed 004) in the editor: the inline hint after a trigger
 * point's line, the summary of a braid/pinpoint result, the quick-pick rows of its points and the
 * Runs view's note of a run's noise plan. Pure, no vscode.
 */
import type { PinpointResultDto, RunDto, TriggerPointLineDto } from '../../server/src/lsp/protocol';
import { otherRanks } from '../../server/src/engine/noise/triggerPoints';

/** A failure rate for people: `61%`, `0.4%` below 1%, `0%`. */
export function percent(x: number): string {
  const v = x * 100;
  if (v > 0 && v < 1) return `${v.toFixed(1)}%`;
  return `${Math.round(v)}%`;
}

/** The hint after a trigger point's line, for its best-ranked point: `◎ trigger #1 · fails 2% → 61%` */
export function triggerHint(lines: TriggerPointLineDto[]): string {
  const best = [...lines].sort((a, b) => a.rank - b.rank)[0];
  if (!best) return '';
  const more = lines.length > 1 ? ` (+${lines.length - 1})` : '';
  const thread = best.thread !== undefined ? ` in ${best.thread}` : '';
  const together = best.together !== undefined ? ` (with ${otherRanks(best.rank, best.together).join(', ')})` : '';
  return `◎ trigger #${best.rank}${thread}${together} · fails ${percent(best.failWithout)} → ${percent(best.failWith)}${more}`;
}

function shortFile(f: string): string {
  return f.replace(/\\/g, '/').split('/').pop() ?? f;
}

/** "Braid: 3 trigger points in 212 runs — #1 Bank.java:42 fails 2% → 61% (p 3.0e-9)." */
export function pinpointSummary(r: PinpointResultDto): string {
  const runs = `${r.runs} run${r.runs === 1 ? '' : 's'}`;
  const stopped = r.stopped === 'cancelled' ? ' (stopped)' : r.stopped === 'budget' ? ' (budget spent)' : '';
  if (!r.points.length && r.stopped === 'cancelled') return `Braid: trigger-point search stopped after ${runs}.`;
  if (!r.points.length) return `Braid: no trigger point found in ${runs}${stopped}.${r.message ? ` ${r.message}` : ''}`;
  const t = r.points[0];
  const p = t.pValue < 0.001 ? t.pValue.toExponential(1) : t.pValue.toFixed(3);
  return (
    `Braid: ${r.points.length} trigger point${r.points.length === 1 ? '' : 's'} in ${runs}${stopped} — #1 ${shortFile(t.file)}:${t.line}${t.thread !== undefined ? ` in ${t.thread}` : ''} ` +
    `fails ${percent(t.failWithout)} → ${percent(t.failWith)}${t.together !== undefined ? ` with noise at #1–#${t.together} together` : ''} (p ${p}).${planStrengthNote(r)}${provisionalNote(r)}`
  );
}

/**
 * " Provisional: the budget of 400 runs was spent before …" when the search ended on its budget:
 * the points (and the plan, which holds the best of them) come without the p < 10⁻⁶ evidence, and
 * the server's message says why (e.g. the program fails about as often without noise).
 */
function provisionalNote(r: PinpointResultDto): string {
  if (r.stopped !== 'budget' || !r.message) return '';
  const m = r.message.trim().replace(/\.$/, '');
  return ` Provisional: ${m}.`;
}

/** " The plan reproduces it with noise at 1/8 of the visits (7 of 8 runs)." when calibration weakened the plan. */
function planStrengthNote(r: PinpointResultDto): string {
  const s = r.strength;
  if (!r.plan || !s || !s.full || s.probability >= s.full.probability || !s.chosen) return '';
  const share = Number.isInteger(1 / s.probability) ? `1/${1 / s.probability}` : `${percent(s.probability)}`;
  return ` The plan reproduces it with noise at ${share} of the visits (${s.chosen.failures} of ${s.chosen.runs} runs).`;
}

/** Quick-pick rows of the points of a result. */
export function pointItems(r: PinpointResultDto): { label: string; description: string; detail: string }[] {
  return r.points.map((t) => ({
    label: `#${t.rank} ${shortFile(t.file)}:${t.line}${t.thread !== undefined ? ` in ${t.thread}` : ''}`,
    description: `fails ${percent(t.failWithout)} → ${percent(t.failWith)} with noise ${t.together !== undefined ? `at #1–#${t.together} together` : 'here'} · p ${t.pValue < 0.001 ? t.pValue.toExponential(1) : t.pValue.toFixed(3)}`,
    detail: t.method,
  }));
}

/** The Runs view's note of a run's noise plan: `plan: checkout` (none without a plan). */
export function runPlanNote(r: Pick<RunDto, 'plan'>): string | undefined {
  return r.plan ? `plan: ${r.plan.name}` : undefined;
}
