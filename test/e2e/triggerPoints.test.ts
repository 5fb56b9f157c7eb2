/**
 * Issue 17 item 4 in a real VS Code (code-server, see docs/e2e.md): a user finds the trigger points
 * of the `noiseplan` sample (two threads lose an increment when one is delayed between its read and
 * its write) with "Braid: Find Trigger Points", sees the write line marked and hovered, and
 * reproduces the failure with the plan: the Runs view names the plan of the new runs.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { userSteps, Workbench } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-trigger-points');
const SAMPLE = { main: 'noiseplan.LostIncrement', pkg: 'noiseplan', file: 'LostIncrement.java' };
const BUDGET = 80;
const RUNS = 6;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = found.bin ? false : `code-server is not available: ${found.reason}`;
if (skip) console.log(`# e2e skipped: ${skip}`);

describe('find trigger points and reproduce with the plan (code-server)', { skip, timeout: 15 * 60_000 }, () => {
  let tmp = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  let ws = '';
  let writeLine = 0;
  const log = (m: string) => console.log(`# e2e-trigger-points: ${m}`);
  const step = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-trigger-'));
    const installed = await installBraid(found.bin!, tmp, path.join(OUT, 'braid.vsix'));
    // no recorded runs: the search needs none (`all` candidates)
    const empty = path.join(tmp, 'no-traces');
    mkdirSync(empty);
    const w = lib.prepareWorkspace({
      dir: path.join(tmp, 'noiseplan-sample'),
      sample: SAMPLE.main,
      copyTraces: empty,
      recordSettings: { 'braid.pinpoint.budget': BUDGET, 'braid.pinpoint.candidates': 'all', 'braid.record.runs': RUNS, 'braid.record.jobs': 1 },
      log,
    });
    ws = w.dir;
    writeLine = readFileSync(path.join(ws, SAMPLE.pkg, SAMPLE.file), 'utf8').split('\n').findIndex((l) => l.includes('// @point write')) + 1;
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws, installed });
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  step('trust the workspace and open the Braid view', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    await wb.waitStatus(/Braid: no runs/, 60_000);
  });

  step('Find Trigger Points: progress, then the write line opens and Reproduce is offered', async () => {
    await wb.runCommand('Braid: Find Trigger Points');
    await wb.answerInput('Braid: Find Trigger Points', lib.sampleCommand(SAMPLE.main).join(' '));
    const progress = page.locator('.notification-toast').filter({ hasText: 'Braid: finding trigger points' });
    await progress.filter({ hasText: new RegExp(`\\d+/${BUDGET} runs`) }).waitFor({ state: 'visible', timeout: 120_000 });
    await wb.extraScreenshot('finding-trigger-points');
    const done = page.locator('.notification-toast').filter({ hasText: /Braid: \d+ trigger points? in \d+ runs/ });
    await done.waitFor({ state: 'visible', timeout: 300_000 });
    const text = (await done.innerText()).replace(/\s+/g, ' ');
    assert.match(text, new RegExp(`#1 ${SAMPLE.file}:${writeLine} fails \\d+% → \\d+%`), `the write is the first trigger point: ${text}`);
    await done.getByRole('button', { name: 'Reproduce' }).waitFor();
    await wb.waitEditorAt(SAMPLE.file, writeLine, 'after the search');
    assert.ok(existsSync(path.join(ws, '.braid', 'plans', `${SAMPLE.main}.json`)), 'the plan is written');
  }, 8 * 60_000);

  step('the write line: a target in the gutter, the failure rates after it, and the hover', async () => {
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    const num = editor.locator('.margin-view-overlays .line-numbers').filter({ hasText: new RegExp(`^${writeLine}$`) }).first();
    const nb = await num.boundingBox();
    assert.ok(nb, `line number ${writeLine} is visible`);
    const y = nb.y + nb.height / 2;
    const icon = await editor.evaluate((root, yy) => {
      for (const el of Array.from(root.querySelectorAll<HTMLElement>('.glyph-margin-widgets *, .margin-view-overlays *'))) {
        const r = el.getBoundingClientRect();
        if (getComputedStyle(el).backgroundImage.includes('trigger-point-') && r.top <= yy && r.bottom >= yy) return true;
      }
      return false;
    }, y);
    assert.ok(icon, `no trigger-point icon in the gutter of line ${writeLine}`);
    const hint = await editor.locator('.view-lines .view-line').evaluateAll((els, yy) => {
      for (const el of els) {
        const r = el.getBoundingClientRect();
        // the hint is an `after` decoration: CSS content of a span of the line
        if (Math.abs(r.top + r.height / 2 - yy) < r.height / 2) {
          return Array.from(el.querySelectorAll('*'))
            .map((x) => getComputedStyle(x, '::after').content)
            .filter((c) => c && c !== 'none' && c !== 'normal')
            .join(' ');
        }
      }
      return '';
    }, y);
    assert.match(hint, /◎ trigger #1 · fails \d+% → \d+%/, `the hint after the line: ${hint}`);
    const point = await editor.locator('.view-lines .view-line').evaluateAll((els, yy) => {
      for (const el of els) {
        const r = el.getBoundingClientRect();
        if (Math.abs(r.top + r.height / 2 - yy) < r.height / 2) {
          const tokens = Array.from(el.querySelectorAll('span span')).filter((s) => (s.textContent ?? '').trim());
          const t = (tokens[0] ?? el).getBoundingClientRect();
          return { x: t.left + Math.min(t.width / 2, 20), y: r.top + r.height / 2 };
        }
      }
      return null;
    }, y);
    assert.ok(point);
    const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /trigger point #1/ }).first();
    let shown = false;
    for (let attempt = 0; attempt < 3 && !shown; attempt++) {
      await page.mouse.move(point.x - 30, point.y + 60);
      await page.mouse.move(point.x + attempt * 6, point.y, { steps: 4 });
      shown = await hover.waitFor({ state: 'visible', timeout: 8000 }).then(
        () => true,
        () => false,
      );
    }
    if (!shown) {
      // under load monaco can drop every mouse hover: ask for the hover at the cursor, which the
      // search put on this line (Show Hover, Ctrl+K Ctrl+I), as workflow.test.ts does
      await page.keyboard.press('Home');
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      await hover.waitFor({ state: 'visible' });
    }
    const text = (await hover.innerText()).replace(/\s+/g, ' ');
    assert.match(text, new RegExp(`Braid · trigger point #1: noise here raises the failure rate from \\d+% to \\d+% \\(p = [^,]+, \\d+ runs\\) — plan ${SAMPLE.main.replace('.', '\\.')}\\.json`), `hover: ${text}`);
    await page.keyboard.press('Escape');
  });

  step('Reproduce with Plan: the plan\'s command, runs recorded with it, the Runs view names the plan', async () => {
    await wb.runCommand('Braid: Reproduce with Plan');
    const widget = page.locator('.quick-input-widget').filter({ hasText: 'Braid: Reproduce with Plan' });
    const input = widget.locator('.quick-input-box input');
    await input.waitFor({ state: 'visible' });
    // the box may show before the command's value is filled in: poll for it
    const expected = lib.sampleCommand(SAMPLE.main).join(' ');
    let value = await input.inputValue();
    for (const t0 = Date.now(); value !== expected && Date.now() - t0 < 15_000; value = await input.inputValue()) await page.waitForTimeout(100);
    assert.equal(value, expected);
    await input.press('Enter');
    // the command came from a file of the repository: a modal names the plan and shows the whole command (issue 31, N14)
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: new RegExp(`comes from the noise plan \\.braid/plans/${SAMPLE.main.replace('.', '\\.')}\\.json`) });
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(((await dialog.innerText()).replace(/\s+/g, ' ')).includes(expected), 'the dialog shows the whole command');
    await dialog.getByRole('button', { name: 'Run' }).click();
    const done = page.locator('.notification-toast').filter({ hasText: new RegExp(`recorded ${RUNS} runs with plan ${SAMPLE.main.replace('.', '\\.')} — \\d+ failed`) });
    await done.waitFor({ state: 'visible', timeout: 240_000 });
    log((await done.innerText()).replace(/\s+/g, ' '));
    await wb.waitStatus(new RegExp(`Braid: ${RUNS} runs`), 90_000);
    const rows = wb.rows('Runs');
    await rows.first().waitFor({ state: 'visible' });
    // the view may still be adding or refreshing rows when the first one shows: poll until all are there
    const planRe = new RegExp(`plan: ${SAMPLE.main.replace('.', '\\.')}`);
    const settled = (texts: string[]) => texts.length === RUNS && texts.every((t) => planRe.test(t.replace(/\s+/g, ' ')));
    let texts = await rows.allInnerTexts();
    for (const t0 = Date.now(); !settled(texts) && Date.now() - t0 < 30_000; texts = await rows.allInnerTexts()) await page.waitForTimeout(200);
    assert.equal(texts.length, RUNS, `rows: ${texts.join(' | ')}`);
    for (const t of texts) assert.match(t.replace(/\s+/g, ' '), planRe, `the run names its plan: ${t}`);
  }, 6 * 60_000);
});
