/**
 * Fresh static state per repetition (issue 41, point 3; repeatedRuns.ts, RepeatLauncher's
 * --fresh-classes): each in-JVM repetition loads the project's classes in a class loader of its own,
 * so a static registry published before it is filled (test/fixtures/static-registry: only the first
 * use of the class can fail) fails in many runs of one JVM, and the root cause ranks first. Where the
 * project's code cannot live in such a loader (it loads its classes through the system class loader)
 * the run is recorded again in a JVM of its own, and so are the next, said in the summary. Inherited
 * test methods are found and run. Uses Debian's junit5 console launcher.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureCopy, JUNIT_CONSOLE, junitToolsSkip, recordTest } from '../helpers/junitProject';
import { bugLinesIn, rootCauseFirst } from '../helpers/rootCause';
import { locateTest } from '../../server/src/recorder/java/testLocate';
import { firstRunOnlyNote, RecordProgress } from '../../server/src/recorder/runs/recordRuns';
import { repeatCommandFor } from '../../server/src/recorder/java/repeatedRuns';
import { analyzeInputsRanked } from '../../server/src/engine/summary/workspaceAnalysis';

const CONSOLE = JUNIT_CONSOLE;
const skip = junitToolsSkip();

const project = (extra: Record<string, string> = {}) => fixtureCopy('static-registry', extra);

async function record(ws: string, spec: string, runs: number, onProgress?: (p: RecordProgress) => void) {
  return (await recordTest(ws, spec, ['--runs', String(runs), '--seed', '5'], onProgress)).summary;
}

test('repeatCommandFor: the class path\'s folders are loaded afresh by each repetition, the jars stay on the JVM\'s class path; an agent in the JVM options means a JVM per run', async () => {
  const cmd = ['java', '-jar', CONSOLE, '--class-path', '/w/.braid/build/classes:/w/lib/a.jar', '--class-path', '/w/target/test-classes', '--select-method', 'a.B#c'];
  const plan = (await repeatCommandFor(cmd, '/d/braid-launcher.jar'))!;
  assert.deepEqual(plan.freshClasses, ['/w/.braid/build/classes', '/w/target/test-classes']);
  assert.equal(plan.command[plan.command.indexOf('-cp') + 1], [CONSOLE, '/d/braid-launcher.jar', '/w/lib/a.jar'].join(path.delimiter), 'the console launcher\'s jar first, as java -jar has it');
  assert.deepEqual(plan.command.slice(-4), ['--fresh-classes', ['/w/.braid/build/classes', '/w/target/test-classes'].join(path.delimiter), '--select-method', 'a.B#c']);
  assert.equal(plan.sharedBecause, undefined);
  assert.ok(plan.sharedCommand[plan.sharedCommand.indexOf('-cp') + 1].endsWith('/w/.braid/build/classes:/w/lib/a.jar:/w/target/test-classes'));
  assert.ok(!plan.sharedCommand.includes('--fresh-classes'));
  const agent = (await repeatCommandFor(['java', '-javaagent:/x/other.jar=opt', ...cmd.slice(1)], 'L.jar'))!;
  assert.match(String(agent.sharedBecause), /JVM options load an agent \(-javaagent\)/);
  assert.deepEqual(agent.command, agent.sharedCommand);
});

test('firstRunOnlyNote: said when only first runs of JVMs failed, with enough later runs', () => {
  const base = { freshStatic: true, firstRuns: 1, firstFailed: 1, laterRuns: 30, laterFailed: 0 };
  assert.match(String(firstRunOnlyNote(base)), /only in the first run of a JVM \(1 of 1 first runs failed, 0 of 30 later runs\).*--fresh-jvm/);
  assert.equal(firstRunOnlyNote({ ...base, laterFailed: 2 }), undefined);
  assert.equal(firstRunOnlyNote({ ...base, firstFailed: 0 }), undefined);
  assert.equal(firstRunOnlyNote({ ...base, laterRuns: 3 }), undefined);
});

test('a static registry published before it is filled: in one JVM each repetition starts with fresh static state, so many runs fail and the root cause ranks first', { skip, timeout: 240_000 }, async () => {
  const ws = project();
  const summary = await record(ws, 'codecs.CodecRegistryTest#everyThreadFindsTheCodec', 30);
  assert.equal(summary.total, 30);
  assert.equal(summary.jvms, 1, 'one JVM for all runs');
  assert.deepEqual({ ...summary.repetitions, firstFailed: 0, laterFailed: 0 }, { freshStatic: true, firstRuns: 1, firstFailed: 0, laterRuns: 29, laterFailed: 0 });
  // with the classes shared, only the first run of the JVM could fail
  assert.ok(summary.failed >= 5, `${summary.failed} of 30 runs failed`);
  assert.ok(summary.repetitions!.laterFailed >= 4, 'runs after the first failed too');
  assert.ok(summary.passed > 0, 'some runs passed');
  const { result } = await analyzeInputsRanked([path.join(ws, 'traces')], {});
  const check = rootCauseFirst(result, bugLinesIn(path.join(ws, 'src/main/java')));
  assert.ok(check.ok, check.why);
});

const SYSTEM_LOADER = `package codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Loads the project's class through the system class loader, as some frameworks do. */
class SystemLoaderTest {
  @Test
  void findsTheCodecClass() throws Exception {
    Class<?> c = ClassLoader.getSystemClassLoader().loadClass("codecs.Codec");
    assertEquals("Codec", c.getSimpleName());
    assertEquals("ascii", CodecRegistry.lookup("ascii").name());
  }
}
`;

test('a test that needs the system class loader: the run is recorded again in a JVM of its own, and so are the next, and the summary says why', { skip, timeout: 240_000 }, async () => {
  const ws = project({ 'src/test/java/codecs/SystemLoaderTest.java': SYSTEM_LOADER });
  const notes: string[] = [];
  const summary = await record(ws, 'codecs.SystemLoaderTest#findsTheCodecClass', 3, (p) => p.note && notes.push(p.note));
  assert.equal(summary.total, 3);
  assert.equal(summary.passed, 3, 'every run passed: the failure of the shared-loader attempt is not kept; ' + summary.runs.map((r) => r.detail + ' ' + r.message + ' ' + readFileSync(r.logPath, 'utf8').slice(0, 1500)).join('; '));
  assert.equal(summary.jvms, 4, 'the first attempt, then a JVM per run');
  assert.equal(summary.repetitions?.freshStatic, false);
  assert.match(String(summary.repetitions?.sharedBecause), /loads the project's class codecs\.Codec through another class loader/);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /static state cannot start fresh in one JVM: .*each run is a JVM of its own from run 0 on/);
  const traces = readdirSync(path.join(ws, 'traces')).filter((f) => f.endsWith('.trace.jsonl'));
  assert.equal(traces.length, 3);
  assert.match(readFileSync(summary.runs[0].logPath, 'utf8'), /^(?![\s\S]*ClassNotFoundException)/, 'the kept log is the fresh JVM\'s');
});

const CONTRACT = `package codecs;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.Test;

