/**
 * Smoke test of issue 8 on the Java sample programs: live recorded runs (with noise) are explained
 * by trace abstraction and closed pattern mining (seed 000) into at least one group whose macros
 * hold events. Which group ranks first depends on the OS scheduler, so no claim about the `// @bug`
 * lines is made on live runs. Traces go to test-output/recorder/traces/mining-<pkg>.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { explainByMining } from '../../server/src/engine/mining/index';
import { abstractionTextReport } from '../../server/src/engine/mining/abstractionExplainer';
import { prepare, record, SAMPLE_PROGRAMS, SampleProgram } from '../recorder/recorderHarness';

interface Sample extends SampleProgram {
  /** a known gap; not allowed under CI (the run fails instead of reporting a todo) */
  todo?: string;
}

const RUNS = Number(process.env.BRAID_MINING_RUNS ?? 100);
const SAMPLES: Sample[] = SAMPLE_PROGRAMS.map((s) => ({ ...s }));

before(() => prepare());

for (const s of SAMPLES) {
  // hang guard: 300 s for 100 JVM runs on a busy 2-core machine
  test(`mining sample ${s.main}: recorded runs are explained by groups of non-empty macros`, { todo: process.env.CI ? undefined : s.todo, timeout: 300000 }, async () => {
    assert.ok(!(process.env.CI && s.todo), `${s.main} is marked todo (${s.todo}); todo is not allowed under CI`);
    const summary = await record(`mining-${s.pkg}`, s.main, { runs: RUNS, noise: s.noise, include: s.include });
    assert.ok(summary.failed > 0 && summary.passed > 0, `${s.main}: ${summary.passed} pass / ${summary.failed} fail`);
    const res = await explainByMining(summary.traces);
    assert.deepEqual(
      res.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    assert.deepEqual([res.stats.failing, res.stats.passing], [summary.failed, summary.passed]);
    const top = res.groups[0];
    assert.ok(top, `${s.main}: no explanation\n${abstractionTextReport(res, 3)}`);
    assert.equal(top.rank, 1);
    assert.ok(top.patterns.length > 0);
    for (const p of top.patterns) {
      assert.ok(p.macros.length >= 2, 'a pattern has macros of at least two threads');
      for (const m of p.macros) assert.ok(m.events.length > 0, `${s.main}: empty macro in the top group`);
    }
    assert.ok(top.lines.length > 0);
  });
}
