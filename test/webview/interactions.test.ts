/**
 * Documented interactions of the views (docs/views.md) not covered by views.test.ts: the Tracer's
 * "R/W only", PageDown/PageUp, "Go to" clearing active filters, and a 10-million-event run; the
 * UNICORN view's `o` and `/` keys; the bug graph's −, Fit and arrow panning; the 20 MB limit of saveSvg.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, posted } from './harness';
import { makeFixture } from './fixtures';
import { MAX_SVG, parseWebviewMessage } from '../../client/src/webviews/validate';

let H: Harness;
const fx = makeFixture();

before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

async function lastOfType(page: Page, type: string): Promise<Record<string, unknown> | undefined> {
  return (await posted(page)).filter((m) => m.type === type).pop();
}
const selected = (page: Page) => page.evaluate(() => Number(document.querySelector('.rows .row.selected')?.getAttribute('data-i') ?? NaN));
async function waitSelected(page: Page, i: number) {
  await page.waitForFunction((i) => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === String(i), i);
}
async function waitRendered(page: Page) {
  await page.waitForFunction(() => {
    const [, n, filled] = (document.body.dataset.rendered ?? '0:0:0').split(':').map(Number);
    return n > 0 && filled === n;
  });
}

describe('Tracer', () => {
  test('R/W only re-queries with accessesOnly; Go to with filters active clears them; PageDown/PageUp move by a page', async () => {
    const page = await H.open('tracer', { fixture: fx });
    await waitRendered(page);
    await page.click('#accessesOnly');
    await page.waitForFunction(() =>
      (window as unknown as { __posted: { type: string; params?: { accessesOnly?: boolean } }[] }).__posted.some((m) => m.type === 'fetchEvents' && m.params?.accessesOnly === true),
    );
    await page.fill('#goto input', '1500');
    await page.press('#goto input', 'Enter');
    await waitSelected(page, 1500);
    // the filter is gone: the state and the next page requests have no accessesOnly
    assert.equal((await page.evaluate(() => (window as unknown as { __state: { accessesOnly: boolean } }).__state)).accessesOnly, false);
    const lastFetch = (await lastOfType(page, 'fetchEvents'))!.params as { accessesOnly?: boolean };
    assert.equal(lastFetch.accessesOnly ?? false, false);
    await page.focus('#viewport');
    const rows = await page.$$eval('.rows .row:not([hidden])', (r) => r.filter((x) => (x as HTMLElement).dataset.i !== undefined).length);
    await page.keyboard.press('PageDown');
    await page.waitForFunction(() => Number(document.querySelector('.rows .row.selected')?.getAttribute('data-i')) > 1500);
    const down = await selected(page);
    assert.ok(down - 1500 >= 5 && down - 1500 <= rows, `a page down moves by about the visible rows (${rows}): ${down}`);
    await page.keyboard.press('PageUp');
    await waitSelected(page, 1500);
    await page.close();
  });

  test('a run of 10 million events: End, Go to and the count work as for a small one', async () => {
    const page = await H.open('tracer', {
      fixture: fx,
      synthetic: { 'big-10M': 10_000_000 },
      state: { run: 'big-10M', thread: null, variable: '', search: '', accessesOnly: false, top: 0, selected: null },
    });
    await waitRendered(page);
    assert.match((await page.textContent('#count')) ?? '', /of 10,000,000 events/);
    await page.focus('#viewport');
    await page.keyboard.press('End');
    await waitSelected(page, 9_999_999);
    await page.fill('#goto input', '5000000');
    await page.press('#goto input', 'Enter');
    await waitSelected(page, 5_000_000);
    await waitRendered(page);
    // only pages around the position were fetched
    const offsets = (await posted(page)).filter((m) => m.type === 'fetchEvents').map((m) => (m.params as { offset: number }).offset);
    assert.ok(offsets.length < 20, `${offsets.length} page requests`);
    assert.ok(offsets.some((o) => o <= 5_000_000 && 5_000_000 < o + 200));
    await page.close();
  });
});

describe('UNICORN view', () => {
  test('o opens the focused pattern’s first access; / focuses the text filter', async () => {
    const page = await H.open('unicorn', { fixture: fx });
    await page.waitForSelector('.item');
    await page.focus('.item >> nth=0 >> .head');
    await page.keyboard.press('o');
    // the first access of rank 1 (fixture: R1 elementCount at Vector.java:271)
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 271 });
    await page.keyboard.press('/');
    await page.waitForFunction(() => {
      const a = document.activeElement;
      return !!a && (a.id === 'text' || !!a.closest('#text'));
    });
    await page.close();
  });
});

describe('Bug graph', () => {
  test('− zooms out, Fit goes back to the fitted view, arrows pan', async () => {
    const page = await H.open('bugGraph', { fixture: fx });
    await page.waitForSelector('g.node');
    const scale = () => page.evaluate(() => {
      const t = document.querySelector('g.root')?.getAttribute('transform') ?? '';
      const m = /scale\(([\d.e-]+)/.exec(t);
      return m ? Number(m[1]) : 1;
    });
    await page.waitForFunction(() => !!document.querySelector('g.root')?.getAttribute('transform'));
    const fitted = await scale();
    await page.click('#zoomOut');
    await page.waitForFunction((f) => {
      const m = /scale\(([\d.e-]+)/.exec(document.querySelector('g.root')?.getAttribute('transform') ?? '');
      return !!m && Number(m[1]) < f * 0.9;
    }, fitted);
    await page.click('#fit');
    await page.waitForFunction((f) => {
      const m = /scale\(([\d.e-]+)/.exec(document.querySelector('g.root')?.getAttribute('transform') ?? '');
      return !!m && Math.abs(Number(m[1]) - f) < 1e-6;
    }, fitted);
    assert.ok(Math.abs((await scale()) - fitted) < 1e-6);
    // arrows pan (the translation changes, the scale does not)
    const before = await page.getAttribute('g.root', 'transform');
    await page.focus('#bug-graph-svg');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((b) => document.querySelector('g.root')?.getAttribute('transform') !== b, before);
    assert.ok(Math.abs((await scale()) - fitted) < 1e-6);
    await page.close();
  });
});

test('saveSvg: an SVG over 20 MB is refused; one at the limit passes', () => {
  const head = '<svg xmlns="http://www.w3.org/2000/svg">';
  const tail = '</svg>';
  const at = head + ' '.repeat(MAX_SVG - head.length - tail.length) + tail;
  assert.equal(at.length, 20 * 1024 * 1024);
  assert.equal(parseWebviewMessage({ type: 'saveSvg', svg: at, name: 'a.svg' })?.type, 'saveSvg');
  assert.equal(parseWebviewMessage({ type: 'saveSvg', svg: at + ' ', name: 'a.svg' }), undefined);
});
