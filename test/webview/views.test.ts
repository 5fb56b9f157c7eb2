/**
 * Playwright tests of the four webviews in Chromium, each loaded from its
 * esbuild bundle inside the production HTML shell (strict CSP) with a stubbed
 * acquireVsCodeApi answering from fixture data. Screenshots (light, dark, high
 * contrast) go to test-output/webview/.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, posted, hostSend, shot, lateXss } from './harness';
import { makeFixture, evilFixture, EVIL_VAR, EVIL_FILE, EVIL_METHOD, EVIL_THREAD } from './fixtures';

let H: Harness;
const fx = makeFixture();
const pages: Page[] = [];

before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

async function open(view: 'tracer' | 'unicorn' | 'griffin' | 'bugGraph', o: Partial<Parameters<Harness['open']>[1]> = {}): Promise<Page> {
  const page = await H.open(view, { fixture: fx, ...o });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  (page as unknown as { __errors: string[] }).__errors = errors;
  pages.push(page);
  return page;
}

async function noErrors(page: Page): Promise<void> {
  const errors = (page as unknown as { __errors: string[] }).__errors;
  assert.deepEqual(errors, [], 'no page errors');
  const csp = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  assert.deepEqual(csp, [], 'no CSP violations');
}

async function lastOfType(page: Page, type: string): Promise<Record<string, unknown> | undefined> {
  return (await posted(page)).filter((m) => m.type === type).pop();
}

async function selectOption(page: Page, dropdown: string, label: string): Promise<void> {
  await page.click(dropdown);
  await page.click(`${dropdown} vscode-option:text-is("${label}")`);
}

/** rows of the Tracer that have data, as [index, thread name, kind, variable, location] */
async function tracerRows(page: Page): Promise<string[][]> {
  return page.$$eval('.rows .row:not([hidden])', (rows) =>
    rows
      .filter((r) => (r as HTMLElement).dataset.i !== undefined)
      .sort((a, b) => Number((a as HTMLElement).dataset.pos) - Number((b as HTMLElement).dataset.pos))
      .map((r) => [r.querySelector('.idx')!.textContent!, r.querySelector('.tname')!.textContent!, r.querySelector('.kind')!.textContent!, r.querySelector('.var')!.textContent!, r.querySelector('.loc-cell')!.textContent!]),
  );
}

async function waitRows(page: Page, firstIndex?: number): Promise<void> {
  await page.waitForFunction(
    (fi) => {
      const d = document.body.dataset.rendered;
      if (!d) return false;
      const [first, n, filled] = d.split(':').map(Number);
      return n > 0 && filled === n && (fi === null || first === fi);
    },
    firstIndex ?? null,
  );
}


/**
 * High contrast (base.css, bugGraph.css): white text on black, and elements told apart by their
 * borders in theme colours — cards by the contrast border (#6fc3df), read/write chips by a blue /
 * red border on a transparent fill (charts-blue #3794ff, charts-red #f14c4c). Checked on computed
 * styles; the screenshots are for people and are not compared.
 */
async function assertHighContrast(page: import('playwright-core').Page, checks: [selector: string, property: string, value: string][]) {
  const body = await page.evaluate(() => [getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]);
  assert.deepEqual(body, ['rgb(255, 255, 255)', 'rgb(0, 0, 0)'], 'white on black');
  for (const [sel, prop, value] of checks) {
    const got = await page.evaluate(
      ([sel, prop]) => [...new Set(Array.from(document.querySelectorAll(sel)).map((e) => getComputedStyle(e).getPropertyValue(prop)))],
      [sel, prop] as const,
    );
    assert.deepEqual(got, [value], `${sel} ${prop}`);
  }
}

