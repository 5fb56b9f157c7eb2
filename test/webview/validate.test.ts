/** Host-side validation of webview messages and the HTML shell's CSP (no VS Code needed). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseWebviewMessage, isInsideFolder } from '../../client/src/webviews/validate';
import { webviewHtml, contentSecurityPolicy } from '../../client/src/webviews/html';

test('unknown and malformed messages are ignored', () => {
  for (const m of [null, 1, 'x', [], {}, { type: 'eval', code: '1' }, { type: 'openLocation' }, { type: 'openLocation', file: 'a.java', line: 0 }, { type: 'openLocation', file: 'a.java', line: 1.5 }, { type: 'openLocation', file: 'a.java', line: '3' }, { type: 'openLocation', file: '', line: 3 }, { type: 'openLocation', file: 'a\0b', line: 3 }, { type: 'openLocation', file: 'x'.repeat(5000), line: 3 }, { type: 'openBugGraph', bug: -1 }, { type: 'openBugGraph', bug: '1' }, { type: 'openTracer', run: 5 }])
    assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m)?.slice(0, 80));
});

test('openLocation is rebuilt from checked fields only', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'openLocation', file: 'src/A.java', line: 12, uri: 'file:///w/src/A.java', extra: '<x>' }), { type: 'openLocation', file: 'src/A.java', line: 12, uri: 'file:///w/src/A.java' });
});

test('requests: whitelisted methods, params checked and copied', () => {
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 1, method: 'reanalyze' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 1, method: 'toString' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'request', requestId: -1, method: 'runs' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 1, method: 'bugGraph', params: { bug: 'x' } }), undefined);
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 1, method: 'patterns', params: { limit: 1e9 } }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 7, method: 'bugGraph', params: { bug: 2, x: 1 } }), { type: 'request', requestId: 7, method: 'bugGraph', lspMethod: 'braid/bugGraph', params: { bug: 2 } });
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 8, method: 'patterns', params: { offset: 0, limit: 1000 } }), { type: 'request', requestId: 8, method: 'patterns', lspMethod: 'braid/patterns', params: { offset: 0, limit: 1000 } });
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 9, method: 'runs', params: { evil: 1 } }), { type: 'request', requestId: 9, method: 'runs', lspMethod: 'braid/runs', params: undefined });
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 10, method: 'explanations', params: { evil: 1 } }), { type: 'request', requestId: 10, method: 'explanations', lspMethod: 'braid/explanations', params: {} });
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 11, method: 'explanations', params: { top: 3 } }), { type: 'request', requestId: 11, method: 'explanations', lspMethod: 'braid/explanations', params: { top: 3 } });
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 12, method: 'explanations' }), { type: 'request', requestId: 12, method: 'explanations', lspMethod: 'braid/explanations', params: {} });
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 13, method: 'explanations', params: { top: 0 } }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'request', requestId: 14, method: 'methods', params: { top: 5, evil: 1 } }), { type: 'request', requestId: 14, method: 'methods', lspMethod: 'braid/methods', params: { top: 5 } });
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 15, method: 'methods', params: { top: -1 } }), undefined);
  assert.equal(parseWebviewMessage({ type: 'request', requestId: 14, method: 'explanations', params: 'x' }), undefined);
});

test('fetchEvents params', () => {
  const ok = { run: 'run-1', offset: 9_999_800, limit: 200, threads: [1, 12], variable: 'x', search: '', accessesOnly: true };
  assert.deepEqual(parseWebviewMessage({ type: 'fetchEvents', requestId: 3, params: ok }), { type: 'fetchEvents', requestId: 3, params: { run: 'run-1', offset: 9_999_800, limit: 200, threads: [1, 12], variable: 'x', accessesOnly: true } });
  for (const bad of [{ ...ok, limit: 0 }, { ...ok, limit: 100000 }, { ...ok, offset: -1 }, { ...ok, threads: ['1'] }, { ...ok, run: '' }, { ...ok, accessesOnly: 'yes' }, { ...ok, variable: 'v'.repeat(2000) }])
    assert.equal(parseWebviewMessage({ type: 'fetchEvents', requestId: 3, params: bad }), undefined, JSON.stringify(bad).slice(0, 80));
});

test('saveSvg: must be an svg document; the file name is sanitized', () => {
  assert.equal(parseWebviewMessage({ type: 'saveSvg', svg: '<html>', name: 'a.svg' }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'saveSvg', svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>', name: '../../etc/x.svg' }), { type: 'saveSvg', svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>', name: 'bug-graph.svg' });
  assert.equal((parseWebviewMessage({ type: 'saveSvg', svg: '<svg></svg>', name: 'braid-bug-1.svg' }) as { name: string }).name, 'braid-bug-1.svg');
});

test('isInsideFolder rejects traversal and siblings', () => {
  assert.equal(isInsideFolder('/w/proj', '/w/proj/src/A.java'), true);
  assert.equal(isInsideFolder('/w/proj', '/w/proj/../other/A.java'), false);
  assert.equal(isInsideFolder('/w/proj', '/w/project2/A.java'), false);
  assert.equal(isInsideFolder('/w/proj', '/w/proj'), false);
  assert.equal(isInsideFolder('C:\\w\\proj', 'C:\\w\\proj\\src\\A.java', path.win32), true);
  assert.equal(isInsideFolder('C:\\w\\proj', 'D:\\w\\proj\\A.java', path.win32), false);
});

test('HTML shell: strict CSP, nonce on the one script, no inline code', () => {
  const html = webviewHtml({ cspSource: 'https://x.vscode-cdn.net', nonce: 'abc123', scriptUri: 'https://x.vscode-cdn.net/t.js', styleUri: 'https://x.vscode-cdn.net/t.css', title: 'T "<x>"' });
  assert.equal(contentSecurityPolicy('S', 'N'), "default-src 'none'; script-src 'nonce-N'; style-src S 'nonce-N'; img-src S data:; font-src S");
  assert.match(html, /default-src 'none'; script-src 'nonce-abc123'/);
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.match(html, /<script nonce="abc123" src="https:\/\/x.vscode-cdn.net\/t.js"><\/script>/);
  assert.doesNotMatch(html, /\son[a-z]+=/i);
  assert.match(html, /<title>T &quot;&lt;x&gt;&quot;<\/title>/);
});
