/**
 * One code-server session of an end-to-end suite: the packaged extension installed in a fresh
 * extensions folder, code-server on a workspace folder, Chromium on its page, and the Workbench
 * driver; closed with the extension host's logs kept next to the screenshots. Shared by every
 * suite in test/e2e (docs/e2e.md).
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { UI_TIMEOUT, Workbench } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

export interface Installed {
  vsix: string;
  extensionsDir: string;
  configFile: string;
}

/** Packages the extension (a VSIX in `vsixFile`) and installs it for code-server `bin` under `tmp`. */
export async function installBraid(bin: string, tmp: string, vsixFile: string): Promise<Installed> {
  const vsix = await lib.packageVsix(vsixFile, { stage: path.join(tmp, 'stage') });
  const configFile = path.join(tmp, 'code-server.yaml');
  const extensionsDir = path.join(tmp, 'extensions');
  lib.installExtension(bin, vsix, extensionsDir, configFile);
  return { vsix, extensionsDir, configFile };
}

export interface CodeServerSession {
  server: Awaited<ReturnType<typeof lib.startCodeServer>>;
  browser: Browser;
  page: Page;
  wb: Workbench;
}

/** Starts code-server on `folder` and opens it in Chromium (1440 × 900); `out` gets the log and screenshots. */
export async function openCodeServer(o: { bin: string; tmp: string; out: string; folder: string; installed: Installed }): Promise<CodeServerSession> {
  const chrome = lib.chromiumPath();
  assert.ok(chrome, 'Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  const server = await lib.startCodeServer({
    bin: o.bin,
    folder: o.folder,
    dataDir: path.join(o.tmp, 'data'),
    extensionsDir: o.installed.extensionsDir,
    configFile: o.installed.configFile,
    logFile: path.join(o.out, 'code-server.log'),
  });
  const browser = await chromium.launch({ executablePath: chrome, args: lib.CHROMIUM_ARGS }).catch(async (e) => {
    await server.stop().catch(() => undefined);
    throw e;
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    const wb = new Workbench(page, o.out, () => `  code-server log: ${server.logFile}`);
    // a hang guard, generous for a busy machine (the first load under a load average of 16+ took over 30 s)
    await page.goto(server.folderUrl, { timeout: 120_000 });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    return { server, browser, page, wb };
  } catch (e) {
    // no session to close for the caller: the browser and code-server would outlive the test run
    await browser.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
    throw e;
  }
}

/** Closes the browser and code-server, keeps the extension host's logs (Braid output) in `out`, removes `tmp`. */
export async function closeCodeServer(session: CodeServerSession | undefined, tmp: string, out: string): Promise<void> {
  await session?.browser.close().catch(() => undefined);
  await session?.server.stop().catch(() => undefined);
  if (!tmp) return;
  const logs = path.join(tmp, 'data', 'logs');
  if (existsSync(logs)) cpSync(logs, path.join(out, 'vscode-logs'), { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
}
