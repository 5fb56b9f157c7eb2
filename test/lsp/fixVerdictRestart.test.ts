/**
 * Check the Fix's verdict survives a server restart (issue 43 follow-up), over the real language
 * server on stdio: a recording of the bank sample (test/fixtures/recorded/bank, 100 runs) with its
 * code stamp and manifest; deposit made synchronized and saved → the recording is one of older code,
 * its bug offered for Check the Fix → braid/confirm checkFix (rebuild, forced runs, noise runs) says
 * fixed → the Runs view's row reads "fixed · failed 57/100 before, 0/8 after" and
 * `<recording>/fix-checks.json` holds the runs behind it → a new server on the same folder shows the
 * same row → a malformed file is an error naming the file, and the rest (the analysis, the bug
 * offered for Check the Fix) loads.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, cleanup } from './lspHarness';
import { FAST_JVM, fixturesDir, root } from '../recorder/recorderHarness';
import { codeStampText, stampOf } from '../../server/src/lsp/codeStamp';
import { FIX_CHECKS_FILE } from '../../server/src/lsp/fixVerdicts';
import type { ConfirmResultDto, RunsResult } from '../../server/src/lsp/protocol';
import { useVscodeMock } from '../helpers/vscodeMock';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');

const SRC = 'src/main/java/bank/Bank.java';
const UNFIXED = '    void deposit(int amount) {';

async function workspace(): Promise<{ ws: string; rec: string }> {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-lsp-fixverdict-'));
  mkdirSync(path.dirname(path.join(ws, SRC)), { recursive: true });
  cpSync(path.join(fixturesDir, 'bank', 'Bank.java'), path.join(ws, SRC));
  const build = ['javac', '-g', '-d', 'out', SRC];
  const javac = spawnSync(build[0], build.slice(1), { cwd: ws, encoding: 'utf8' });
  assert.equal(javac.status, 0, javac.stderr);
  // the committed recording of this very source, as a recording Braid made: code stamp and manifest
  const rec = path.join(ws, '.braid', 'traces', 'bank-20261129-190000');
  mkdirSync(rec, { recursive: true });
  const from = path.join(root, 'test/fixtures/recorded/bank');
  for (const f of readdirSync(from).filter((f) => f.includes('.trace.jsonl'))) cpSync(path.join(from, f), path.join(rec, f));
  writeFileSync(path.join(rec, 'sources.json'), codeStampText(await stampOf(ws)));
  writeFileSync(
    path.join(rec, 'recording.json'),
    JSON.stringify({
      format: 'braid-recording',
      version: 1,
      command: ['java', ...FAST_JVM, '-cp', 'out', 'bank.Bank'],
      cwd: ws,
      name: 'bank',
      runs: 100,
      noise: 0.3,
      seed: 1000,
      include: ['bank'],
      exclude: [],
      timeoutSeconds: 60,
      startedAt: '2026-11-29T19:00:00.000Z',
      prepare: [{ command: build, cwd: ws }],
    }),
  );
  return { ws, rec };
}

/** braid/runs once the recording is one of older code and its bug is offered (the analysis after the one that learned it). */
async function olderBug(s: LspSession, since = 0): Promise<RunsResult> {
  for (let k = 0; ; k++) {
    await s.analysisDone(since, (x) => x.executions.total === 0);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    if (runs.older?.length && runs.beforeBugs?.length) return runs;
    assert.ok(k < 50, `no bug of the code before the change: ${JSON.stringify({ older: runs.older?.length, beforeBugs: runs.beforeBugs?.length })}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('Check the Fix: the verdict is kept beside the recording, a restarted server shows it again; a malformed file is an error naming it and the rest loads', { timeout: 600000 }, async () => {
  const { ws, rec } = await workspace();
  let s = new LspSession(ws);
  try {
    await s.initialize();
    const first = await s.analysisDone(0, (x) => x.executions.total === 100);
    assert.ok(first.executions.failed > 0, 'the recording has failing runs');

    // the fix, saved: the recording is now one of older code
    const text = readFileSync(path.join(ws, SRC), 'utf8');
    assert.ok(text.includes(UNFIXED));
    writeFileSync(path.join(ws, SRC), text.replace(UNFIXED, '    synchronized void deposit(int amount) {'));
    let since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri(SRC), type: 2 }] });
    let runs = await olderBug(s, since);
    assert.equal(runs.older![0].dir, rec);
    const bug = runs.beforeBugs![0];
    assert.equal(bug.fix, undefined, 'not checked yet');

    since = s.notes.length;
    const r: ConfirmResultDto = await s.connection.sendRequest('braid/confirm', { key: bug.pattern.key, mode: 'checkFix', runs: 8 });
    assert.equal(r.fix?.verdict, 'fixed', JSON.stringify(r));
    const expected = { verdict: 'fixed', before: { runs: 100, failed: first.executions.failed }, after: { runs: 8, failed: 0 } };
    runs = await s.connection.sendRequest('braid/runs');
    assert.deepEqual(runs.beforeBugs![0].fix, expected);
    const label = `fixed · failed ${first.executions.failed}/100 before, 0/8 after`;
    assert.equal(trees.fixVerdictText(runs.beforeBugs![0].fix!), label);
    // the runs behind the verdict, beside the recording it judged
    const file = path.join(rec, FIX_CHECKS_FILE);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual([saved.format, saved.version, saved.recording.traces], ['braid-fix-checks', 1, 100]);
    const c = saved.checks[bug.pattern.key];
    assert.deepEqual([c.verdict, c.before, c.after, c.forced, c.command], ['fixed', expected.before, expected.after, r.confirmation?.forced, ['java', ...FAST_JVM, '-cp', 'out', 'bank.Bank']]);
    assert.ok(Date.now() - Date.parse(c.at) < 600000, c.at);
    assert.match(c.runsFolder, /^\.braid\/confirm\/.+\/after$/);
    await s.close();

    // a new server on the same folder: the row says it again
    s = new LspSession(ws);
    await s.initialize();
    runs = await olderBug(s);
    assert.equal(runs.beforeBugs![0].pattern.key, bug.pattern.key);
    assert.deepEqual(runs.beforeBugs![0].fix, expected);
    assert.equal(trees.fixVerdictText(runs.beforeBugs![0].fix!), label);
    await s.close();

    // a malformed file: an error naming the file; the analysis and the bug offered for Check the Fix still load
    writeFileSync(file, '{"format": "braid-fix-checks", "version": 1, "checks": {');
    s = new LspSession(ws);
    await s.initialize();
    runs = await olderBug(s);
    assert.equal(runs.beforeBugs![0].pattern.key, bug.pattern.key);
    assert.equal(runs.beforeBugs![0].fix, undefined);
    const errors = s.logs(1).filter((m) => m.includes(file));
    assert.equal(errors.length, 1, JSON.stringify(s.logs()));
    assert.match(errors[0], /not JSON \(.+\); the verdicts of Check the Fix there are not shown/);
    assert.equal(readFileSync(file, 'utf8'), '{"format": "braid-fix-checks", "version": 1, "checks": {', 'left as it is');
  } finally {
    await s.close();
    cleanup(ws);
  }
});
