/**
 * Issue 16 in Chromium: the Tracer says why a run failed (reason, failing thread by name) at the
 * top, its run picker filters failing runs and sorts them first, its `#` column is narrow and
 * "Go to" stays with its field; a highlighted pattern marks its occurrence's events only (not every
 * event on the same lines); the bug graph highlights GRIFFIN's suspicious method of each lane,
 * shows lambdas and long members readably and whole, and spaces high-contrast edge labels.
 * Expected values are derived by hand from test/webview/fixtures.ts.
 */
import { describe, test, before, after } from 'node:test';
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
  // run-003 failed with an uncaught exception in thread 12 (worker-1); its failure point is event 1500
  fx.runs[0] = { ...fx.runs[0], reason: 'exception', detail: 'java.lang.ArrayIndexOutOfBoundsException: Index 8 out of bounds for length 8 in thread 12', failingThread: { id: 12, name: 'worker-1' }, failPoint: 1500 };
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

const runOptions = (page: Page) => page.$$eval('#run vscode-option', (os) => os.map((o) => o.textContent?.trim() ?? ''));

describe('Tracer (issue 16)', () => {
  test('failure reason and failing thread at the top; only that thread; go to the failure point', async () => {
    const page = await H.open('tracer', { fixture: fixture() });
    await waitRows(page);
    const bar = page.locator('#failureBar');
    await page.waitForFunction(() => /failing thread: worker-1/.test(document.querySelector('#failureBar')?.textContent ?? ''));
    const text = (await bar.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /Failed: exception/);
    assert.match(text, /ArrayIndexOutOfBoundsException: Index 8 out of bounds for length 8 in thread worker-1/, 'the thread by its name, as the other views show it');
    assert.doesNotMatch(text, /thread 12/);
    // the bar is above the grid
    const barBox = (await bar.boundingBox())!;
    const headBox = (await page.locator('.row.header').boundingBox())!;
    assert.ok(barBox.y < headBox.y);
    await page.click('#showFailingThread');
    await page.waitForFunction(() => {
      const names = Array.from(document.querySelectorAll('.rows .row[data-i]:not([hidden]) .tname')).map((e) => e.textContent);
      return names.length > 0 && names.every((n) => n === 'worker-1');
    });
    await page.click('#gotoFailure');
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '1500');
    await shot(page, 'tracer-failure');
    await page.close();
  });

  test('run picker: run labels, failing runs only, failing runs first', async () => {
    const fx = fixture();
    // a passing run listed before a failing one
    fx.runs = [fx.runs[1], fx.runs[0], fx.runs[2]];
    const page = await H.open('tracer', { fixture: fx });
    await waitRows(page);
    assert.deepEqual(await runOptions(page), ['run #1 ✓ · 3,000 events', 'run #3 ✗ exception · 3,000 events', 'big-10M ✗ failed · 10,000,000 events']);
    await page.click('#runSort');
    await page.click('#runSort vscode-option[value="failing"]');
    await page.waitForFunction(() => document.querySelector('#run vscode-option')?.textContent?.includes('✗'));
    assert.deepEqual((await runOptions(page)).map((o) => o.split(' · ')[0]), ['run #3 ✗ exception', 'big-10M ✗ failed', 'run #1 ✓']);
    await page.click('#failingOnly');
    await page.waitForFunction(() => document.querySelectorAll('#run vscode-option').length === 2);
    assert.deepEqual((await runOptions(page)).map((o) => o.split(' · ')[0]), ['run #3 ✗ exception', 'big-10M ✗ failed']);
    await page.close();
  });

  test('the # column fits the indices; "Go to" stays next to its field in a narrow panel', async () => {
    const page = await H.open('tracer', { fixture: fixture(), viewport: { width: 640, height: 600 } });
    await waitRows(page);
    const idx = (await page.locator('.row.header > span').first().boundingBox())!;
    assert.ok(idx.width < 60, `# column ${idx.width}px (4 digits), was 90px`);
    const label = (await page.locator('#gotoGroup > span').boundingBox())!;
    const field = (await page.locator('#goto').boundingBox())!;
    assert.ok(Math.abs(label.y + label.height / 2 - (field.y + field.height / 2)) < 6, `"Go to" (${label.y}) on the line of its field (${field.y})`);
    assert.ok(field.x > label.x, 'the field follows its label');
    // data cells are not cut
    const cut = await page.$$eval('.rows .row[data-i]:not([hidden])', (rows) =>
      rows.flatMap((r) => Array.from(r.querySelectorAll<HTMLElement>('.loc-cell')).filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent)),
    );
    assert.deepEqual(cut, []);
    await shot(page, 'tracer-narrow');
    await page.close();
  });

  test('a highlighted pattern marks the events of its occurrence, not every event on its lines', async () => {
    const page = await H.open('tracer', { fixture: fixture() });
    await waitRows(page);
    await hostSend(page, { type: 'showRun', run: 'run-003', highlightPatternKey: 'k-rwr-1' });
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '1500');
    // P9: R elementCount at Vector.java:271 by the role-1 thread, W elementCount at :852 by another,
    // R elementData at :681 by the role-1 thread. Only 1500 (W :852) and 1503 (R :681, main) match
    // accesses 2 and 3, so role 1 is main; main reads elementCount at :271 at events i ≡ 0 or 2 (mod 10)
    // with i ≡ 0 (mod 3), and its last such read before 1500 is event 1482.
    await page.waitForFunction(() => /occurrence: events|does not occur/.test(document.querySelector('#occurrence')?.textContent ?? ''));
    assert.equal(await page.locator('#occurrence').textContent(), 'occurrence: events #1482, #1500, #1503');
    const hl = await page.$$eval('.rows .row.hl[data-i]:not([hidden])', (rs) => rs.map((r) => (r as HTMLElement).dataset.i).sort());
    for (const i of hl) assert.ok(['1482', '1500', '1503'].includes(i!), `only the occurrence's events are highlighted: ${hl.join(', ')}`);
    // events on the same line as access #1 (R elementCount :271, e.g. 1480 and 1490) are not highlighted
    const same = await page.$$eval('.rows .row[data-i]:not([hidden])', (rs) =>
      rs.filter((r) => r.querySelector('.loc-cell')?.textContent === 'Vector.java:271' && r.querySelector('.var')?.textContent === 'elementCount').map((r) => [(r as HTMLElement).dataset.i, r.classList.contains('hl')]),
    );
    assert.ok(same.some(([, h]) => !h), `rows on the access's line that are not the occurrence stay plain: ${JSON.stringify(same)}`);
    await page.click('.pb-access >> nth=0');
    await page.waitForFunction(() => document.querySelector('.rows .row.selected')?.getAttribute('data-i') === '1482');
    assert.match((await page.locator('.rows .row.selected').getAttribute('class')) ?? '', /\bhl\b/);
    await page.close();
  });
});

