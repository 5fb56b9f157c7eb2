/**
 * Issue 11, recorder side: happens-before hand-offs (SND/RCV) of java.util.concurrent, FAIL and OUT
 * events, the runner's failAt, library calls as accesses (loc.call), test code (loc.harness) — on
 * test/fixtures/java/lifecycle/HandOffs.java, whose lines are marked `// @at <name>`.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir, prepare, record, workDir } from './recorderHarness';

before(() => prepare());

const source = readFileSync(path.join(fixturesDir, 'lifecycle', 'HandOffs.java'), 'utf8').split('\n');
function lineOf(name: string): number {
  const k = source.findIndex((l) => l.includes(`// @at ${name}`));
  assert.ok(k >= 0, `marker ${name}`);
  return k + 1;
}

interface Loc {
  id: number;
  file: string;
  line: number;
  method: string;
  call?: string;
  harness?: boolean;
}

function read(file: string) {
  const locs = new Map<number, Loc>();
  const vars = new Map<number, string>();
  const events: unknown[][] = [];
  const outcomes: Record<string, unknown>[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    if (!line) continue;
    const v = JSON.parse(line);
    if (Array.isArray(v)) events.push(v);
    else if (v.def === 'loc') locs.set(v.id, v);
    else if (v.def === 'var') vars.set(v.id, v.name);
    else if (v.outcome) outcomes.push(v);
  }
  const at = (e: unknown[], k: number) => locs.get(e[k] as number);
  return { locs, vars, events, outcomes, at };
}

test('hand-offs: submit → task → Future.get, countDown → await, barrier, CompletableFuture', async () => {
  const s = await record('handoffs', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0 });
  const t = read(s.traces[0]);
  const sync = t.events.filter((e) => e[2] === 'SND' || e[2] === 'RCV');
  const on = (kind: string, line: number) => sync.filter((e) => e[2] === kind && t.at(e, 4)?.line === line);
  const main = t.events.find((e) => t.at(e, 4)?.line === lineOf('submit'))![1];

  // submit: SND by main at the submit line; the task starts with RCV of that token on another thread
  const [submitted] = on('SND', lineOf('submit')).filter((e) => e[1] === main);
  assert.ok(submitted, 'SND at submit');
  const token = submitted[3];
  const started = sync.find((e) => e[2] === 'RCV' && e[3] === token && e[1] !== main);
  assert.ok(started && (started[0] as number) > (submitted[0] as number), 'the task receives the submit token');
  const ended = sync.find((e) => e[2] === 'SND' && e[3] === token && e[1] === started[1] && (e[0] as number) > (started[0] as number));
  assert.ok(ended, 'the task sends its token when it ends');
  const [got] = on('RCV', lineOf('get'));
  assert.equal(got[1], main);
  assert.equal(got[3], token, 'Future.get receives the task token');
  assert.ok((got[0] as number) > (ended[0] as number));

  // latch: countDown (pool thread) → await (main), one token; main's SND on that line hands off the lambda
  const [down] = on('SND', lineOf('countDown')).filter((e) => e[1] !== main);
  const [awaited] = on('RCV', lineOf('await'));
  assert.ok(down && awaited);
  assert.notEqual(down[1], main);
  assert.equal(awaited[1], main);
  assert.equal(down[3], awaited[3]);

  // barrier: each party sends on arrival and receives on release, same token (barrier + generation)
  const arrivals = [...on('SND', lineOf('barrier-worker')), ...on('SND', lineOf('barrier-main'))];
  assert.deepEqual(new Set(arrivals.map((e) => e[1] === main)), new Set([true, false]), 'both parties arrive');
  const releases = [...on('RCV', lineOf('barrier-worker')), ...on('RCV', lineOf('barrier-main'))];
  assert.equal(arrivals.length, 2);
  assert.equal(releases.length, 2);
  assert.equal(new Set([...arrivals, ...releases].map((e) => e[3])).size, 1);

  // CompletableFuture: join receives a token that another thread sent
  const [joined] = on('RCV', lineOf('join'));
  assert.ok(joined);
  assert.ok(sync.some((e) => e[2] === 'SND' && e[3] === joined[3] && e[1] !== main), 'the dependant stage sends the joined token');
});

test('library calls: one R or W of the collection or builder at the call line, views count as their map', async () => {
  const s = await record('libcalls', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0 });
  const t = read(s.traces[0]);
  const calls = t.events
    .filter((e) => (e[2] === 'R' || e[2] === 'W') && t.at(e, 4)?.call)
    .map((e) => ({ type: e[2], var: t.vars.get(e[3] as number), line: t.at(e, 4)!.line, call: t.at(e, 4)!.call, obj: e[6] }));
  const put = calls.find((c) => c.line === lineOf('put'));
  assert.deepEqual({ type: put?.type, var: put?.var, call: put?.call }, { type: 'W', var: 'java.util.HashMap', call: 'java.util.HashMap.put' });
  const get = calls.find((c) => c.line === lineOf('mapget'));
  assert.deepEqual({ type: get?.type, call: get?.call }, { type: 'R', call: 'java.util.HashMap.get' });
  const keys = calls.filter((c) => c.line === lineOf('keys')).map((c) => c.call);
  assert.deepEqual([...new Set(keys)].sort(), ['java.util.HashMap.keySet', 'java.util.Iterator.hasNext', 'java.util.Iterator.next', 'java.util.Set.iterator']);
  assert.ok(calls.filter((c) => c.line === lineOf('keys')).every((c) => c.obj === put!.obj && c.type === 'R'), 'the key set and its iterator are the map');
  const appends = calls.filter((c) => c.line === lineOf('append'));
  assert.equal(appends.length, 2);
  assert.ok(appends.every((c) => c.type === 'W' && c.var === 'java.lang.StringBuilder' && c.call === 'java.lang.StringBuilder.append'));

  const off = await record('libcalls-off', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0, agentOptions: ['libraryCalls=false'] });
  const u = read(off.traces[0]);
  assert.equal([...u.locs.values()].filter((l) => l.call).length, 0, 'libraryCalls=false records no library call');
  assert.ok(u.events.some((e) => e[2] === 'SND'), 'hand-offs are still recorded');
});

test('library calls on thread-safe collections (ConcurrentHashMap, Vector, synchronized wrappers, copy-on-write, Hashtable): each call is one R or W', async () => {
  const src = readFileSync(path.join(fixturesDir, 'lifecycle', 'SafeCollections.java'), 'utf8').split('\n');
  const at = (name: string) => src.findIndex((l) => l.includes(`// @at ${name}`)) + 1;
  const s = await record('safecalls', 'lifecycle.SafeCollections', { runs: 1, include: ['lifecycle'], noise: 0 });
  const t = read(s.traces[0]);
  const calls = t.events
    .filter((e) => (e[2] === 'R' || e[2] === 'W') && t.at(e, 4)?.call)
    .map((e) => ({ type: e[2], var: t.vars.get(e[3] as number), line: t.at(e, 4)!.line, call: t.at(e, 4)!.call, obj: e[6] }));
  const one = (name: string) => {
    const c = calls.filter((x) => x.line === at(name));
    assert.equal(c.length, 1, `${name}: ${JSON.stringify(c)}`);
    return [c[0].type, c[0].var, c[0].call];
  };
  const CHM = 'java.util.concurrent.ConcurrentHashMap';
  assert.deepEqual(one('chm-contains'), ['R', CHM, `${CHM}.containsKey`]);
  assert.deepEqual(one('chm-put'), ['W', CHM, `${CHM}.put`]);
  assert.deepEqual(one('map-putifabsent'), ['W', CHM, `${CHM}.putIfAbsent`], 'through the Map interface too');
  // keyed calls on a thread-safe map are accesses of the key: containsKey("a") and put("a") meet, putIfAbsent("b") does not
  const objAt = (name: string) => calls.find((x) => x.line === at(name))!.obj;
  assert.equal(objAt('chm-contains'), objAt('chm-put'), 'the same key: the same location');
  assert.notEqual(objAt('chm-put'), objAt('map-putifabsent'), 'another key: another location');
  // key "a", key "b", and the whole map (size() at the end)
  assert.equal(new Set(calls.filter((c) => c.var === CHM).map((c) => c.obj)).size, 3, 'two keys and the whole map');
  assert.deepEqual(one('vector-add'), ['W', 'java.util.Vector', 'java.util.Vector.addElement']);
  assert.deepEqual(one('vector-size'), ['R', 'java.util.Vector', 'java.util.Vector.size']);
  const SYNC = 'java.util.Collections$SynchronizedCollection';
  assert.deepEqual(one('sync-add'), ['W', SYNC, `${SYNC}.add`]);
  assert.deepEqual(one('sync-get'), ['R', SYNC, `${SYNC}.get`]);
  assert.deepEqual(one('cow-add'), ['W', 'java.util.concurrent.CopyOnWriteArrayList', 'java.util.concurrent.CopyOnWriteArrayList.addIfAbsent']);
  assert.deepEqual(one('table-put'), ['W', 'java.util.Hashtable', 'java.util.Hashtable.put']);
});

test('array aliases: an array stored into a field keeps the field\'s name through a local copy; an array never in a field keeps its type name', async () => {
  const src = readFileSync(path.join(fixturesDir, 'lifecycle', 'ArrayAlias.java'), 'utf8').split('\n');
  const at = (name: string) => src.findIndex((l) => l.includes(`// @at ${name}`)) + 1;
  const s = await record('arrayalias', 'lifecycle.ArrayAlias', { runs: 1, include: ['lifecycle'], noise: 0 });
  const t = read(s.traces[0]);
  const varAt = (name: string) => {
    const e = t.events.filter((x) => x[2] === 'W' && t.at(x, 4)?.line === at(name) && typeof x[7] === 'number' && (x[7] as number) >= 0);
    assert.equal(e.length, 1, `${name}: one element write`);
    return t.vars.get(e[0][3] as number);
  };
  assert.equal(varAt('field-write'), 'lifecycle.ArrayAlias.copy[]');
  assert.equal(varAt('local-write'), 'lifecycle.ArrayAlias.copy[]', 'through the local: the field\'s name');
  assert.equal(varAt('unaliased'), 'java.lang.Object[]');
});

test('failure points and output: assertion creation, exit status, output line, failAt of --fail-on-output', async () => {
  const s = await record('failpoints', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0, failOnOutput: /^result 43$/m });
  const r = s.runs[0];
  assert.equal(r.reason, 'exit-code');
  const t = read(r.traces[0]);
  const fails = t.events.filter((e) => e[2] === 'FAIL');
  assert.deepEqual(
    fails.map((e) => [t.at(e, 3)?.line, e[5]]),
    [
      [lineOf('assertion'), 'assert'],
      [lineOf('exit'), 'exit'],
    ],
  );
  assert.equal(fails[0][6], 'java.lang.AssertionError: expected 43');
  assert.equal(fails[1][6], 'exit status 3');
  const out = t.events.filter((e) => e[2] === 'OUT');
  const line = out.find((e) => e[4] === 'result 43');
  assert.ok(line, 'the printed line is an OUT event');
  assert.equal(line[3], 1, 'on System.out');
  assert.ok((line[0] as number) < (fails[0][0] as number));
  assert.equal(t.outcomes.at(-1)?.failAt, line[0], 'failAt is the index of the matching OUT event');
});

test('test code: classes named by the agent option testCode have loc.harness', async () => {
  const s = await record('harness', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0, agentOptions: ['testCode=lifecycle.HandOffs'] });
  const t = read(s.traces[0]);
  const own = [...t.locs.values()].filter((l) => l.file === 'lifecycle/HandOffs.java');
  assert.ok(own.length > 5);
  assert.ok(own.every((l) => l.harness === true));
  const plain = await record('no-harness', 'lifecycle.HandOffs', { runs: 1, include: ['lifecycle'], noise: 0 });
  assert.ok([...read(plain.traces[0]).locs.values()].every((l) => l.harness === undefined));
});

const JUNIT4 = '/usr/share/java/junit4.jar';
const HAMCREST = '/usr/share/java/hamcrest-core.jar';

test('JUnit 4: an annotated class is test code; a failing Assert call is a failure point', { skip: !existsSync(JUNIT4) && 'no /usr/share/java/junit4.jar (Debian junit4)' }, async () => {
  const dir = path.join(workDir, 'junit4');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'src', 'jt'), { recursive: true });
  const src = [
    'package jt;',
    'public class SumTest {',
    '  static int total;',
    '  @org.junit.Test public void sum() {',
    '    total = total + 2;',
    '    org.junit.Assert.assertEquals("sum", 3, total); // @at assertEquals',
    '  }',
    '  public static void main(String[] a) {',
    '    try { new SumTest().sum(); } catch (AssertionError e) { System.exit(1); }',
    '  }',
    '}',
  ];
  writeFileSync(path.join(dir, 'src', 'jt', 'SumTest.java'), src.join('\n'));
  const cp = [JUNIT4, HAMCREST].filter((j) => existsSync(j)).join(':');
  const javac = spawnSync('javac', ['-g', '-cp', cp, '-d', path.join(dir, 'classes'), path.join(dir, 'src', 'jt', 'SumTest.java')], { encoding: 'utf8' });
  assert.equal(javac.status, 0, javac.stderr);
  const s = await record('junit4', 'jt.SumTest', { runs: 1, include: ['jt'], noise: 0, command: ['java', '-cp', `${path.join(dir, 'classes')}:${cp}`, 'jt.SumTest'] });
  const t = read(s.runs[0].traces[0]);
  const own = [...t.locs.values()].filter((l) => l.file === 'jt/SumTest.java');
  assert.ok(own.length > 0 && own.every((l) => l.harness === true), 'locations of the @Test class are test code');
  const fails = t.events.filter((e) => e[2] === 'FAIL');
  assert.deepEqual(fails.map((e) => [t.at(e, 3)?.line, e[5]]), [[6, 'assert'], [9, 'exit']]);
  assert.match(fails[0][6] as string, /AssertionError: sum expected:<3> but was:<2>/);
});

test('output of a JVM that runs no recorded class creates no trace (a build tool JVM); the run never reached the program (issue 30)', async () => {
  const s = await record('no-recorded-class', 'lifecycle.HandOffs', { runs: 1, include: ['no.such.pkg'], noise: 0 });
  assert.equal(s.runs.length, 0, 'no events, no trace file from the agent: not a run of the program');
  assert.equal(s.notReached?.stopped, true);
  assert.match(s.notReached!.reason, /no included class was instrumented \(--include no\.such\.pkg\)/);
});
