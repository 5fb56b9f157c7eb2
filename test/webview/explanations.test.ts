/**
 * Playwright tests of the Explanations webview (mining groups from
 * braid/explanations) in Chromium, loaded from its esbuild bundle inside the
 * production HTML shell (strict CSP) with the stubbed acquireVsCodeApi.
 * Screenshots go to test-output/webview/.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, posted, hostSend, shot, lateXss } from './harness';
import { makeFixture, evilFixture, EVIL_VAR, EVIL_FILE, EVIL_THREAD } from './fixtures';

let H: Harness;
const fx = makeFixture();

before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

async function open(o: Partial<Parameters<Harness['open']>[1]> = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await H.open('explanations', { fixture: fx, ...o });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors };
}

async function noErrors(page: Page, errors: string[]): Promise<void> {
  assert.deepEqual(errors, [], 'no page errors');
  const csp = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  assert.deepEqual(csp, [], 'no CSP violations');
}

async function lastOfType(page: Page, type: string): Promise<Record<string, unknown> | undefined> {
  return (await posted(page)).filter((m) => m.type === type).pop();
}

describe('Explanations view', () => {
  test('one card per group with rank, support bar, badge, macros per thread and dependency edges', async () => {
    const { page, errors } = await open();
    await page.waitForSelector('.card');
    assert.deepEqual(await lastOfType(page, 'request'), { type: 'request', requestId: 1, method: 'explanations', params: {} });
    assert.equal(await page.locator('.card').count(), 2);
    assert.deepEqual(await page.locator('.card .rank').allTextContents(), ['#1', '#2']);
    assert.deepEqual(await page.locator('.card .badge').allTextContents(), ['causal', 'symptom']);
    const w1 = await page.locator('.card >> nth=0 >> .bar .fill').evaluate((e) => (e as HTMLElement).style.width);
    const w2 = await page.locator('.card >> nth=1 >> .bar .fill').evaluate((e) => (e as HTMLElement).style.width);
    assert.equal(w1, '100%');
    assert.equal(w2, '60%');
    const c1 = page.locator('.card[data-rank="1"]');
    assert.equal(await c1.locator('.pattern').count(), 2);
    // pattern 1: three macros in execution order, T1 left / T2 right / T1 left
    const layout = await c1.locator('.pattern >> nth=0 >> .columns').evaluate((g) =>
      Array.from(g.children).map((e) => (e.classList.contains('col-head') ? 'head' : e.classList.contains('gap') ? '-' : Array.from(e.querySelectorAll('.step')).map((s) => s.textContent).join(','))),
    );
    assert.deepEqual(layout, ['head', 'head', '1', '-', '-', '2,3', '4', '-']);
    assert.deepEqual(await c1.locator('.pattern >> nth=0 >> .access .chip').allTextContents(), ['R1', 'W2', 'W2', 'R1']);
    const cells = c1.locator('.pattern >> nth=0 >> .macro');
    const [b1, b2] = await Promise.all([cells.nth(0).boundingBox(), cells.nth(1).boundingBox()]);
    assert.ok(b2!.x > b1!.x + 200, 'thread 2 in the right column');
    // context macro dimmed, third thread gets a third column
    assert.equal(await c1.locator('.pattern >> nth=1 >> .macro.context').count(), 1);
    assert.equal(await c1.locator('.pattern >> nth=1 >> .col-head').count(), 3);
    // dependency edges
    assert.deepEqual(await c1.locator('.dep .dep-kind').allTextContents(), ['anti', 'flow']);
    assert.deepEqual(await c1.locator('.dep >> nth=0 >> button.loc').allTextContents(), ['Vector.java:271', 'Vector.java:852']);
    await shot(page, 'explanations-light');
    await noErrors(page, errors);
    await page.close();
  });

  test('clicks on an access or an edge post openLocation; keyboard; collapse persists; changed re-requests', async () => {
    const { page, errors } = await open({ theme: 'dark' });
    await page.waitForSelector('.card');
    const c1 = page.locator('.card[data-rank="1"]');
    await c1.locator('.pattern >> nth=0 >> .access >> nth=1 >> button.loc').click();
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 851 });
    await c1.locator('.dep >> nth=1 >> button.loc >> nth=0').click();
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 851 });
    await c1.locator('.dep >> nth=0 >> .dep-kind').click();
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 852 });
    await shot(page, 'explanations-dark');
    // keyboard: Tab reaches an access, Enter opens it; ↓ moves between cards; ← collapses
    await page.focus('.card[data-rank="1"] .pattern >> nth=0 >> .access >> nth=3 >> button.loc');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: 'src/main/java/java/util/Vector.java', line: 681 });
    await page.focus('.card[data-rank="1"] .twisty');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.card')?.getAttribute('data-rank')), '2');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => !document.querySelector('.card[data-rank="2"] .card-body'));
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.card')?.getAttribute('data-rank')), '2');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __state: { collapsed: number[] } }).__state.collapsed), [1]);
    // causal-only filter
    await page.check('#causalOnly');
    await page.waitForFunction(() => document.querySelectorAll('.card').length === 1);
    await page.uncheck('#causalOnly');
    // analysis changed → re-request
    const before = (await posted(page)).filter((m) => m.type === 'request').length;
    await hostSend(page, { type: 'changed' });
    await page.waitForFunction((n) => (window as unknown as { __posted: Array<{ type: string }> }).__posted.filter((m) => m.type === 'request').length > n, before);
    await page.waitForSelector('.card[data-rank="2"]');
    await noErrors(page, errors);
    await page.close();
    // restored state: group 2 collapsed
    const again = await open({ theme: 'hc', state: { collapsed: [1], causalOnly: false } });
    await again.page.waitForSelector('.card');
    assert.equal(await again.page.locator('.card[data-rank="2"] .card-body').count(), 0);
    assert.equal(await again.page.locator('.card[data-rank="1"] .card-body').count(), 1);
    await shot(again.page, 'explanations-hc');
    await noErrors(again.page, again.errors);
    await again.page.close();
  });

  test('the header rounds the mining time (421 ms, 1.2 s), never 421.3938930000295 ms', async () => {
    for (const [ms, text] of [[421.3938930000295, '421 ms'], [1234.5, '1.2 s']] as const) {
      const ex = fx.explanations!;
      const { page, errors } = await open({ fixture: { ...fx, explanations: { ...ex, stats: { ...ex.stats, ms } } } });
      await page.waitForSelector('.card');
      const header = (await page.locator('#summary').textContent()) ?? '';
      assert.ok(header.endsWith(`· ${text}`), header);
      await noErrors(page, errors);
      await page.close();
    }
  });

  test('no explanations: the server message is shown', async () => {
    const { page, errors } = await open({ fixture: { ...fx, explanations: { state: 'none', groups: [], total: 0, stats: { failing: 0, passing: 3, minSupport: 0.5, truncated: false, ms: 1 }, message: 'No failing traces to explain.' } } });
    await page.waitForSelector('.empty');
    await page.waitForFunction(() => /No failing traces/.test(document.querySelector('.empty')?.textContent ?? ''));
    await noErrors(page, errors);
    await page.close();
  });

  for (const csp of [true, false]) {
    test(`XSS: trace-derived names render as text and no script runs (${csp ? 'with' : 'without'} CSP)`, async () => {
      const page = await H.open('explanations', { fixture: evilFixture(), csp });
      let dialog = false;
      page.on('dialog', (d) => {
        dialog = true;
        void d.dismiss();
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.waitForSelector('.card');
      assert.equal(await lateXss(page), undefined, 'no injected script ran');
      const text = await page.evaluate(() => document.body.innerText);
      for (const n of [EVIL_VAR, EVIL_THREAD, '</script><b>bold</b>']) assert.ok(text.includes(n), `${n} shown as text`);
      assert.ok(text.includes(EVIL_FILE.split('/').pop()! + ':852'), 'evil file shown as text');
      await page.locator('.card[data-rank="1"] .access >> nth=0 >> button.loc').click();
      assert.deepEqual(await lastOfType(page, 'openLocation'), { type: 'openLocation', file: EVIL_FILE, line: 271 });
      const injected = await page.evaluate(() => ({
        xss: (window as unknown as { __xss?: number }).__xss,
          csp: (window as unknown as { __cspViolations: string[] }).__cspViolations.length,
        imgs: document.querySelectorAll('img').length,
        handlers: document.querySelectorAll('[onload],[onerror]').length,
        bold: document.querySelectorAll('b').length,
        scripts: document.querySelectorAll('script').length,
      }));
      assert.deepEqual(injected, { xss: undefined, csp: 0, imgs: 0, handlers: 0, bold: 0, scripts: 1 });
      assert.equal(dialog, false);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
