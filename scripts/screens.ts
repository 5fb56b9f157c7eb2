/**
 * Screenshots of the views issue 30 changed, in the light and the dark theme, to look at (not a test:
 * it asserts nothing; `npm test` does not run it). Needs `npm run build` (dist/braid.js, the agent jar),
 * code-server (../shared/tools/install-code-server.sh) and Chromium.
 *
 *   node --import tsx scripts/screens.ts [light|dark ...]
 *
 * The workspace: the vectorcopy sample with its committed recording (test/fixtures/e2e/vectorcopy, no
 * recording.json) and a second one recorded here by `braid record` (with recording.json), so the Runs
 * view groups runs by recording. The theme is the workspace setting `workbench.colorTheme`, rewritten
 * between the passes. Writes test-output/screens/<theme>-NN-<view>.png: the side bar (Runs groups and
 * their context menu, Ranked Patterns and Bugs at the default width, Explanations and Method Ranking),
 * the hover on a bug line, the Tracer with a pattern sent (then a second one: one banner), the
 * Explanations and Method Ranking webviews, the Ranked Patterns and Bugs panels.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession } from '../test/e2e/codeServerSession';
import type { Workbench } from '../test/e2e/workbench';
import * as lib from './e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'screens');
const SAMPLE = 'vectorcopy.VectorCopy';
const THEMES = { light: 'Default Light Modern', dark: 'Default Dark Modern' } as const;
type Theme = keyof typeof THEMES;

const log = (m: string) => console.log(`screens: ${m}`);

async function main(): Promise<void> {
  const themes = (process.argv.slice(2).filter((a) => a in THEMES) as Theme[]).length ? (process.argv.slice(2) as Theme[]) : (['light', 'dark'] as Theme[]);
  const found = lib.findCodeServer({ install: false });
  if (!found.bin) throw new Error(found.reason);
  mkdirSync(OUT, { recursive: true });
  for (const f of readdirSync(OUT)) if (f.endsWith('.png')) rmSync(path.join(OUT, f));
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-screens-'));
  let session: CodeServerSession | undefined;
  try {
    const installed = await installBraid(found.bin, tmp, path.join(tmp, 'braid.vsix'));
    const ws = lib.prepareWorkspace({
      dir: path.join(tmp, 'vectorcopy-sample'),
      sample: SAMPLE,
      copyTraces: path.join(lib.root, 'test', 'fixtures', 'e2e', 'vectorcopy'),
      recordSettings: { 'workbench.colorTheme': THEMES[themes[0]] },
    });
    log(`workspace ${ws.dir}: ${ws.runs} committed runs; recording a second one`);
    const rec = spawnSync(
      process.execPath,
      [path.join(lib.root, 'dist', 'braid.js'), 'record', '--runs', '8', '--noise', '0.2', '--jobs', '2', '--seed', '7', '--include', 'vectorcopy', '--out', `.braid/traces/${SAMPLE}-20261127-081500`, '--name', `${SAMPLE}-20261127-081500`, '--', ...lib.sampleCommand(SAMPLE)],
      { cwd: ws.dir, encoding: 'utf8', timeout: 5 * 60_000 },
    );
    log((rec.stdout + rec.stderr).trim().split('\n').slice(-2).join(' | '));
    session = await openCodeServer({ bin: found.bin, tmp, out: OUT, folder: ws.dir, installed });
    const { page, wb } = session;
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
    await page.locator('.activitybar a.action-label[aria-label="Braid"]').click();
    await wb.waitStatus(/Braid: 32 runs \(\d+ failed\)/, 120_000);
    await page.mouse.move(700, 895);
    for (const [k, theme] of themes.entries()) {
      if (k > 0) {
        const settings = path.join(ws.dir, '.vscode', 'settings.json');
        writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), 'workbench.colorTheme': THEMES[theme] }, null, 2));
      }
      await page.locator(`.monaco-workbench.${theme === 'light' ? 'vs' : 'vs-dark'}`).waitFor({ state: 'attached', timeout: 30_000 });
      await shots(page, wb, theme);
    }
  } finally {
    await closeCodeServer(session, tmp, OUT);
  }
  log(`screenshots in ${path.relative(lib.root, OUT)}/`);
}

async function shots(page: Page, wb: Workbench, theme: Theme): Promise<void> {
  let n = 0;
  const shot = async (name: string, clip?: Locator) => {
    const file = path.join(OUT, `${theme}-${String(++n).padStart(2, '0')}-${name}.png`);
    const box = clip ? await clip.boundingBox() : null;
    await page.screenshot({ path: file, ...(box ? { clip: box } : {}) });
    log(file);
  };
  const sidebar = page.locator('.part.sidebar');
  const editor = page.locator('.part.editor');
  const header = (title: string) => wb.pane(title).locator('.pane-header');
  const expanded = async (title: string, open: boolean) => {
    const h = header(title);
    if (((await h.getAttribute('aria-expanded')) === 'true') !== open) await h.click();
  };
  await page.keyboard.press('Escape');
  await expanded('Explanations', false);
  await expanded('Method Ranking', false);
  await expanded('Runs', true);
  await expanded('Ranked Patterns', true);
  await expanded('Bugs', true);
  await wb.rows('Ranked Patterns').first().waitFor({ state: 'visible' });
  // Runs: the groups, the first one open
  const group = wb.rows('Runs').first();
  if ((await group.getAttribute('aria-expanded')) === 'false') await group.click();
  await page.waitForTimeout(500);
  await shot('sidebar', sidebar);
  // a run's context menu: Exclude Run, Delete Recording
  const run = wb.rows('Runs').filter({ hasText: /#\d+ [✓✗]/ }).first();
  await run.click({ button: 'right' });
  await page.locator('.context-view .monaco-menu').waitFor({ state: 'visible' });
  await page.waitForTimeout(600);
  await shot('runs-context-menu');
  // Exclude Run: the run moves under "Excluded runs" (Include Run there)
  await page.locator('.context-view .monaco-menu .action-label').filter({ hasText: 'Exclude Run' }).first().click();
  const excluded = wb.rows('Runs').filter({ hasText: /^Excluded runs/ }).first();
  await excluded.waitFor({ state: 'attached', timeout: 30_000 }).catch(() => undefined);
  await wb.rows('Runs').first().click();
  await page.keyboard.press('End');
  if ((await excluded.getAttribute('aria-expanded').catch(() => null)) === 'false') await excluded.click();
  await page.waitForTimeout(800);
  await shot('runs-excluded', sidebar);
  await page.keyboard.press('Home');
  // Ranked Patterns: the first pattern open (sentence, legend, accesses)
  const top = wb.rows('Ranked Patterns').first();
  if ((await top.getAttribute('aria-expanded')) !== 'true') await top.locator('.monaco-tl-twistie').click();
  await page.waitForTimeout(500);
  await expanded('Runs', false);
  await page.waitForTimeout(300);
  await shot('ranked-patterns-bugs', sidebar);
  // a tree tooltip (the pattern's words first)
  await top.hover();
  await page.locator('.monaco-hover, .workbench-hover').first().waitFor({ state: 'visible', timeout: 8000 }).catch(() => undefined);
  await shot('pattern-tooltip');
  // Bugs: the first bug open
  await expanded('Ranked Patterns', false);
  const bug = wb.rows('Bugs').first();
  if ((await bug.getAttribute('aria-expanded')) !== 'true') await bug.click();
  await page.waitForTimeout(500);
  await shot('bugs', sidebar);
  // Explanations and Method Ranking trees
  await expanded('Bugs', false);
  await expanded('Explanations', true);
  await expanded('Method Ranking', true);
  await wb.rows('Explanations').first().waitFor({ state: 'visible', timeout: 60_000 }).catch(() => undefined);
  await wb.rows('Method Ranking').first().waitFor({ state: 'visible', timeout: 60_000 }).catch(() => undefined);
  await page.waitForTimeout(500);
  await shot('explanations-methods', sidebar);
  await expanded('Explanations', false);
  await expanded('Method Ranking', false);
  await expanded('Ranked Patterns', true);
  await expanded('Bugs', true);
  // the hover on the first bug line (VectorCopy.java:33, test/fixtures/e2e/README.md): Show Hover at the cursor
  await wb.openFile('VectorCopy.java');
  await page.keyboard.press('Control+G');
  await page.keyboard.type('33');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(800);
  await page.keyboard.press('Home');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+I');
  await page.locator('.monaco-hover:not(.hidden)').filter({ hasText: /Braid/ }).first().waitFor({ state: 'visible' }).catch(() => undefined);
  await page.waitForTimeout(500);
  await shot('hover');
  await page.keyboard.press('Escape');
  // the Tracer with rank 1 sent (pattern context menu: Open Tracer), then rank 2 sent: one banner
  await expanded('Bugs', false);
  await page.mouse.move(700, 895);
  for (const rank of [1, 2]) {
    const row = wb.rows('Ranked Patterns').filter({ hasText: new RegExp(`^#${rank} `) }).first();
    // Open Tracer is the row's inline action
    await row.hover();
    const item = row.locator('.actions .action-label[aria-label*="Tracer"]').first();
    await item.waitFor({ state: 'visible', timeout: 5000 }).catch(async (e) => {
      await shot(`FAILED-context-menu-${rank}`);
      throw e;
    });
    await item.click();
    const tracer = await wb.webview('Braid: Tracer');
    await tracer.locator('.pattern-bar:not([hidden])').first().waitFor({ state: 'visible' }).catch(() => undefined);
    await page.waitForTimeout(1500);
    await shot(`tracer-pattern-${rank}`);
  }
  for (const [command, title, ready] of [
    ['Braid: Open Explanations Panel', 'Braid: Explanations', '.card'],
    ['Braid: Compare Method Ranking with GRIFFIN', 'Braid: Method Ranking vs GRIFFIN', 'table, .card, li'],
    ['Braid: Open Ranked Patterns Panel', 'Braid: Ranked Patterns', '.item'],
    ['Braid: Open Bugs Panel', 'Braid: Bugs', '.card'],
  ] as const) {
    await wb.runCommand(command);
    const f = await wb.webview(title).catch(() => undefined);
    await f
      ?.locator(ready)
      .first()
      .waitFor({ state: 'visible' })
      .catch(() => undefined);
    await page.waitForTimeout(500);
    await shot(title.replace(/^Braid: /, '').replace(/\W+/g, '-').toLowerCase(), editor);
  }
  // the Explanations panel at about 700 px wide (its rows wrap)
  await page.setViewportSize({ width: 1000, height: 900 });
  await wb.runCommand('Braid: Open Explanations Panel');
  const narrow = await wb.webview('Braid: Explanations').catch(() => undefined);
  await narrow
    ?.locator('.card .access')
    .first()
    .waitFor({ state: 'visible' })
    .catch(() => undefined);
  await page.waitForTimeout(1000);
  await shot('explanations-narrow', editor);
  await page.setViewportSize({ width: 1440, height: 900 });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
