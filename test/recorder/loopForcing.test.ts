/**
 * Forcing a window opened by a loop's call (docs/confirm.md "Lines with several library calls"; the
 * agent's `fresh` and `ready` waits, docs/noise.md), on real JVM runs of datasource: a housekeeper
 * iterates a HashMap under the data source's lock (`for (c : checkedOut.values())`, four library calls
 * at one line) while application threads remove from it without the lock. The root cause's refinement
 * per call — R1 hasNext() W2 remove() R1 next() — comes from the committed recording ranked with
 * locations per call; forced with a fresh opening and the housekeeper waiting for a remover to be
 * ready, nearly every run meets it and dies with a ConcurrentModificationException.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { callRefinedCandidates } from '../../server/src/engine/confirm/callRefinement';
import { forcingPlan } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';
import { fixturesDir, prepare, record, root } from './recorderHarness';

before(() => prepare());

test('a for-each\'s window forced per call (hasNext → remove → next): fresh opening, the iterating thread waits for the remover', async () => {
  const dir = path.join(root, 'test/fixtures/bugset/datasource');
  const lines = await analyzeTraceFiles([dir]);
  const calls = await analyzeTraceFiles([dir], { callLocations: true });
  const bugs = bugLinesIn(path.join(fixturesDir, 'datasource'));
  const c = callRefinedCandidates(lines, calls, 5).find(
    (x) => x.pattern.kind === 'RWR' && isRootCause(x.pattern, bugs) && x.pattern.accesses.map((a) => a.call).join() === 'java.util.Iterator.hasNext,java.util.HashMap.remove,java.util.Iterator.next',
  );
  assert.ok(c, 'the root cause has a refinement hasNext → remove → next with evidence');
  const plan = forcingPlan('datasource-loop', c.pattern, 'pattern');
  assert.ok(plan.force.waits.some((w) => w.fresh) && plan.force.waits.some((w) => w.ready));
  const file = path.join(tempDir(), 'loop.json');
  writeFileSync(file, JSON.stringify(plan));
  const runs = 12;
  const s = await record('loop-forcing', 'datasource.PoolStress', { runs, noise: 0, include: ['datasource'], plan: { file, plan } });
  const ok = s.runs.filter((r) => r.forcing?.ok).length;
  // measured: 6/6 met and failing (without fresh/ready, the same calls: met in 2–8 of 10); on a loaded
  // machine a run now and then ends its wait when the removers have all finished (4 of 6 seen twice in
  // about ten runs of 6 under CI load, session 14), so three quarters of 12, not all but one of 6
  assert.ok(ok >= 9, `met in ${ok}/${runs}: ${JSON.stringify(s.runs.map((r) => r.forcing?.reason ?? 'ok'))}`);
  assert.ok(s.failed >= 9, `${s.failed}/${runs} failed`);
  for (const r of s.runs.filter((x) => x.forcing?.ok)) assert.equal(r.outcome, 'fail');
  for (const r of s.runs.filter((x) => x.outcome === 'fail')) assert.match(r.detail ?? '', /ConcurrentModificationException/);
});
