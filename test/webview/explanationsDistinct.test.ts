/**
 * Issue 30, point 5 in Chromium: the Explanations webview shows one card per distinct explanation
 * (a group showing the same events and dependencies as a better one is folded into it, "+1 alike"),
 * says "tied" when two distinct cards share a rank, and wraps a long thread sequence instead of
 * cutting it. Light and dark screenshots.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, Harness, shot } from './harness';
import { makeFixture } from './fixtures';

let H: Harness;
before(async () => {
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

function fixture() {
  const fx = makeFixture();
  const ex = fx.explanations!;
  const [first, second] = ex.groups;
  // a copy of the first group (another order, a lower support): the same explanation
  const copy = { ...JSON.parse(JSON.stringify(first)), order: 7, relSupport: 0.9 };
  // the second group tied with the first, its best pattern a long alternation of threads
  const long = JSON.parse(JSON.stringify(second));
  long.rank = 1;
  const m = long.patterns[0].macros;
  long.patterns[0].macros = Array.from({ length: 40 }, (_, k) => ({ ...m[k % m.length], thread: k % 2 ? 'worker-with-a-long-name-2' : 'main' }));
  ex.groups = [first, copy, long];
  ex.total = 3;
  return fx;
}

for (const theme of ['light', 'dark'] as const) {
  test(`Explanations: one card per distinct explanation, ties said, the thread sequence wrapped (${theme})`, async () => {
    const page = await H.open('explanations', { fixture: fixture(), theme, viewport: { width: 700, height: 700 } });
    await page.waitForSelector('.card');
    const cards = await page.$$eval('.card', (cs) =>
      cs.map((c) => {
        const head = c.querySelector<HTMLElement>('.headline')!;
        return { rank: c.getAttribute('data-rank'), tied: !!c.querySelector('.tied'), alike: c.querySelector('.alike')?.textContent ?? '', cut: head.scrollWidth > head.clientWidth + 1, lines: head.getBoundingClientRect().height / parseFloat(getComputedStyle(head).fontSize), inCard: head.getBoundingClientRect().right <= c.getBoundingClientRect().right + 1, text: head.textContent };
      }),
    );
    assert.equal(cards.length, 2, `the copy is folded: ${JSON.stringify(cards)}`);
    assert.deepEqual(cards.map((c) => [c.rank, c.tied, c.alike]), [['1', true, '+1 alike'], ['1', true, '']]);
    assert.ok(cards.every((c) => !c.cut), 'no thread sequence is cut');
    assert.equal((cards[1].text ?? '').split(' → ').length, 40, 'all 40 macros');
    assert.ok(cards.every((c) => c.inCard), 'inside its card');
    assert.ok(cards[1].lines > 2.2, `the long sequence wraps: ${JSON.stringify(cards[1])}`);
    await shot(page, `explanations-distinct-${theme}`);
    await page.close();
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`Explanations at 700 px: long variable and method names wrap inside their thread's column, never cut (${theme})`, async () => {
    const fx = makeFixture({
      v1: 'com.example.inventory.warehouse.StockLevelAccumulatorWithAVeryLongName.reservedQuantityAcrossAllShelves',
      v2: 'com.example.inventory.warehouse.StockLevelAccumulatorWithAVeryLongName.pendingReplenishmentOrders',
      file: 'src/main/java/com/example/inventory/warehouse/StockLevelAccumulatorWithAVeryLongName.java',
      method: 'com.example.inventory.warehouse.StockLevelAccumulatorWithAVeryLongName.recomputeReservedQuantityAfterReplenishment(Collection)',
      thread: 'replenishment-worker-thread-with-a-long-name-1',
    });
    const page = await H.open('explanations', { fixture: fx, theme, viewport: { width: 700, height: 900 } });
    await page.waitForSelector('.card .access');
    const cells = await page.$$eval('.access .var, .access .method, .access button.loc', (els) =>
      els
        .filter((e) => (e as HTMLElement).offsetParent !== null)
        .map((e) => {
          const col = e.closest('.macro') ?? e.closest('.card')!;
          const r = e.getBoundingClientRect();
          return { text: e.textContent, cut: e.scrollWidth > e.clientWidth + 1, inColumn: r.right <= col.getBoundingClientRect().right + 1 };
        }),
    );
    assert.ok(cells.length >= 6, `the open card shows its accesses: ${JSON.stringify(cells)}`);
    assert.ok(cells.some((c) => /recomputeReservedQuantityAfterReplenishment/.test(c.text ?? '')), 'the long method name is shown');
    assert.deepEqual(cells.filter((c) => c.cut || !c.inColumn), [], 'no name is cut or leaves its column');
    assert.ok(
      await page.$$eval('.access', (rows) => rows.some((r) => r.getBoundingClientRect().height > 30)),
      'a row too long for its column wraps onto more lines',
    );
    await shot(page, `explanations-narrow-${theme}`);
    await page.close();
  });
}
