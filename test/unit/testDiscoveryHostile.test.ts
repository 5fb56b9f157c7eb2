/**
 * Issue 39, item 5: "test discovery on hostile sources blocks the server in Restricted Mode" —
 * 12,000 nested Java classes (120 KB) took 8.9 s per lens/test-items request, 20,000 took 52 s;
 * 8,000 nested `describe(` took 153 s; `` test(`${ `` ×5,000 was a stack overflow that emptied the
 * Testing view for the whole workspace. Discovery must do linear work on any input (counted in
 * steps by DiscoveryBudget — deterministic, no clock), stay within its per-file budget, and one file
 * that fails never empties the Testing view: its tests are skipped with the reason logged, every
 * other file still lists.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { findTests } from '../../server/src/recorder/java/testDiscovery';
import { findJsTests, scanJs } from '../../server/src/recorder/node/jsTestDiscovery';
import { DiscoveryBudget, STEPS_PER_CHAR } from '../../server/src/recorder/discovery/discoveryBudget';
import { testItemsOfText, testItemsRequest } from '../../server/src/lsp/testItems';
import { testCodeLenses } from '../../server/src/lsp/testLenses';

/** `n` Java classes nested in one another (10 bytes a level, as the finding's 120 KB for 12,000). */
const nestedJava = (n: number, withTests = false) =>
  'import org.junit.Test;\n' + (withTests ? 'class A{@Test void t(){}' : 'class A{ ').repeat(n) + '}'.repeat(n);
/** `n` describe blocks nested in one another, a test in the innermost. */
const nestedDescribe = (n: number) => "import { describe, it } from 'node:test';\n" + "describe('a', () => {".repeat(n) + "it('t', () => {});" + '});'.repeat(n);
/** `` test(`${ `` repeated: template substitutions nested n deep. */
const nestedTemplates = (n: number) => "import { test } from 'node:test';\n" + 'test(`${'.repeat(n);

/** The steps discovery takes on a text, with no limit. */
function javaSteps(text: string): number {
  const b = new DiscoveryBudget(Infinity);
  findTests(text, b);
  return b.steps;
}
function jsSteps(text: string): number {
  const b = new DiscoveryBudget(Infinity);
  findJsTests(text, scanJs(text, b), b);
  return b.steps;
}

test('"12,000 nested Java classes (120 KB) → 8.9 s per lens/test-items request, 20,000 → 52 s": linear work, within the per-file budget', () => {
  for (const n of [12_000, 20_000]) {
    const text = nestedJava(n);
    assert.ok(text.length <= n * 10 + 40, 'the finding\'s size: 10 bytes a level');
    const steps = javaSteps(text);
    assert.ok(steps <= STEPS_PER_CHAR * text.length, `${n} nested classes: ${steps} steps for ${text.length} characters`);
    assert.doesNotThrow(() => findTests(text), 'the default budget is enough');
  }
  // twice the input, about twice the work (quadratic would be four times)
  const ratio = javaSteps(nestedJava(20_000)) / javaSteps(nestedJava(10_000));
  assert.ok(ratio < 2.2, `work ratio ${ratio.toFixed(2)} for twice the nesting`);
});

test('nested Java test classes 12,000 deep: linear work, and no class name longer than a class file can be named (the output stays linear too)', () => {
  const text = nestedJava(12_000, true);
  const b = new DiscoveryBudget(Infinity);
  const found = findTests(text, b);
  assert.ok(b.steps <= STEPS_PER_CHAR * text.length, `${b.steps} steps for ${text.length} characters`);
  assert.ok(found.length > 0, 'the outer classes are still listed');
  assert.equal(found[0].className, 'A');
  assert.ok(found.every((t) => t.className.length <= 1000), 'names beyond 1,000 characters have no entry');
  const chars = found.reduce((s, t) => s + t.className.length, 0);
  assert.ok(chars <= 2000 * 1000, `${chars} characters of class names`);
  assert.ok(testItemsOfText('file:///ws/A.java', text).length === 1);
});

test('"8,000 nested `describe(` → 153 s": linear work, within the per-file budget, and suites nested too deep to name have no entry', () => {
  const text = nestedDescribe(8_000);
  const steps = jsSteps(text);
  assert.ok(steps <= STEPS_PER_CHAR * text.length, `${steps} steps for ${text.length} characters`);
  const found = findJsTests(text);
  assert.ok(found.length > 0 && found.length <= 8_001);
  assert.ok(found.every((t) => t.titles.length <= 64), 'no entry nests deeper than 64 suites');
  assert.deepEqual(found[0].titles, ['a']);
  const ratio = jsSteps(nestedDescribe(8_000)) / jsSteps(nestedDescribe(4_000));
  assert.ok(ratio < 2.2, `work ratio ${ratio.toFixed(2)} for twice the nesting`);
  // the lens and the Testing view on it
  assert.ok(testCodeLenses('file:///ws/test/deep.test.js', text).length > 0);
  assert.equal(testItemsOfText('file:///ws/test/deep.test.js', text).length, 1);
});

