/**
 * Acceptance of issue 18: for every sample program, 50 recorded runs with noise, and the call-graph
 * method ranking (seed 003, default: inter-thread graph) puts a method holding a `// @bug` line
 * among its top 3. For a bug inside a JDK class (`file=` tag), the bug method is the JDK method the
 * tagged line calls. docs/callgraph.md has the full table.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { rankMethodsOfTraceFiles } from '../../server/src/engine/callgraph/localizationProcess';
import { sourceReader } from '../../server/src/cli/methodsCommand';
import { fixturesDir, prepare, record, SAMPLE_PROGRAMS } from './recorderHarness';
import { bugMethods } from '../helpers/bugMethods';

const RUNS = 50;

before(() => prepare());

for (const s of SAMPLE_PROGRAMS) {
  test(`sample ${s.main}: an @bug method is among the top 3 of the call-graph ranking`, async () => {
    const summary = await record(`callgraph-${s.pkg}`, s.main, { runs: RUNS, noise: s.noise, include: s.include });
    assert.ok(summary.failed > 0 && summary.passed > 0, `${s.main}: needs failing and passing runs`);
    const r = await rankMethodsOfTraceFiles(summary.traces, { readSource: sourceReader([fixturesDir]) });
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    const bug = await bugMethods(s.pkg, summary.traces);
    assert.ok(bug.size > 0, `${s.main}: no method holds a // @bug line in the traces`);
    const isBug = (m: { method: string }) => bug.has(m.method);
    const top3 = r.methods.slice(0, 3);
    assert.ok(
      top3.some(isBug),
      `${s.main} (${summary.passed} pass / ${summary.failed} fail): no @bug method in the top 3\n${r.methods
        .slice(0, 6)
        .map((m) => `#${m.rank} ${m.score.toFixed(3)} ${m.method} ${m.edge?.text ?? ''}`)
        .join('\n')}`,
    );
  });
}
