/**
 * braid/testRunReport: what the Testing view's "Run with Braid" profile (client/src/testing.ts)
 * shows for one recorded test, in words — "failed 3 of 20 (15 %)", the test marked failed as
 * flaky, one message per distinct failure (the assertion text and where it was raised, from the
 * runs' `failure`, engine/runFailure.ts) and the root cause: the best pattern found in this
 * recording's failing runs. A test that never failed passes "passed 20 of 20 with noise" and the
 * output points at Find Trigger Points.
 */
import path from 'node:path';
import { patternSentence } from '../engine/report/patternSentence';
import { plainHeadline } from '../engine/outputEscaping';
import type { AnalysisState } from './analysisState';
import { failuresOf } from './analysisState';
import type { RecordResult, RunDto, TestRunReportDto } from './protocol';

/**
 * The two values of an assertion message, for a diff: `expected: <2> but was: <1>` (JUnit 4/5),
 * `expected [2] but found [1]` (TestNG); `Expected values to be strictly equal: 1 !== 2` (node's
 * assert: actual first), `expected 1 to be 2` (vitest, chai: actual first), `Expected: 2 Received: 1`
 * (jest).
 */
export function expectedActual(message: string | undefined): { expected: string; actual: string } | undefined {
  if (!message) return undefined;
  const m = /expected:? *<([\s\S]*)> *but was:? *<([\s\S]*)>/.exec(message) ?? /expected \[([\s\S]*)\] but found \[([\s\S]*)\]/.exec(message);
  if (m) return { expected: m[1], actual: m[2] };
  const node = /Expected values to be (?:strictly |loosely )?equal:?\s+([\s\S]+?) !==? ([\s\S]+?)\s*$/.exec(message);
  if (node) return { expected: node[2], actual: node[1] };
  // chai's words (vitest's expect): `to be` only with its `// Object.is equality` (a sentence of the test's own reads the same)
  const chai =
    /^(?:AssertionError(?: \[\w+\])?: )?expected ([\s\S]+?) to be ([\s\S]+?) \/\/ Object\.is equality\s*$/.exec(message) ??
    /^(?:AssertionError(?: \[\w+\])?: )?expected ([\s\S]+?) to (?:equal|deeply equal|strictly equal|eql) ([\s\S]+?)\s*$/.exec(message);
  if (chai) return { expected: chai[2], actual: chai[1] };
  const jest = /\bExpected:\s*([\s\S]+?)\s+Received:\s*([\s\S]+?)\s*$/.exec(message);
  return jest ? { expected: jest[1], actual: jest[2] } : undefined;
}

const percent = (k: number, n: number) => {
  const x = (k / n) * 100;
  return x > 0 && x < 1 ? x.toFixed(1) : String(Math.round(x));
};

/**
 * The recordings of the same test on the code version just before the change (codeVersions.ts,
 * CodeVersions.justBefore), for the before/after line: their runs and failed runs summed.
 */
export interface BeforeRecording {
  runs: number;
  failed: number;
  /** how many recordings of that code version (1 when absent) */
  recordings?: number;
  /** workspace-relative paths of the files changed since */
  changed: string[];
}

function rateText(failed: number, runs: number): string {
  return failed === 0 ? `passed ${runs} of ${runs}` : `failed ${failed} of ${runs} (${percent(failed, runs)} %)`;
}

/**
 * The report of one recording. `state` is the analysis that includes the recording's traces
 * (undefined: none yet, only the recorder's counts are used). `before`: the recordings of the same
 * test on the code version just before the change, shown beside this one, never merged with it.
 */
