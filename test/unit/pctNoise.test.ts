/**
 * The recorder's side of `--noise-mode pct` (server/src/recorder/runs/pctNoise.ts): the agent's
 * `{"pct":…}` report read and summed, the run length the next run assumes, and the summary line
 * about waits the scheduler's bounds ended.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { DEFAULT_PCT_STEPS, mergePctReports, parsePctReport, pctAgentOptions, pctBoundText, PctReport, PctRunLength } from '../../server/src/recorder/runs/pctNoise';

const report = (steps: number, more: Partial<PctReport> = {}): PctReport => ({ steps, threads: 2, waits: 3, endedByStepBound: 0, endedByStall: 0, changes: 2, unscheduled: 0, ...more });

test('a pct report is read only when every count is a whole number ≥ 0; a run\'s JVMs add up', () => {
  assert.deepEqual(parsePctReport(report(824)), report(824));
  assert.equal(parsePctReport({ ...report(824), waits: -1 }), undefined);
  assert.equal(parsePctReport({ ...report(824), steps: 1.5 }), undefined);
  const { changes: _c, ...missing } = report(824);
  assert.equal(parsePctReport(missing), undefined);
  assert.equal(parsePctReport([1]), undefined);
  assert.deepEqual(mergePctReports([report(10, { endedByStall: 1 }), report(5)]), report(15, { threads: 4, waits: 6, changes: 4, endedByStall: 1 }));
  assert.equal(mergePctReports([]), undefined);
});

test('the run length: the one given, else the median of the runs so far, else the default', () => {
  const learned = new PctRunLength();
  assert.equal(learned.steps, DEFAULT_PCT_STEPS);
  learned.add(report(900));
  assert.equal(learned.steps, 900);
  learned.add(report(100));
  learned.add(undefined);
  learned.add(report(0));
  learned.add(report(500));
  assert.equal(learned.steps, 500);
  const given = new PctRunLength(250);
  given.add(report(900));
  assert.equal(given.steps, 250);
  assert.deepEqual(pctAgentOptions({ depth: 2 }, 812.4), ['noiseMode=pct', 'pctDepth=2', 'pctSteps=812']);
});

test('the summary names the waits the bounds ended, and is silent when none did', () => {
  assert.equal(pctBoundText([report(10), undefined]), undefined);
  assert.equal(
    pctBoundText([report(10, { waits: 5, endedByStepBound: 2 }), report(10, { waits: 5, endedByStall: 1 })]),
    'pct: 3 of 10 waits in 2 run(s) ended before the higher-priority thread blocked: 2 by the step bound (a higher-priority thread kept stepping), 1 by a stall (a higher-priority thread made no step: native or uninstrumented code)',
  );
});
