/**
 * Uniform noise at synchronization points (issue 29 point 6, docs/noise.md "Point ids"): the point
 * kinds of wait/notify and friends in the point catalogue, `braid record --noise-at` reaching the
 * agent (option line, trace header; the default unchanged), and its effect on
 * test/fixtures/java/lostnotify (a lost notification whose window, between a check and the
 * `synchronized` wait, holds no field access: noise at accesses almost never fails it, noise before
 * the monitor enter does).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { agentOptionLines } from '../../server/src/recorder/runs/runOnce';
import { runSpec } from '../../server/src/recorder/runs/recordRuns';
import { readPointCatalogue } from '../../server/src/recorder/runs/pointCatalogue';
import { manifestOf } from '../../server/src/recorder/runs/recordingManifest';
import { tempDir } from '../helpers/traceBuilder';
import { fixturesDir, prepare, record } from './recorderHarness';

const MAIN = 'lostnotify.HandOff';

before(() => prepare());

test('--noise-at: parsed, passed to the agent only when not the default, kept in recording.json', () => {
  const given = parseRecordArgs(['--noise', '0.3', '--noise-at', 'sync', '--', 'java', 'x.Y'], tempDir());
  assert.equal(given.noiseAt, 'sync');
  assert.ok(agentOptionLines(runSpec(given, 0), given).includes('noiseAt=sync'));
  assert.equal(manifestOf(given).noiseAt, 'sync');
  const all = parseRecordArgs(['--noise-at', 'all', '--', 'java', 'x.Y'], tempDir());
  assert.ok(agentOptionLines(runSpec(all, 0), all).includes('noiseAt=all'));
  const plain = parseRecordArgs(['--noise', '0.3', '--', 'java', 'x.Y'], tempDir());
  assert.equal(plain.noiseAt, undefined);
  assert.ok(!agentOptionLines(runSpec(plain, 0), plain).some((l) => l.startsWith('noiseAt=')));
  assert.equal(manifestOf(plain).noiseAt, undefined);
  const accesses = parseRecordArgs(['--noise-at', 'accesses', '--', 'java', 'x.Y'], tempDir());
  assert.ok(!agentOptionLines(runSpec(accesses, 0), accesses).some((l) => l.startsWith('noiseAt=')));
  assert.throws(() => parseRecordArgs(['--noise-at', 'monitors', '--', 'java', 'x.Y'], tempDir()), /--noise-at needs accesses, sync or all/);
});

test('the point catalogue lists the synchronization points: monitor enter (lock), wait, notify; and calls into application code (invoke)', async () => {
  const pointsFile = path.join(tempDir(), 'points.jsonl');
  await record('noiseat-catalogue', MAIN, { runs: 1, noise: 0, include: ['lostnotify'], record: false, pointsFile });
  const { points, skipped } = await readPointCatalogue(pointsFile);
  assert.equal(skipped, 0);
  const source = readFileSync(path.join(fixturesDir, 'lostnotify/IdlePool.java'), 'utf8').split('\n');
  const lineOf = (text: string) => source.findIndex((l) => l.includes(text)) + 1;
  const kindsAt = (line: number) => points.filter((p) => p.file === 'lostnotify/IdlePool.java' && p.line === line).map((p) => p.kind);
  assert.ok(kindsAt(lineOf('wait(left);')).includes('wait'), JSON.stringify(points));
  assert.ok(kindsAt(lineOf('notifyAll();')).includes('notify'), JSON.stringify(points));
  assert.ok(kindsAt(lineOf('synchronized (this) { // @bug')).includes('lock'), JSON.stringify(points));
  // calls into application code are points too (invoke): pool.giveBack(item), pool.borrow(…) — not
  // constructors, not JDK calls
  const hand = readFileSync(path.join(fixturesDir, 'lostnotify/HandOff.java'), 'utf8').split('\n');
  const handKinds = (text: string) => points.filter((p) => p.file === 'lostnotify/HandOff.java' && p.line === hand.findIndex((l) => l.includes(text)) + 1).map((p) => p.kind);
  assert.ok(handKinds('pool.giveBack(item);').includes('invoke'));
  assert.ok(handKinds('Object o = pool.borrow(TIMEOUT_MS);').includes('invoke'));
  assert.ok(!handKinds('IdlePool pool = new IdlePool();').includes('invoke'), 'a constructor call is not an invoke point');
});

test('noise at synchronization points fails the lost notification; the default (accesses) does not, and its header says nothing new', async () => {
  const runs = 8;
  const sync = await record('noiseat-sync', MAIN, { runs, noise: 1, noiseAt: 'sync', include: ['lostnotify'], seed: 500 });
  const plain = await record('noiseat-default', MAIN, { runs, noise: 1, include: ['lostnotify'], seed: 500 });
  const syncHeader = JSON.parse(readFileSync(sync.traces[0], 'utf8').split('\n')[0]);
  assert.equal(syncHeader.recorder.options.noiseAt, 'sync');
  assert.equal(syncHeader.recorder.options.noise, 1);
  const plainHeader = JSON.parse(readFileSync(plain.traces[0], 'utf8').split('\n')[0]);
  assert.equal(plainHeader.recorder.options.noiseAt, undefined);
  assert.ok(sync.failed >= runs / 2, `noise at sync points: ${sync.failed} of ${runs} runs failed`);
  assert.ok(plain.failed <= 2, `noise at accesses: ${plain.failed} of ${runs} runs failed`);
});
