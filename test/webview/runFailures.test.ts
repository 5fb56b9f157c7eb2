/**
 * Issue 30, point 2, in Chromium: the Tracer's failure bar and run picker say what failed — the
 * assertion message and its line, a click opens it — not "exit code 1"; a GRIFFIN card says what its
 * failing runs reported ("Fails with …"). Trace text stays text (an evil message is not markup).
 * Screenshots in light and dark.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startHarness, Harness, posted, shot, lateXss } from './harness';
import { makeFixture, type Fixture } from './fixtures';

let H: Harness;
before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

const ASSERTION = 'org.opentest4j.AssertionFailedError: every deposit kept ==> expected: <100> but was: <90>';
const EVIL = 'java.lang.AssertionError: <img src=x onerror="window.__xss=1"> **bold**';

function fixture(message = ASSERTION): Fixture {
  const fx = makeFixture();
  const failure = { reason: 'assertion', message, location: { file: 'bank/AccountTest.java', line: 29, method: 'bank.AccountTest.concurrentDepositsAreAllKept', uri: 'file:///ws/src/test/java/bank/AccountTest.java' } };
  fx.runs[0] = { ...fx.runs[0], reason: 'exit-code', detail: 'exit code 1', failure };
  (fx.bugs[0] as Record<string, unknown>).failures = [{ ...failure, runs: 3 }];
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

describe('the real failure (issue 30, point 2)', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`Tracer: the assertion message and its line, not the exit code (${theme})`, async () => {
      const page = await H.open('tracer', { fixture: fixture(), theme });
      await waitRows(page);
      await page.waitForFunction(() => /expected: <100>/.test(document.querySelector('#failureBar')?.textContent ?? ''));
      const text = (await page.locator('#failureBar').innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Failed: assertion failed/);
      assert.match(text, /AssertionFailedError: every deposit kept ==> expected: <100> but was: <90>/);
      assert.match(text, /at AccountTest\.java:29/);
      assert.doesNotMatch(text, /exit code|exit-code/);
      // the run picker names the failure too
      const first = await page.$eval('#run vscode-option', (o) => o.textContent ?? '');
      assert.match(first, /run #3 ✗ AssertionFailedError: every deposit kept/);
      await page.click('#failureBar .fail-location button');
      const open = (await posted(page)).filter((m) => m.type === 'openLocation');
      assert.deepEqual(open.at(-1), { type: 'openLocation', file: 'bank/AccountTest.java', line: 29, uri: 'file:///ws/src/test/java/bank/AccountTest.java' });
      await shot(page, `tracer-failure-assertion-${theme}`);
      await page.close();
    });

    test(`GRIFFIN: a bug card says what its failing runs reported (${theme})`, async () => {
      const page = await H.open('griffin', { fixture: fixture(), theme });
      await page.waitForSelector('.card[data-bug="1"] .fails-with');
      const text = (await page.locator('.card[data-bug="1"] .fails-with').innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Fails with AssertionFailedError: every deposit kept ==> expected: <100> but was: <90> at AccountTest\.java:29 · 3 runs/);
      await page.click('.card[data-bug="1"] .fails-with button.loc');
      const open = (await posted(page)).filter((m) => m.type === 'openLocation');
      assert.equal(open.at(-1)?.line, 29);
      await shot(page, `griffin-fails-with-${theme}`);
      await page.close();
    });
  }

  test('a hostile message is shown as text', async () => {
    for (const view of ['tracer', 'griffin'] as const) {
      const page = await H.open(view, { fixture: fixture(EVIL) });
      await page.waitForFunction(() => /onerror/.test(document.body.textContent ?? ''));
      assert.equal(await page.$('img'), null);
      assert.equal(await lateXss(page, 300), undefined);
      await page.close();
    }
  });
});
