/**
 * Smoke test of recording (issue 4) on every sample program: 100 live runs with noise give both
 * passing and failing runs, each with events, and the traces analyze without errors into ranked
 * patterns. Which pattern ranks first depends on the OS scheduler here, so the rank-1 claim is
 * checked on committed recorded traces (test/fixtures/recorded), not on these live runs.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { bugTags, prepare, record, SAMPLE_PROGRAMS } from './recorderHarness';

const RUNS = 100;
const SAMPLES = SAMPLE_PROGRAMS;

before(() => prepare());

for (const s of SAMPLES) {
  test(`sample ${s.main}: ${RUNS} runs with noise ${s.noise} record passing and failing runs that analyze`, async () => {
    const summary = await record(s.pkg, s.main, { runs: RUNS, noise: s.noise, include: s.include });
    assert.equal(summary.total, RUNS);
    assert.ok(summary.failed > 0, `${s.main}: no failing run`);
    assert.ok(summary.passed > 0, `${s.main}: no passing run`);
    assert.equal(summary.empty, 0, `${s.main}: runs without events`);

    const result = await analyzeTraceFiles(summary.traces);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errors, [], 'the traces are read without errors');
    assert.equal(result.executions.total, RUNS);
    assert.equal(result.executions.failed, summary.failed);
    assert.ok(result.patterns.length > 0 && result.patterns[0].score > 0, `${s.main}: no suspicious pattern`);
    assert.ok(bugTags(s.pkg).length > 0, `no // @bug tag in ${s.pkg}`);
  });
}
