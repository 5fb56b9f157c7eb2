/**
 * Playwright tests of the Method Ranking comparison webview (braid/methods: the call-graph
 * ranking next to GRIFFIN's suspicious methods) in Chromium, from its esbuild bundle inside the
 * production HTML shell (strict CSP) with the stubbed acquireVsCodeApi.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, posted, hostSend, shot } from './harness';
import { makeFixture, evilFixture, EVIL_FILE, EVIL_METHOD } from './fixtures';

let H: Harness;
const fx = makeFixture();

before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

async function noErrors(page: Page, errors: string[]): Promise<void> {
  assert.deepEqual(errors, [], 'no page errors');
  const csp = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  assert.deepEqual(csp, [], 'no CSP violations');
}

describe('Method Ranking comparison view', () => {
  test('GRIFFIN methods with their call-graph rank, and the call-graph top with score, edge, runs and the GRIFFIN mark', async () => {
    const page = await H.open('methods', { fixture: fx });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.waitForSelector('table.methods');
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'request'), [{ type: 'request', requestId: 1, method: 'methods', params: {} }]);
    assert.equal(await page.locator('#summary').textContent(), '20 runs (8 failed) · inter graph · 3 methods');
    assert.deepEqual(await page.locator('table.griffin td.cg-rank').allTextContents(), ['#1', '—']);
    assert.deepEqual(await page.locator('table.methods td.rank').allTextContents(), ['#1', '#2', '#3']);
    assert.deepEqual(await page.locator('table.methods tr.both td.rank').allTextContents(), ['#1'], 'GRIFFIN names the first method too');
    const w = await page.locator('table.methods tr >> nth=1 >> .bar .fill').evaluate((e) => (e as HTMLElement).style.width);
    assert.equal(w, '80%');
    assert.match((await page.locator('table.methods tr[data-rank="1"]').textContent()) ?? '', /inter → Worker\.run(?!\()/);
    assert.match((await page.locator('table.methods tr[data-rank="3"]').textContent()) ?? '', /calls nothing/);
    await page.locator('table.methods tr[data-rank="2"] button.loc').click();
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'openLocation').pop(), { type: 'openLocation', file: 'src/test/java/app/VectorTest.java', line: 20 });
    await shot(page, 'methods-light');
    const before = (await posted(page)).filter((m) => m.type === 'request').length;
    await hostSend(page, { type: 'changed' });
    await page.waitForFunction((n) => (window as unknown as { __posted: Array<{ type: string }> }).__posted.filter((m) => m.type === 'request').length > n, before);
    await noErrors(page, errors);
    await page.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`issue 30: the names of the tree views (MyVector.toArray, lambda in main), the full one in the title; GRIFFIN's threads by name (${theme})`, async () => {
      const f = makeFixture();
      const m = f.methods!;
      m.methods[0] = { ...m.methods[0], method: 'vectorcopy.VectorCopy.lambda$main$1', edge: { ...m.methods[0].edge!, target: 'vectorcopy.VectorCopy$MyVector.size' } };
      m.methods[1] = { ...m.methods[1], method: 'vectorcopy.VectorCopy$MyVector.toArray(Object[])' };
      m.griffin = [
        { ...m.griffin[0], method: 'vectorcopy.VectorCopy.lambda$main$1', threadName: 'copier' },
        { ...m.griffin[1], threadName: undefined },
      ];
      const page = await H.open('methods', { fixture: f, theme });
      await page.waitForSelector('table.methods');
      const names = await page.locator('table.methods td button.loc, table.methods td span.mono').evaluateAll((els) => els.map((e) => [e.textContent, (e as HTMLElement).title.split(' — ')[0]]));
      assert.deepEqual(names.slice(0, 2), [
        ['VectorCopy.lambda in main', 'vectorcopy.VectorCopy.lambda$main$1'],
        ['MyVector.toArray', 'vectorcopy.VectorCopy$MyVector.toArray(Object[])'],
      ]);
      assert.match((await page.locator('table.methods tr[data-rank="1"]').textContent()) ?? '', /→ MyVector\.size/);
      const threads = await page.locator('table.griffin tbody tr').evaluateAll((rows) => rows.map((r) => r.children[1].textContent));
      assert.deepEqual(threads, ['copier', 'T1'], 'the thread by its name, else its role');
      await shot(page, `methods-names-${theme}`);
      await page.close();
    });
  }

  test('no runs: the server message is shown', async () => {
    const page = await H.open('methods', { fixture: { ...fx, methods: undefined }, theme: 'dark' });
    await page.waitForFunction(() => /No runs to rank/.test(document.querySelector('.empty')?.textContent ?? ''));
    await page.close();
  });

  for (const csp of [true, false]) {
    test(`XSS: trace-derived method and file names render as text and no script runs (${csp ? 'with' : 'without'} CSP)`, async () => {
      const page = await H.open('methods', { fixture: evilFixture(), csp });
      let dialog = false;
      page.on('dialog', (d) => {
        dialog = true;
        void d.dismiss();
      });
      await page.waitForSelector('table.methods');
      await page.waitForTimeout(150);
      const title = await page.locator('table.methods tr[data-rank="1"] button.loc').getAttribute('title');
      assert.equal(title, `${EVIL_METHOD} — ${EVIL_FILE}:850`);
      const text = await page.evaluate(() => document.body.innerText);
      assert.ok(text.includes('__xss=3">.run'), 'the evil method name is text (short: no argument list)');
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'no injected script ran');
      assert.equal(await page.locator('img, svg[onload]').count(), 0, 'no injected elements');
      assert.equal(dialog, false);
      await page.close();
    });
  }
});
