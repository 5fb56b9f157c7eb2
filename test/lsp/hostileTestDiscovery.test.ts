/**
 * Issue 39, item 5, over the real language server (stdio): a workspace holding the re-test's hostile
 * sources — 12,000 nested Java classes, 8,000 nested `describe(`, `` test(`${ `` ×5,000 and ×50,000
 * (the stack overflow that "empties the Testing view for the whole workspace") — still answers
 * braid/testItems with every other file's tests, and the lens request of a hostile file answers.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspSession, cleanup } from './lspHarness';
import type { TestItemsResult } from '../../server/src/lsp/protocol';

describe('test discovery on hostile sources over the language server', () => {
  let ws: string;
  let s: LspSession;
  const uriOf = (rel: string) => pathToFileURL(path.join(ws, rel)).href;

  before(async () => {
    ws = mkdtempSync(path.join(tmpdir(), 'braid-hostile-discovery-lsp-'));
    mkdirSync(path.join(ws, 'src/test/java/bank'), { recursive: true });
    mkdirSync(path.join(ws, 'test'), { recursive: true });
    writeFileSync(path.join(ws, 'src/test/java/bank/AccountTest.java'), 'package bank;\nimport org.junit.jupiter.api.Test;\nclass AccountTest {\n  @Test void deposits() {}\n}\n');
    writeFileSync(path.join(ws, 'test/good.test.js'), "import { test } from 'node:test';\ntest('adds', () => {});\n");
    writeFileSync(path.join(ws, 'src/test/java/bank/Nested.java'), 'import org.junit.Test;\n' + 'class A{ '.repeat(12_000) + '@Test void t() {}' + '}'.repeat(12_000));
    writeFileSync(path.join(ws, 'test/describe.test.js'), "import { describe, it } from 'node:test';\n" + "describe('a', () => {".repeat(8_000) + "it('t', () => {});" + '});'.repeat(8_000));
    writeFileSync(path.join(ws, 'test/template5k.test.js'), "import { test } from 'node:test';\n" + 'test(`${'.repeat(5_000));
    writeFileSync(path.join(ws, 'test/template50k.test.js'), "import { test } from 'node:test';\n" + 'test(`${'.repeat(50_000));
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('"empties the Testing view for the whole workspace": braid/testItems still lists every other file', async () => {
    const all: TestItemsResult = await s.connection.sendRequest('braid/testItems', {});
    const listed = all.files.map((f) => f.uri);
    assert.ok(listed.includes(uriOf('src/test/java/bank/AccountTest.java')), listed.join('\n'));
    assert.ok(listed.includes(uriOf('test/good.test.js')), listed.join('\n'));
    assert.ok(listed.includes(uriOf('test/describe.test.js')), 'the nested describes list (to the depth a runner can name)');
    assert.ok(!listed.includes(uriOf('test/template50k.test.js')), 'a name with a substitution: no items');
    const one: TestItemsResult = await s.connection.sendRequest('braid/testItems', { uri: uriOf('test/template50k.test.js') });
    assert.deepEqual(one.files[0].items, []);
  });

  test('the lenses of the hostile files answer', async () => {
    for (const rel of ['test/template50k.test.js', 'test/template5k.test.js', 'src/test/java/bank/Nested.java']) {
      const { readFileSync } = await import('node:fs');
      await s.open(rel, readFileSync(path.join(ws, rel), 'utf8'));
      const lenses: unknown[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: uriOf(rel) } });
      assert.ok(Array.isArray(lenses), rel);
    }
  });
});
