/**
 * Playwright helpers for driving the VS Code workbench (code-server 1.100) as a user would:
 * command palette, quick input, side-bar tree views, editor state (tab + "Ln X, Col Y"),
 * notifications, webviews (nested iframes), and a screenshot per step.
 */
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';

export const UI_TIMEOUT = 30_000;
/**
 * The first lens after a workspace is trusted: the extension activates on the file's language and
 * starts its language server, which then answers the code lens request. A fresh-clone CI at load 30
 * took 40 s from activation to the server's start (and tsTestLens waited 60 s in all), so the waits
 * for that first lens use this, not a UI timeout.
 */
export const START_TIMEOUT = 180_000;

/**
 * A Braid notification's own message, from its toast's text: the toast's text also holds the
 * source line and the action buttons, and with a button ("Show in Runs") they come first.
 */
export function notificationMessage(toast: string): string {
  const t = toast.replace(/\s+/g, ' ');
  const k = t.search(/Braid(:| could not)/);
  return k < 0 ? t : t.slice(k);
}

export class StepError extends Error {}

export class Workbench {
  private shot = 0;
  readonly screenshots: string[] = [];
  constructor(
    readonly page: Page,
    readonly outDir: string,
    /** extra context for failure messages (e.g. the tail of the code-server log) */
    private readonly context: () => string = () => '',
  ) {}