describe('Tracer', () => {
  test('renders only the visible rows of the failing run, colour-coded, with R/W chips', async () => {
    const page = await open('tracer');
    await waitRows(page, 0);
    const rows = await tracerRows(page);
    assert.ok(rows.length >= 20 && rows.length <= 40, `virtualized: ${rows.length} rows in the DOM`);
    assert.deepEqual(rows[0], ['0', 'main', 'R', 'elementCount', 'Vector.java:271']);
    assert.deepEqual(rows[1], ['1', 'worker-1', 'W', 'elementData', 'Vector.java:851']);
    assert.equal(await page.locator('.rows .row .chip-W').first().evaluate((e) => getComputedStyle(e).backgroundColor), 'rgb(229, 20, 0)');
    assert.match(await page.textContent('#count') ?? '', /of 3,000 events/);
    const fetches = (await posted(page)).filter((m) => m.type === 'fetchEvents');
    assert.ok(fetches.length >= 1 && fetches.length <= 3, `paged: ${fetches.length} page requests`);
    assert.deepEqual(fetches[0].params, { run: 'run-003', offset: 0, limit: 200 });
    await noErrors(page);
    await shot(page, 'tracer-light');
    await page.close();
  });

  test('click on a location posts openLocation; keyboard navigation; End jumps to the last event', async () => {
    const page = await open('tracer');
    await waitRows(page, 0);
    await page.click('.rows .row[data-pos="1"] .loc-cell');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 851 });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/test/java/app/VectorTest.java', line: 23 });
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '2999');
    const rows = await tracerRows(page);
    assert.equal(rows[rows.length - 1][0], '2999');
    // wheel scrolling moves by rows
    await page.keyboard.press('Home');
    await waitRows(page, 0);
    await page.mouse.move(500, 300);
    await page.mouse.wheel(0, 22 * 50);
    await waitRows(page, 50);
    assert.equal((await tracerRows(page))[0][0], '50');
    await noErrors(page);
    await page.close();
  });

  // the filtering itself is the server's (engine/trace/traceEventPager.ts, tested in test/lsp/server.test.ts); here the
  // stub host filters, so the rows check that the view shows what the host returns
  test('thread selector, variable filter and search re-query the host with the filter and show the rows it returns', async () => {
    const page = await open('tracer', { theme: 'dark' });
    await waitRows(page, 0);
    await selectOption(page, '#thread', 'worker-1 (#12)');
    await page.waitForFunction(() => /of 1,001 events/.test(document.querySelector('#count')?.textContent ?? ''));
    await waitRows(page, 0);
    const rows = await tracerRows(page);
    assert.ok(rows.every((r) => r[1] === 'worker-1'), 'only worker-1 rows');
    assert.deepEqual((await posted(page)).find((m) => m.type === 'fetchEvents' && (m.params as { threads?: number[] }).threads)!.params, { run: 'run-003', offset: 0, limit: 200, threads: [12] });
    await page.fill('#variable input', 'elementData');
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string; params?: { variable?: string } }> }).__posted.some((m) => m.type === 'fetchEvents' && m.params?.variable === 'elementData'));
    await waitRows(page, 0);
    assert.ok((await tracerRows(page)).every((r) => r[1] === 'worker-1' && r[3] === 'elementData'));
    await shot(page, 'tracer-dark-filtered');
    await page.fill('#variable input', '');
    await selectOption(page, '#thread', 'All threads');
    await page.fill('#search input', 'Worker.java');
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string; params?: { search?: string; threads?: number[] } }> }).__posted.some((m) => m.type === 'fetchEvents' && m.params?.search === 'Worker.java' && !m.params.threads));
    await waitRows(page, 0);
    assert.ok((await tracerRows(page)).every((r) => r[4].startsWith('Worker.java')));
    await noErrors(page);
    await page.close();
  });

  test('opened from a pattern: its accesses are highlighted and the interleaving access is scrolled into view', async () => {
    const page = await open('tracer', { theme: 'hc' });
    await waitRows(page, 0);
    await hostSend(page, { type: 'showRun', run: 'run-003', highlightPatternKey: 'k-rwr-1' });
    await page.waitForSelector('#patternBar:not([hidden]) .pb-access');
    assert.equal(await page.locator('.pb-access').count(), 3);
    // access #2 of P9 is the W of elementCount at Vector.java:852, event 1500
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '1500');
    const sel = page.locator('.rows .row.selected');
    assert.match((await sel.getAttribute('class')) ?? '', /\bhl\b/);
    assert.ok((await page.locator('.rows .row.hl').count()) >= 2, 'several highlighted rows');
    await shot(page, 'tracer-hc-pattern');
    // next occurrence of access #3 (R elementData at 681 → event 1503)
    await page.click('.pb-access >> nth=2');
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '1503');
    await noErrors(page);
    await page.close();
  });

  test('state is saved with setState and restored when the panel comes back', async () => {
    const page = await open('tracer');
    await waitRows(page, 0);
    await page.fill('#goto input', '2000');
    await page.press('#goto input', 'Enter');
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '2000');
    await page.waitForFunction(() => (window as unknown as { __state?: { selected?: number } }).__state?.selected === 2000);
    const state = (await page.evaluate(() => (window as unknown as { __state: { top: number } }).__state)) as { top: number; run: string };
    assert.equal(state.run, 'run-003');
    await page.close();
    const again = await open('tracer', { state });
    await waitRows(again, state.top);
    assert.equal(await again.locator('.rows .row.selected').getAttribute('data-i'), '2000');
    await noErrors(again);
    await again.close();
  });
});

