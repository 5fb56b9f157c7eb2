/**
 * Issue 30, point 4 in Chromium: the Tracer shows variable names and values whole — an array element
 * of a library array (`Object[][0]`, was `lang.Object[][0]`), a library object's type (`HashMap`, was
 * `util.HashMap`) and an object value (`HashMap@1b6d3586`, was `"java.lang.Obj…`) — with the full text in
 * the tooltips; and a second pattern sent to an open Tracer replaces the first one's banner (one
 * banner, the second pattern's), even when the first pattern's reply comes in after the second was asked for.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, hostSend, shot } from './harness';
import { makeFixture, type Fixture } from './fixtures';

let H: Harness;
before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

function fixture(): Fixture {
  const fx = makeFixture();
  const run = fx.runs[0].execution;
  fx.events[run] = fx.events[run].map((e, k) => {
    if (e.kind !== 'R' && e.kind !== 'W') return e;
    // every fourth access: an element of a library array holding an object; every fourth after it: a call on a HashMap
    if (k % 4 === 0) return { ...e, variable: 'java.lang.Object[][0]', value: 'java.util.concurrent.ConcurrentHashMap@1b6d3586' };
    if (k % 4 === 1) return { ...e, variable: 'java.util.HashMap', value: 'java.lang.Object@7a81197d' };
    return e;
  });
  return fx;
}

async function waitRows(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const d = document.body.dataset.rendered;
    if (!d) return false;
    const [, n, filled] = d.split(':').map(Number);
    return n > 0 && filled === n;
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`Tracer: variable names and values whole, full text in the tooltips (${theme})`, async () => {
    const page = await H.open('tracer', { fixture: fixture(), theme, viewport: { width: 1200, height: 600 } });
    await waitRows(page);
    const cells = await page.$$eval('.rows .row[data-i]:not([hidden])', (rows) =>
      rows.map((r) => {
        const v = r.querySelector<HTMLElement>('.var')!;
        const x = r.querySelector<HTMLElement>('.val')!;
        const m = r.querySelector<HTMLElement>('.method')!;
        const l = r.querySelector<HTMLElement>('.loc-cell')!;
        // cut: its text overflows, or the cell runs past the window (no named helper: tsx would wrap it in __name)
        const [vCut, xCut, mCut, lCut] = [v, x, m, l].map((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > window.innerWidth);
        return { v: v.textContent, vt: v.title, vCut, x: x.textContent, xt: x.title, xCut, mCut: mCut || lCut };
      }),
    );
    const arr = cells.find((c) => c.v === 'Object[][0]');
    assert.ok(arr, `an array element reads Object[][0]: ${JSON.stringify(cells.slice(0, 6))}`);
    assert.equal(arr.vt, 'java.lang.Object[][0]');
    assert.equal(arr.x, 'ConcurrentHashMap@1b6d3586');
    assert.equal(arr.xt, 'java.util.concurrent.ConcurrentHashMap@1b6d3586', 'the full type in the tooltip');
    const map = cells.find((c) => c.v === 'HashMap');
    assert.ok(map, 'a library object reads HashMap');
    assert.equal(map.x, 'Object@7a81197d');
    assert.deepEqual(cells.filter((c) => c.vCut || c.xCut), [], 'no variable or value cell is cut');
    assert.deepEqual(cells.filter((c) => c.mCut), [], 'locations and methods keep their room');
    await shot(page, `tracer-values-whole-${theme}`);
    await page.close();
  });
}

test('Tracer: a second pattern sent while the first loads leaves one banner, the second pattern\'s', async () => {
  const page = await H.open('tracer', { fixture: makeFixture(), latency: 150 });
  await waitRows(page);
  // both before the first reply (150 ms each way)
  await hostSend(page, { type: 'showRun', run: 'run-003', highlightPatternKey: 'k-rwr-1' });
  await hostSend(page, { type: 'showRun', run: 'run-003', highlightPatternKey: 'k-rww-2' });
  await page.waitForFunction(() => !document.querySelector('#patternBar')?.hasAttribute('hidden') && /#2/.test(document.querySelector('#patternBar .pb-title')?.textContent ?? ''));
  await page.waitForTimeout(800); // every reply is in
  const bar = await page.$eval('#patternBar', (b) => ({ titles: Array.from(b.querySelectorAll('.pb-title')).map((t) => t.textContent), accesses: b.querySelectorAll('.pb-access').length, next: b.querySelectorAll('#nextOccurrence').length }));
  assert.deepEqual(bar.titles.length, 1, `one banner: ${JSON.stringify(bar)}`);
  assert.match(bar.titles[0] ?? '', /^#2 /);
  assert.equal(bar.accesses, 3, 'the second pattern\'s three accesses, once');
  assert.equal(bar.next, 1);
  await shot(page, 'tracer-second-pattern');
  await page.close();
});

for (const theme of ['light', 'dark'] as const) {
  test(`Tracer: a sent pattern's banner says in words what the threads did; the thesis' names after it (${theme})`, async () => {
    const page = await H.open('tracer', { fixture: makeFixture(), theme, viewport: { width: 900, height: 600 } });
    await waitRows(page);
    await hostSend(page, { type: 'showRun', run: 'run-003', highlightPatternKey: 'k-rwr-1' });
    await page.waitForSelector('#patternBar:not([hidden]) .pb-title');
    const bar = await page.$eval('#patternBar', (b) => {
      const t = b.querySelector<HTMLElement>('.pb-title')!;
      return { title: t.textContent, tip: t.title, code: Array.from(t.querySelectorAll('.mono')).map((c) => c.textContent), id: b.querySelector('.pb-id')?.textContent, cut: t.scrollWidth > t.clientWidth + 1, inside: t.getBoundingClientRect().right <= b.getBoundingClientRect().right + 1 };
    });
    // the fixture's P9 RWR (its accesses name no thread: roles T1, T2): T1 reads elementCount, T2 writes it, T1 reads elementData
    assert.equal(bar.title, '#1 Thread T1 read elementCount, then thread T2 wrote it, then T1 read elementData.');
    assert.deepEqual(bar.code, ['elementCount', 'elementData'], 'the variables in the code font');
    assert.equal(bar.id, 'P9 RWR', 'the thesis\' names after the words');
    assert.match(bar.tip, /^rank 1 · P9 RWR \(single-variable atomicity pattern\)$/);
    assert.ok(!bar.cut && bar.inside, `the words wrap inside the banner: ${JSON.stringify(bar)}`);
    // the occurrence's selected row: its location link in the row's colour (blue on the blue selection was unreadable in light)
    await page.waitForSelector('.rows .row.selected .loc-cell.link');
    const sel = await page.$eval('.rows .row.selected', (r) => ({ row: getComputedStyle(r).color, link: getComputedStyle(r.querySelector('.loc-cell.link')!).color, idx: getComputedStyle(r.querySelector('.idx')!).color }));
    assert.deepEqual([sel.link, sel.idx], [sel.row, sel.row], `the selected row's link and number in its colour: ${JSON.stringify(sel)}`);
    await shot(page, `tracer-pattern-words-${theme}`);
    await page.close();
  });
}
