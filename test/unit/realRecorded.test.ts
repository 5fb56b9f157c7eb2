/**
 * The real corpus (issue 38, bench/real/README.md): every truth.json is well formed and follows the
 * held-out rule, and on every committed recording (test/fixtures/real/<id>) what holds is checked:
 * rank 1 is the root cause and GRIFFIN's bug 1 names a fixed method first, except on the misses
 * listed below with their reason — a listed miss that starts to hold fails too, so the list stays
 * true. Figures: npm run eval -- --set real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { heldOutById, realSubjects, recordedRoot, scoreRecording, truthProblems } from '../../bench/realCorpus';

/** Known misses on the committed recordings: id → why (rank 1 is not the root cause). */
const RANK_MISSES: Record<string, string> = {};
/** Known misses: id → why (bug 1's first suspicious method is not a fixed method). */
const METHOD_MISSES: Record<string, string> = {};

const subjects = realSubjects();

test('real corpus: every truth.json is well formed, names its fix and follows the held-out rule', () => {
  for (const s of subjects) assert.deepEqual(truthProblems(s.truth, s.id), [], `${s.id}: ${s.error ?? ''}`);
});

test('real corpus: the held-out rule splits by id alone (SHA-1 of the id)', () => {
  // fixed values: the rule must not change once subjects were split by it
  assert.equal(heldOutById('a'), false);
  const ids = Array.from({ length: 300 }, (_, k) => `subject-${k}`);
  const held = ids.filter(heldOutById).length;
  assert.ok(held > 70 && held < 130, `about a third held out, got ${held} of 300`);
});

for (const s of subjects) {
  const dir = path.join(recordedRoot, s.id);
  if (!existsSync(dir)) continue;
  test(`real corpus, committed recording of ${s.id} (${s.truth.subject}): rank 1 and bug 1's method as recorded`, async () => {
    const result = await analyzeTraceFiles([dir], { testCode: s.run.testCode ?? [] });
    assert.equal(result.diagnostics.filter((d) => d.severity === 'error').length, 0, JSON.stringify(result.diagnostics.slice(0, 3)));
    const score = scoreRecording(s.truth, result, explainBugs(undefined, result));
    assert.ok(score.failed > 0, 'the recording has failing runs');
    const listing = result.patterns
      .slice(0, 5)
      .map((p) => `${p.id} ${p.group} F${p.failed}/P${p.passed} p=${p.pValue.toExponential(1)} ${p.accesses.map((a) => `${a.thread}${a.type} ${a.file}:${a.line}`).join(' ')}`)
      .join('\n');
    if (RANK_MISSES[s.id]) assert.ok(!score.rank1, `${s.id} is listed as a rank miss (${RANK_MISSES[s.id]}) but rank 1 is now the root cause: remove it from RANK_MISSES`);
    else assert.ok(score.rank1, `rank 1 is not the root cause of ${s.id} (root cause at ${score.bugs.map((b) => b.rootPosition).join(', ')}):\n${listing}`);
    if (METHOD_MISSES[s.id]) assert.ok(!score.methodFirst, `${s.id} is listed as a method miss (${METHOD_MISSES[s.id]}) but now names a fixed method: remove it`);
    else assert.ok(score.methodFirst, `bug 1's first suspicious method of ${s.id} is ${score.bug1Methods[0] ?? 'none'}, not one of ${Object.values(s.truth.bugs).flatMap((b) => b.fixMethods).join(', ')}`);
  });
}
