/**
 * Issue 11 in a real VS Code (code-server, see docs/e2e.md): the `unsafelist` sample, whose race is
 * inside java.util.ArrayList (recorded with `--include unsafelist --include java.util.ArrayList`).
 * The user's call line (the `// @bug` line of UnsafeList.java) has heat, a hover naming the
 * ArrayList line it calls, and a code lens; clicking the first ranked pattern's access lands on it.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from './codeServerSession';
import { bugTags } from '../recorder/recorderHarness';
import { userSteps, Workbench } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-library');
const SAMPLE = { main: 'unsafelist.UnsafeList', pkg: 'unsafelist', file: 'UnsafeList.java' };
const RUNS = 24;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = found.bin ? false : `code-server is not available: ${found.reason}`;
if (skip) console.log(`# e2e skipped: ${skip}`);

describe('a race inside ArrayList, shown at the user\'s call line (code-server)', { skip, timeout: 10 * 60_000 }, () => {
  let tmp = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  let recorded: { runs: number; failed: number };
  const log = (m: string) => console.log(`# e2e-library: ${m}`);
  const bugLine = bugTags(SAMPLE.pkg).find((t) => t.file.endsWith(SAMPLE.file))!.line;

  const step = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-lib-'));
    const installed = await installBraid(found.bin!, tmp, path.join(OUT, 'braid.vsix'));
    const ws = lib.prepareWorkspace({ dir: path.join(tmp, 'unsafelist-sample'), sample: SAMPLE.main, runs: RUNS, jobs: 4, include: ['unsafelist', 'java.util.ArrayList'], log });
    recorded = { runs: ws.runs, failed: ws.failed };
    log(`recorded ${ws.runs} runs (${ws.failed} failed)`);
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws.dir, installed });
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  step('trust the workspace and open the Braid view', async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    await wb.waitStatus(new RegExp(`Braid: ${recorded.runs} runs \\(${recorded.failed} failed\\)`), 60_000);
  });

  step("click the first ranked pattern's access: the editor lands on the user's call line", async () => {
    const top = wb.rows('Ranked Patterns').first();
    await top.waitFor({ state: 'visible' });
    // a click on the pattern opens its code (issue 43); the twistie shows its accesses
    const access = wb.rows('Ranked Patterns').filter({ hasText: /^1\. \S+ [RW] / }).first();
    await wb.expandToChild('Ranked Patterns', top, access);
    const label = (await access.getAttribute('aria-label')) ?? '';
    // an ArrayList-internal access (ArrayList.java:N, called from …) or the recorded call (ArrayList.add at …)
    assert.match(label, /ArrayList\.java:\d+.*, called from .*UnsafeList\.java:\d+|ArrayList\.\w+ at .*UnsafeList\.java:\d+/s, `the access names the library and the user's line: "${label}"`);
    await wb.clickRowUntilEditorAt('Ranked Patterns', access, SAMPLE.file, bugLine, 'after clicking the access');
  });

  step('the call line has heat, a hover naming the ArrayList line, and a code lens', async () => {
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    // code lens: one of the lenses above the line (or its method) is Braid's; wait for it before measuring the
    // line's position (a lens that appears later pushes the line down, and the hover would land on the line above)
    const lens = editor.locator('.codelens-decoration').filter({ hasText: /Braid: (rank 1|Bug \d)/ }).first();
    await lens.waitFor({ state: 'visible' });
    const num = editor.locator('.margin-view-overlays .line-numbers').filter({ hasText: new RegExp(`^${bugLine}$`) }).first();
    const nb = await num.boundingBox();
    assert.ok(nb, `line number ${bugLine} is visible`);
    const y = nb.y + nb.height / 2;
    // heat: a gutter icon (media/heat-N-*.svg) at the line's height
    const heat = await editor.evaluate((root, yy) => {
      for (const el of Array.from(root.querySelectorAll<HTMLElement>('.glyph-margin-widgets *, .margin-view-overlays *'))) {
        const bg = getComputedStyle(el).backgroundImage;
        const r = el.getBoundingClientRect();
        if (bg.includes('heat-') && r.top <= yy && r.bottom >= yy) return true;
      }
      return false;
    }, y);
    assert.ok(heat, `no heat mark in the gutter of line ${bugLine}`);
    // hover on the line's text
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
    assert.ok(point, `no text on line ${bugLine}`);
    const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /rank \d+ of \d+ · score/ }).first();
    let shown = false;
    for (let attempt = 0; attempt < 3 && !shown; attempt++) {
      await page.mouse.move(point.x - 30, point.y + 60);
      await page.mouse.move(point.x + attempt * 6, point.y, { steps: 4 });
      shown = await hover.waitFor({ state: 'visible', timeout: 8000 }).then(
        () => true,
        () => false,
      );
    }
    if (!shown) await hover.waitFor({ state: 'visible' });
    const text = (await hover.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /rank 1 of \d+ · score/, `hover: ${text}`);
    assert.match(text, /ArrayList\.java:\d+, called from|ArrayList\.\w+ at/, `the hover names the ArrayList code: ${text}`);
  });
});