describe('UNICORN view', () => {
  test('ranked patterns with score bars and R/W chips; filters by kind and file', async () => {
    const page = await open('unicorn');
    await page.waitForSelector('.item');
    assert.equal(await page.locator('.item').count(), 5);
    const first = page.locator('.item >> nth=0');
    assert.equal(await first.locator('.rank').textContent(), '#1');
    assert.deepEqual(await first.locator('.chips .chip').allTextContents(), ['R1', 'W2', 'R1']);
    const w1 = await first.locator('.bar .fill').evaluate((e) => (e as HTMLElement).style.width);
    const w5 = await page.locator('.item >> nth=4').locator('.bar .fill').evaluate((e) => (e as HTMLElement).style.width);
    assert.ok(parseFloat(w1) > parseFloat(w5), 'score bar follows the score');
    await shot(page, 'unicorn-light');
    await selectOption(page, '#kind', 'WR');
    await page.waitForFunction(() => document.querySelectorAll('.item').length === 1);
    assert.equal(await page.locator('.item .pid').textContent(), 'P2');
    await selectOption(page, '#kind', 'All kinds');
    await selectOption(page, '#file', 'Worker.java');
    await page.waitForFunction(() => document.querySelectorAll('.item').length === 1);
    assert.equal(await page.locator('.item .rank').textContent(), '#4');
    await selectOption(page, '#file', 'All files');
    await page.fill('#text input', 'modCount');
    await page.waitForFunction(() => document.querySelectorAll('.item').length === 1);
    await page.fill('#text input', '');
    await page.waitForFunction(() => document.querySelectorAll('.item').length === 5);
    await noErrors(page);
    await page.close();
  });

  test('patterns without evidence come last under their own heading', async () => {
    const patterns = fx.patterns.map((p, k) => (k >= 3 ? { ...p, evidence: false } : p));
    const page = await open('unicorn', { fixture: { ...fx, patterns } });
    await page.waitForSelector('.item');
    const heading = page.locator('.section-none');
    assert.equal(await heading.count(), 1);
    assert.match((await heading.textContent()) ?? '', /^Without evidence — .*\(2\)$/);
    // the heading sits before the last two patterns, after the first three
    const order = await page.evaluate(() => Array.from(document.querySelectorAll('.section, .item')).map((e) => (e.classList.contains('section') ? 'H' : 'P')).join(''));
    assert.match(order, /^H?PPPHPP$/);
    await noErrors(page);
    await page.close();
  });

  test('weaker patterns are not listed as causes: last, under their own heading, as the tree folds them (issue 43)', async () => {
    const patterns = fx.patterns.map((p, k) => (k === 1 ? { ...p, weak: true } : p));
    const page = await open('unicorn', { fixture: { ...fx, patterns } });
    await page.waitForSelector('.item');
    const heading = page.locator('.section-weak');
    assert.equal(await heading.count(), 1);
    assert.match((await heading.textContent()) ?? '', /^Weaker patterns — .*\(1\)$/);
    const order = await page.evaluate(() => Array.from(document.querySelectorAll('.section, .item')).map((e) => (e.classList.contains('section') ? 'H' : 'P')).join(''));
    assert.match(order, /^H?PPPPHP$/);
    await noErrors(page);
    await page.close();
  });

  test('expand shows the accesses in two thread columns in execution order; clicks post messages', async () => {
    const page = await open('unicorn', { theme: 'dark' });
    await page.waitForSelector('.item');
    await page.click('.item >> nth=0 >> .head');
    await page.waitForSelector('.item.open .columns');
    const cells = page.locator('.item.open .access');
    assert.equal(await cells.count(), 3);
    const layout = await page.$$eval('.item.open .columns > *', (els) => els.map((e) => (e.classList.contains('access') ? `${e.classList.contains('t1') ? 'T1' : 'T2'}:${e.querySelector('.step')!.textContent}` : e.classList.contains('gap') ? '-' : 'head')));
    assert.deepEqual(layout, ['head', 'head', 'T1:1', '-', '-', 'T2:2', 'T1:3', '-']);
    // thread 2's access sits in the right column
    const [x1, x2] = await Promise.all([cells.nth(0).boundingBox(), cells.nth(1).boundingBox()]);
    assert.ok(x2!.x > x1!.x + 200);
    await cells.nth(1).locator('button.loc').click();
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 852 });
    await page.click('.item.open .open-tracer');
    assert.deepEqual(await lastOfType(page, 'openTracer'), { type: 'openTracer', patternKey: 'k-rwr-1' });
    await shot(page, 'unicorn-dark-expanded');
    // keyboard: down to #2, expand with →, t opens the Tracer
    await page.focus('.item >> nth=0 >> .head');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('.item[data-key="k-rww-2"].open');
    await page.keyboard.press('t');
    assert.deepEqual(await lastOfType(page, 'openTracer'), { type: 'openTracer', patternKey: 'k-rww-2' });
    const state = await page.evaluate(() => (window as unknown as { __state: { expanded: string[] } }).__state);
    assert.deepEqual(state.expanded.sort(), ['k-rwr-1', 'k-rww-2']);
    await noErrors(page);
    await page.close();
  });

  test('high contrast screenshot', async () => {
    const page = await open('unicorn', { theme: 'hc', state: { kind: '', file: '', text: '', expanded: ['k-rwr-1'] } });
    await page.waitForSelector('.item.open');
    await shot(page, 'unicorn-hc');
    await assertHighContrast(page, [
      ['.chip-R', 'border-top-color', 'rgb(55, 148, 255)'],
      ['.chip-W', 'border-top-color', 'rgb(241, 76, 76)'],
      ['.chip-R, .chip-W', 'background-color', 'rgba(0, 0, 0, 0)'],
      ['.chip-R, .chip-W', 'color', 'rgb(255, 255, 255)'],
    ]);
    await noErrors(page);
    await page.close();
  });
});

