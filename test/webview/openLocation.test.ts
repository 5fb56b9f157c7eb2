/**
 * The host side of a webview's openLocation (client/src/webviews/panels.ts resolveWorkspaceFile,
 * docs/views.md): a trace path is resolved to an existing file inside a workspace folder —
 * relative to the folder, by the server's uri, or by a unique trailing-path match — and never to
 * a file outside the workspace (traversal, absolute paths elsewhere, symlinks leading out).
 * Runs against the real file system with a small `vscode` mock (test/helpers/vscodeMock.ts).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/traceBuilder';
import { useVscodeMock } from '../helpers/vscodeMock';

const root = realpathSync(tempDir('braid-open-'));
const ws = path.join(root, 'ws');
const outside = path.join(root, 'outside');
let resolve: (file: string, uri?: string) => Promise<{ fsPath: string } | undefined>;

before(() => {
  for (const f of ['src/main/java/shop/Inventory.java', 'lib/x/bank/Account.java', 'a/dup/Twice.java', 'b/dup/Twice.java']) {
    mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
    writeFileSync(path.join(ws, f), 'class X {}\n');
  }
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'Secret.java'), 'class Secret {}\n');
  mkdirSync(path.join(ws, 'leak'));
  symlinkSync(path.join(outside, 'Secret.java'), path.join(ws, 'leak', 'Secret.java'));
  symlinkSync(path.join(ws, 'lib/x/bank/Account.java'), path.join(ws, 'lib', 'Alias.java'));
  useVscodeMock([ws]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  resolve = require('../../client/src/webviews/panels').resolveWorkspaceFile;
});

const at = async (file: string, uri?: string) => (await resolve(file, uri))?.fsPath;

test('relative to the folder, by the server uri, and by a trailing-path match', async () => {
  assert.equal(await at('src/main/java/shop/Inventory.java'), path.join(ws, 'src/main/java/shop/Inventory.java'));
  assert.equal(await at('shop/Inventory.java'), path.join(ws, 'src/main/java/shop/Inventory.java'), 'trailing path of a source root');
  assert.equal(await at('bank/Account.java'), path.join(ws, 'lib/x/bank/Account.java'));
  assert.equal(await at('whatever/Inventory2.java', pathToFileURL(path.join(ws, 'lib/x/bank/Account.java')).href), path.join(ws, 'lib/x/bank/Account.java'), "the server's uri first");
  assert.equal(await at(path.join(ws, 'lib/x/bank/Account.java')), path.join(ws, 'lib/x/bank/Account.java'), 'absolute inside');
  assert.equal(await at('lib/Alias.java'), path.join(ws, 'lib/Alias.java'), 'a symlink to a file inside the workspace is fine');
});

test('nothing outside the workspace, nothing missing, nothing ambiguous by bare name', async () => {
  assert.equal(await at('../outside/Secret.java'), undefined, 'traversal');
  assert.equal(await at(path.join(outside, 'Secret.java')), undefined, 'absolute outside');
  assert.equal(await at('x', pathToFileURL(path.join(outside, 'Secret.java')).href), undefined, 'a uri outside');
  assert.equal(await at('leak/Secret.java'), undefined, 'a symlink leading out');
  assert.equal(await at('Missing.java'), undefined);
  assert.equal(await at('src/main/java/shop'), undefined, 'a folder is not a file');
  assert.equal(await at('Twice.java'), undefined, 'a bare name with two candidates');
  assert.equal(await at('*.java'), undefined, 'no glob characters');
});
