/**
 * Issue 28 in Chromium: a GRIFFIN card shows the verdict of forcing its bug's lead pattern (a tag
 * with the reason as its tooltip) and a button — Confirm before any verdict, Reproduce once
 * confirmed — that posts `confirmPattern` to the host (which runs the command after asking). The
 * reason is trace-derived text: shown as text. Screenshots in light and dark.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, Harness, posted, shot, lateXss } from './harness';
import { makeFixture, type Fixture } from './fixtures';
import type { PatternConfirmationDto } from '../../server/src/lsp/protocol';

let H: Harness;
before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

const CONFIRMED: PatternConfirmationDto = {
  verdict: 'confirmed',
  reason: 'forcing it makes the failure happen: forced 20/20 failed (100 %), the opposite order 0/20, unforced 1/20',
  pValue: 1e-10,
  forced: { runs: 20, failed: 20, forcedOk: 20 },
  opposite: { runs: 20, failed: 0, forcedOk: 20 },
  control: { runs: 20, failed: 1 },
  failingTrace: '/ws/.braid/confirm/x/forced/x-0003.trace.jsonl',
};

function fixture(c?: PatternConfirmationDto): Fixture {
  const fx = makeFixture();
  if (c) fx.patterns[0] = { ...fx.patterns[0], confirmation: c };
  return fx;
}

describe('GRIFFIN: the verdict of forcing (issue 28)', () => {
  test('before any verdict: a Confirm button that posts confirmPattern for the lead pattern', async () => {
    const page = await H.open('griffin', { fixture: fixture() });
    await page.waitForSelector('.card[data-bug="1"] .verdict button');
    assert.equal(await page.$('.card[data-bug="1"] .verdict .tag'), null);
    assert.equal((await page.locator('.card[data-bug="1"] .verdict button').innerText()).trim(), 'Confirm');
    await page.click('.card[data-bug="1"] .verdict button');
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'confirmPattern').at(-1), { type: 'confirmPattern', patternKey: 'k-rwr-1', reproduce: false });
    await page.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`confirmed: a tag with the reason and Reproduce (${theme})`, async () => {
      const page = await H.open('griffin', { fixture: fixture(CONFIRMED), theme });
      await page.waitForSelector('.card[data-bug="1"] .verdict .tag');
      assert.equal((await page.locator('.card[data-bug="1"] .verdict .tag').innerText()).trim(), '✔ confirmed');
      assert.match(String(await page.getAttribute('.card[data-bug="1"] .verdict .tag', 'title')), /forced 20\/20 failed/);
      assert.equal((await page.locator('.card[data-bug="1"] .verdict button').innerText()).trim(), 'Reproduce');
      await page.click('.card[data-bug="1"] .verdict button');
      assert.deepEqual((await posted(page)).filter((m) => m.type === 'confirmPattern').at(-1), { type: 'confirmPattern', patternKey: 'k-rwr-1', reproduce: true });
      await shot(page, `griffin-verdict-confirmed-${theme}`);
      await page.close();
    });
  }

  test('a hostile reason stays text', async () => {
    const page = await H.open('griffin', { fixture: fixture({ ...CONFIRMED, verdict: 'not forced', reason: '<img src=x onerror="window.__xss=1">' }) });
    await page.waitForSelector('.card[data-bug="1"] .verdict .tag');
    assert.equal((await page.locator('.card[data-bug="1"] .verdict .tag').innerText()).trim(), '– not forced');
    assert.equal(await page.$('img'), null);
    assert.equal(await lateXss(page, 300), undefined);
    await page.close();
  });
});