  /** Runs one user step; screenshots it (also on failure, whose message names the screenshot). */
  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const n = String(++this.shot).padStart(2, '0');
    this.extra = 0;
    const slug = name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
    try {
      const r = await fn();
      await this.screenshot(`${n}-${slug}.png`);
      return r;
    } catch (err) {
      const file = await this.screenshot(`${n}-${slug}-FAILED.png`).catch((e: Error) => `(no screenshot: ${e.message})`);
      const notes = await this.notifications().catch(() => [] as string[]);
      const status = await this.statusBar().catch(() => [] as string[]);
      throw new StepError(
        `step "${name}" failed: ${(err as Error).message}\n  screenshot: ${file}\n  status bar: ${status.join(' | ')}\n  notifications: ${notes.join(' | ') || '(none)'}${this.context() ? `\n${this.context()}` : ''}`,
        { cause: err },
      );
    }
  }

  /** A screenshot in the middle of the current step (numbered after it: 05a-…). */
  async extraScreenshot(name: string): Promise<string> {
    return this.screenshot(`${String(this.shot).padStart(2, '0')}${String.fromCharCode(96 + ++this.extra)}-${name}.png`);
  }
  private extra = 0;

  async screenshot(name: string): Promise<string> {
    const file = path.join(this.outDir, name);
    await this.page.screenshot({ path: file, timeout: 10_000 });
    this.screenshots.push(file);
    return file;
  }

  async statusBar(): Promise<string[]> {
    return (await this.page.locator('.statusbar-item').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  }

  async notifications(): Promise<string[]> {
    return (await this.page.locator('.notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }

  /** Waits for a status bar item whose text matches; returns its text. */
  async waitStatus(re: RegExp, timeout = UI_TIMEOUT): Promise<string> {
    const item = this.page.locator('.statusbar-item').filter({ hasText: re }).first();
    await item.waitFor({ state: 'visible', timeout }).catch(async () => {
      throw new Error(`no status bar item matches ${re} within ${timeout} ms (status bar: ${(await this.statusBar()).join(' | ')})`);
    });
    return (await item.innerText()).trim();
  }

  /**
   * Quick Open (Ctrl+P): opens the workspace file with this name and waits for its editor tab. When the
   * box closes again before the name is typed (seen on CI at 5b8195cf: shown, then "element is not
   * visible" for 30 s, after a webview had the focus), the focus goes back to the top document and
   * Ctrl+P is pressed again, within the usual UI timeout in all.
   */
  async openFile(file: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await this.openQuickInput(() => 'Control+P', (wait) => input.fill(file, { timeout: wait }));
    await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: file }).first().click();
    await this.page.locator('.tab.active').filter({ hasText: file }).waitFor();
  }

  /** Command palette: runs the command with this exact title (e.g. "Braid: Record Runs"). */
  async runCommand(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await this.openQuickInput((attempt) => (attempt % 2 === 0 ? 'F1' : 'Control+Shift+P'));
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: title }).first();
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT }).catch(() => {
      throw new Error(`the command palette has no command "${title}"`);
    });
    await row.click();
    await this.page.locator('.quick-input-widget').filter({ hasText: title }).waitFor({ state: 'hidden', timeout: UI_TIMEOUT }).catch(() => undefined);
    // the mouse stays where the palette row was, over the editor tabs: move it to the empty middle of
    // the status bar, so a tab's hover does not cover what the next step clicks
    const vp = this.page.viewportSize();
    if (vp) await this.page.mouse.move(vp.width / 2, vp.height - 4);
  }

  /**
   * F1 needs the keyboard focus in the workbench's own document: Escape closes a hover or an old quick pick
   * first. When the palette does not open (seen on CI: the focus was left inside a webview's iframe, or the key
   * arrived while the workbench was busy), the focus is moved back to the top document and F1 pressed again,
   * then Ctrl+Shift+P — within the usual UI timeout in all.
   */
  /**
   * Opens the quick input with `key(attempt)` (Quick Open, the command palette) and runs `then` on it,
   * retrying until UI_TIMEOUT: a key press can be swallowed by a webview or a widget holding the focus,
   * so a retry first blurs the focused element.
   */
  private async openQuickInput(key: (attempt: number) => string, then?: (wait: number) => Promise<void>): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    const deadline = Date.now() + UI_TIMEOUT;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        await this.page.evaluate(() => {
          const active = document.activeElement as HTMLElement | null;
          if (active && active !== document.body) active.blur();
        });
      }
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press(key(attempt));
      const wait = Math.max(1, Math.min(attempt === 0 ? 5_000 : 3_000, deadline - Date.now()));
      try {
        await input.waitFor({ state: 'visible', timeout: wait });
        await then?.(wait);
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
      }
    }
  }

  /** Answers an input box (showInputBox) whose title matches. */
  async answerInput(title: string, text: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget').filter({ hasText: title });
    await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT }).catch(() => {
      throw new Error(`no input box titled "${title}" appeared`);
    });
    const input = widget.locator('.quick-input-box input');
    await input.fill(text);
    await input.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  }

  /** Answers a modal dialog (the command Braid will run) with its button `name`; returns the dialog's text. */
  async answerModal(name: string): Promise<string> {
    const dialog = this.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible' });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    await dialog.getByRole('button', { name }).click();
    return text;
  }

  /** Preferences: Color Theme → `name` (e.g. "Light Modern", "Dark Modern"); waits until the workbench shows it. */
  async colorTheme(name: string, light: boolean): Promise<void> {
    await this.runCommand('Preferences: Color Theme');
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await input.fill(name);
    const row = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: name }).first();
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await row.click();
    await this.page.locator(`.monaco-workbench.${light ? 'vs' : 'vs-dark'}`).waitFor({ state: 'attached', timeout: UI_TIMEOUT });
  }

  /**
   * Tree rows' visible text: for each row, its label and how much of its description fits (the
   * description cut at the row's right edge, as the user sees it) — measured with a DOM Range.
   */
  async visibleRowTexts(paneTitle: string): Promise<{ label: string; labelWhole: boolean; visible: string }[]> {
    return this.rows(paneTitle).evaluateAll((rows) =>
      rows.map((row) => {
        const box = (row.querySelector('.monaco-icon-label-container') ?? row).getBoundingClientRect();
        const name = row.querySelector('.label-name');
        const desc = row.querySelector('.label-description');
        const nameRect = name?.getBoundingClientRect();
        let visible = name?.textContent ?? '';
        const text = desc?.firstChild;
        if (text && text.nodeType === 3) {
          const range = document.createRange();
          const s = text.textContent ?? '';
          let k = 0;
          for (; k < s.length; k++) {
            range.setStart(text, k);
            range.setEnd(text, k + 1);
            if (range.getBoundingClientRect().right > box.right + 0.5) break;
          }
          visible += ' ' + s.slice(0, k);
        }
        return { label: name?.textContent ?? '', labelWhole: !!nameRect && nameRect.right <= box.right + 0.5, visible };
      }),
    );
  }

  /** A view (pane) of the side bar by its title, e.g. "Ranked Patterns". */
  pane(title: string): Locator {
    return this.page.locator('.pane').filter({ has: this.page.locator(`.pane-header[aria-label^="${title}"]`) });
  }

  rows(paneTitle: string): Locator {
    return this.pane(paneTitle).locator('.monaco-list-row');
  }

  /**
   * Waits until a row of the view has an aria-label matching `re` — e.g. the "✔ confirmed" badge of
   * Confirm by Forcing, which the views show when they read the patterns again after the server's
   * status notification, a moment after the verdict's toast. Returns that label; when none matched
   * within `timeout`, the labels the rows had last, joined (so the caller's assert says what was listed).
   */
  async waitRowLabel(paneTitle: string, re: RegExp, timeout = UI_TIMEOUT): Promise<string> {
    const rows = this.rows(paneTitle);
    let labels: string[] = [];
    for (const end = Date.now() + timeout; ; await this.page.waitForTimeout(250)) {
      labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      const hit = labels.find((l) => re.test(l));
      if (hit !== undefined) return hit;
      if (Date.now() >= end) return labels.join(' | ');
    }
  }

  /**
   * How many elements `locator` matches once that count is `n` — the editor renders its code lenses
   * again when a provider changes (a language server's own analysis starting), so a count taken at the
   * instant between two renderings is 0. Returns the last count seen when it never reached `n` within
   * `timeout` (the caller's assert says what it was).
   */
  async settledCount(locator: Locator, n: number, timeout = 30_000): Promise<number> {
    let count = 0;
    for (const end = Date.now() + timeout; ; await this.page.waitForTimeout(250)) {
      if ((count = await locator.count()) === n || Date.now() >= end) return count;
    }
  }

  /**
   * Expands `row` (its twistie, unless it is expanded already) and brings `child` — one of the rows
   * under it — into view. The tree renders only the rows in its viewport: when the rows above the child
   * (a long sentence wraps over several) push it below the pane's edge, the focus is moved down with the
   * arrow key until the list scrolls it in. A tree refreshed between the twistie's click and the
   * children's rendering (the views read the patterns again on the server's status) is expanded again.
   * Fails with the labels the rows had last when the child never shows.
   */
  async expandToChild(paneTitle: string, row: Locator, child: Locator, timeout = UI_TIMEOUT): Promise<void> {
    const end = Date.now() + timeout;
    for (let presses = 0; ; ) {
      if ((await row.count()) > 0 && (await row.getAttribute('aria-expanded').catch(() => null)) === 'false') {
        await row.locator('.monaco-tl-twistie').click({ timeout: 10_000 }).catch(() => undefined);
      }
      if (await child.isVisible().catch(() => false)) return;
      if (Date.now() >= end) {
        const labels = await this.rows(paneTitle).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        throw new Error(`no row under "${(await row.getAttribute('aria-label').catch(() => null)) ?? '?'}" matched ${child} within ${timeout} ms; the rows: ${labels.join(' | ')}`);
      }
      // after a few checks, scroll: the arrow key moves the tree's focus down (the list keeps it in view)
      if (++presses > 2 && presses < 40) await this.pane(paneTitle).locator('.monaco-list').first().press('ArrowDown').catch(() => undefined);
      await this.page.waitForTimeout(250);
    }
  }

  /** The active editor: tab label, breadcrumbs path, cursor line and column. */
  async activeEditor(): Promise<{ tab: string; breadcrumbs: string; line: number; column: number; selection: string }> {
    const tab = this.page.locator('.editor-group-container.active .tab.active').first();
    const sel = (await this.page.locator('[id="status.editor.selection"]').innerText({ timeout: 2000 }).catch(() => '')).trim();
    const m = /Ln (\d+), Col (\d+)/.exec(sel);
    return {
      tab: ((await tab.getAttribute('aria-label', { timeout: 2000 }).catch(() => '')) ?? '').trim(),
      breadcrumbs: (await this.page.locator('.editor-group-container.active .breadcrumbs-control').first().innerText({ timeout: 2000 }).catch(() => '')).replace(/\s+/g, ' ').trim(),
      line: m ? Number(m[1]) : NaN,
      column: m ? Number(m[2]) : NaN,
      selection: sel,
    };
  }

  /** Waits until the active editor shows `file` (tab label) with the cursor on `line`. */
  async waitEditorAt(file: string, line: number | ((l: number) => boolean), what: string, timeout = UI_TIMEOUT): Promise<{ tab: string; breadcrumbs: string; line: number }> {
    const ok = typeof line === 'number' ? (l: number) => l === line : line;
    const deadline = Date.now() + timeout;
    let last = await this.activeEditor();
    while (Date.now() < deadline) {
      last = await this.activeEditor();
      // the breadcrumbs render a moment after the tab and the cursor: wait for them too
      if (last.tab.startsWith(file) && ok(last.line) && last.breadcrumbs) return last;
      await this.page.waitForTimeout(100);
    }
    throw new Error(`${what}: expected the active editor to be ${file} at line ${typeof line === 'number' ? line : '(see test)'}, but it is "${last.tab}" (${last.breadcrumbs}) with "${last.selection}"`);
  }

  /**
   * Clicks a tree row that opens code and waits for the editor at `file`:`line`. A tree view
   * may be refreshed (a late analysis result re-renders its rows) between finding the row and the
   * click, and the click then lands on a row that is gone: the row is found again by its label and
   * clicked again, at most three times, each one logged. Fails like waitEditorAt when no click opens it.
   */
  async clickRowUntilEditorAt(paneTitle: string, row: Locator, file: string, line: number | ((l: number) => boolean), what: string): Promise<{ tab: string; breadcrumbs: string; line: number }> {
    const label = (await row.getAttribute('aria-label')) ?? '';
    // the same row, found again by its label: a CSS string (quotes, backslashes and line breaks escaped)
    const css = '"' + label.replace(/["\\]/g, '\\$&').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `) + '"';
    const again = this.rows(paneTitle).and(this.page.locator(`[aria-label=${css}]`)).first();
    await row.click();
    for (let attempt = 1; ; attempt++) {
      try {
        // under load (CI, 2 cores) an editor can take many seconds to open: wait long before clicking again
        return await this.waitEditorAt(file, line, what, attempt < 3 ? 20_000 : UI_TIMEOUT);
      } catch (e) {
        if (attempt >= 3) throw e;
        const found = await again.count().catch(() => 0);
        console.log(`# ${what}: the click on "${label}" opened no editor within 20 s (attempt ${attempt}); ${found ? 'clicking it again' : 'the row is gone: waiting on'}`);
        if (found) await again.click({ timeout: 10_000 }).catch(() => undefined);
      }
    }
  }

  /** The inner frame of the webview whose document title is `title` (webviews are nested iframes). */
  async webview(title: string, timeout = UI_TIMEOUT): Promise<Frame> {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      for (const f of this.page.frames()) {
        if (f.name() !== 'active-frame' && !f.url().includes('fake.html') && !/index\.html/.test(f.url())) continue;
        const t = await f.title().catch(() => '');
        if (t === title) {
          const visible = await f
            .frameElement()
            .then((el) => el.isVisible())
            .catch(() => false);
          if (visible) return f;
        }
      }
      await this.page.waitForTimeout(100);
    }
    throw new Error(`no visible webview titled "${title}" within ${timeout} ms (frames: ${this.page.frames().map((f) => f.name() || f.url().slice(0, 60)).join(', ')})`);
  }
}

