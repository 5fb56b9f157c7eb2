/** The Tracer's page cache: on-demand pages, LRU, bounded in-flight requests, stale responses dropped. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pager } from '../../webview/src/tracer/pager';
import type { TraceEventsParams, TraceEventsResult } from '../../server/src/lsp/protocol';

function source(total: number) {
  const calls: TraceEventsParams[] = [];
  const waiting: Array<() => void> = [];
  const fetch = (p: TraceEventsParams): Promise<TraceEventsResult> => {
    calls.push(p);
    return new Promise((resolve) => {
      waiting.push(() => {
        const events = [];
        for (let i = p.offset; i < Math.min(total, p.offset + p.limit); i++) events.push({ i, thread: 1, threadName: 'main', kind: 'R' as const, variable: `v${i}` });
        resolve({ run: p.run, total, offset: p.offset, events, threads: [{ id: 1, name: 'main' }] });
      });
    });
  };
  const flush = async () => {
    while (waiting.length) {
      waiting.splice(0).forEach((f) => f());
      await new Promise((r) => setImmediate(r));
    }
  };
  return { calls, fetch, flush };
}

test('fetches only the visible pages (plus one ahead) and serves from cache', async () => {
  const s = source(10_000_000);
  const pager = new Pager(s.fetch, { pageSize: 100, maxInFlight: 4 });
  pager.setQuery({ run: 'r' });
  pager.want(5_000_000, 5_000_030);
  assert.deepEqual(s.calls.map((c) => c.offset), [5_000_000, 5_000_100, 4_999_900]);
  await s.flush();
  assert.equal(pager.total, 10_000_000);
  assert.equal(pager.get(5_000_030)?.i, 5_000_030);
  pager.want(5_000_000, 5_000_030);
  assert.equal(s.calls.length, 3, 'cached pages are not fetched again');
});

test('bounded in-flight requests; LRU eviction', async () => {
  const s = source(1_000_000);
  const pager = new Pager(s.fetch, { pageSize: 10, maxInFlight: 2, maxPages: 5 });
  pager.setQuery({ run: 'r' });
  pager.want(0, 99);
  assert.equal(s.calls.length, 2, 'at most 2 in flight');
  await s.flush();
  // pages 0–9 plus page 10 ahead were loaded in order; the 5 most recently loaded remain
  const cached = () => Array.from({ length: 20 }, (_, p) => p).filter((p) => pager.hasPage(p));
  assert.equal(pager.cachedPages, 5);
  assert.deepEqual(cached(), [6, 7, 8, 9, 10]);
  assert.equal(pager.get(0), undefined, 'oldest page evicted');
  // reading row 60 makes page 6 the most recently used: loading pages 11 and 12 evicts 7 and 8
  assert.equal(pager.get(60)?.i, 60);
  pager.want(110, 119);
  await s.flush();
  assert.deepEqual(cached(), [6, 9, 10, 11, 12]);
});

test('a new query drops stale responses and resets the total', async () => {
  const s = source(1000);
  const pager = new Pager(s.fetch, { pageSize: 10 });
  pager.setQuery({ run: 'a' });
  pager.want(0, 5);
  assert.equal(pager.setQuery({ run: 'a', threads: [2] }), true);
  assert.equal(pager.setQuery({ run: 'a', threads: [2] }), false, 'same query: no reset');
  await s.flush();
  assert.equal(pager.total, undefined, 'the old query\'s response was dropped');
  pager.want(0, 5);
  assert.deepEqual(s.calls[s.calls.length - 2].threads, [2]);
  await s.flush();
  assert.equal(pager.total, 1000);
});

test('a failing page is not retried in a loop', async () => {
  let n = 0;
  const pager = new Pager(() => {
    n++;
    return Promise.reject(new Error('boom'));
  }, { pageSize: 10 });
  pager.setQuery({ run: 'r' });
  pager.want(0, 5);
  await new Promise((r) => setImmediate(r));
  pager.want(0, 5);
  await new Promise((r) => setImmediate(r));
  assert.equal(pager.error, 'boom');
  assert.equal(n, 2, 'page 0 and the prefetch, once each');
  pager.retry();
  pager.want(0, 5);
  assert.equal(n, 4);
});
