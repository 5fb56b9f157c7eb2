/**
 * braid test's note when repetitions in one JVM inherit state from the runs before them: later runs
 * fail far more than a JVM's first runs (metrics-shareddefault of the real corpus: a library's static
 * default set by the first repetition made 996 of 1000 fail). Not said for a race that fails in first
 * and later runs alike, nor with few later runs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { leakedStateNote, type RepetitionFigures } from '../../server/src/recorder/runs/recordRuns';

const base: RepetitionFigures = { freshStatic: true, firstRuns: 2, firstFailed: 0, laterRuns: 998, laterFailed: 996 };

test('leakedStateNote: said when runs after a JVM\'s first fail far more than first runs', () => {
  assert.match(String(leakedStateNote(base)), /996 of 998 later runs, 0 of 2 first runs.*library's static field.*--fresh-jvm/);
  assert.ok(leakedStateNote({ ...base, firstRuns: 4, firstFailed: 1 }), 'one first run of four failing: still far less');
  assert.equal(leakedStateNote({ ...base, firstFailed: 2 }), undefined, 'first runs fail as often: a race');
  assert.equal(leakedStateNote({ ...base, laterFailed: 500 }), undefined, 'later runs fail half the time: no sign of leaked state');
  assert.equal(leakedStateNote({ ...base, laterRuns: 9, laterFailed: 9 }), undefined, 'too few later runs');
  assert.equal(leakedStateNote({ ...base, firstRuns: 0 }), undefined);
});
