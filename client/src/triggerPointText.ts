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

/** The failure rate measured by recording with a plan (Reproduce with Plan): its latest recording's runs. */
export interface PlanRate {
  failed: number;
  runs: number;
}

/**
 * The hint after a trigger point's line, for its best-ranked point: `◎ trigger #1 · fails 2% → 61%` (the
 * search's rates without and with noise there); once runs were recorded with its plan, the rate they
 * measured instead (issue 30, point 4): `◎ trigger #1 · fails 70% with the plan (14/20 runs)`.
 */
export function triggerHint(lines: TriggerPointLineDto[], measured?: (planFile: string) => PlanRate | undefined): string {
  const best = [...lines].sort((a, b) => a.rank - b.rank)[0];
  if (!best) return '';
  const more = lines.length > 1 ? ` (+${lines.length - 1})` : '';
  const thread = best.thread !== undefined ? ` in ${best.thread}` : '';
  const together = best.together !== undefined ? ` (with ${otherRanks(best.rank, best.together).join(', ')})` : '';
  const m = measured?.(best.planFile);
  const rate = m && m.runs > 0 ? `fails ${percent(m.failed / m.runs)} with the plan (${m.failed}/${m.runs} runs)` : `fails ${percent(best.failWithout)} → ${percent(best.failWith)}`;
  return `◎ trigger #${best.rank}${thread}${together} · ${rate}${more}`;
}

/**
 * The rate each plan's latest recording measured (runs with `plan.file`, RunDto.plan): plan file →
 * failed/runs of the runs in its newest recording folder (by the manifest's start time, else by the
 * folder's name, which ends with the recording's time stamp).
 */
export function planRates(
  runs: readonly Pick<RunDto, 'file' | 'outcome' | 'plan'>[],
  startedAt: (folder: string) => string | undefined = () => undefined,
): Map<string, PlanRate> {
  const byPlan = new Map<string, Map<string, PlanRate>>();
  for (const r of runs) {
    if (!r.plan?.file) continue;
    const k = Math.max(r.file.lastIndexOf('/'), r.file.lastIndexOf('\\'));
    const folder = k > 0 ? r.file.slice(0, k) : '.';
    const folders = byPlan.get(r.plan.file) ?? new Map<string, PlanRate>();
    byPlan.set(r.plan.file, folders);
    const rate = folders.get(folder) ?? { failed: 0, runs: 0 };
    folders.set(folder, rate);
    rate.runs++;
    if (r.outcome === 'fail') rate.failed++;
  }
  const out = new Map<string, PlanRate>();
  for (const [plan, folders] of byPlan) {
    const key = (f: string) => `${startedAt(f) ?? ''}\u0000${f}`;
    const latest = [...folders.keys()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).pop()!;
    out.set(plan, folders.get(latest)!);
  }
  return out;
}

function shortFile(f: string): string {
  return f.replace(/\\/g, '/').split('/').pop() ?? f;
}

/** "Braid: 3 trigger points in 212 runs — #1 Bank.java:42 fails 2% → 61% (p 3.0e-9)." */
export function pinpointSummary(r: PinpointResultDto): string {
  const runs = `${r.runs} run${r.runs === 1 ? '' : 's'}`;
  const stopped = r.stopped === 'cancelled' ? ' (stopped)' : r.stopped === 'budget' ? ' (budget spent)' : '';
  if (!r.points.length && r.stopped === 'cancelled') return `Braid: trigger-point search cancelled after ${runs}, before it found a trigger point; no plan was written. Find Trigger Points starts it again.`;
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

/**
 * After Reproduce with Plan, in plain words (issue 30, point 6): a cancelled recording says whether
 * anything was kept; a plan that never made the program fail says what to try.
 */
export function reproducedMessage(result: { runs: number; failed: number; passed: number; cancelled?: boolean }, plan: string): string {
  const rate = result.runs ? ` (${percent(result.failed / result.runs)})` : '';
  const counts = `${result.failed} failed${rate}, ${result.passed} passed`;
  if (result.cancelled)
    return result.runs === 0
      ? `Braid: reproducing with plan ${plan} cancelled before any run finished; nothing was recorded.`
      : `Braid: reproducing with plan ${plan} cancelled after ${result.runs} runs — ${counts}; those runs are kept and analyzed.`;
  const msg = `Braid: recorded ${result.runs} runs with plan ${plan} — ${counts}.`;
  if (result.runs > 0 && result.failed === 0) return `${msg} The plan did not make the program fail here: run Find Trigger Points again (the code may have changed), or record more runs.`;
  return msg;
}
