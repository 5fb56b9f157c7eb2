/**
 * Check the Fix's verdict file beside the recording it judged (server/src/lsp/fixVerdicts.ts,
 * docs/confirm.md): written with the runs behind the verdict and read back by a new store (a new
 * server); a malformed file is an error naming the file and where, left as it is, and every other
 * recording's verdicts load; a malformed entry is left out, the others load; an unknown version is
 * named; a recording that got a new run drops its verdicts (and the file); a verdict whose pattern
 * is gone is dropped; a linked file is not read.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIX_CHECKS_FILE, FixVerdictStore, type SavedFixCheck } from '../../server/src/lsp/fixVerdicts';

const check: SavedFixCheck = {
  verdict: 'fixed',
  before: { runs: 30, failed: 17 },
  after: { runs: 20, failed: 0 },
  forced: { runs: 20, failed: 0, forcedOk: 0 },
  pValue: 0.00001,
  reason: 'the interleaving can no longer happen; with noise the runs failed 17 of 30 (57 %) before, 0 of 20 (0 %) now',
  command: ['mvn', '-q', 'test', '-Dtest=AccountTest'],
  runsFolder: '.braid/confirm/AccountTest-20261129/after',
  at: '2026-11-29T19:00:00.000Z',
};

function workspace() {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-fixchecks-'));
  const rec = (name: string, runs: number) => {
    const dir = path.join(ws, '.braid', 'traces', name);
    mkdirSync(dir, { recursive: true });
    for (let k = 0; k < runs; k++) writeFileSync(path.join(dir, `run-${k}.trace.jsonl`), `{"braid":"trace","version":1,"execution":"run-${k}"}\n`);
    return dir;
  };
  const logs: { level: string; message: string }[] = [];
  const store = () => new FixVerdictStore(() => [ws], (level, message) => void logs.push({ level, message }));
  return { ws, rec, logs, store, done: () => rmSync(ws, { recursive: true, force: true }) };
}

test('a verdict is written beside its recording with the runs behind it and read back by a new store', async () => {
  const w = workspace();
  try {
    const a = w.rec('AccountTest-a', 3);
    await w.store().set(a, 'P9|R1:balance@Account.java:8|W2:balance@Account.java:10', check);
    const file = JSON.parse(readFileSync(path.join(a, FIX_CHECKS_FILE), 'utf8'));
    assert.equal(file.format, 'braid-fix-checks');
    assert.equal(file.version, 1);
    assert.equal(file.recording.traces, 3);
    assert.match(file.recording.fingerprint, /^[0-9a-f]{64}$/);
    const saved = file.checks['P9|R1:balance@Account.java:8|W2:balance@Account.java:10'];
    assert.deepEqual([saved.before, saved.after, saved.command, saved.at], [check.before, check.after, check.command, check.at]);

    const again = w.store();
    assert.equal(again.get('P9|R1:balance@Account.java:8|W2:balance@Account.java:10'), undefined, 'nothing before sync');
    await again.sync([a]);
    const got = again.get('P9|R1:balance@Account.java:8|W2:balance@Account.java:10', [a]);
    assert.deepEqual(got && FixVerdictStore.view(got), { verdict: 'fixed', before: { runs: 30, failed: 17 }, after: { runs: 20, failed: 0 } });
    assert.equal(again.get('P9|R1:balance@Account.java:8|W2:balance@Account.java:10', [path.join(w.ws, 'elsewhere')]), undefined, 'only for the recordings asked');
    assert.deepEqual(w.logs, []);
  } finally {
    w.done();
  }
});

test('a malformed file is an error naming the file and where, left as it is; the other recording and the other entries load', async () => {
  const w = workspace();
  try {
    const a = w.rec('a', 2);
    const b = w.rec('b', 2);
    await w.store().set(a, 'k', check);
    await w.store().set(b, 'k2', { ...check, verdict: 'not fixed', after: { runs: 20, failed: 3 } });
    const broken = '{"format": "braid-fix-checks", "version": 1, "checks": {';
    writeFileSync(path.join(a, FIX_CHECKS_FILE), broken);
    const s = w.store();
    await s.sync([a, b]);
    assert.equal(s.get('k'), undefined);
    assert.equal(s.get('k2')?.verdict, 'not fixed', "the other recording's verdict loads");
    const err = w.logs.find((l) => l.level === 'error');
    assert.ok(err, JSON.stringify(w.logs));
    assert.ok(err.message.includes(path.join(a, FIX_CHECKS_FILE)), err.message);
    assert.match(err.message, /not JSON \(.*line 1.*\)/);
    assert.equal(readFileSync(path.join(a, FIX_CHECKS_FILE), 'utf8'), broken, 'left as it is');
    // read once: a second sync says nothing more
    await s.sync([a, b]);
    assert.equal(w.logs.filter((l) => l.level === 'error').length, 1);

    // one bad entry among good ones: that entry is left out with a warning naming it
    const file = JSON.parse(readFileSync(path.join(b, FIX_CHECKS_FILE), 'utf8'));
    file.checks.bad = { ...check, after: { runs: 0, failed: 0 } };
    file.checks.good = check;
    writeFileSync(path.join(b, FIX_CHECKS_FILE), JSON.stringify(file));
    w.logs.length = 0;
    const t = w.store();
    await t.sync([b]);
    assert.deepEqual([t.get('k2')?.verdict, t.get('good')?.verdict, t.get('bad')], ['not fixed', 'fixed', undefined]);
    assert.equal(w.logs.length, 1);
    assert.match(w.logs[0].message, /fix-checks\.json: check 2 left out: a verdict needs runs before and after the fix/);
  } finally {
    w.done();
  }
});

test('an unknown version is named; a linked file is not read', async () => {
  const w = workspace();
  try {
    const a = w.rec('a', 1);
    await w.store().set(a, 'k', check);
    const file = JSON.parse(readFileSync(path.join(a, FIX_CHECKS_FILE), 'utf8'));
    writeFileSync(path.join(a, FIX_CHECKS_FILE), JSON.stringify({ ...file, version: 2 }));
    await w.store().sync([a]);
    assert.match(w.logs.at(-1)!.message, /fix-checks\.json: version 2 is not known \(this Braid reads version 1\)/);

    const b = w.rec('b', 1);
    const outside = mkdtempSync(path.join(tmpdir(), 'braid-fixchecks-outside-'));
    writeFileSync(path.join(outside, 'x.json'), JSON.stringify(file));
    symlinkSync(path.join(outside, 'x.json'), path.join(b, FIX_CHECKS_FILE));
    const s = w.store();
    await s.sync([b]);
    assert.equal(s.get('k'), undefined);
    assert.match(w.logs.at(-1)!.message, /symbolic link/);
    rmSync(outside, { recursive: true, force: true });
  } finally {
    w.done();
  }
});

test('a recording that got a new run drops its verdicts and the file; a verdict whose pattern is gone is dropped', async () => {
  const w = workspace();
  try {
    const a = w.rec('a', 2);
    const s = w.store();
    await s.set(a, 'k', check);
    await s.sync([a]);
    assert.equal(s.get('k')?.verdict, 'fixed', 'unchanged: kept');
    writeFileSync(path.join(a, 'run-9.trace.jsonl'), '{"braid":"trace","version":1,"execution":"run-9"}\n');
    await s.sync([a]);
    assert.equal(s.get('k'), undefined);
    assert.equal(existsSync(path.join(a, FIX_CHECKS_FILE)), false);
    assert.match(w.logs.at(-1)!.message, /the recording changed since Check the Fix \(2 trace files then, 3 now\); its 1 verdict is dropped/);

    await s.set(a, 'k', check);
    await s.set(a, 'gone', check);
    await s.prune(a, (key) => key !== 'gone');
    assert.deepEqual([s.get('k')?.verdict, s.get('gone')], ['fixed', undefined]);
    const again = w.store();
    await again.sync([a]);
    assert.deepEqual([again.get('k')?.verdict, again.get('gone')], ['fixed', undefined], 'the file was written without it');
    await again.prune(a, () => false);
    assert.equal(existsSync(path.join(a, FIX_CHECKS_FILE)), false, 'no verdict left: no file');
  } finally {
    w.done();
  }
});
