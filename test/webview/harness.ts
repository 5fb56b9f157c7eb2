/**
 * Test harness for the webviews: builds the bundles, serves them from a local
 * http server inside the production HTML shell (same CSP, nonce'd script, VS
 * Code theme variables on <html> and the theme class on <body>), and opens
 * them in Chromium with a stubbed `acquireVsCodeApi` that records posted
 * messages and answers requests from fixture data (plus a synthetic run of
 * any size whose pages are generated on demand).
 */
import http from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { chromium, Browser, Page } from 'playwright-core';
import { webviewHtml } from '../../client/src/webviews/html';
import { THEMES, ThemeName } from './themes';
import type { Fixture } from './fixtures';

export const ROOT = path.resolve(__dirname, '../..');
export const OUT = path.join(ROOT, 'test-output/webview');
/** Built once by scripts/test.mjs (BRAID_TEST_WEBVIEW_BUNDLES); a file run on its own builds into a folder of its own process. */
const BUNDLES = process.env.BRAID_TEST_WEBVIEW_BUNDLES ?? path.join(OUT, `dist-${process.pid}`);

export type ViewName = 'tracer' | 'unicorn' | 'griffin' | 'bugGraph' | 'explanations' | 'methods';

export interface OpenOptions {
  theme?: ThemeName;
  /** serve with the production CSP (default true) */
  csp?: boolean;
  fixture: Fixture;
  /** state returned by getState() (simulates a restored panel) */
  state?: unknown;
  /** simulated host latency per reply, ms */
  latency?: number;
  /** synthetic runs: id → number of events (generated on demand in the page) */
  synthetic?: Record<string, number>;
  viewport?: { width: number; height: number };
}

export interface Harness {
  browser: Browser;
  baseUrl: string;
  open(view: ViewName, o: OpenOptions): Promise<Page>;
  close(): Promise<void>;
}

let stubText: Promise<string> | undefined;
/** The in-page stub is plain JS (stub.js), so no transpiler helpers leak into the page. */
function stubSource(): Promise<string> {
  stubText ??= readFile(path.join(__dirname, 'stub.js'), 'utf8').then((t) => t.replace(/^[\s\S]*?(?=function stub)/, '').trim());
  return stubText;
}

let built: Promise<void> | undefined;
export function buildBundles(): Promise<void> {
  built ??= (async () => {
    if (process.env.BRAID_TEST_WEBVIEW_BUNDLES) return;
    const mod = (await import(pathToFileURL(path.join(ROOT, 'scripts/build-webviews.mjs')).href)) as {
      buildWebviews(o: { outdir: string; production?: boolean }): Promise<unknown>;
    };
    await mod.buildWebviews({ outdir: BUNDLES });
  })();
  return built;
}

export function chromiumPath(): string {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && existsSync(p)) return p;
  throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
}

export async function startHarness(): Promise<Harness> {
  await buildBundles();
  await mkdir(OUT, { recursive: true });
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/view\/(tracer|unicorn|griffin|bugGraph|explanations|methods)$/.exec(url.pathname);
      if (m) {
        const theme = THEMES[(url.searchParams.get('theme') as ThemeName) ?? 'light'] ?? THEMES.light;
        const csp = url.searchParams.get('csp') !== '0';
        const nonce = 'n' + Math.random().toString(36).slice(2);
        const origin = `http://${req.headers.host}`;
        let html = webviewHtml({ cspSource: origin, nonce, scriptUri: `${origin}/dist/${m[1]}.js`, styleUri: `${origin}/dist/${m[1]}.css`, title: m[1] });
        if (!csp) html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n/, '');
        const style = Object.entries(theme.vars).map(([k, v]) => `${k}: ${v}`).join('; ').replace(/"/g, '&quot;');
        html = html.replace('<html lang="en">', `<html lang="en" style="${style}">`).replace('<body>', `<body class="${theme.bodyClass}" data-vscode-theme-kind="${theme.bodyClass}">`);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html);
        return;
      }
      const d = /^\/dist\/([A-Za-z]+\.(js|css|js\.map|css\.map))$/.exec(url.pathname);
      if (d) {
        try {
          const body = await readFile(path.join(BUNDLES, d[1]));
          res.writeHead(200, { 'content-type': d[2] === 'js' ? 'text/javascript' : d[2] === 'css' ? 'text/css' : 'application/json' });
          res.end(body);
        } catch {
          res.writeHead(404).end();
        }
        return;
      }
      res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    browser,
    baseUrl,
    async open(view, o) {
      const page = await browser.newPage({ viewport: o.viewport ?? { width: 1200, height: 720 } });
      const cfg = { fixture: o.fixture, state: o.state, latency: o.latency ?? 0, synthetic: o.synthetic ?? {} };
      await page.addInitScript({ content: `(${await stubSource()})(${JSON.stringify(cfg)});` });
      await page.goto(`${baseUrl}/view/${view}?theme=${o.theme ?? 'light'}&csp=${o.csp === false ? 0 : 1}`);
      return page;
    },
    async close() {
      await browser.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Posted messages recorded by the stub (deep copies). */
export function posted(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted);
}

/** Sends a host → webview message. */
export function hostSend(page: Page, message: unknown): Promise<void> {
  return page.evaluate((m) => {
    window.dispatchEvent(new MessageEvent('message', { data: m }));
  }, message);
}

export async function shot(page: Page, name: string): Promise<string> {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * For negative XSS checks after the view has rendered: waits up to `ms` (polling) for an injected
 * script to run (window.__xss set, e.g. by an image's onerror that fires late) and returns its
 * value, or undefined when none ran in that time. Bounded, unlike a fixed sleep before one look.
 */
export async function lateXss(page: Page, ms = 1500): Promise<unknown> {
  try {
    const h = await page.waitForFunction(() => (window as unknown as { __xss?: number }).__xss, null, { timeout: ms, polling: 50 });
    return await h.jsonValue();
  } catch {
    return undefined;
  }
}
