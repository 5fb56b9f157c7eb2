/**
 * Acceptance of issue 18: for every sample program and evaluation subject, its committed recording (test/fixtures/recorded,
 * 100 runs with noise, re-recorded by scripts/record-subjects.mjs), and the call-graph
 * method ranking (seed 003, default: inter-thread graph) puts a method holding a `// @bug` line
 * among its top 3. For a bug inside a JDK class (`file=` tag), the bug method is the JDK method the
 * tagged line calls. docs/callgraph.md has the full table.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { rankMethodsOfTraceFiles } from '../../server/src/engine/callgraph/localizationProcess';
import { sourceReader } from '../../server/src/cli/methodsCommand';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ALL_SUBJECTS, fixturesDir } from '../recorder/recorderHarness';
import { bugMethods } from '../helpers/bugMethods';

const recorded = path.resolve(__dirname, '../fixtures/recorded');

function committedTraces(pkg: string): string[] {
  const dir = path.join(recorded, pkg);
  return readdirSync(dir)
    .filter((f) => /\.trace\.jsonl(\.gz)?$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

for (const s of ALL_SUBJECTS) {
  test(`sample ${s.main}: an @bug method is among the top 3 of the call-graph ranking`, async () => {
    const traces = committedTraces(s.pkg);
    const r = await rankMethodsOfTraceFiles(traces, { readSource: sourceReader([fixturesDir]) });
    const summary = r.executions;
    assert.ok(summary.failed > 0 && summary.passed > 0, `${s.main}: needs failing and passing runs`);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    const bug = await bugMethods(s.pkg, traces);
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
