/**
 * The Bugs (GRIFFIN) view with many real bugs at 1,000 px: bugs come from the
 * engine (the Vector example of thesis Table 9 and the two-bug program's
 * recorded runs), cloned to 40 with long names. One card per bug, short
 * names, evidence, fix advice and interleaving folded, weak evidence last and
 * collapsed, nothing overlapping or overflowing. Screenshot:
 * test-output/webview/griffin-many-1000.png.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startHarness, Harness, OUT } from './harness';
import { makeFixture, Fixture } from './fixtures';
import { Analyzer, analyzeTraceFiles, AnalysisResult } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { explainBugs, Bug } from '../../server/src/engine/griffin/griffin';
import type { PatternDto } from '../../server/src/lsp/protocol';
import { vectorTraces, writeStackTraces } from '../helpers/griffinFixtures';

let H: Harness;
let fx: Fixture;
const LONG = 'com.example.inventory.warehouse.replenishment.ExtremelyLongReplenishmentCoordinatorName$InnerWorker';

function dto(result: AnalysisResult, prefix: string): PatternDto[] {
  return result.patterns.map((p) => ({
    rank: p.rank,
    score: p.score,
    id: p.id,
    kind: p.kind,
    category: p.category,
    failed: p.failed,
    passed: p.passed,
    key: prefix + p.key,
    accesses: p.accesses.map((a) => ({ thread: a.thread, type: a.type, variable: a.variable, file: a.file, line: a.line, method: a.method })),
  })) as PatternDto[];
}

before(async () => {
  const dir = writeStackTraces(vectorTraces());
  const analyzer = new Analyzer();
  for (const f of (await findTraceFiles([dir])).files) await analyzer.addTrace(f);
  const vec = analyzer.rank();
  // --hb none: the thesis' pattern set, in which the stock bug has more than five patterns (the folding test needs them)
  const two = await analyzeTraceFiles([path.resolve(__dirname, '../fixtures/traces/twobugs')], { happensBefore: false });
  const real: { bug: Bug; prefix: string }[] = [
    // the Vector example's 7 failing runs: no pattern has evidence, so its bugs (strong and weak) come from the merge step
    ...explainBugs(analyzer, vec, { clustering: 'merge' }).map((bug) => ({ bug, prefix: 'v:' })),
    ...explainBugs(undefined, two).map((bug) => ({ bug, prefix: 't:' })),
  ];
  const strong = real.filter((x) => !x.bug.evidence.weak);
  const weak = real.filter((x) => x.bug.evidence.weak);
  // 40 bugs: the real strong ones, clones with long names, then the real weak ones (the engine's order)
  const bugs: unknown[] = [];
  const add = (b: Bug, prefix: string, rename?: number) => {
    const id = bugs.length + 1;
    const methods = b.suspiciousMethods.map((m) => (rename === undefined ? m : { ...m, method: `${LONG}${rename}.${m.method.split('.').pop()}VeryLongMethodName`, file: `src/main/java/${LONG.replace(/\./g, '/')}${rename}.java` }));
    bugs.push({ ...b, id, suspiciousMethods: methods, patternKeys: b.patternKeys.map((k) => prefix + k) });
  };
  for (const x of strong) add(x.bug, x.prefix);
  for (let k = 0; bugs.length < 40 - weak.length; k++) add(strong[k % strong.length].bug, strong[k % strong.length].prefix, k);
  for (const x of weak) add(x.bug, x.prefix);
  fx = { ...makeFixture(), bugs, patterns: [...dto(vec, 'v:'), ...dto(two, 't:')] };
  H = await startHarness();
});
after(async () => {
  await H?.close();
});

async function open(): Promise<Page> {
  const page = await H.open('griffin', { fixture: fx, viewport: { width: 1000, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.waitForSelector('.card');
  (page as unknown as { __errors: string[] }).__errors = errors;
  return page;
}

type Box = { x: number; y: number; w: number; h: number; what: string };
const intersects = (a: Box, b: Box) => a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;

describe('Bugs view, 40 bugs at 1,000 px', () => {
  test('one card per bug, short names, evidence; weak evidence last, collapsed, under its heading', async () => {
    const page = await open();
    await page.screenshot({ path: path.join(OUT, 'griffin-many-1000-folded.png') });
    assert.equal(await page.locator('.card').count(), 40);
    const weakCount = fx.bugs.filter((b) => (b as Bug).evidence.weak).length;
    assert.ok(weakCount >= 1);
    assert.equal(await page.textContent('#summary'), `${40 - weakCount} bugs + ${weakCount} with weak evidence`);
    const c1 = page.locator('.card[data-bug="1"]');
    // the card leads with the headline (what each thread did, code spans as <code>); the methods and the evidence follow,
    // the p-value and the score only in the evidence's tooltip
    const b1 = fx.bugs[0] as Bug;
    assert.equal(await c1.locator('.headline').textContent(), b1.advice.headline.replace(/`/g, ''));
    assert.equal(await c1.locator('.headline code').count(), (b1.advice.headline.split('`').length - 1) / 2);
    assert.equal(await c1.locator('.methods-line').textContent(), 'Vector constructor ⇄ Vector.addAll');
    assert.equal(await c1.locator('.evidence').textContent(), '3 of 7 failing runs (43%)');
    assert.match((await c1.locator('.evidence').getAttribute('title')) ?? '', /p-value of its best pattern: 0\.077; score of its best pattern: \d\.\d{3}/);
    assert.doesNotMatch((await c1.locator('header').textContent()) ?? '', /p = |score|P\d+ [RW]+/, 'no statistics or pattern codes in the first line');
    assert.deepEqual(await c1.locator('.methods button.loc').allTextContents(), ['Vector constructor', 'Vector.addAll']);
    // the two-bug program: Stock.reserve and Ledger.post
    const heads = await page.locator('.card .methods-line').allTextContents();
    assert.ok(heads.includes('Stock.reserve ⇄ Stock.reserve') && heads.includes('Ledger.post ⇄ Ledger.post'), heads.slice(0, 6).join(' | '));
    // weak evidence: after the heading, collapsed, tagged
    const order = await page.$$eval('#cards > *', (els) => els.map((e) => (e.classList.contains('group-head') ? 'HEAD' : (e as HTMLElement).dataset.bug!)));
    const at = order.indexOf('HEAD');
    assert.equal(at, 40 - weakCount, 'the heading comes after the strong bugs');
    for (const id of order.slice(at + 1)) {
      const c = page.locator(`.card[data-bug="${id}"]`);
      assert.equal(await c.locator('.tag.weak').count(), 1);
      assert.equal(await c.locator('.card-body').count(), 0, `weak bug ${id} starts collapsed`);
    }
    await page.locator('.group-head').scrollIntoViewIfNeeded();
    await page.evaluate('window.scrollBy(0, -120)');
    await page.screenshot({ path: path.join(OUT, 'griffin-many-1000-weak.png') });
    const firstWeak = order[at + 1];
    await page.click(`.card[data-bug="${firstWeak}"] .twisty`);
    await page.waitForSelector(`.card[data-bug="${firstWeak}"] .card-body`);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __state: unknown }).__state), { collapsed: [], expanded: [Number(firstWeak)] });
    assert.deepEqual((page as unknown as { __errors: string[] }).__errors, []);
    await page.close();
  });

  test('fix advice and interleaving are folded; patterns beyond five are folded', async () => {
    const page = await open();
    const c1 = page.locator('.card[data-bug="1"]');
    assert.match((await c1.locator('.advice').textContent()) ?? '', /^Multi-variable atomicity violation on Vector\.size and Vector\.data/);
    const fix = c1.locator('details.fix');
    assert.equal(await fix.getAttribute('open'), null, 'advice starts folded');
    assert.equal(await fix.locator('summary').textContent(), 'How to fix it (4 suggestions, advice only)');
    assert.equal(await fix.locator('.steps li').first().isVisible(), false);
    await fix.locator('summary').click();
    assert.equal(await fix.locator('.steps li').first().isVisible(), true);
    assert.match((await fix.locator('.steps li').first().textContent()) ?? '', /^Make Vector constructor \(Vector\.java:\d+–\d+\) atomic with respect to Vector\.addAll/);
    const inter = c1.locator('details.fold:has(> summary:text-is("Interleaving"))');
    assert.equal(await inter.locator('.interleaving').isVisible(), false);
    await inter.locator('summary').click();
    assert.match((await inter.locator('.interleaving').textContent()) ?? '', /^T1 R Vector\.size @ Vector\.java:\d+ \(Vector\.size\) → T2 W/);
    // the two-bug program's stock bug has more than five patterns: five shown, the rest folded
    const stock = page.locator('.card:has(.methods-line:text-is("Stock.reserve ⇄ Stock.reserve"))').first();
    const n = fx.bugs.find((b) => (b as Bug).suspiciousMethods[0].method.endsWith('Stock.reserve')) as Bug;
    assert.ok(n.patterns.length > 5);
    assert.equal(await stock.locator('section[data-section="patterns"] > ol.patterns > li').count(), 5);
    assert.equal(await stock.locator('section[data-section="patterns"] details li').count(), n.patterns.length - 5);
    // failing runs: twelve shown, the rest folded
    const runs = stock.locator('section[data-section="failing runs"]');
    assert.equal(await runs.locator('.run-chip:visible').count(), 12);
    assert.equal(await runs.locator('details summary').textContent(), `${n.failingRuns.length - 12} more`);
    await runs.locator('details summary').click();
    assert.equal(await runs.locator('.run-chip:visible').count(), n.failingRuns.length);
    await page.close();
  });

  test('nothing overlaps or overflows at 1,000 px (every card open, every fold open); screenshot', async () => {
    const page = await open();
    await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    // plain JS (a string): the test transpiler's helpers do not exist in the page
    const boxes = (await page.evaluate(`Array.from(document.querySelectorAll('.card')).map(function (card) {
      function box(e, what) { var r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, what: what }; }
      var header = Array.from(card.querySelectorAll(':scope > header > *')).filter(function (e) { return e.offsetParent !== null; })
        .map(function (e, k) { return box(e, 'header child ' + k + ' (' + (e.className || e.tagName) + ')'); });
      var sections = Array.from(card.querySelectorAll(':scope > .card-body > section')).map(function (e) { return box(e, 'section ' + e.dataset.section); });
      var rows = Array.from(card.querySelectorAll('.patterns > li')).map(function (li) { return Array.from(li.children).map(function (e, k) { return box(e, 'pattern cell ' + k); }); });
      return { id: card.dataset.bug, header: header, sections: sections, rows: rows, overflow: card.scrollWidth - card.clientWidth, right: card.getBoundingClientRect().right };
    })`)) as { id: string; header: Box[]; sections: Box[]; rows: Box[][]; overflow: number; right: number }[];
    for (const c of boxes) {
      assert.ok(c.overflow <= 1, `bug ${c.id}: card content is ${c.overflow}px wider than the card`);
      assert.ok(c.right <= 1000, `bug ${c.id}: card ends at ${c.right}px`);
      for (const group of [c.header, c.sections, ...c.rows])
        for (let i = 0; i < group.length; i++)
          for (let j = i + 1; j < group.length; j++) assert.ok(!intersects(group[i], group[j]), `bug ${c.id}: ${group[i].what} overlaps ${group[j].what}`);
    }
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 1000, 'no horizontal scrolling');
    await page.screenshot({ path: path.join(OUT, 'griffin-many-1000.png'), fullPage: false });
    await page.close();
  });
});
