/**
 * Happens-before tokens of barriers and phasers (docs/trace-format.md, SND/RCV: a non-negative
 * integer). The agent mixes the object's identity with the generation or phase; a mix of either
 * sign made the trace reader reject the whole trace ("element 4 (sync token) must be a non-negative
 * integer"), so `braid test` dropped about half the runs of any driver that starts its threads with
 * a CyclicBarrier (found on bench/real/java/gsoncyclic: 42 of 70 runs unreadable).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { prepare, record } from './recorderHarness';

before(() => prepare());

test('barrier and phaser tokens are non-negative and the trace reads', async () => {
  const s = await record('synctokens', 'lifecycle.Barriers', { runs: 1, include: ['lifecycle'], noise: 0 });
  const events = readFileSync(s.traces[0], 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.startsWith('['))
    .map((l) => JSON.parse(l) as unknown[]);
  const sync = events.filter((e) => e[2] === 'SND' || e[2] === 'RCV');
  // 40 barriers and 8 phases, each an arrival and a release by both threads
  assert.ok(sync.length >= 2 * 2 * (40 + 8), `SND/RCV events: ${sync.length}`);
  const negative = sync.filter((e) => (e[3] as number) < 0);
  assert.deepEqual(negative, [], 'every sync token is non-negative');
  // each arrival token is released to both parties: one token per generation, shared by the threads
  const tokens = new Set(sync.map((e) => e[3]));
  assert.ok(tokens.size >= 40 + 8, `distinct tokens: ${tokens.size}`);
  await readTrace(s.traces[0], { event() {} });
});