/** 1-based [first, last] line of each declaration of `name(` in a Java source (brace matching). */
export function methodRanges(source: string, name: string): Array<[number, number]> {
  const lines = source.split('\n');
  const out: Array<[number, number]> = [];
  const decl = new RegExp(`^\\s*(?:(?:public|private|protected|static|final|synchronized)\\s+)*(?:[\\w<>\\[\\],.]+\\s+)?${name.replace(/\$/g, '\\$')}\\s*\\([^;]*$`);
  lines.forEach((text, k) => {
    if (!decl.test(text) || /^\s*(return|new|if|while|for)\b/.test(text)) return;
    let depth = 0;
    let opened = false;
    for (let j = k; j < lines.length; j++) {
      for (const ch of lines[j].replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
        if (ch === '{') (depth++, (opened = true));
        else if (ch === '}') depth--;
      }
      if (opened && depth === 0) {
        out.push([k + 1, j + 1]);
        return;
      }
    }
  });
  return out;
}

/**
 * The steps of one end-to-end suite: each test is one user step, run through `Workbench.step`
 * (screenshot, error context); after a failed step the later ones are skipped, since they depend on it.
 */
export function userSteps(workbench: () => Workbench): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  let failedStep: string | undefined;
  return (name, fn, timeout = 3 * 60_000) => {
    test(name, { timeout }, async (t: TestContext) => {
      if (failedStep) return t.skip(`skipped: the earlier step "${failedStep}" failed`);
      try {
        await workbench().step(name, fn);
      } catch (e) {
        failedStep = name;
        throw e;
      }
    });
  };
}
