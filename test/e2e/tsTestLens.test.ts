/**
 * End to end in a real VS Code (code-server), issue 32: a TypeScript project with a flaky node:test
 * test (test/fixtures/e2e/ts-flaky: a lost update of Inventory.reserved across an `await`). The
 * user opens the test file, clicks "Braid: find the root cause" above the test; Braid records runs
 * of just that test with the Node.js recorder (`node --import tsx --test --test-name-pattern=…`,
 * tsx from the repository's node_modules, linked into the copy) and the first ranked pattern's
 * access is on a `// @bug` line of src/inventory.ts. Then issue 42's acceptance in the editor: Confirm by
 * Forcing on the read-then-write pattern says "confirmed" (the Node.js recorder forces it); a wrong fix
 * (`reserved` read again after the price's `await`, another `await` still before the write) is never
 * "fixed" by Check the Fix (run from the Runs view's bug row of the code before the change); the right
 * fix (read and write in one turn of the event loop) is "fixed" (Check the Fix from the palette). Screenshots in
 * test-output/e2e-ts-test-lens/.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { notificationMessage, userSteps, Workbench, START_TIMEOUT } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-ts-test-lens');
const FIXTURE = path.join(lib.root, 'test', 'fixtures', 'e2e', 'ts-flaky');
const RUNS = 30;
const TEST_NAME = 'Inventory › two concurrent orders are both reserved';
/** the 1-based `// @bug` lines of src/inventory.ts */
const BUG_LINES = readFileSync(path.join(FIXTURE, 'src', 'inventory.ts'), 'utf8')
  .split('\n')
  .flatMap((l, i) => (l.includes('// @bug') ? [i + 1] : []));
/** reserve()'s read, await and write as the fixture has them (the lost update across the `await`) */
const BUGGY = `    const before = this.reserved; // @bug lost-reservation
    const price = await this.prices.priceOf(sku);
    this.reserved = before + count; // @bug lost-reservation
`;
/** the wrong fix: `reserved` read again after the price's await, but another await still before the write (as fixes/wrong.ts of test/fixtures/node/balancemap) */
const WRONG_FIX = `    const price = await this.prices.priceOf(sku);
    // the "fix": read what is reserved after the price lookup — but the stock check still awaits before the write
    const before = this.reserved;
    await this.prices.priceOf(sku);
    this.reserved = before + count;
`;
/** the right fix: read and write in one turn of the event loop (no await between them) */
const RIGHT_FIX = `    const price = await this.prices.priceOf(sku);
    // the fix: read and write what is reserved with no await between them
    const before = this.reserved;
    this.reserved = before + count;
`;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = !found.bin ? `code-server is not available: ${found.reason}` : false;
if (skip) console.log(`# e2e (TS test lens) skipped: ${skip}`);