/** The tests every registry implementation inherits. */
abstract class RegistryContract {
  abstract Codec find(String name);

  @Test
  void findsAsciiCodec() {
    assertNotNull(find("ascii"));
  }
}
`;

const INHERITS = `package codecs;

class StaticRegistryTest extends RegistryContract {
  @Override
  Codec find(String name) {
    return CodecRegistry.lookup(name);
  }
}
`;

test('inherited test methods: braid test finds Sub#inheritedMethod (the superclass in another file) and runs it', { skip, timeout: 120_000 }, async () => {
  const ws = project({ 'src/test/java/codecs/RegistryContract.java': CONTRACT, 'src/test/java/codecs/StaticRegistryTest.java': INHERITS });
  assert.deepEqual(locateTest(ws, 'StaticRegistryTest#findsAsciiCodec'), { file: path.join(ws, 'src/test/java/codecs/StaticRegistryTest.java'), className: 'codecs.StaticRegistryTest', framework: 'junit5', method: 'findsAsciiCodec' });
  assert.equal(locateTest(ws, 'codecs.StaticRegistryTest').className, 'codecs.StaticRegistryTest');
  assert.throws(() => locateTest(ws, 'StaticRegistryTest#nope'), /has no test method nope, not even inherited from codecs\.RegistryContract; its tests: findsAsciiCodec/);
  const summary = await record(ws, 'StaticRegistryTest#findsAsciiCodec', 2);
  assert.equal(summary.passed, 2, summary.runs.map((r) => r.detail).join('; '));
});