test('"`` test(`${ `` ×5,000 → stack overflow": template literals nested 5,000 and 50,000 deep scan without recursion, in linear work', () => {
  for (const n of [5_000, 50_000]) {
    const text = nestedTemplates(n);
    let found: ReturnType<typeof findJsTests> = [];
    assert.doesNotThrow(() => {
      found = findJsTests(text);
    }, `${n} nested substitutions`);
    assert.deepEqual(found, [], 'a name with a substitution is no plain literal: no entry');
    const steps = jsSteps(text);
    assert.ok(steps <= STEPS_PER_CHAR * text.length, `${steps} steps for ${text.length} characters`);
  }
  // a closed nested template still reads as one literal with substitutions
  const scan = scanJs('x = `a${ `b${c}` }d`; test(`plain`, () => {});');
  assert.deepEqual([...scan.strings.values()].map((s) => s.value), [undefined, 'plain']);
});

test('a line of 40,000 unclosed regular-expression starts (`/[` repeated): linear work (each slash used to rescan the rest of its line)', () => {
  const line = (n: number) => "import { test } from 'node:test';\nx = 1;\n" + '/['.repeat(n) + "\ntest('after', () => {});\n";
  const text = line(40_000);
  const steps = jsSteps(text);
  assert.ok(steps <= STEPS_PER_CHAR * text.length, `${steps} steps for ${text.length} characters`);
  assert.deepEqual(findJsTests(text).map((t) => t.titles), [['after']], 'the test after the line is found');
  const ratio = jsSteps(line(40_000)) / jsSteps(line(20_000));
  assert.ok(ratio < 2.2, `work ratio ${ratio.toFixed(2)} for twice the line`);
});

test('20,000 test annotations in a row before one method: linear work (each annotation used to read all those after it)', () => {
  const chain = (n: number) => 'import org.junit.Test;\nclass A {\n' + '@Test '.repeat(n) + 'void t() {}\n}\n';
  const b = new DiscoveryBudget(Infinity);
  const found = findTests(chain(20_000), b);
  assert.deepEqual(found.map((t) => t.method ?? t.className), ['A', 't']);
  assert.ok(b.steps <= STEPS_PER_CHAR * chain(20_000).length, `${b.steps} steps`);
  const ratio = javaSteps(chain(20_000)) / javaSteps(chain(10_000));
  assert.ok(ratio < 2.2, `work ratio ${ratio.toFixed(2)} for twice the annotations`);
});

test('found by the fuzz campaign: 20,000 comment lines before the package line (the package regex read each run of blank lines once per line)', () => {
  const text = 'import org.junit.Test;\n' + '// @T"; char c = \'{\'; }\n'.repeat(20_000) + 'package a.b;\nclass T { @Test void t() {} }\n';
  const b = new DiscoveryBudget(Infinity);
  assert.deepEqual(findTests(text, b).map((t) => t.className), ['a.b.T', 'a.b.T']);
  assert.ok(b.steps <= STEPS_PER_CHAR * text.length, `${b.steps} steps`);
  assert.equal(findTests('package a.b ;\n  package c;\nimport org.junit.Test; class T { @Test void t() {} }')[0].className, 'a.b.T', 'the first package line, spaces before the semicolon');
  assert.equal(findTests('\uFEFF package x.y;\nimport org.junit.Test; class T { @Test void t() {} }')[0].className, 'x.y.T', 'a byte-order mark before it');
  assert.equal(findTests('int package2; package\n z ;\nimport org.junit.Test; class T { @Test void t() {} }')[0].className, 'T', 'not at a line\'s start: none');
});

test('"emptied the Testing view for the whole workspace": one file that fails discovery is skipped with the reason logged, every other file still lists', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-hostile-discovery-'));
  try {
    mkdirSync(path.join(dir, 'test'));
    writeFileSync(path.join(dir, 'test', 'good.test.js'), "import { test } from 'node:test';\ntest('adds', () => {});\n");
    writeFileSync(path.join(dir, 'test', 'overflow.test.js'), nestedTemplates(50_000));
    writeFileSync(path.join(dir, 'test', 'huge.test.js'), "import { test } from 'node:test';\n" + "test('x', () => {});\n".repeat(2_000));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'GoodTest.java'), 'import org.junit.Test;\nclass GoodTest { @Test public void ok() {} }\n');
    const logged: string[] = [];
    // a budget that huge.test.js exceeds (as a hostile file would exceed the real one); the others get the real one
    const budget = (text: string) => (text.includes("test('x', () => {});\ntest('x'") ? new DiscoveryBudget(1_000) : DiscoveryBudget.forText(text));
    const r = await testItemsRequest({}, { folders: [dir], openText: () => undefined, log: (m) => logged.push(m), budget });
    const listed = r.files.map((f) => path.basename(new URL(f.uri).pathname)).sort();
    assert.deepEqual(listed, ['GoodTest.java', 'good.test.js'], 'the good files list (the overflow file has no plain test name: no items)');
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0], /huge\.test\.js/);
    assert.match(logged[0], /skipped/);
    assert.match(logged[0], /gave up after 1,000 steps/);
    // the same file asked for on its own: no items, the reason logged, no exception
    const one = await testItemsRequest({ uri: pathToFileURL(path.join(dir, 'test', 'huge.test.js')).href }, { folders: [dir], openText: () => undefined, log: (m) => logged.push(m), budget });
    assert.deepEqual(one.files[0].items, []);
    assert.equal(logged.length, 2);
    // the code lens of that file: none, the reason logged
    const lensLog: string[] = [];
    assert.deepEqual(testCodeLenses('file:///ws/test/huge.test.js', "import { test } from 'node:test';\n" + "test('x', () => {});\n".repeat(2_000), (m) => lensLog.push(m), budget), []);
    assert.match(lensLog[0] ?? '', /huge\.test\.js.*skipped/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
