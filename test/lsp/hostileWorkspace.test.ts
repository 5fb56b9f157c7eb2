/**
 * Hostile traces in a workspace (issue 15, findings 2 and 3): trace strings
 * cannot inject Markdown, links or commands into hovers, source paths resolve
 * only to files inside the workspace folders and source roots, and
 * `braid.openAccess` opens workspace files only.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { AnalysisState } from '../../server/src/lsp/analysisState';
import { hoverFor, code, esc } from '../../server/src/lsp/features';
import { SourceResolver } from '../../server/src/workspace/sourceResolver';
import { workspaceFileOfUri } from '../../client/src/openAccessGuard';
import { tempDir } from '../helpers/traceBuilder';

// markdown-it with linkify stands in for VS Code's Markdown renderer (it also turns bare URLs into links)
const MarkdownIt = createRequire(__filename)('markdown-it');
const md = new MarkdownIt({ html: false, linkify: true });

const EVIL_LINK = '[click](command:braid.openAccess?%5B%22file:///etc/passwd%22,1%5D)';
const HOSTILE_VAR = 'x``y` ' + EVIL_LINK + ' https://evil.example/a | <b>bold</b> ``';
const HOSTILE_METHOD = 'Shop.take`` ' + EVIL_LINK + ' www.evil.example';
const HOSTILE_EXEC = 'run](command:braid.openAccess?%5B%22file:///etc/shadow%22%5D) http://evil.example';

function workspace() {
  const ws = tempDir('braid-ws-');
  const outside = tempDir('braid-outside-');
  mkdirSync(path.join(ws, 'src/shop'), { recursive: true });
  writeFileSync(path.join(ws, 'src/shop/Shop.java'), 'class Shop {\n  int x;\n  void take() {\n    x = x - 1;\n  }\n}\n');
  writeFileSync(path.join(outside, 'Secret.java'), 'secret\n');
  symlinkSync(path.join(outside, 'Secret.java'), path.join(ws, 'src/shop/Linked.java'));
  return { ws, outside };
}

function traces(dir: string, file: string, outsideFile: string) {
  const mk = (exec: string, outcome: string, order: number[]) => {
    const lines = [
      JSON.stringify({ braid: 'trace', version: 1, execution: exec, outcome }),
      JSON.stringify({ def: 'var', id: 0, name: HOSTILE_VAR }),
      JSON.stringify({ def: 'loc', id: 0, file, line: 4, method: HOSTILE_METHOD }),
      JSON.stringify({ def: 'loc', id: 1, file: outsideFile, line: 1, method: 'Secret.m' }),
      JSON.stringify({ def: 'loc', id: 2, file: '/etc/passwd', line: 1, method: 'Passwd.m' }),
    ];
    let i = 0;
    for (const t of order) lines.push(JSON.stringify([++i, t, 'R', 0, t === 1 ? 1 : 2]), JSON.stringify([++i, t, 'W', 0, 0]));
    return lines.join('\n') + '\n';
  };
  writeFileSync(path.join(dir, 'a.trace.jsonl'), mk(HOSTILE_EXEC, 'fail', [1, 2, 1, 2]));
  writeFileSync(path.join(dir, 'b.trace.jsonl'), mk('ok', 'pass', [1, 1, 2, 2]));
}

test('finding 3: trace paths resolve only inside the workspace folders and source roots', () => {
  const { ws, outside } = workspace();
  const r = new SourceResolver([ws], ['.', 'src']);
  assert.equal(r.resolve('shop/Shop.java'), path.join(ws, 'src/shop/Shop.java'));
  assert.equal(r.resolve(path.join(ws, 'src/shop/Shop.java')), path.join(ws, 'src/shop/Shop.java'));
  assert.equal(r.resolve('/etc/passwd'), undefined);
  assert.equal(r.resolve(path.join(outside, 'Secret.java')), undefined);
  assert.equal(r.resolve('../../' + path.basename(outside) + '/Secret.java'), undefined);
  assert.equal(r.resolve(path.relative(path.join(ws, 'src'), path.join(outside, 'Secret.java'))), undefined);
  // a symbolic link inside the workspace that leads out of it
  assert.equal(r.resolve('shop/Linked.java'), undefined);
});

test('finding 2: hostile names render as text in the hover: no link but the hover\'s own commands and workspace files', async () => {
  const { ws, outside } = workspace();
  const dir = tempDir();
  traces(dir, 'shop/Shop.java', path.join(outside, 'Secret.java'));
  const result = await analyzeTraceFiles([dir]);
  assert.ok(result.patterns.length > 0);
  const state = new AnalysisState(result, [], new SourceResolver([ws], ['.', 'src']));
  const shop = path.join(ws, 'src/shop/Shop.java');
  const hover = hoverFor(state, shop, 4, 50, 'jaccard');
  assert.ok(hover);
  const text = (hover.contents as { value: string }).value;
  const html: string = md.render(text);
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
  assert.ok(hrefs.length > 0);
  for (const h of hrefs) {
    const ok = ['revealPattern', 'openTracer', 'confirmPattern', 'reproduceFailure'].some((c) => h.startsWith(`command:braid.${c}?`)) || h.startsWith(pathToFileURL(shop).href);
    assert.ok(ok, `unexpected link in the hover: ${h}`);
  }
  assert.doesNotMatch(html, /<b>/);
  // the hostile strings are shown, as text
  const plain = html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  assert.ok(plain.includes('x``y` [click](command:braid.openAccess'), plain);
  assert.ok(plain.includes('evil.example'));
  // no table row was broken by the `|` in the variable name: every row has 5 cells
  for (const row of html.match(/<tr>[\s\S]*?<\/tr>/g) ?? []) assert.equal((row.match(/<t[dh][ >]/g) ?? []).length, 5, row);
});

test('finding 2: code() and esc() keep any string literal', () => {
  for (const s of ['a', 'a`b', 'a``b', '`', '``x``', ' lead', 'x|y', '[t](command:x)', 'http://e.example', '<img src=x>', '**b**', '']) {
    for (const rendered of [md.renderInline(code(s)), md.renderInline(esc(s))]) {
      assert.doesNotMatch(rendered, /<(a|img|strong|em)\b/, `${s} → ${rendered}`);
    }
    const html = md.renderInline(esc(s)).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    assert.equal(html, s);
  }
});

test('finding 2: braid.openAccess opens existing files inside a workspace folder only', async () => {
  const { ws, outside } = workspace();
  const shop = path.join(ws, 'src/shop/Shop.java');
  assert.equal(await workspaceFileOfUri(pathToFileURL(shop).href, [ws]), shop);
  for (const bad of [
    'file:///etc/passwd',
    pathToFileURL(path.join(outside, 'Secret.java')).href,
    pathToFileURL(path.join(ws, 'src/shop/Linked.java')).href, // symlink out of the workspace
    pathToFileURL(ws).href, // a folder
    pathToFileURL(ws).href + '/src/../../' + path.basename(outside) + '/Secret.java',
    'https://evil.example/Shop.java',
    'command:braid.openAccess',
    'untitled:Shop.java',
    42,
  ]) {
    assert.equal(await workspaceFileOfUri(bad, [ws]), undefined, String(bad));
  }
});
