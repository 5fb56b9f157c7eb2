/**
 * End to end in a real VS Code (code-server), issue 29 point 5: the Testing view's "Run with Braid"
 * profile. A user opens the sample JUnit 5 project (no build tool; Debian's junit5 jars), opens the
 * Testing view and runs the flaky test with Braid's profile from the Test Explorer: Braid's controller
 * records the test N times with noise once, the test is marked failed with "✗ k/N · x %" beside
 * it, Test Results lists "flaky: failed k of N runs with noise", the assertion and the root cause; the
 * peek (opened from the failure's inline message: VS Code 1.100 does not open it by itself,
 * testing.automaticallyOpenPeekView defaults to never) names the root cause, and **Show the Root
 * Cause** reveals the pattern and opens its access in Account.java. **Test: Run Test at Cursor** then
 * records the test once too (VS Code names the test twice in that request). Screenshots in
 * test-output/e2e-testing-view/.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { userSteps, Workbench, START_TIMEOUT } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-testing-view');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const RUNS = 20;
const TEST = 'concurrentDepositsAreAllKept';
const ASSERTION = /AssertionFailedError: every deposit kept ==> expected: <100> but was: <\d+>/;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = !found.bin ? `code-server is not available: ${found.reason}` : !existsSync(LAUNCHER) ? `the JUnit console launcher is missing (apt-get install -y junit5): ${LAUNCHER}` : false;
if (skip) console.log(`# e2e (testing view) skipped: ${skip}`);

describe('end to end in VS Code: Testing view → Run with Braid → flaky, k of N, root cause', { skip, timeout: 10 * 60_000 }, () => {
  let tmp = '';
  let ws = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  const log = (m: string) => console.log(`# e2e (testing view): ${m}`);
  const step = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    for (const f of readdirSync(OUT)) if (f.endsWith('.png') || f.endsWith('.log') || f === 'vscode-logs') rmSync(path.join(OUT, f), { recursive: true, force: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-testing-'));
    const installed = await installBraid(found.bin!, tmp, path.join(tmp, 'braid.vsix'));
    ws = path.join(tmp, 'junit5-sample');
    cpSync(path.join(lib.root, 'test', 'fixtures', 'junit5-sample'), ws, { recursive: true });
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    // noise 0.3: the sample's lost deposit fails in about half the runs (a passing test would not show the flaky path)
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'braid.record.runs': RUNS, 'braid.record.jobs': 2, 'braid.record.noise': 0.3 }, null, 2) + '\n');
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws, installed });
    log(`code-server at ${session.server.url}`);
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  /** The recordings so far: one folder per recording under .braid/traces (AccountTest.concurrentDepositsAreAllKept-<time>). */
  const recordings = () => {
    const dir = path.join(ws, '.braid', 'traces');
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.includes(TEST) && statSync(path.join(dir, f)).isDirectory()) : [];
  };
  /** The Braid output channel's "Testing view: recording …" lines (the extension host's log, live). */
  const recordingLines = () => {
    const logs = path.join(tmp, 'data', 'logs');
    if (!existsSync(logs)) return [];
    const lines: string[] = [];
    for (const session of readdirSync(logs)) {
      const f = path.join(logs, session, 'exthost1', 'braid-dev.braid', 'Braid.log');
      if (existsSync(f)) lines.push(...readFileSync(f, 'utf8').split('\n').filter((l) => l.includes('Testing view: recording')));
    }
    return lines;
  };

  const sidebar = () => page.locator('.part.sidebar');
  const explorerRow = (text: string | RegExp) => sidebar().locator('.monaco-list-row').filter({ hasText: text });
  const resultsPanel = () => page.locator('.part.panel');
  /** The Testing view's run is over: its "Cancel Test Run" button is gone. */
  const runEnded = async () => {
    await page.waitForTimeout(300);
    await page.locator('.part.sidebar .action-label[aria-label^="Cancel Test Run"]').waitFor({ state: 'detached', timeout: 6 * 60_000 });
  };

  step('trust the workspace and open the JUnit 5 test', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await wb.openFile('AccountTest.java');
    await page.locator('.codelens-decoration a').filter({ hasText: 'Braid: find the root cause' }).first().waitFor({ state: 'visible', timeout: START_TIMEOUT });
  });

  step('the Test Explorer lists the test class and its two tests (Braid\'s controller, the only one: no root row)', async () => {
    await wb.runCommand('Testing: Focus on Test Explorer View');
    const cls = explorerRow('AccountTest').first();
    await cls.waitFor({ state: 'visible', timeout: 60_000 });
    if ((await cls.getAttribute('aria-expanded')) !== 'true') await cls.locator('.monaco-tl-twistie').click();
    await explorerRow(TEST).first().waitFor({ state: 'visible' });
    await explorerRow('singleDeposit').first().waitFor({ state: 'visible' });
    assert.equal(await explorerRow(/^Braid$/).count(), 0, 'no "Braid" root row');
    // the profile: the default of Braid's items (its label names the runs)
    assert.equal(recordings().length, 0, 'nothing recorded yet');
  });

  let failed = 0;
  step('run the test with Braid from the Test Explorer: recorded once (after the first-run warning), 20 runs, marked failed "✗ k/20"', async () => {
    const row = explorerRow(TEST).first();
    await row.hover();
    await row.locator('.action-label[aria-label^="Run Test"]').click();
    // the first ▷ says once that it starts a long recording (issue 43), and asks to go on
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: /Run with Braid records the test/ });
    await dialog.waitFor({ state: 'visible' });
    await wb.extraScreenshot('first-run-warning');
    await dialog.getByRole('button', { name: 'Record' }).click();
    // the result beside the test, short enough for the default width: ✗ k/20 · x %
    const done = explorerRow(new RegExp(`${TEST}\\s*✗ (\\d+)/${RUNS} · \\d+(\\.\\d)? %`)).first();
    await done.waitFor({ state: 'visible', timeout: 6 * 60_000 });
    await runEnded();
    failed = Number(new RegExp(`✗ (\\d+)/${RUNS}`).exec(await done.innerText())![1]);
    log(`failed ${failed} of ${RUNS}`);
    assert.ok(failed > 0 && failed <= RUNS);
    // marked failed: the row's state icon
    await done.locator('.codicon-testing-failed-icon').first().waitFor({ state: 'visible' });
    const folders = recordings();
    assert.equal(folders.length, 1, `exactly one recording: ${folders.join(', ')}`);
    const traces = readdirSync(path.join(ws, '.braid', 'traces', folders[0])).filter((f) => f.endsWith('.trace.jsonl'));
    assert.equal(traces.length, RUNS, `${RUNS} runs' traces in ${folders[0]}`);
    await wb.extraScreenshot('test-explorer-failed');
  }, 8 * 60_000);

  step('Test Results: the flaky message, the assertion, the root cause in the output', async () => {
    const panel = resultsPanel();
    await panel.locator('.monaco-list-row').filter({ hasText: `flaky: failed ${failed} of ${RUNS} runs with noise` }).first().waitFor({ state: 'visible', timeout: 60_000 });
    const assertion = panel.locator('.monaco-list-row').filter({ hasText: ASSERTION }).first();
    await assertion.waitFor({ state: 'visible' });
    // one flaky message only (the test recorded once in this run)
    assert.equal(await panel.locator('.monaco-list-row').filter({ hasText: /flaky: failed \d+ of/ }).count(), 1, 'one "flaky" message in Test Results');
    // the output: the summary, each failure, the root cause
    await panel.getByText(/Root cause: pattern #\d+/).first().waitFor({ state: 'visible' });
    await wb.extraScreenshot('test-results');
  });

  step('the peek (opened from the failure beside the test) names the root cause; Show the Root Cause reveals the pattern and its access', async () => {
    await wb.openFile('AccountTest.java');
    // the failure's badge at the end of the test's line (VS Code's test error widget)
    const inline = page.locator('.monaco-editor .test-error-content-widget').filter({ hasText: `flaky: failed ${failed} of ${RUNS} runs with noise` }).first();
    await inline.waitFor({ state: 'visible' });
    await inline.click();
    const peek = page.locator('.monaco-editor .test-output-peek');
    await peek.waitFor({ state: 'visible' });
    // the message: the flaky line, then the root cause in words (the Markdown splits it over several elements)
    const peekText = () => peek.first().innerText().then((t) => t.replace(/[\s\u00a0]+/g, ' '));
    const deadline = Date.now() + 30_000;
    const rootCause = new RegExp(`flaky: failed ${failed} of ${RUNS} runs with noise Root cause — pattern #\\d+(?: \\(Bug \\d+\\))?: Thread clerk-\\d \\w+ balance`);
    while (!rootCause.test(await peekText()) && Date.now() < deadline) await page.waitForTimeout(200);
    assert.match(await peekText(), rootCause);
    // the message wraps (no &nbsp; between its words)
    assert.doesNotMatch(await peek.locator('.rendered-markdown').first().innerHTML(), /&nbsp;/, 'the message wraps at the peek\'s width');
    // the message's link, and its button (testing/message/content), which the user clicks
    const link = peek.locator('a').filter({ hasText: 'Show the root cause' }).first();
    assert.match((await link.getAttribute('data-href')) ?? '', /^command:braid\.testing\.showRootCause\?/);
    const button = peek.locator('.floating-click-widget').filter({ hasText: 'Show the Root Cause' }).first();
    await button.waitFor({ state: 'visible' });
    await wb.extraScreenshot('peek');
    await button.click();
    await wb.waitEditorAt('Account.java', (l) => l === 8 || l === 10, 'after Show the Root Cause');
    const selected = wb.pane('Ranked Patterns').locator('.monaco-list-row.selected');
    await selected.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await selected.first().getAttribute('aria-label')) ?? '', /^#\d+ (Account\.)?balance\b/);
  });

  step('Test: Run Test at Cursor on the test\'s name records it once more (VS Code names it twice in the request)', async () => {
    await wb.openFile('AccountTest.java');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill(':11:12');
    await input.press('Enter');
    await wb.waitEditorAt('AccountTest.java', 11, 'Go to Line');
    await wb.runCommand('Test: Run Test at Cursor');
    await page.waitForTimeout(500);
    const deadline = Date.now() + 5 * 60_000;
    while (recordings().length < 2 && Date.now() < deadline) await page.waitForTimeout(200);
    await runEnded();
    await wb.runCommand('Testing: Focus on Test Explorer View');
    await explorerRow(new RegExp(`${TEST}\\s*✗ \\d+/${RUNS} · \\d+(\\.\\d)? %`)).first().waitFor({ state: 'visible' });
    assert.equal(recordings().length, 2, `one more recording: ${recordings().join(', ')}`);
    const lines = recordingLines();
    assert.equal(lines.length, 2, `two "Testing view: recording" lines in the Braid log:\n${lines.join('\n')}`);
  }, 8 * 60_000);

  for (const [theme, light] of [
    ['Light Modern', true],
    ['Dark Modern', false],
  ] as const) {
    step(`the Testing view's result in ${theme}`, async () => {
      await wb.colorTheme(theme, light);
      await wb.runCommand('Testing: Focus on Test Explorer View');
      await explorerRow(TEST).first().waitFor({ state: 'visible' });
      await resultsPanel().locator('.monaco-list-row').filter({ hasText: /flaky: failed \d+ of/ }).first().waitFor({ state: 'visible' });
    });
  }
});
