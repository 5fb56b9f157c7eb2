/**
 * Issue 43, point 1, in a real VS Code (code-server, see docs/e2e.md): old and new code are never
 * analyzed together. The vectorcopy sample with its 24 committed runs, stamped with the code they
 * ran (`sources.json`, as the editor writes it when it records). An unsaved edit of the bug line
 * takes its heat away; saved, the recording is one of the code before the change — out of the
 * analysis (no run, no bug, no heat), listed apart in the Runs view; a new recording of the changed
 * code is analyzed alone (its own count, not 24 more). Between the two, the empty Ranked Patterns and
 * Bugs views say that the recordings are of the code before the edit, and their link selects the
 * Before the change row. Screenshots in test-output/e2e-code-versions/.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { bugTags } from '../recorder/recorderHarness';
import { userSteps, Workbench } from './workbench';
import { codeStampText, stampOf } from '../../server/src/lsp/codeStamp';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-code-versions');
const SAMPLE = { main: 'vectorcopy.VectorCopy', pkg: 'vectorcopy', file: 'VectorCopy.java' };
const RECORDED = path.join(lib.root, 'test', 'fixtures', 'e2e', 'vectorcopy');
const RECORD_RUNS = 6;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = found.bin ? false : `code-server is not available: ${found.reason}`;
if (skip) console.log(`# e2e skipped: ${skip}`);

/** True when the editor shows a heat mark (media/heat-N-*.svg) in the gutter of the line at height y. */
async function heatAt(editor: Locator, y: number): Promise<boolean> {
  return editor.evaluate((root, yy) => {
    for (const el of Array.from(root.querySelectorAll<HTMLElement>('.glyph-margin-widgets *, .margin-view-overlays *'))) {
      const r = el.getBoundingClientRect();
      if (getComputedStyle(el).backgroundImage.includes('heat-') && r.top <= yy && r.bottom >= yy) return true;
    }
    return false;
  }, y);
}

/** Every heat mark in the editor's gutter. */
async function heatMarks(editor: Locator): Promise<number> {
  return editor.evaluate((root) => Array.from(root.querySelectorAll<HTMLElement>('.glyph-margin-widgets *, .margin-view-overlays *')).filter((el) => getComputedStyle(el).backgroundImage.includes('heat-')).length);
}