describe('GRIFFIN view', () => {
  test('one card per bug with methods, advice, patterns, contexts and failing runs', async () => {
    const page = await open('griffin');
    await page.waitForSelector('.card');
    assert.equal(await page.locator('.card').count(), 2);
    const c1 = page.locator('.card[data-bug="1"]');
    assert.deepEqual(await c1.locator('.methods .role').allTextContents(), ['main', 'worker-1']);
    assert.match((await c1.locator('.advice').textContent()) ?? '', /hold the Vector's lock/);
    // the headline leads the card, its names as <code>; the category is the shape's label (the kind in its tooltip)
    assert.equal(await c1.locator('.headline').textContent(), 'Thread main read elementCount = 3 at Vector.java:271; then thread worker-1 wrote elementData at line 851: thread main used elementCount and elementData from two different states.');
    assert.deepEqual(await c1.locator('.headline code').allTextContents(), ['main', 'elementCount', 'worker-1', 'elementData', 'main', 'elementCount', 'elementData']);
    assert.equal(await c1.locator('header .tag').first().textContent(), 'multi-variable atomicity violation');
    assert.equal(await c1.locator('.patterns .pattern').count(), 3);
    assert.equal(await c1.locator('.context').count(), 2);
    assert.deepEqual(await c1.locator('.run-chip').allTextContents(), ['run-003', 'run-007', 'run-011']);
    await shot(page, 'griffin-light');
    await c1.locator('.methods button.loc >> nth=1').click();
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 849 });
    await c1.locator('.open-graph').click();
    assert.deepEqual(await lastOfType(page, 'openBugGraph'), { type: 'openBugGraph', bug: 1 });
    await c1.locator('.run-chip >> nth=1').click();
    assert.deepEqual(await lastOfType(page, 'openTracer'), { type: 'openTracer', run: 'run-007' });
    await c1.locator('.patterns .pattern >> nth=0 >> text=Tracer').click();
    assert.deepEqual(await lastOfType(page, 'openTracer'), { type: 'openTracer', patternKey: 'k-rwr-1', run: 'run-003' });
    await noErrors(page);
    await page.close();
  });

  test('dark and high contrast screenshots; collapse state persists', async () => {
    const page = await open('griffin', { theme: 'dark' });
    await page.waitForSelector('.card');
    await shot(page, 'griffin-dark');
    await page.click('.card[data-bug="2"] .twisty');
    await page.waitForFunction(() => !document.querySelector('.card[data-bug="2"] .card-body'));
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __state: unknown }).__state), { collapsed: [2] });
    await noErrors(page);
    await page.close();
    const hc = await open('griffin', { theme: 'hc' });
    await hc.waitForSelector('.card');
    await shot(hc, 'griffin-hc');
    await assertHighContrast(hc, [['.card', 'border-top-color', 'rgb(111, 195, 223)']]);
    await hc.close();
  });
});

