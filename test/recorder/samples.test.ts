/**
 * Acceptance of issue 4: for every sample program, 100 recorded runs with noise have both passing
 * and failing runs, and the analysis ranks a pattern covering the `// @bug` lines at rank 1.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { bugTags, prepare, record } from './recorderHarness';

interface Sample {
  pkg: string;
  main: string;
  include: string[];
  noise: number;
}

const RUNS = 100;
const SAMPLES: Sample[] = [
  { pkg: 'bank', main: 'bank.Bank', include: ['bank'], noise: 0.3 },
  { pkg: 'airline', main: 'airline.Airline', include: ['airline'], noise: 0.3 },
  { pkg: 'shop', main: 'shop.Shop', include: ['shop'], noise: 0.3 },
  { pkg: 'tablelog', main: 'tablelog.TableLog', include: ['tablelog'], noise: 0.1 },
  { pkg: 'orderviolation', main: 'orderviolation.OrderViolation', include: ['orderviolation'], noise: 0.1 },
  { pkg: 'vectorcopy', main: 'vectorcopy.VectorCopy', include: ['vectorcopy'], noise: 0.1 },
  { pkg: 'unsafelist', main: 'unsafelist.UnsafeList', include: ['unsafelist', 'java.util.ArrayList'], noise: 0.1 },
];

before(() => prepare());

for (const s of SAMPLES) {
  test(`sample ${s.main}: ${RUNS} runs with noise ${s.noise} fail sometimes and the bug pattern is at rank 1`, async () => {
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

    const tags = bugTags(s.pkg);
    assert.ok(tags.length > 0, `no // @bug tag in ${s.pkg}`);
    const rank1 = result.patterns.filter((p) => p.rank === 1);
    const covers = rank1.some((p) =>
      tags.every((t) =>
        t.inFile
          ? p.accesses.every((a) => a.file === t.inFile)
          : p.accesses.some((a) => a.file === t.file && a.line === t.line),
      ),
    );
    const show = (ps: typeof result.patterns) =>
      ps
        .slice(0, 6)
        .map((p) => `#${p.rank} ${p.id} ${p.score.toFixed(3)} F${p.failed}/P${p.passed} ${p.accesses.map((a) => `${a.thread}${a.type} ${a.variable} ${a.file}:${a.line}`).join(' | ')}`)
        .join('\n');
    assert.ok(
      covers,
      `${s.main} (${summary.passed} pass / ${summary.failed} fail): no rank-1 pattern covers ${tags.map((t) => t.inFile ?? `${t.file}:${t.line}`).join(', ')}\n${show(result.patterns)}`,
    );
  });
}