describe('old and new code are never analyzed together (code-server)', { skip, timeout: 20 * 60_000 }, () => {
  let tmp = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  let recorded: { runs: number; failed: number };
  const log = (m: string) => console.log(`# e2e-code-versions: ${m}`);
  const bugLine = bugTags(SAMPLE.pkg).find((t) => t.file.endsWith(SAMPLE.file))!.line;
  const step = userSteps(() => wb);
  const editor = () => page.locator('.editor-group-container.active .monaco-editor').first();
  const bugLenses = () => editor().locator('.codelens-decoration a').filter({ hasText: /^Braid: Bug \d/ }).count();
  const lineY = async (line: number) => {
    const num = editor().locator('.margin-view-overlays .line-numbers').filter({ hasText: new RegExp(`^${line}$`) }).first();
    await num.waitFor({ state: 'visible' });
    const b = (await num.boundingBox())!;
    return b.y + b.height / 2;
  };

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-versions-'));
    const installed = await installBraid(found.bin!, tmp, path.join(OUT, 'braid.vsix'));
    const ws = lib.prepareWorkspace({ dir: path.join(tmp, 'vectorcopy-sample'), sample: SAMPLE.main, copyTraces: RECORDED, recordSettings: { 'braid.record.runs': RECORD_RUNS, 'braid.record.jobs': 2 }, log });
    // the committed runs ran this code: stamped as the editor stamps its recordings
    writeFileSync(path.join(ws.dir, '.braid', 'traces', 'recorded', 'sources.json'), codeStampText(await stampOf(ws.dir)));
    recorded = { runs: ws.runs, failed: ws.failed };
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws.dir, installed });
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  step('trust the workspace, open the Braid view and the bug line: it has heat', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    await wb.waitStatus(new RegExp(`Braid: ${recorded.runs} runs \\(${recorded.failed} failed\\)`), 60_000);
    await wb.openFile(SAMPLE.file);
    await wb.runCommand('Go to Line/Column...');
    await page.keyboard.type(String(bugLine));
    await page.keyboard.press('Enter');
    await wb.waitEditorAt(SAMPLE.file, bugLine, 'after Go to Line');
    // the line's height measured at each look: code lenses that arrive later move the line down
    await expectSoon(async () => heatAt(editor(), await lineY(bugLine)), true, `heat on the bug line ${bugLine} before any edit`);
    await expectSoon(async () => (await bugLenses()) > 0, true, 'a "Braid: Bug 1" lens above the bug\'s method before any edit');
  });

  step('an unsaved edit of the bug line: its heat goes (no highlight describing the old race on a changed line)', async () => {
    await page.keyboard.press('End');
    await page.keyboard.type(' // changed');
    await expectSoon(async () => heatAt(editor(), await lineY(bugLine)), false, `no heat on the edited line ${bugLine}`);
  });

  step('saved: the recording is one of the code before the change — not analyzed, listed apart, no heat left', async () => {
    await page.keyboard.press('Control+S');
    await wb.waitStatus(/Braid: no runs/, 60_000);
    const older = wb.rows('Runs').filter({ hasText: /^Before the change · / }).first();
    await older.waitFor({ state: 'visible' });
    const label = (await older.getAttribute('aria-label')) ?? (await older.innerText());
    assert.match(label, new RegExp(`${recorded.failed}/${recorded.runs} failed · changed ${SAMPLE.file}`), `the Runs row: ${label}`);
    await expectSoon(() => heatMarks(editor()), 0, 'no heat mark left in the changed file');
    // the server has no bug left to name: its lenses go too (a previous session saw them stay in code-server)
    await expectSoon(() => bugLenses(), 0, 'no "Braid: Bug" lens left in the changed file');
    const bugs = await wb.visibleRowTexts('Bugs').catch(() => []);
    assert.ok(!bugs.some((b) => /^Bug \d/.test(b.label)), `no bug of the old code: ${bugs.map((b) => b.label).join(' | ')}`);
    await wb.extraScreenshot('runs-before-the-change');
  });

  step('the empty Ranked Patterns and Bugs views say the recordings are of the code before the edit; their link selects the Before the change row', async () => {
    const welcome = (pane: string, text: RegExp) => wb.pane(pane).locator('.welcome-view-content').filter({ hasText: text }).first();
    const patterns = welcome('Ranked Patterns', /The recordings are of the code before your edit/);
    await patterns.waitFor({ state: 'visible', timeout: 60_000 });
    const bugs = welcome('Bugs', /No bug of the current code yet: the recordings are of the code before your edit/);
    await bugs.waitFor({ state: 'visible', timeout: 60_000 });
    // not the texts of a workspace without recordings or without failing runs
    assert.doesNotMatch(await patterns.innerText(), /once traces are analyzed/);
    assert.doesNotMatch(await bugs.innerText(), /None failed yet/);
    const status = await wb.waitStatus(/Braid: no runs since your edit/);
    log(`status: ${status}; Ranked Patterns: ${(await patterns.innerText()).replace(/\s+/g, ' ')}`);
    await wb.extraScreenshot('empty-views-after-the-edit');
    await patterns.getByRole('button', { name: 'Show the Recordings Before the Change' }).click();
    const older = wb.rows('Runs').filter({ hasText: /^Before the change · / }).first();
    await expectSoon(() => older.getAttribute('aria-selected'), 'true', 'the Before the change row is selected');
    // expanded: the bug of the code before the change, with Check the Fix
    await wb.rows('Runs').filter({ hasText: /^Bug \d+ .*— Check the Fix/ }).first().waitFor({ state: 'visible', timeout: 60_000 });
  });

  step('Record Runs of the changed code: analyzed alone, never merged with the old recording', async () => {
    await wb.runCommand('Braid: Record Runs');
    await wb.answerInput('Braid: Record Runs', lib.sampleCommand(SAMPLE.main).join(' '));
    const done = page.locator('.notification-toast').filter({ hasText: new RegExp(`Braid: recorded ${RECORD_RUNS} runs — \\d+ failed, \\d+ passed`) });
    await done.waitFor({ state: 'visible', timeout: 10 * 60_000 });
    const m = /recorded \d+ runs — (\d+) failed/.exec(await done.innerText())!;
    // the status counts this recording alone: 6 runs, not 24 + 6
    await wb.waitStatus(new RegExp(`Braid: ${RECORD_RUNS} runs \\(${m[1]} failed\\)|Braid: no runs`), 5 * 60_000);
    const status = (await wb.statusBar()).join(' | ');
    assert.doesNotMatch(status, new RegExp(`Braid: ${recorded.runs + RECORD_RUNS} runs`), `never merged: ${status}`);
    await wb.rows('Runs').filter({ hasText: /^Before the change · / }).first().waitFor({ state: 'visible' });
  });
});

/** Polls `read` until it returns `want` (90 s hang guard: a final CI with a second code-server running beside it saw the heat after 30 s). */
async function expectSoon<T>(read: () => Promise<T>, want: T, what: string): Promise<void> {
  const end = Date.now() + 90_000;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await read();
    if (last === want) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(last, want, what);
}