describe('Bug graph', () => {
  test('lanes, call-stack boxes with access boxes, labelled edges', async () => {
    const page = await open('bugGraph');
    await page.waitForSelector('g.node');
    assert.equal(await page.locator('g.lane').count(), 2);
    assert.deepEqual(await page.locator('.lane-label').allTextContents(), ['Thread 1 · main', 'Thread 2 · worker-1']);
    assert.equal(await page.locator('g.node').count(), 3);
    assert.equal(await page.locator('g.frame').count(), 6);
    assert.equal(await page.locator('g.frame.suspicious').count(), 3);
    assert.equal(await page.locator('g.access').count(), 4);
    assert.equal(await page.locator('g.access.access-W').count(), 2);
    assert.deepEqual((await page.locator('.edge-label text').allTextContents()).sort(), ['P11', 'P9, P11', 'P9, P2']);
    // time order: node 2 (worker) lies between nodes 1 and 3
    const ys = await page.$$eval('g.node', (ns) => ns.map((n) => (n as SVGGElement).getBBox().y));
    assert.ok(ys[0] < ys[1] && ys[1] < ys[2]);
    // labels don't overlap
    const boxes = await page.$$eval('.edge-label-bg', (rs) => rs.map((r) => (r as SVGRectElement).getBBox()).map((b) => [b.x, b.y, b.width, b.height]));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        assert.ok(!(a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]), 'edge labels overlap');
      }
    await shot(page, 'bugGraph-light');
    await noErrors(page);
    await page.close();
  });

  test('click an access → its line; click a method → the method; keyboard; zoom; export SVG', async () => {
    const page = await open('bugGraph', { theme: 'dark' });
    await page.waitForSelector('g.node');
    await page.click('g.access[data-access="a3"]');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 852 });
    await page.click('g.node[data-id="n2"] g.frame.suspicious .frame-label');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 849 });
    await page.focus('g.node[data-id="n1"] g.frame >> nth=0');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/test/java/app/VectorTest.java', line: 12 });
    const before = await page.getAttribute('g.root', 'transform');
    await page.click('#zoomIn');
    await page.waitForFunction((b) => document.querySelector('g.root')?.getAttribute('transform') !== b, before);
    await page.focus('#bug-graph-svg');
    await page.keyboard.press('0');
    await page.click('#export');
    const exp = await lastOfType(page, 'saveSvg');
    assert.equal(exp?.name, 'braid-bug-1.svg');
    const svg = String(exp?.svg);
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, /elementCount/);
    assert.match(svg, /P9, P11/);
    assert.doesNotMatch(svg, /var\(--/, 'theme colours are inlined');
    assert.doesNotMatch(svg, /transform="translate/, 'export is unzoomed');
    await shot(page, 'bugGraph-dark');
    await hostSend(page, { type: 'showBug', bug: 2 });
    await page.waitForFunction(() => document.body.dataset.bug === '2');
    assert.equal(await page.locator('g.node').count(), 2);
    assert.equal((await page.evaluate(() => (window as unknown as { __state: { bug: number } }).__state)).bug, 2);
    await noErrors(page);
    await page.close();
  });

  test('re-fits when the panel is resized (an editor opened beside it), but keeps a view the user zoomed', async () => {
    const page = await open('bugGraph', { viewport: { width: 1200, height: 720 } });
    await page.waitForSelector('g.node');
    const fits = () => page.evaluate(() => {
      const root = (document.querySelector('g.root') as SVGGElement).getBoundingClientRect();
      const box = (document.querySelector('svg') as SVGSVGElement).getBoundingClientRect();
      return root.left >= box.left - 1 && root.right <= box.right + 1;
    });
    const wide = await page.getAttribute('g.root', 'transform');
    assert.ok(await fits(), 'fits at 1200 px');
    await page.setViewportSize({ width: 420, height: 720 });
    await page.waitForFunction((b) => document.querySelector('g.root')?.getAttribute('transform') !== b, wide);
    await page.waitForFunction(() => {
      const root = (document.querySelector('g.root') as SVGGElement).getBoundingClientRect();
      return root.right <= (document.querySelector('svg') as SVGSVGElement).getBoundingClientRect().right + 1;
    });
    assert.ok(await fits(), 'fits again at 420 px');
    await shot(page, 'bugGraph-narrow');
    await page.click('#zoomIn');
    await page.waitForTimeout(400);
    const zoomed = await page.getAttribute('g.root', 'transform');
    await page.setViewportSize({ width: 1000, height: 720 });
    await page.waitForTimeout(400);
    assert.equal(await page.getAttribute('g.root', 'transform'), zoomed, 'the user\'s zoom is kept');
    await noErrors(page);
    await page.close();
  });

  test('high contrast screenshot', async () => {
    const page = await open('bugGraph', { theme: 'hc' });
    await page.waitForSelector('g.node');
    await shot(page, 'bugGraph-hc');
    await assertHighContrast(page, [
      ['.access-R .access-chip', 'stroke', 'rgb(55, 148, 255)'],
      ['.access-W .access-chip', 'stroke', 'rgb(241, 76, 76)'],
      ['.access-chip', 'fill', 'rgba(0, 0, 0, 0)'],
      ['.access-kind', 'fill', 'rgb(255, 255, 255)'],
    ]);
    await noErrors(page);
    await page.close();
  });
});

