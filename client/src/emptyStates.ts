/**
 * What the Ranked Patterns and Bugs views say when they are empty (package.json viewsWelcome, picked
 * by the context key `braid.results`) and what the status bar says with no run: after an edit, the
 * recordings of the code before it are listed apart and not analyzed (issue 43), so "no recorded
 * run" or "none failed" would be untrue — the views say that the recordings are of the code before
 * the edit, and offer Record Runs again, the recordings before the change (their bugs, with Check
 * the Fix) and Check the Fix.
 */
import type { OlderRecordingDto, RunDto } from '../../server/src/lsp/protocol';

/** The context key the views' welcome texts are chosen by. */
export const RESULTS_CONTEXT = 'braid.results';

/**
 * - `codeChanged`: no run of the current code, some recording of the code before a change;
 * - `noFailureSinceChange`: runs of the current code, none failed, and bugs before the change;
 * - `current`: anything else (the views' usual welcome texts).
 */
export type ResultsContext = 'codeChanged' | 'noFailureSinceChange' | 'current';

export function resultsContext(m: { runs: readonly Pick<RunDto, 'outcome'>[]; older?: readonly unknown[]; beforeBugs?: readonly unknown[] }): ResultsContext {
  if (!m.older?.length) return 'current';
  if (!m.runs.length) return 'codeChanged';
  return m.beforeBugs?.length && !m.runs.some((r) => r.outcome === 'fail') ? 'noFailureSinceChange' : 'current';
}

/** The status bar with no run of the current code: what is true, and what to do (tooltip). */
export function noRunsStatus(older: readonly Pick<OlderRecordingDto, 'changed'>[]): { text: string; tooltip: string } {
  if (!older.length) return { text: '$(pulse) Braid: no runs', tooltip: 'No traces found (braid.traceGlobs). Record runs or import traces.' };
  const changed = [...new Set(older.flatMap((o) => o.changed))];
  const files = changed.slice(0, 3).map((c) => c.split('/').pop()).join(', ') + (changed.length > 3 ? ', …' : '');
  return {
    text: '$(history) Braid: no runs since your edit',
    tooltip: `The recordings are of the code before your edit (changed ${files}): they are listed under "Before the change" in the Runs view and not analyzed with the current code. Record runs again, or Check the Fix.`,
  };
}