describe('Bug graph (issue 16)', () => {
  function graphFixture(): Fixture {
    const fx = makeFixture();
    const g = JSON.parse(JSON.stringify(fx.graphs[1])) as { lanes: Record<string, unknown>[]; nodes: { frames: { method: string }[]; accesses: { variable: string }[] }[] };
    // GRIFFIN names the constructor for lane 1 and Worker.run for lane 2: those boxes are highlighted, not the nodes' top frames
    g.lanes[0] = { ...g.lanes[0], label: 'main (T1)', suspiciousMethod: { method: 'java.util.Vector.<init>(Collection)' } };
    g.lanes[1] = { ...g.lanes[1], label: 'worker-1 (T2)', suspiciousMethod: { method: 'app.Worker.run()' } };
    g.nodes[1].frames[0].method = 'app.Worker.run()';
    g.nodes[2].frames[0].method = 'app.VectorTest.lambda$main$1()';
    g.nodes[2].accesses[0].variable = 'com.example.deeply.nested.pkg.SomeOuterClass$InnerHolder.aLongFieldName';
    fx.graphs[1] = g;
    return fx;
  }

  test('GRIFFIN\'s method is the highlighted box; lambdas readable; long members whole', async () => {
    const page = await H.open('bugGraph', { fixture: graphFixture() });
    await page.waitForSelector('g.node');
    const hl = (await page.locator('g.frame.suspicious > .frame-label').allTextContents()).sort();
    assert.deepEqual(hl, ['Vector.<init>()', 'Vector.<init>()', 'Worker.run()']);
    const frames = await page.locator('.frame-label').allTextContents();
    assert.ok(frames.includes('VectorTest.lambda in main()'), frames.join(', '));
    const vars = await page.locator('.access-var').allTextContents();
    assert.ok(vars.includes('InnerHolder.aLongFieldName'), `whole: ${vars.join(', ')}`);
    assert.ok(vars.every((v) => !v.includes('…')), vars.join(', '));
    await shot(page, 'bugGraph-names');
    await page.close();
  });

  test('high contrast: edge labels do not crowd (a gap between them)', async () => {
    const page = await H.open('bugGraph', { fixture: graphFixture(), theme: 'hc' });
    await page.waitForSelector('.edge-label-bg');
    const boxes = await page.$$eval('.edge-label-bg', (rs) => rs.map((r) => (r as SVGRectElement).getBBox()).map((b) => [b.x, b.y, b.width, b.height]));
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        const xOverlap = a[0] < b[0] + b[2] && b[0] < a[0] + a[2];
        const gap = Math.max(b[1] - (a[1] + a[3]), a[1] - (b[1] + b[3]));
        if (xOverlap) assert.ok(gap >= 2, `labels ${i} and ${j} are ${gap}px apart`);
      }
    await shot(page, 'bugGraph-hc-names');
    await page.close();
  });
});

