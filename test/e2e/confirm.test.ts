/**
 * End to end in a real VS Code (code-server), issue 28: from suspicion to proof. A flaky JUnit 5
 * test (test/fixtures/junit5-sample) is recorded through the test lens, then the user right-clicks
 * the first ranked pattern → Confirm by Forcing (the modal shows the command from recording.json),
 * sees "confirmed" in a notification, the ✔ badge in Ranked Patterns and the verdict line in the
 * hover; Reproduce opens the forced failing run in the Tracer; after fixing Account.deposit
 * (synchronized) Check the Fix rebuilds and says "fixed". Then issue 43's acceptance: the Runs view
 * shows the bug as fixed with its rates before and after; the Testing view's Braid profile runs the
 * fixed test (✓, recorded alone); the current code's analysis has no failure, no bug, and no heat mark
 * or bug lens on Account.java. Screenshots in test-output/e2e-confirm/.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { notificationMessage, userSteps, Workbench, START_TIMEOUT } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-confirm');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const RUNS = 30;
const TEST_NAME = 'AccountTest.concurrentDepositsAreAllKept';

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = !found.bin ? `code-server is not available: ${found.reason}` : !existsSync(LAUNCHER) ? `the JUnit console launcher is missing (apt-get install -y junit5): ${LAUNCHER}` : false;
if (skip) console.log(`# e2e (confirm) skipped: ${skip}`);

describe('end to end in VS Code: confirm the root cause by forcing it, reproduce it, check the fix, run the fixed test', { skip, timeout: 25 * 60_000 }, () => {
  let tmp = '';
  let ws = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  const log = (m: string) => console.log(`# e2e (confirm): ${m}`);
  const step = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    for (const f of readdirSync(OUT)) if (f.endsWith('.png') || f.endsWith('.log') || f === 'vscode-logs') rmSync(path.join(OUT, f), { recursive: true, force: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-confirm-'));
    const installed = await installBraid(found.bin!, tmp, path.join(tmp, 'braid.vsix'));
    ws = path.join(tmp, 'junit5-sample');
    cpSync(path.join(lib.root, 'test', 'fixtures', 'junit5-sample'), ws, { recursive: true });
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    writeFileSync(
      path.join(ws, '.vscode', 'settings.json'),
      JSON.stringify({ 'braid.record.runs': RUNS, 'braid.record.jobs': 2, 'braid.record.noise': 0.2, 'braid.confirm.runs': 20 }, null, 2) + '\n',
    );
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws, installed });
    log(`code-server at ${session.server.url}`);
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  const open = (file: string) => wb.openFile(file);

  step('record the flaky test through its lens', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await open('AccountTest.java');
    const lens = page.locator('.codelens-decoration a').filter({ hasText: 'Braid: find the root cause' });
    await lens.nth(1).waitFor({ state: 'visible', timeout: START_TIMEOUT });
    await lens.nth(1).click();
    const done = page.locator('.notification-toast').filter({ hasText: new RegExp(`recorded ${RUNS} runs of ${TEST_NAME.replace('.', '\\.')} — \\d+ failed`) });
    await done.waitFor({ state: 'visible', timeout: 300_000 });
    const failed = Number(/— (\d+) failed/.exec(await done.innerText())![1]);
    assert.ok(failed > 0, 'some runs failed');
    await wb.waitStatus(new RegExp(`Braid: ${RUNS} runs \\(${failed} failed\\)`), 90_000);
    await wb.runCommand('Notifications: Clear All Notifications');
    assert.ok(existsSync(path.join(ws, '.braid', 'traces')), 'traces recorded');
  }, 7 * 60_000);

  step('right-click the first ranked read-then-write pattern → Confirm by Forcing: the modal shows the command; "confirmed"; the ✔ badge', async () => {
    // open the Braid view unless it is open (a click on an open view's icon closes the side bar)
    const icon = page.locator('.activitybar a.action-label[aria-label="Braid"]');
    if (!(await wb.pane('Ranked Patterns').isVisible())) await icon.click();
    const rows = wb.rows('Ranked Patterns');
    await rows.first().waitFor({ state: 'visible' });
    // the lost update's order: one clerk reads the balance, the other writes it (R1 W2 …). Not merely the
    // first row: a recording may rank the symmetric W1 W2 on the balance first, and forcing a symmetric
    // pattern rightly "confirms the window", not the pattern (issue 40; a fresh-clone CI run ranked it so)
    let labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    let k = labels.findIndex((l) => /\bP\d+ R1 W2\b/.test(l));
    if (k < 0) {
      // by chance it may score below braid.views.minScore: a lost update whose reading clerk last wrote the
      // balance itself records W1 W2 W1, so R1 W2 is in only some failing runs (a fresh-clone CI recording:
      // R1 W2 in 5 of 18, W1 W2 W1 in 6) — folded under "n weaker patterns", where the user finds it too
      const weaker = rows.filter({ hasText: /weaker patterns?/ }).first();
      if (await weaker.isVisible()) {
        await weaker.click();
        await page.waitForTimeout(500);
        labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        k = labels.findIndex((l) => /\bP\d+ R1 W2\b/.test(l));
      }
    }
    assert.ok(k >= 0, `a read-then-write pattern is listed: ${labels.join(' | ')}`);
    const top = rows.nth(k);
    await top.click({ button: 'right' });
    const item = page.getByRole('menuitem', { name: 'Confirm by Forcing' });
    await item.waitFor({ state: 'visible' });
    await wb.extraScreenshot('context-menu');
    await item.hover();
    await page.keyboard.press('Enter');
    const modal = await wb.answerModal('Run');
    assert.match(modal, /junit-platform-console-standalone/, `the modal names the command: ${modal}`);
    const note = page.locator('.notification-toast').filter({ hasText: /Braid: (confirmed|refuted|not forced) —/ });
    await note.waitFor({ state: 'visible', timeout: 240_000 });
    const text = (await note.innerText()).replace(/\s+/g, ' ');
    log(text);
    assert.match(text, /Braid: confirmed — forcing P\d+ [RW]1( → [RW][12])+ made the failure happen in \d+ of (10|20) runs/); // 10: confirmed at the first look (half the runs)
    await wb.extraScreenshot('confirmed-notification');
    // the views read the patterns again after the server's status notification: wait for the row to show it
    const label = await wb.waitRowLabel('Ranked Patterns', /✔ confirmed/, 60_000);
    assert.match(label, /✔ confirmed.*\bP\d+ R1 W2\b/, `the read-then-write row carries the badge: ${label}`);
    await wb.extraScreenshot('ranked-patterns-confirmed');
  }, 5 * 60_000);

  step('Reproduce (from the notification) opens the forced failing run in the Tracer', async () => {
    const note = page.locator('.notification-toast').filter({ hasText: /Braid: confirmed/ });
    await note.getByRole('button', { name: 'Reproduce' }).click();
    const frame = await wb.webview('Braid: Tracer');
    // the forced run: its failure (the assertion), the pattern's accesses highlighted (under its rank: the
    // confirmed read-then-write pattern need not be the first row)
    await frame.locator('#failureBar').filter({ hasText: /Failed: .*every deposit kept/ }).waitFor({ state: 'visible', timeout: 60_000 });
    await frame.locator('.pattern-bar, #patternBar').filter({ hasText: /#\d+ Thread .*P\d+ / }).first().waitFor({ state: 'visible' });
    await wb.extraScreenshot('reproduce-tracer');
  });

  step('the hover on the pattern’s line says confirmed, in words', async () => {
    await open('Account.java');
    const lines = readFileSync(path.join(ws, 'src/main/java/bank/Account.java'), 'utf8').split('\n');
    const bugLine = lines.findIndex((l) => l.includes('balance = updated')) + 1;
    // Go to Line through its input, waited for (keys typed before the input opened were lost under load once)
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${bugLine}`);
    await input.press('Enter');
    await wb.waitEditorAt('Account.java', bugLine, 'Go to Line');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /Braid · confirmed:/ }).first();
    await hover.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await hover.innerText()).replace(/\s+/g, ' '), /Braid · confirmed: forcing [RW]1( → [RW][12])+ fails \d+\/(10|20)/);
    await wb.extraScreenshot('hover-confirmed');
    await page.keyboard.press('Escape');
  });

  step('fix Account.deposit (synchronized), Check the Fix: rebuilt, forced again, "fixed"', async () => {
    const file = path.join(ws, 'src/main/java/bank/Account.java');
    writeFileSync(file, readFileSync(file, 'utf8').replace('public void deposit(int amount) {', 'public synchronized void deposit(int amount) {'));
    // the editor has seen the edit: the palette's Check the Fix then takes the first bug of the code before it
    await wb.waitStatus(/Braid: no runs since your edit/);
    await wb.runCommand('Notifications: Clear All Notifications');
    await wb.runCommand('Braid: Check the Fix');
    const modal = await wb.answerModal('Run');
    assert.match(modal, /First: .*javac/, `the modal names the rebuild: ${modal}`);
    const note = page.locator('.notification-toast').filter({ hasText: /Braid: (fixed|not fixed) —/ });
    await note.waitFor({ state: 'visible', timeout: 300_000 });
    const text = notificationMessage(await note.innerText());
    log(text);
    assert.match(text, /^Braid: fixed — /);
    // the verdict's button (not after "could not check")
    await note.locator('.monaco-button').filter({ hasText: 'Show in Runs' }).waitFor({ state: 'visible' });
    await wb.extraScreenshot('check-the-fix');
  }, 6 * 60_000);

  // issue 43's acceptance: after the fix, the bug shows as fixed with its rates, the Testing profile's
  // recording of the fixed code is analyzed alone: no bug, no heat on the fixed lines
  step('the Runs view shows the bug as fixed, with its failure rates before and after', async () => {
    await wb.runCommand('Notifications: Clear All Notifications');
    if (!(await wb.pane('Runs').isVisible())) await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    const row = wb.rows('Runs').filter({ hasText: /^Bug \d+ .*— fixed · failed \d+\/\d+ before, \d+\/\d+ after/ }).first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    // the row's own text (its aria-label is the tooltip: the bug's headline)
    const label = (await row.innerText()).replace(/\s+/g, ' ');
    log(`Runs view: ${label}`);
    const m = /failed (\d+)\/(\d+) before, (\d+)\/(\d+) after/.exec(label)!;
    assert.ok(Number(m[1]) > 0 && Number(m[2]) === RUNS, `the rate before is the recording's: ${label}`);
    assert.equal(Number(m[3]), 0, `no run failed after the fix: ${label}`);
    await wb.extraScreenshot('runs-bug-fixed');
  });

  step('run the fixed test with the Testing view\'s Braid profile: passed, recorded alone', async () => {
    const sidebar = page.locator('.part.sidebar');
    const explorerRow = (text: string | RegExp) => sidebar.locator('.monaco-list-row').filter({ hasText: text });
    await wb.runCommand('Testing: Focus on Test Explorer View');
    const cls = explorerRow('AccountTest').first();
    await cls.waitFor({ state: 'visible', timeout: 60_000 });
    if ((await cls.getAttribute('aria-expanded')) !== 'true') await cls.locator('.monaco-tl-twistie').click();
    const test = TEST_NAME.split('.')[1];
    const row = explorerRow(test).first();
    await row.waitFor({ state: 'visible' });
    await row.hover();
    await row.locator('.action-label[aria-label^="Run Test"]').click();
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: /Run with Braid records the test/ });
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByRole('button', { name: 'Record' }).click();
    const done = explorerRow(new RegExp(`${test}\\s*✓ ${RUNS}/${RUNS}`)).first();
    await done.waitFor({ state: 'visible', timeout: 6 * 60_000 });
    await page.locator('.part.sidebar .action-label[aria-label^="Cancel Test Run"]').waitFor({ state: 'detached', timeout: 6 * 60_000 });
    log(`Test Explorer: ${(await done.innerText()).replace(/\s+/g, ' ')}`);
    await wb.extraScreenshot('testing-view-fixed');
  }, 8 * 60_000);

  step('the analysis of the current code: its runs alone, no bug, no heat or bug lens on the fixed lines', async () => {
    // the fixed code's recording alone: none of its runs failed (the buggy recording is "before the change")
    const status = await wb.waitStatus(/Braid: \d+ runs \(0 failed\)/, 120_000);
    log(`status: ${status}`);
    await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    // the recordings of the code before the change are listed after the current code's runs (30 here):
    // the list draws only the rows in view, so go to its end first — without it the check passed only
    // while the view had not yet listed the new runs (two fresh-clone CIs on a busy machine failed it)
    // (again until it shows: a refresh of the view while the runs come in redraws it from the top — a
    // fresh-clone CI at 31d9e574 waited 60 s on a list scrolled back to its first run)
    const before = wb.rows('Runs').filter({ hasText: /^Before the change · / }).first();
    for (let k = 0; ; k++) {
      await wb.pane('Runs').locator('.monaco-list').first().focus();
      await page.keyboard.press('End');
      const shown = await before.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
      if (shown) break;
      if (k === 11) await before.waitFor({ state: 'visible', timeout: 5_000 });
      log(`Runs view: "Before the change" not in view after End (try ${k + 1}); again`);
    }
    const bugs = await wb.visibleRowTexts('Bugs').catch(() => []);
    assert.ok(!bugs.some((b) => /^Bug \d/.test(b.label)), `no bug in the current code: ${bugs.map((b) => b.label).join(' | ')}`);
    await open('Account.java');
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    await editor.locator('.view-lines').first().waitFor({ state: 'visible' });
    const heat = () => editor.evaluate((root) => Array.from(root.querySelectorAll<HTMLElement>('.glyph-margin-widgets *, .margin-view-overlays *')).filter((el) => getComputedStyle(el).backgroundImage.includes('heat-')).length);
    const lenses = () => editor.locator('.codelens-decoration a').filter({ hasText: /^Braid: (Bug \d|rank \d)/ }).count();
    let seen = { heat: -1, lenses: -1 };
    for (const end = Date.now() + 30_000; Date.now() < end; await page.waitForTimeout(250)) {
      seen = { heat: await heat(), lenses: await lenses() };
      if (seen.heat === 0 && seen.lenses === 0) break;
    }
    assert.deepEqual(seen, { heat: 0, lenses: 0 }, 'no heat mark and no bug lens on the fixed Account.java');
    await wb.extraScreenshot('fixed-code-no-heat');
  });
});
