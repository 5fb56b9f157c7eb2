/**
 * UNICORN step 2's streaming pair ordering (docs/algorithms.md "pair ordering and pair window":
 * watermark over the access windows, 1,024-index buckets, sorted runs spilled to disk past the
 * memory budget) against the naive reading of Algorithm 2, line 13: collect every pair of the run,
 * then sort them by the global index of their first access (a stable sort keeps emission order on ties).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { AccessInput, AccessWindows } from '../../server/src/engine/unicorn/accessWindow';
import { PairOrdering } from '../../server/src/engine/unicorn/pairOrdering';
import { rng } from '../helpers/seededRandom';

interface Access {
  loc: number;
  thread: number;
  write: boolean;
}

/** Drives access windows and a PairOrdering like UnicornCollector does; returns released and emitted pairs (first-second global indices). */
function run(accesses: Access[], opts: { batch?: number; maxBuffered?: number; window?: number } = {}) {
  const emitted: string[] = [];
  const firsts: number[] = [];
  const released: string[] = [];
  const ws = new AccessWindows(opts.window ?? 5);
  const ordering = new PairOrdering(ws, (r) => released.push(`${ordering.firstIdx[r]}-${ordering.secondIdx[r]}`), opts.batch ?? 64, opts.maxBuffered);
  const sink = (w: number, a: number, b: number) => {
    emitted.push(`${ws.slotIdx[a]}-${ws.slotIdx[b]}`);
    firsts.push(ws.slotIdx[a]);
    ordering.push(w, a, b, 0);
  };
  const windows = new Map<number, number>();
  const input: AccessInput = { idx: 0, thread: 0, write: false, sacc: 0, stack: -1, value: undefined, hbSlot: -1, hbClock: 0, hbVc: null };
  accesses.forEach((x, k) => {
    let win = windows.get(x.loc);
    const created = win === undefined;
    if (win === undefined) windows.set(x.loc, (win = ws.create()));
    Object.assign(input, { idx: k + 1, thread: x.thread, write: x.write });
    ws.add(win, input, sink);
    if (created) ordering.track(win);
  });
  for (const w of windows.values()) ws.flush(w, sink);
  ordering.finish();
  const naive = emitted.map((e, k) => ({ e, f: firsts[k], k })).sort((p, q) => p.f - q.f || p.k - q.k).map((x) => x.e);
  return { emitted, firsts, released, naive, spilled: ordering.spilledPairs };
}

/** Skewed random accesses: a few hot locations and many rarely touched ones (their old accesses hold the watermark back across buckets). */
function randomAccesses(seed: number, n: number): Access[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => ({
    loc: r() < 0.8 ? Math.floor(r() * 8) : 8 + Math.floor(r() * 400),
    thread: 1 + Math.floor(r() * 4),
    write: r() < 0.5,
  }));
}

test('streamed pair order equals the naive sort of all pairs (3 seeds × 60,000 accesses)', () => {
  for (const seed of [1, 2, 3]) {
    const { emitted, firsts, released, naive } = run(randomAccesses(seed, 60_000));
    assert.ok(emitted.length > 50_000, `seed ${seed}: ${emitted.length} pairs`);
    assert.ok(firsts.some((f, k) => k > 0 && f < firsts[k - 1]), 'pairs are emitted out of order (the ordering has work to do)');
    assert.equal(released.length, naive.length);
    for (let k = 0; k < naive.length; k++) if (released[k] !== naive[k]) assert.fail(`seed ${seed}: position ${k}: released ${released[k]}, naive ${naive[k]}`);
  }
});

test('a location touched at the start and never again: past the memory budget pairs spill to disk, and the order stays exact', () => {
  // W1 W2 on location 0 at indices 1 and 2: their pair is emitted only when location 0's window
  // is flushed at the end of the run; until then it holds the watermark at 1
  const accesses: Access[] = [
    { loc: 0, thread: 1, write: true },
    { loc: 0, thread: 2, write: true },
    ...randomAccesses(7, 20_000).map((a) => ({ ...a, loc: a.loc + 1 })),
  ];
  const capped = run(accesses, { maxBuffered: 500 });
  assert.ok(capped.spilled > 10_000, `pairs were spilled (${capped.spilled})`);
  assert.deepEqual(capped.released, capped.naive);
  assert.equal(capped.released[0], '1-2', 'the held-back pair comes first');
  const exact = run(accesses);
  assert.equal(exact.spilled, 0);
  assert.deepEqual(exact.released, exact.naive);
});