describe('XSS: trace-derived names render as text and no script runs', () => {
  for (const csp of [true, false]) {
    for (const view of ['tracer', 'unicorn', 'griffin', 'bugGraph'] as const) {
      test(`${view} ${csp ? 'with' : 'without'} CSP`, async () => {
        const page = await H.open(view, { fixture: evilFixture(), csp });
        let dialog = false;
        page.on('dialog', (d) => {
          dialog = true;
          void d.dismiss();
        });
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        if (view === 'tracer') await waitRows(page, 0);
        if (view === 'unicorn') {
          await page.waitForSelector('.item');
          await page.click('.item >> nth=0 >> .head');
          await page.waitForSelector('.item.open');
        }
        if (view === 'griffin') await page.waitForSelector('.card');
        if (view === 'bugGraph') await page.waitForSelector('g.node');
        assert.equal(await lateXss(page), undefined, 'no injected script ran');
        const text = await page.evaluate(() => document.body.innerText + ' ' + Array.from(document.querySelectorAll('svg text, svg title')).map((t) => t.textContent).join(' '));
        const names = { tracer: [EVIL_VAR, EVIL_THREAD], unicorn: [EVIL_VAR], griffin: [EVIL_THREAD, '</script><b>bold</b>', EVIL_VAR], bugGraph: [EVIL_VAR] }[view];
        if (view === 'griffin') assert.ok((await page.locator('.card .headline code').allTextContents()).includes(EVIL_VAR), 'the headline shows the evil name as text in its code span');
        for (const n of names) assert.ok(text.includes(n), `${n} shown as text`);
        if (view !== 'bugGraph') assert.ok(text.includes(EVIL_FILE.split('/').pop()!) || text.includes(EVIL_METHOD.slice(0, 10)), 'evil file/method shown as text');
        const injected = await page.evaluate(() => ({
          xss: (window as unknown as { __xss?: number }).__xss,
          csp: (window as unknown as { __cspViolations: string[] }).__cspViolations.length,
          imgs: document.querySelectorAll('img').length,
          svgOnload: document.querySelectorAll('[onload],[onerror]').length,
          bold: document.querySelectorAll('b').length,
        }));
        assert.deepEqual(injected, { xss: undefined, csp: 0, imgs: 0, svgOnload: 0, bold: 0 });
        assert.equal(dialog, false);
        assert.deepEqual(errors, []);
        await page.close();
      });
    }
  }
});
