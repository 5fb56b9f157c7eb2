/**
 * "Braid: Add MCP Server to Workspace" (issue 44): `servers.braid` written into or merged with
 * .vscode/mcp.json — other servers, inputs and comments kept, the same entry not rewritten, a broken
 * file left alone with an error naming the file, line and column; and the command through the
 * vscode mock.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'jsonc-parser';
import { tempDir } from '../helpers/traceBuilder';
import { commands, ui, useVscodeMock } from '../helpers/vscodeMock';
import { braidServerEntry, McpConfigError, withBraidServer } from '../../client/src/mcpConfig';

const entry = braidServerEntry('/ext/dist/braid.js');

test('no file: an mcp.json with the braid server, rooted at ${workspaceFolder}', () => {
  const r = withBraidServer(undefined, entry);
  assert.equal(r.changed, true);
  assert.deepEqual(JSON.parse(r.text), { servers: { braid: { type: 'stdio', command: 'node', args: ['/ext/dist/braid.js', 'mcp', '--root', '${workspaceFolder}'] } } });
});

test('other servers, inputs and comments are kept; the braid entry is added next to them', () => {
  const text = `{
  // servers of the team
  "inputs": [{ "type": "promptString", "id": "token", "description": "API token" }],
  "servers": {
    "github": { "type": "http", "url": "https://api.example.com/mcp/", },
  },
}
`;
  const r = withBraidServer(text, entry);
  assert.equal(r.changed, true);
  assert.equal(r.replaced, false);
  assert.match(r.text, /\/\/ servers of the team/);
  const v = parse(r.text, [], { allowTrailingComma: true });
  assert.deepEqual(v.servers.github, { type: 'http', url: 'https://api.example.com/mcp/' });
  assert.deepEqual(v.inputs[0].id, 'token');
  assert.deepEqual(v.servers.braid, entry);
  // the same entry again: nothing to write
  const again = withBraidServer(r.text, entry);
  assert.equal(again.changed, false);
  assert.equal(again.text, r.text);
  // another braid entry is replaced, the others stay
  const moved = withBraidServer(r.text, braidServerEntry('/new/dist/braid.js'));
  assert.equal(moved.replaced, true);
  const w = parse(moved.text, [], { allowTrailingComma: true });
  assert.equal(w.servers.braid.args[0], '/new/dist/braid.js');
  assert.deepEqual(w.servers.github, v.servers.github);
});

test('a broken file is not touched: the error names the file, line and column', () => {
  const broken = '{\n  "servers": {\n    "github": { "type": "http" "url": "x" }\n  }\n}\n';
  assert.throws(() => withBraidServer(broken, entry), (e: Error) => e instanceof McpConfigError && /^\.vscode\/mcp\.json:3:32: CommaExpected — the file is not valid JSON with comments; fix it \(nothing was written\)$/.test(e.message));
  assert.throws(() => withBraidServer('[1, 2]', entry), /the file must hold an object/);
  assert.throws(() => withBraidServer('{ "servers": ["github"] }', entry), /"servers" must be an object of named servers/);
});

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cmd = require('../../client/src/mcpServerCommand') as typeof import('../../client/src/mcpServerCommand');

test('addMcpServer writes .vscode/mcp.json; a broken or linked file is left as it is', async () => {
  const folder = tempDir('braid-mcpjson-');
  const r = await cmd.addMcpServer(folder, '/ext/dist/braid.js');
  assert.match(r.message, /added the MCP server "braid" in \.vscode[\\/]mcp\.json\. It runs programs only in /);
  assert.deepEqual(JSON.parse(readFileSync(path.join(folder, '.vscode', 'mcp.json'), 'utf8')).servers.braid, entry);
  assert.match((await cmd.addMcpServer(folder, '/ext/dist/braid.js')).message, /already has Braid's MCP server/);

  const broken = tempDir('braid-mcpjson-');
  mkdirSync(path.join(broken, '.vscode'));
  writeFileSync(path.join(broken, '.vscode', 'mcp.json'), '{ "servers": { ');
  await assert.rejects(cmd.addMcpServer(broken, '/x'), /mcp\.json:1:16: /);
  assert.equal(readFileSync(path.join(broken, '.vscode', 'mcp.json'), 'utf8'), '{ "servers": { ');

  const linked = tempDir('braid-mcpjson-');
  mkdirSync(path.join(linked, '.vscode'));
  const elsewhere = path.join(tempDir('braid-mcpjson-out-'), 'mcp.json');
  writeFileSync(elsewhere, '{}');
  symlinkSync(elsewhere, path.join(linked, '.vscode', 'mcp.json'));
  await assert.rejects(cmd.addMcpServer(linked, '/x'), /is not a regular file \(a symbolic link\); nothing was written/);
  assert.equal(readFileSync(elsewhere, 'utf8'), '{}');
});

test('the command: the only workspace folder gets the entry for the extension’s dist/braid.js; no folder is an error', async () => {
  const folder = tempDir('braid-mcpjson-cmd-');
  useVscodeMock([folder]);
  ui.reset();
  cmd.registerAddMcpServer({ asAbsolutePath: (p: string) => path.join('/ext', p) } as never);
  const run = commands.registered.get(cmd.ADD_MCP_SERVER)!;
  await run();
  const written = JSON.parse(readFileSync(path.join(folder, '.vscode', 'mcp.json'), 'utf8'));
  assert.deepEqual(written.servers.braid.args, [path.join('/ext', 'dist', 'braid.js'), 'mcp', '--root', '${workspaceFolder}']);
  assert.equal(ui.calls.at(-1)?.fn, 'showInformationMessage');
  useVscodeMock([]);
  ui.reset();
  await run();
  assert.equal(ui.calls[0].fn, 'showErrorMessage');
  assert.match(String(ui.calls[0].args[0]), /open a folder first/);
});
