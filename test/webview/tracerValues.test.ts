/**
 * Values in the Tracer (issue 12, item 5), end to end: the Java agent records the value of each
 * access of a real program, the server's pager (braid/traceEvents) reads them from the trace, and
 * the Tracer webview shows them in the value column.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, Harness } from './harness';
import { makeFixture } from './fixtures';
import { TraceEventPager } from '../../server/src/engine/trace/traceEventPager';
import { classesDir, FAST_JVM, prepare, record } from '../recorder/recorderHarness';

let H: Harness;
before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

test('Tracer: the value cells show the values the agent recorded', { timeout: 180_000 }, async () => {
  prepare();
  // churn.Churn 1 1 3: one worker thread writes churn.Churn.slot = 0, 1, 2 (hand-checked in Churn.java)
  const s = await record('values-tracer', 'churn.Churn', {
    runs: 1,
    include: ['churn'],
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'churn.Churn', '1', '3', '1'],
  });
  const file = s.traces[0];
  const page = await new TraceEventPager(() => undefined).page(file, 'values-run', { run: 'values-run', offset: 0, limit: 1000 });
  const threads = [...new Map(page.events.map((e) => [e.thread, { id: e.thread, name: e.threadName }])).values()];
  const fx = {
    ...makeFixture(),
    runs: [{ execution: 'values-run', file, outcome: 'fail' as const, events: page.total, patterns: 0 }],
    events: { 'values-run': page.events },
    threads: { 'values-run': threads },
  };
  const view = await H.open('tracer', { fixture: fx });
  await view.waitForFunction(() => {
    const d = document.body.dataset.rendered;
    return !!d && Number(d.split(':')[1]) > 0 && d.split(':')[1] === d.split(':')[2];
  });
  const rows = await view.$$eval('.rows .row:not([hidden])', (els) =>
    els
      .filter((r) => (r as HTMLElement).dataset.i !== undefined)
      .map((r) => [r.querySelector('.kind')!.textContent!, r.querySelector('.var')!.textContent!, r.querySelector('.val')!.textContent!]),
  );
  const slotWrites = rows.filter((r) => r[0] === 'W' && r[1].endsWith('slot')).map((r) => r[2]);
  assert.deepEqual(slotWrites, ['0', '1', '2'], `value cells of the writes of slot; rows: ${JSON.stringify(rows)}`);
  await view.close();
});

test('UNICORN view: pattern details show the values of the first occurrence, as text', { timeout: 60_000 }, async () => {
  const base = makeFixture();
  const evil = '<img src=x onerror="window.__xss=9">';
  const patterns = base.patterns.map((p, k) =>
    k === 0 ? { ...p, accesses: p.accesses.map((a, j) => ({ ...a, value: [3, 4, evil][j] })) } : p,
  );
  const view = await H.open('unicorn', { fixture: { ...base, patterns } });
  await view.waitForSelector('.item');
  await view.click('.item >> nth=0 >> .head');
  await view.waitForSelector('.item.open .columns');
  const vals = await view.$$eval('.item.open .access', (els) => els.map((e) => e.querySelector('.val')?.textContent ?? ''));
  assert.deepEqual(vals, ['= 3', '= 4', '= "<img src=x onerror=\\"window.__xss=9\\">"']);
  assert.equal(await view.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'a value is never parsed as HTML');
  await view.close();
});
