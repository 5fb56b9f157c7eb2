/**
 * A JUnit 5 parameterized test selected by name (`braid test Class#method`): JUnit's method selector
 * needs the method's parameter types as binary names, resolved from the test's source; and
 * `Class#method(Type, …)` as a user may write it.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { methodSelector, selectorParameterTypes } from '../../server/src/recorder/java/javaParameterTypes';
import { findTests } from '../../server/src/recorder/java/testDiscovery';
import { locateTest, parseTestName } from '../../server/src/recorder/java/testLocate';
import { inferTestCommand } from '../../server/src/recorder/java/testCommand';
import { tempDir } from '../helpers/traceBuilder';

const SOURCE = `package com.acme.pool;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import com.acme.pool.taps.Taps;

class PoolTest {
  enum Mode { FAST, SLOW }
  record Size(int n) {}

  @Test
  void plain() {}

  @ParameterizedTest
  @MethodSource("taps")
  void claimRelease(Taps taps, final int threads, String name) {}

  @ParameterizedTest(name = "mode {0}, x, y")
  @MethodSource("modes")
  void generic(@SuppressWarnings("unused") Map<String, List<Integer>> m, Mode mode, long[] ids, Object... rest) {}

  @ParameterizedTest
  @MethodSource("sizes")
  void qualified(java.util.concurrent.atomic.AtomicInteger counter, Size size, Helper h, Map.Entry<String, Integer> e) {}
}
`;

test('the parameter list is found with each test method; none for a method without parameters', () => {
  const tests = findTests(SOURCE);
  const by = new Map(tests.filter((t) => t.method).map((t) => [t.method!, t.parameters]));
  assert.equal(by.get('plain'), undefined);
  assert.equal(by.get('claimRelease'), 'Taps taps, final int threads, String name');
  assert.ok(by.get('generic')?.startsWith('@SuppressWarnings('));
});

test('types resolve as javac would: imports, the same file, java.lang, qualified names, the own package; generics erased; arrays and varargs', () => {
  const params = (m: string) => findTests(SOURCE).find((t) => t.method === m)!.parameters!;
  assert.deepEqual(selectorParameterTypes(params('claimRelease'), SOURCE), ['com.acme.pool.taps.Taps', 'int', 'java.lang.String']);
  assert.deepEqual(selectorParameterTypes(params('generic'), SOURCE), ['java.util.Map', 'com.acme.pool.PoolTest$Mode', 'long[]', 'java.lang.Object[]']);
  assert.deepEqual(selectorParameterTypes(params('qualified'), SOURCE), [
    'java.util.concurrent.atomic.AtomicInteger',
    'com.acme.pool.PoolTest$Size',
    'com.acme.pool.Helper',
    'java.util.Map$Entry',
  ]);
  assert.equal(selectorParameterTypes('not a parameter list %%', SOURCE), undefined);
  assert.equal(methodSelector('a.B', 'm', ['int', 'java.lang.String']), 'a.B#m(int,java.lang.String)');
  assert.equal(methodSelector('a.B', 'm', undefined), 'a.B#m');
});

test('Class#method(Type, …) is a test name; anything else after the method is not', () => {
  assert.deepEqual(parseTestName('PoolTest#claimRelease(Taps, int, String)'), { className: 'PoolTest', method: 'claimRelease', parameters: 'Taps, int, String' });
  assert.deepEqual(parseTestName('PoolTest#plain()'), { className: 'PoolTest', method: 'plain' });
  assert.throws(() => parseTestName('PoolTest#m(int'), /is not a test name/);
  assert.throws(() => parseTestName('PoolTest#m(int);rm'), /is not a test name/);
});

test('a parameterized test\'s selector has its parameter types, as declared or as the user wrote them', () => {
  const ws = tempDir('braid-param-test-');
  try {
    const dir = path.join(ws, 'src/test/java/com/acme/pool');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'PoolTest.java'), SOURCE);
    assert.deepEqual(locateTest(ws, 'PoolTest#claimRelease(Taps, int, java.lang.String)').parameterTypes, ['com.acme.pool.taps.Taps', 'int', 'java.lang.String']);
    assert.throws(() => locateTest(ws, 'PoolTest#claimRelease(Taps x y)'), /cannot read the parameter types/);
    // the command (CLI, lens, MCP): the selector with the declared types, or the method alone
    const launcher = { javaLibs: [path.join(ws, 'libs')] };
    mkdirSync(launcher.javaLibs[0]);
    writeFileSync(path.join(launcher.javaLibs[0], 'junit-platform-console-standalone-1.9.1.jar'), '');
    const selectorOf = (spec: string) => {
      const plan = inferTestCommand(ws, locateTest(ws, spec), launcher);
      return plan.command[plan.command.indexOf('--select-method') + 1];
    };
    assert.equal(selectorOf('PoolTest#claimRelease'), 'com.acme.pool.PoolTest#claimRelease(com.acme.pool.taps.Taps,int,java.lang.String)');
    assert.equal(selectorOf('PoolTest#plain'), 'com.acme.pool.PoolTest#plain');
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('an inherited @ParameterizedTest (stormpot: ThreadedPoolTest runs its abstract base class\'s tests): the selector takes the types from the superclass\'s source', () => {
  const ws = tempDir('braid-inherited-param-');
  try {
    const dir = path.join(ws, 'src', 'test', 'java', 'blackbox');
    mkdirSync(path.join(dir, 'taps'), { recursive: true });
    writeFileSync(path.join(dir, 'taps', 'Taps.java'), 'package blackbox.taps;\npublic enum Taps { A, B }\n');
    writeFileSync(
      path.join(dir, 'AllocatorBasedPoolTest.java'),
      `package blackbox;

import blackbox.taps.Taps;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

abstract class AllocatorBasedPoolTest<T extends Object> extends AbstractPoolTest<T> {
  @ParameterizedTest
  @EnumSource(Taps.class)
  void mustNotDeallocateTheSameObjectMoreThanOnce(Taps taps) throws Exception {
  }
}
`,
    );
    writeFileSync(path.join(dir, 'ThreadBasedPoolTest.java'), 'package blackbox;\n\n/* class ThreadBasedPoolTest extends Nothing */\nabstract class ThreadBasedPoolTest extends AllocatorBasedPoolTest<Object> {\n}\n');
    writeFileSync(path.join(dir, 'ThreadedPoolTest.java'), 'package blackbox;\n\nimport org.junit.jupiter.api.Test;\n\nclass ThreadedPoolTest extends ThreadBasedPoolTest {\n  @Test\n  void own() {}\n}\n');
    const launcher = { javaLibs: [path.join(ws, 'libs')] };
    mkdirSync(launcher.javaLibs[0]);
    writeFileSync(path.join(launcher.javaLibs[0], 'junit-platform-console-standalone-1.9.1.jar'), '');
    const plan = inferTestCommand(ws, locateTest(ws, 'blackbox.ThreadedPoolTest#mustNotDeallocateTheSameObjectMoreThanOnce'), launcher);
    assert.equal(plan.command[plan.command.indexOf('--select-method') + 1], 'blackbox.ThreadedPoolTest#mustNotDeallocateTheSameObjectMoreThanOnce(blackbox.taps.Taps)');
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
