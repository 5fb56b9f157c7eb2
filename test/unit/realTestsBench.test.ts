/**
 * The pure helpers of bench/real-tests-bench.mjs (issue 45 item 3): the console launcher's summary,
 * the trace's event count across chunks, medians, the paired rounds' order and factor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countEventLines, launcherSummary, median, pairedFactor, roundOrder, timeToolFigures } from '../../bench/realTestsFigures';

test('launcherSummary reads the counts of the JUnit console launcher, undefined without a summary', () => {
  const out = [
    'Test run finished after 31222 ms',
    '[       135 containers found      ]',
    '[      4574 tests found           ]',
    '[         2 tests skipped         ]',
    '[      4574 tests started         ]',
    '[         1 tests aborted         ]',
    '[      4467 tests successful      ]',
    '[       107 tests failed          ]',
  ].join('\n');
  assert.deepEqual(launcherSummary(out), { found: 4574, successful: 4467, failed: 107, aborted: 1, skipped: 2 });
  assert.equal(launcherSummary('Exception in thread "main" java.lang.NoClassDefFoundError'), undefined);
  // a summary cut short (the JVM killed while printing) is no summary
  assert.equal(launcherSummary('[      4574 tests found           ]\n[      4467 tests successful      ]'), undefined);
});

test('countEventLines counts lines starting with [ across chunk boundaries, not [ inside lines', () => {
  const trace = '{"braid":"trace"}\n{"def":"var","id":1,"name":"a[0]"}\n[1,1,"W",1]\n[2,2,"R",1,"[x"]\n[3,1,"OUT",1,"["]\n';
  const whole = countEventLines(Buffer.from(trace)).events;
  assert.equal(whole, 3);
  for (let cut = 0; cut <= trace.length; cut++) {
    const a = countEventLines(Buffer.from(trace.slice(0, cut)));
    const b = countEventLines(Buffer.from(trace.slice(cut)), a.last);
    assert.equal(a.events + b.events, 3, `cut at ${cut}`);
  }
});

test('median ignores NaN and takes the lower middle; pairedFactor is the median of the rounds\' ratios', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2);
  assert.equal(median([NaN, 5]), 5);
  assert.ok(Number.isNaN(median([])));
  // ratios 2, 3, 10: the median is 3, not the ratio of the medians (10 / 2 = 5)
  assert.equal(pairedFactor([10, 2, 1], [20, 6, 10]), 3);
  // a round without a plain figure is left out: ratios 2, 4
  assert.equal(pairedFactor([10, 0, 5], [20, 7, 20]), 2);
  assert.throws(() => pairedFactor([1], [1, 2]), /1 plain figures but 2 recorded/);
});

test('roundOrder rotates the first configuration, each one first equally often', () => {
  assert.deepEqual(roundOrder(0, 3), [0, 1, 2]);
  assert.deepEqual(roundOrder(1, 3), [1, 2, 0]);
  assert.deepEqual(roundOrder(2, 3), [2, 0, 1]);
  assert.deepEqual(roundOrder(3, 3), [0, 1, 2]);
});

test('timeToolFigures takes the last BRAIDCPU line (the test may print to stderr too)', () => {
  assert.deepEqual(timeToolFigures('BRAIDCPU 9 9 9 from a test\nBRAIDCPU 1.50 0.25 466092\n'), { cpuMs: 1750, rssKiB: 466092 });
  const none = timeToolFigures('no figures');
  assert.ok(Number.isNaN(none.cpuMs) && Number.isNaN(none.rssKiB));
});