describe('GRIFFIN panel (issue 16)', () => {
  test('calling contexts: the bold frame is the thread\'s suspicious method, not the top of the stack', async () => {
    const fx = makeFixture();
    const bug = fx.bugs[0] as { contexts: { frames: { method: string; file?: string; line?: number }[] }[] };
    // thread 1 reaches its access through Vector.size() inside the constructor GRIFFIN names
    bug.contexts[0].frames.push({ method: 'java.util.Vector.size()', file: 'src/main/java/java/util/Vector.java', line: 300 });
    const page = await H.open('griffin', { fixture: fx });
    await page.waitForSelector('.card[data-bug="1"] .context');
    const bold = await page.locator('.card[data-bug="1"] .context >> nth=0').locator('li.top').allInnerTexts();
    assert.deepEqual(bold.map((t) => t.trim().split(/\s+/)[0]), ['Vector.<init>']);
    await page.close();
  });
});

for (const theme of ['light', 'dark'] as const) {
  test(`Ranked Patterns panel: section headings line up with the rows, not flush against the panel's edge (${theme})`, async () => {
    const fx = makeFixture();
    // the last pattern without evidence: a second section, "Without evidence", at the end (as listed)
    fx.patterns = fx.patterns.map((p, k, all) => (k === all.length - 1 ? { ...p, evidence: false } : p));
    const page = await H.open('unicorn', { fixture: fx, theme });
    await page.waitForSelector('.section');
    const r = await page.evaluate(() => ({
      sections: Array.from(document.querySelectorAll<HTMLElement>('.section')).map((s) => {
        const range = document.createRange();
        range.selectNodeContents(s);
        return { text: s.textContent, left: range.getBoundingClientRect().left };
      }),
      row: document.querySelector('.item .head')!.firstElementChild!.getBoundingClientRect().left,
    }));
    assert.ok(r.sections.length >= 2, JSON.stringify(r));
    for (const s of r.sections) assert.ok(Math.abs(s.left - r.row) <= 1, `"${s.text}" starts where the rows do (${s.left} vs ${r.row})`);
    await shot(page, `unicorn-sections-${theme}`);
    await page.close();
  });
}