describe('end to end in VS Code: flaky TypeScript node:test test → one click → root cause on the .ts line → confirmed → a wrong fix not fixed, the right fix fixed', { skip, timeout: 25 * 60_000 }, () => {
  let tmp = '';
  let ws = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  const log = (m: string) => console.log(`# e2e (TS test lens): ${m}`);
  const step = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    for (const f of readdirSync(OUT)) if (f.endsWith('.png') || f.endsWith('.log') || f === 'vscode-logs') rmSync(path.join(OUT, f), { recursive: true, force: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-ts-lens-'));
    const installed = await installBraid(found.bin!, tmp, path.join(tmp, 'braid.vsix'));
    // the project as a user has it after `npm install`: sources, package.json, node_modules (tsx) — here the repository's
    ws = path.join(tmp, 'ts-flaky');
    cpSync(FIXTURE, ws, { recursive: true });
    symlinkSync(path.join(lib.root, 'node_modules'), path.join(ws, 'node_modules'), 'dir');
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'braid.record.runs': RUNS, 'braid.record.jobs': 2, 'braid.record.noise': 0.5, 'braid.confirm.runs': 20 }, null, 2) + '\n');
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws, installed });
    log(`code-server at ${session.server.url}`);
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  const lens = () => page.locator('.codelens-decoration a').filter({ hasText: 'Braid: find the root cause' });

  step('trust the workspace, open the TypeScript test file: "Braid: find the root cause" above the describe block and each test', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    // the extension activates on TypeScript (onLanguage:typescript): no click on the Braid view first
    await wb.openFile('inventory.test.ts');
    await lens().first().waitFor({ state: 'visible', timeout: START_TIMEOUT });
    assert.equal(await wb.settledCount(lens(), 3), 3, 'describe + two tests');
  });

  let result = { runs: 0, failed: 0 };
  step('click the lens above the flaky test: recorded with the Node.js recorder, some runs failed', async () => {
    for (let attempt = 1; attempt <= 3 && result.failed === 0; attempt++) {
      if (attempt > 1) await wb.runCommand('Notifications: Clear All Notifications');
      // the first test's lens (the first lens is the describe block's)
      await lens().nth(1).click();
      const progress = page.locator('.notification-toast').filter({ hasText: `Braid: recording ${TEST_NAME}` });
      await progress.waitFor({ state: 'visible' });
      if (attempt === 1) {
        await progress.filter({ hasText: new RegExp(`\\d+/${RUNS} runs`) }).waitFor({ state: 'visible', timeout: 120_000 });
        await wb.extraScreenshot('recording-the-test');
      }
      const done = page.locator('.notification-toast').filter({ hasText: new RegExp(`recorded ${RUNS} runs of ${TEST_NAME} — \\d+ failed`) });
      await done.waitFor({ state: 'visible', timeout: 240_000 });
      const m = /— (\d+) failed, (\d+) passed/.exec(await done.innerText())!;
      result = { runs: result.runs + RUNS, failed: result.failed + Number(m[1]) };
      log(`attempt ${attempt}: ${m[0]}`);
    }
    assert.ok(result.failed > 0, `some of the ${result.runs} runs of the test failed`);
    await wb.waitStatus(new RegExp(`Braid: ${result.runs} runs \\(${result.failed} failed\\)`), 90_000);
  }, 9 * 60_000);

  step('the root cause: the first ranked pattern is on Inventory.reserved, its first access on a // @bug line of inventory.ts', async () => {
    const top = wb.rows('Ranked Patterns').first();
    await top.waitFor({ state: 'visible' });
    const label = (await top.getAttribute('aria-label')) ?? '';
    assert.match(label, /^#1 (Inventory\.)?reserved\b/, `the first ranked pattern is rank 1 on Inventory.reserved: "${label}"`);
    // a click on the pattern opens its code (issue 43); the twistie shows its accesses
    // the access rows: `1. async Inventory.reserve #11 read …` (a task's name has spaces)
    const access = wb.rows('Ranked Patterns').filter({ hasText: /^1\. .*inventory\.ts:\d+/ }).first();
    await wb.expandToChild('Ranked Patterns', top, access);
    const accessLabel = (await access.getAttribute('aria-label')) ?? '';
    const m = /inventory\.ts:(\d+)/.exec(accessLabel);
    assert.ok(m, `the access row names inventory.ts:line: "${accessLabel}"`);
    const line = Number(m[1]);
    assert.ok(BUG_LINES.includes(line), `the first access of rank 1 (inventory.ts:${line}) is a // @bug line (${BUG_LINES.join(', ')})`);
    const ed = await wb.clickRowUntilEditorAt('Ranked Patterns', access, 'inventory.ts', line, 'after clicking the access');
    assert.match(ed.breadcrumbs, /src.*inventory\.ts/);
    // the runs are named after the test file, like a Java test's after its class
    const runs = (await wb.rows('Runs').evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label') ?? ''))).filter(Boolean);
    log(`runs: ${runs.slice(0, 4).join(' | ')}`);
    // two recordings (a second attempt when the first had no failing run) are grouped under their recording rows
    const runRows = runs.filter((r) => !/^inventory · \d\d:\d\d:\d\d /.test(r));
    assert.ok(runRows.length > 0, runs.join(' | '));
    for (const r of runRows) assert.match(r, /^inventory #\d+ (✓|✗ \S)/, `short run label: "${r}"`);
    await wb.extraScreenshot('root-cause-on-the-ts-line');
  });

  step('Record Runs offers the last command: node --import tsx --test with the test\'s name pattern', async () => {
    await wb.runCommand('Braid: Record Runs');
    const widget = page.locator('.quick-input-widget').filter({ hasText: 'Braid: Record Runs' });
    const input = widget.locator('.quick-input-box input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await input.inputValue(), 'node --import tsx --test "--test-name-pattern=^two concurrent orders are both reserved$" src/inventory.test.ts');
    await page.keyboard.press('Escape');
  });

  step('right-click the read-then-write pattern on reserved → Confirm by Forcing: the modal shows the node command; "confirmed"; the ✔ badge', async () => {
    await wb.runCommand('Notifications: Clear All Notifications');
    if (!(await wb.pane('Ranked Patterns').isVisible())) await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    const rows = wb.rows('Ranked Patterns');
    await rows.first().waitFor({ state: 'visible' });
    // the lost update's order: one reservation reads `reserved`, the other writes it (R1 W2), as in the
    // Java confirm e2e: a symmetric W1 W2 ranked first would rightly "confirm the window" only
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const k = labels.findIndex((l) => /^#\d+ (Inventory\.)?reserved\b.*\bP\d+ R1 W2\b/.test(l));
    assert.ok(k >= 0, `a read-then-write pattern on reserved is listed: ${labels.join(' | ')}`);
    await rows.nth(k).click({ button: 'right' });
    const item = page.getByRole('menuitem', { name: 'Confirm by Forcing' });
    await item.waitFor({ state: 'visible' });
    await item.hover();
    await page.keyboard.press('Enter');
    const modal = await wb.answerModal('Run');
    assert.match(modal, /node --import tsx --test .*inventory\.test\.ts/, `the modal names the command: ${modal}`);
    const note = page.locator('.notification-toast').filter({ hasText: /Braid( could not confirm the pattern:|: (confirmed|refuted|not forced|confirms the window) —)/ });
    await note.waitFor({ state: 'visible', timeout: 300_000 });
    const text = notificationMessage(await note.innerText());
    log(text);
    await wb.extraScreenshot('confirm-verdict');
    assert.match(text, /^Braid: confirmed — forcing P\d+ R1 → W2 made the failure happen in \d+ of (10|20) runs/); // 10: confirmed at the first look (half the runs)
    // the views read the patterns again after the server's status notification: wait for the row to show it
    const label = await wb.waitRowLabel('Ranked Patterns', /✔ confirmed/, 60_000);
    assert.match(label, /✔ confirmed.*\bP\d+ R1 W2\b/, `the read-then-write row carries the badge: ${label}`);
  }, 8 * 60_000);

  /**
   * Saves `fix` over reserve()'s lines and runs Check the Fix `from` the Runs view's bug row of the code
   * before the change (`Bug 1 · lost update — Check the Fix`) or the command palette (which checks that
   * bug's lead pattern after an edit); answers the modal; returns the verdict's notification text.
   */
  const checkTheFix = async (fix: string, shot: string, from: 'runs view' | 'palette'): Promise<string> => {
    const file = path.join(ws, 'src', 'inventory.ts');
    const source = readFileSync(file, 'utf8');
    const start = source.includes(BUGGY) ? BUGGY : source.includes(WRONG_FIX) ? WRONG_FIX : '';
    assert.ok(start, 'reserve() is the fixture\'s or the wrong fix');
    writeFileSync(file, source.replace(start, fix));
    await wb.runCommand('Notifications: Clear All Notifications');
    if (!(await wb.pane('Runs').isVisible())) await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    // the saved edit makes the recording "the code before the change": its bug is listed under it, to check
    const row = wb.rows('Runs').filter({ hasText: /^Bug \d+ .*— (Check the Fix|(not )?fixed · failed)/ }).first();
    await row.waitFor({ state: 'visible', timeout: 90_000 });
    log(`Runs view before the check: ${(await row.innerText()).replace(/\s+/g, ' ')}`);
    if (from === 'palette') await wb.runCommand('Braid: Check the Fix');
    else {
      // the Runs view may redraw the row once more after the edit (a click on the row being replaced is
      // lost): click again while no dialog has come and no check is under way
      const dialog = page.locator('.monaco-dialog-box');
      const checking = page.locator('.notification-toast').filter({ hasText: 'Braid: checking the fix' });
      for (let attempt = 1; attempt <= 3; attempt++) {
        await row.click();
        if (await dialog.waitFor({ state: 'visible', timeout: 20_000 }).then(() => true, () => false)) break;
        if (await checking.isVisible()) break;
        log(`no Check the Fix dialog 20 s after click ${attempt} on the bug row`);
      }
    }
    const modal = await wb.answerModal('Run');
    assert.match(modal, /node --import tsx --test .*inventory\.test\.ts/, `the modal names the command: ${modal}`);
    const note = page.locator('.notification-toast').filter({ hasText: /Braid( could not check the fix:|: (fixed|not fixed) —)/ });
    await note.waitFor({ state: 'visible', timeout: 300_000 });
    const text = notificationMessage(await note.innerText());
    log(text);
    await wb.extraScreenshot(shot);
    return text;
  };

  step('the wrong fix (reserved read again after the await, another await before the write), Check the Fix from the Runs view: never "fixed"', async () => {
    const text = await checkTheFix(WRONG_FIX, 'wrong-fix-verdict', 'runs view');
    assert.doesNotMatch(text, /^Braid: fixed\b/, `the wrong fix is never fixed: ${text}`);
    // "could not check" only with its reason and what to do
    if (/could not check/.test(text)) assert.match(text, /^Braid could not check the fix: .+\. What to do: .+/, text);
    else assert.match(text, /^Braid: not fixed — .+/, text);
    // the verdict is kept on the bug's row (fix-checks.json): "not fixed · failed k/30 before, n/20 after"
    if (!/could not check/.test(text)) await wb.rows('Runs').filter({ hasText: /^Bug \d+ .*— not fixed · failed \d+\/\d+ before, \d+\/\d+ after/ }).first().waitFor({ state: 'visible', timeout: 60_000 });
  }, 8 * 60_000);

  step('the right fix (read and write in one turn), Braid: Check the Fix from the palette: "fixed"; the bug row reads fixed with 0 failed after', async () => {
    const text = await checkTheFix(RIGHT_FIX, 'right-fix-verdict', 'palette');
    assert.match(text, /^Braid: fixed — /, text);
    const row = wb.rows('Runs').filter({ hasText: /^Bug \d+ .*— fixed · failed \d+\/\d+ before, 0\/\d+ after/ }).first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    log(`Runs view: ${(await row.innerText()).replace(/\s+/g, ' ')}`);
  }, 8 * 60_000);
});
