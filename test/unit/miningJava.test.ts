/**
 * Acceptance of issue 8 on the Java sample programs: recorded runs (with noise) are explained by
 * trace abstraction and closed pattern mining (seed 000), and the top explanation group covers the
 * `// @bug` lines (for a tag with file=…, every event of the group's first pattern is in that file).
 * Traces go to test-output/recorder/traces/mining-<pkg>.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { explainByMining } from '../../server/src/engine/mining/index';
import { abstractionTextReport } from '../../server/src/engine/mining/abstractionExplainer';
import { bugTags, prepare, record, SAMPLE_PROGRAMS, SampleProgram } from '../recorder/recorderHarness';

interface Sample extends SampleProgram {
  todo?: string;
}

const RUNS = Number(process.env.BRAID_MINING_RUNS ?? 100);
const SAMPLES: Sample[] = SAMPLE_PROGRAMS.map((s) => ({ ...s }));

before(() => prepare());

for (const s of SAMPLES) {
  test(`mining sample ${s.main}: the top explanation group covers the @bug lines`, { todo: s.todo, timeout: 300000 }, async () => {
    const summary = await record(`mining-${s.pkg}`, s.main, { runs: RUNS, noise: s.noise, include: s.include });
    assert.ok(summary.failed > 0 && summary.passed > 0, `${s.main}: ${summary.passed} pass / ${summary.failed} fail`);
    const res = await explainByMining(summary.traces);
    assert.deepEqual(
      res.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const tags = bugTags(s.pkg);
    assert.ok(tags.length > 0);
    const top = res.groups[0];
    assert.ok(top, `${s.main}: no explanation\n${abstractionTextReport(res, 3)}`);
    const lines = new Set(top.lines.map((l) => `${l.file}:${l.line}`));
    const covers = tags.every((t) =>
      t.inFile ? top.patterns[0].macros.every((m) => m.events.every((e) => e.file === t.inFile)) : lines.has(`${t.file}:${t.line}`),
    );
    assert.ok(covers, `${s.main} (${summary.passed} pass / ${summary.failed} fail): top group misses ${tags.map((t) => t.inFile ?? `${t.file}:${t.line}`).join(', ')}\n${abstractionTextReport(res, 3)}`);
    assert.equal(top.rank, 1);
  });
}