export function testRunReport(result: RecordResult, state: AnalysisState | undefined, what = 'the test', before?: BeforeRecording): TestRunReportDto {
  const n = result.runs;
  const k = result.failed;
  const output: string[] = [];
  const beforeAfter =
    before && before.runs > 0 && n > 0
      ? {
          before: { runs: before.runs, failed: before.failed },
          line: `Before the change (${before.changed.slice(0, 3).join(', ')}${before.changed.length > 3 ? ', …' : ''}${(before.recordings ?? 1) > 1 ? `; ${before.recordings} recordings` : ''}): ${rateText(before.failed, before.runs)} · after: ${rateText(k, n)}.`,
        }
      : undefined;
  const ended = result.cancelled ? `cancelled after ${n} run${n === 1 ? '' : 's'}` : '';
  if (n === 0) {
    output.push(result.cancelled ? `Braid: recording of ${what} cancelled before any run finished; nothing was recorded.` : `Braid: no run of ${what} was recorded.`);
    return { outcome: 'none', runs: 0, failed: 0, summary: result.cancelled ? 'cancelled' : 'no runs', failures: [], output, suggestTriggerPoints: false };
  }
  // the recording's runs in the analysis, in the order of result.runs (RunDto and RunResult side by side)
  const idx: number[] = [];
  if (state) {
    const dir = path.resolve(result.outDir);
    state.result.runs.forEach((r, i) => {
      const rel = path.relative(dir, path.resolve(r.file));
      if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) idx.push(i);
    });
  }
  const failingDtos: RunDto[] = idx.map((i) => state!.runs[i]).filter((r) => r.outcome === 'fail');
  const stopped = result.stopped === 'evidence' ? ` · stopped when the evidence was in (p = ${result.leadPValue?.toExponential(1) ?? '?'})` : result.stopped === 'max-runs' ? ' · stopped at the budget of runs' : result.stopped === 'max-seconds' ? ' · stopped at the time budget' : '';
  if (k === 0) {
    const summary = `passed ${n} of ${n} with noise`;
    output.push(`Braid: ${what} ${summary}${ended ? ` (${ended})` : ''}${stopped}.`);
    if (beforeAfter) output.push(beforeAfter.line);
    if (!result.cancelled && !(beforeAfter && beforeAfter.before.failed > 0)) {
      output.push(
        result.tried
          ? `It never failed with ${result.tried}: Braid: Find Trigger Points looks for the source lines where timing noise makes it fail${result.next ? `; or try ${result.next}` : ''}.`
          : 'It never failed: Braid: Find Trigger Points looks for the source lines where timing noise makes it fail (or raise braid.record.noise, or record more runs with braid.record.runs).',
      );
    }
    output.push(`Traces: ${result.outDir}`);
    return {
      outcome: result.cancelled ? 'none' : 'passed',
      runs: n,
      failed: 0,
      summary: result.cancelled ? `${summary} (${ended})` : summary,
      failures: [],
      output,
      suggestTriggerPoints: !result.cancelled && !(beforeAfter && beforeAfter.before.failed > 0),
      ...(beforeAfter ? { before: beforeAfter.before } : {}),
    };
  }
  const summary = `failed ${k} of ${n} (${percent(k, n)} %)`;
  const failures = failuresOf(failingDtos).map((f) => ({ ...f, ...(expectedActual(f.message) ?? {}) }));
  output.push(`Braid: ${what} ${summary} with noise${ended ? ` (${ended})` : ''}${stopped}.`);
  if (beforeAfter) output.push(beforeAfter.line);
  for (const f of failures) {
    const where = f.location ? ` at ${path.basename(f.location.file)}:${f.location.line}` : '';
    output.push(`  ${f.runs}× ${f.message ?? f.reason}${where}`);
  }
  const rootCause = state ? bestPattern(state, idx) : undefined;
  if (rootCause) output.push(`Root cause: pattern #${rootCause.rank} (score ${rootCause.score.toFixed(3)}, ${rootCause.failed} ✗ ${rootCause.passed} ✓): ${rootCause.sentence}${rootCause.bug ? ` · Bug ${rootCause.bug}` : ''}`);
  else output.push('No ranked pattern separates the failing runs yet: record more runs (braid.record.runs) to see the root cause.');
  output.push(`Traces: ${result.outDir}`);
  return {
    outcome: 'failed',
    runs: n,
    failed: k,
    summary,
    message: `flaky: failed ${k} of ${n} runs with noise`,
    failures,
    ...(rootCause ? { rootCause } : {}),
    output,
    suggestTriggerPoints: false,
    ...(beforeAfter ? { before: beforeAfter.before } : {}),
  };
}

/** The best-ranked pattern (not weak; a cause before harness and symptom patterns) that occurs in a failing run of the recording. */
function bestPattern(state: AnalysisState, runIdx: number[]): TestRunReportDto['rootCause'] {
  const failing = runIdx.map((i) => state.result.runs[i]).filter((r) => r.outcome === 'fail');
  if (!failing.length) return undefined;
  const occurs = (index: number) => failing.some((r) => binaryIncludes(r.patterns, index));
  let best: number | undefined;
  for (let k = 0; k < state.patterns.length; k++) {
    const dto = state.patterns[k];
    if (dto.weak || !occurs(state.result.patterns[k].index)) continue;
    if (best === undefined) best = k;
    if ((dto.group ?? 'cause') === 'cause' && dto.evidence !== false) {
      best = k;
      break;
    }
  }
  if (best === undefined) return undefined;
  const p = state.patterns[best];
  // the counts of this recording's runs, not of every recording the analysis holds (issue 43: "16 ✗" for 15 failures)
  const index = state.result.patterns[best].index;
  let failed = 0;
  let passed = 0;
  for (const i of runIdx) {
    const r = state.result.runs[i];
    if (!binaryIncludes(r.patterns, index)) continue;
    if (r.outcome === 'fail') failed++;
    else if (r.outcome === 'pass') passed++;
  }
  const at = p.accesses.find((a) => a.uri && !a.harness) ?? p.accesses.find((a) => a.uri);
  const bug = state.bugs.find((b) => Array.isArray(b.patternKeys) && (b.patternKeys as unknown[]).includes(p.key));
  const bugId = bug ? (typeof bug.id === 'number' ? bug.id : state.bugs.indexOf(bug) + 1) : undefined;
  return {
    key: p.key,
    rank: p.rank,
    sentence: plainHeadline(patternSentence(p.accesses)),
    score: p.score,
    failed,
    passed,
    ...(at?.uri ? { uri: at.uri, line: at.line } : {}),
    ...(bugId !== undefined ? { bug: bugId } : {}),
  };
}

function binaryIncludes(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid];
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
