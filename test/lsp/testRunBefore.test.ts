/**
 * The Testing view's "rate before" (braid/testRunReport's `before`, shown for a run after a change:
 * `✓ 6/6 · was ✗ 4/12`) is one code version, as "Before the change" is everywhere else
 * (CodeVersions.justBefore): the recordings of the same test on the code version just before the
 * change, their runs summed — not the newest recording alone, and never one of an earlier version.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import type { RunsResult, TestRunReportDto } from '../../server/src/lsp/protocol';
import { codeStampText, stampOf } from '../../server/src/lsp/codeStamp';

const SRC = 'src/main/java/shop/Inventory.java';
const TEST = ['java', '-cp', 'out', 'shop.Inventory'];

test('after a restart, the rate before of a test is its recordings of the code version just before the change, summed', async () => {
  const ws = copyFixture();
  const original = path.join(ws, 'original-traces');
  renameSync(path.join(ws, '.braid', 'traces'), original);
  const src = path.join(ws, SRC);
  const text = readFileSync(src, 'utf8');
  /** a recording of the fixture's 6 runs (2 failing) on code version v, with runs of its own */
  const recording = async (name: string, v: number, command: string[], hour: string) => {
    // a comment appended per version: no line moves
    writeFileSync(src, `${text}${'\n// edited'.repeat(v - 1)}`);
    const dir = path.join(ws, '.braid', 'traces', name);
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(original).filter((f) => f.endsWith('.trace.jsonl'))) {
      cpSync(path.join(original, f), path.join(dir, f));
      writeFileSync(path.join(dir, f), readFileSync(path.join(dir, f), 'utf8').replace('"execution":"run-', `"execution":"${name}-run-`));
    }
    writeFileSync(path.join(dir, 'sources.json'), codeStampText(await stampOf(ws)));
    writeFileSync(path.join(dir, 'recording.json'), JSON.stringify({ format: 'braid-recording', version: 1, command, cwd: ws, name, runs: 6, noise: 0.1, seed: 1, include: ['shop'], exclude: [], timeoutSeconds: 60, startedAt: `2026-11-29T${hour}:00:00.000Z` }));
    return dir;
  };
  // the test on v1, twice on v2; another command (another test) on v2, the newest of all; the test on v3, the code now
  await recording('test-v1', 1, TEST, '06');
  await recording('test-v2a', 2, TEST, '07');
  await recording('test-v2b', 2, TEST, '08');
  await recording('other-v2', 2, [...TEST, 'other'], '09');
  const now = await recording('test-v3', 3, TEST, '10');
  const s = new LspSession(ws);
  try {
    await s.initialize();
    // the first analysis holds every recording (which files they touched is not known yet); the next one the code now
    await s.analysisDone(0, (x) => x.executions.total === 6);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.deepEqual(runs.older?.map((o) => [path.basename(o.dir), o.runs, o.failed]).sort(), [
      ['other-v2', 6, 2],
      ['test-v1', 6, 2],
      ['test-v2a', 6, 2],
      ['test-v2b', 6, 2],
    ]);
    const report: TestRunReportDto = await s.connection.sendRequest('braid/testRunReport', {
      result: { runs: 6, failed: 2, passed: 4, outDir: now, cancelled: false },
      what: 'shop.Inventory',
    });
    // v2's two recordings of the test (not test-v2b alone: 2 of 6; not v1's, nor the other test's)
    assert.deepEqual(report.before, { runs: 12, failed: 4 });
    assert.ok(report.output.includes(`Before the change (${SRC}; 2 recordings): failed 4 of 12 (33 %) · after: failed 2 of 6 (33 %).`), report.output.join('\n'));
  } finally {
    await s.close();
    cleanup(ws);
  }
});
