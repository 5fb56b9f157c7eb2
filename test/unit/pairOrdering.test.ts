/**
 * UNICORN step 2's streaming pair ordering (docs/algorithms.md "pair ordering and pair window":
 * watermark over the access windows, 1,024-index buckets, a cap on buffered pairs with late pairs
 * counted) against the naive reading of Algorithm 2, line 13: collect every pair of the run, then
 * sort them by the global index of their first access (a stable sort keeps emission order on ties).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { AccessWindow, WindowAccess } from '../../server/src/engine/unicorn/accessWindow';
import { OrderedPair, PairOrdering } from '../../server/src/engine/unicorn/pairOrdering';
import { rng } from '../helpers/seededRandom';

interface Access {
  loc: number;
  thread: number;
  write: boolean;
}

/** Drives access windows and a PairOrdering like UnicornCollector does; returns released and emitted pairs. */
function run(accesses: Access[], opts: { batch?: number; maxBuffered?: number; window?: number } = {}) {
  const emitted: [WindowAccess, WindowAccess][] = [];
  const released: OrderedPair[] = [];
  const ordering = new PairOrdering((p) => released.push(p), opts.batch ?? 64, opts.maxBuffered);
  const sink = (a: WindowAccess, b: WindowAccess) => {
    emitted.push([a, b]);
    ordering.push(a, b, 0);
  };
  const windows = new Map<number, AccessWindow>();
  accesses.forEach((x, k) => {
    let win = windows.get(x.loc);
    const created = !win;
    if (!win) windows.set(x.loc, (win = new AccessWindow(opts.window ?? 5)));
    win.add({ idx: k + 1, thread: x.thread, write: x.write, sacc: 0, stack: -1, win }, sink);
    if (created) ordering.track(win);
  });
  for (const w of windows.values()) w.flush(sink);
  ordering.finish();
  const naive = emitted.slice().sort((p, q) => p[0].idx - q[0].idx);
  return { emitted, released, naive, late: ordering.lateArrivals };
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

const key = (a: WindowAccess, b: WindowAccess) => `${a.idx}-${b.idx}`;

test('streamed pair order equals the naive sort of all pairs (3 seeds × 60,000 accesses)', () => {
  for (const seed of [1, 2, 3]) {
    const { emitted, released, naive, late } = run(randomAccesses(seed, 60_000));
    assert.ok(emitted.length > 50_000, `seed ${seed}: ${emitted.length} pairs`);
    assert.ok(emitted.some(([a], k) => k > 0 && a.idx < emitted[k - 1][0].idx), 'pairs are emitted out of order (the ordering has work to do)');
    assert.equal(late, 0);
    assert.equal(released.length, naive.length);
    for (let k = 0; k < naive.length; k++) {
      if (released[k].first !== naive[k][0] || released[k].second !== naive[k][1])
        assert.fail(`seed ${seed}: position ${k}: released ${key(released[k].first, released[k].second)}, naive ${key(naive[k][0], naive[k][1])}`);
    }
  }
});

test('a location touched at the start and never again: past the buffer cap its pair arrives late, is counted and not lost', () => {
  // W1 W2 on location 0 at indices 1 and 2: their pair is emitted only when location 0's window
  // is flushed at the end of the run; until then it holds the watermark at 1
  const accesses: Access[] = [
    { loc: 0, thread: 1, write: true },
    { loc: 0, thread: 2, write: true },
    ...randomAccesses(7, 20_000).map((a) => ({ ...a, loc: a.loc + 1 })),
  ];
  const capped = run(accesses, { maxBuffered: 500 });
  assert.ok(capped.late >= 1, 'late pairs are counted');
  assert.deepEqual(capped.released.map((p) => key(p.first, p.second)).sort(), capped.emitted.map(([a, b]) => key(a, b)).sort(), 'every pair released exactly once');
  const pos = capped.released.findIndex((p) => p.first.idx === 1 && p.second.idx === 2);
  assert.ok(pos > 0 && capped.released[pos - 1].first.idx > 1, 'the held-back pair is released after later ones (out of order)');
  // without the cap the same run is exact
  const exact = run(accesses);
  assert.equal(exact.late, 0);
  assert.deepEqual(
    exact.released.map((p) => key(p.first, p.second)),
    exact.naive.map(([a, b]) => key(a, b)),
  );
});
