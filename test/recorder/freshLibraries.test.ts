/**
 * Fresh static state of the libraries under test (issue 41, point 3; repeatedRuns.ts, libraryJars.ts):
 * the jars holding included classes are loaded afresh by each in-JVM repetition, with the project's
 * class folders, so a library's static default that may be set once (test/fixtures/static-library, the
 * shape of metrics-core's SharedMetricRegistries.setDefault) is unset at the start of every run, as in
 * a JVM of its own — with the jar shared (`--shared-libraries`, the behaviour before) every run after
 * the first fails. Where a jar not under test links to the library's classes, the jars stay shared from
 * that run on (said in a note and the summary), the project's classes still fresh. Builds the library
 * jars with javac and jar; uses Debian's junit5 console launcher. No timing assertions.
 */
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JUNIT_CONSOLE, junitToolsSkip, recordTest, ROOT } from '../helpers/junitProject';
import { tempDir } from '../helpers/traceBuilder';
import { RecordProgress } from '../../server/src/recorder/runs/recordRuns';
import { repeatCommandFor } from '../../server/src/recorder/java/repeatedRuns';
import { jarEntryNames } from '../../server/src/recorder/java/jarEntries';
import { entryClassName, jarRole, libraryJarsUnderTest } from '../../server/src/recorder/java/libraryJars';

const skip = junitToolsSkip();
const FIXTURE = path.join(ROOT, 'test/fixtures/static-library');

function javaFiles(dir: string, out: string[] = []): string[] {
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) javaFiles(p, out);
    else if (n.endsWith('.java')) out.push(p);
  }
  return out;
}

/** Compiles the fixture folder `src` (against `cp`) into the jar `jar`. */
function buildJar(src: string, jar: string, cp: string[] = []): void {
  const classes = tempDir('braid-static-library-classes-');
  made.push(classes);
  const c = spawnSync('javac', ['-g', '-nowarn', '-d', classes, ...(cp.length ? ['-cp', cp.join(path.delimiter)] : []), ...javaFiles(src)], { encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  mkdirSync(path.dirname(jar), { recursive: true });
  const j = spawnSync('jar', ['cf', jar, '-C', classes, '.'], { encoding: 'utf8' });
  assert.equal(j.status, 0, j.stderr);
}

const made: string[] = [];
after(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the fixture's project with lib/regconf-1.0.jar (the library under test) and lib/boot-1.0.jar (a jar that uses it). */
function project(): string {
  const ws = tempDir('braid-static-library-');
  made.push(ws);
  cpSync(path.join(FIXTURE, 'project'), ws, { recursive: true });
  const lib = path.join(ws, 'lib', 'regconf-1.0.jar');
  buildJar(path.join(FIXTURE, 'library'), lib);
  buildJar(path.join(FIXTURE, 'library-user'), path.join(ws, 'lib', 'boot-1.0.jar'), [lib]);
  return ws;
}

test('jarEntryNames and libraryJarsUnderTest: a jar holding an included class is the library under test; the test framework\'s jar never is', { skip }, async () => {
  const ws = project();
  const lib = path.join(ws, 'lib', 'regconf-1.0.jar');
  const boot = path.join(ws, 'lib', 'boot-1.0.jar');
  assert.ok((await jarEntryNames(lib)).includes('regconf/DefaultName.class'));
  assert.deepEqual((await libraryJarsUnderTest([JUNIT_CONSOLE, lib, boot], ['app', 'regconf'], [])), [lib]);
  assert.deepEqual((await libraryJarsUnderTest([lib, boot], ['regconf.DefaultName'], [])), [lib], 'a class named exactly');
  assert.deepEqual((await libraryJarsUnderTest([lib, boot], ['regconf'], ['regconf.DefaultName'])), [], 'its only class excluded');
  assert.deepEqual((await libraryJarsUnderTest([lib, boot], [], [])), [], 'no include list: no library is under test');
  assert.deepEqual((await libraryJarsUnderTest([JUNIT_CONSOLE, path.join(ws, 'lib', 'missing.jar')], ['org.junit', 'missing'], [])), [], 'JUnit stays shared; a missing jar too');
  const broken = path.join(ws, 'lib', 'broken.jar');
  writeFileSync(broken, 'not a zip\n');
  await assert.rejects(jarEntryNames(broken), (e: Error) => e.message.startsWith(`${broken}: `), 'the error names the file');
  assert.deepEqual((await libraryJarsUnderTest([broken, lib], ['regconf'], [])), [lib], 'a jar that is not a zip stays shared, the others are still read');
  assert.equal(jarRole(['org.junit.Test', 'regconf.X'], ['regconf'], []), 'framework');
  assert.equal(entryClassName('META-INF/versions/11/a/b/C.class'), 'a.b.C');
  assert.equal(entryClassName('a/module-info.class'), undefined);
  const cmd = ['java', '-jar', JUNIT_CONSOLE, '--class-path', [path.join(ws, 'classes'), lib, boot].join(path.delimiter), '--select-method', 'app.DefaultNameTest#setsTheDefaultName'];
  const plan = (await repeatCommandFor(cmd, '/d/braid-launcher.jar', ws, { include: ['app', 'regconf'], exclude: [] }))!;
  assert.deepEqual(plan.freshLibraries, [lib]);
  assert.equal(plan.command[plan.command.indexOf('-cp') + 1], [JUNIT_CONSOLE, '/d/braid-launcher.jar', boot].join(path.delimiter), 'the library jar is not on the JVM\'s class path');
  assert.equal(plan.command[plan.command.indexOf('--fresh-classes') + 1], [path.join(ws, 'classes'), lib].join(path.delimiter));
  assert.ok(plan.librariesSharedCommand!.includes([JUNIT_CONSOLE, '/d/braid-launcher.jar', lib, boot].join(path.delimiter)), 'the fallback: every jar shared');
  const shared = (await repeatCommandFor(cmd, '/d/braid-launcher.jar', ws, { include: ['app', 'regconf'], exclude: [], sharedLibraries: true }))!;
  assert.equal(shared.freshLibraries, undefined);
  assert.equal(shared.command[shared.command.indexOf('--fresh-classes') + 1], path.join(ws, 'classes'));
});

async function record(ws: string, spec: string, extra: string[], onProgress?: (p: RecordProgress) => void) {
  return (await recordTest(ws, spec, ['--runs', '4', '--seed', '5', '--include', 'regconf', ...extra], onProgress)).summary;
}

test('a library\'s static default set once: each repetition loads the library\'s jar afresh, so every run passes as in a JVM of its own; with --shared-libraries every run after the first fails', { skip, timeout: 480_000 }, async () => {
  const ws = project();
  const fresh = await record(ws, 'app.DefaultNameTest#setsTheDefaultName', []);
  assert.equal(fresh.total, 4);
  assert.equal(fresh.passed, 4, fresh.runs.map((r) => `${r.detail} ${r.message ?? ''}`).join('; '));
  assert.equal(fresh.jvms, 1, 'one JVM for all runs');
  assert.deepEqual(fresh.repetitions?.freshLibraries, ['regconf-1.0.jar']);
  assert.equal(fresh.repetitions?.freshStatic, true);

  const shared = await record(ws, 'app.DefaultNameTest#setsTheDefaultName', ['--shared-libraries']);
  assert.equal(shared.jvms, 1);
  assert.equal(shared.repetitions?.freshLibraries, undefined);
  assert.deepEqual(
    shared.runs.map((r) => r.outcome),
    ['pass', 'fail', 'fail', 'fail'],
  );
  assert.match(String(shared.runs[1].message), /Default name is already set: app/);
});

test('a jar not under test links to the library\'s class: the jars stay shared from that run on (said), the project\'s classes still fresh, one JVM', { skip, timeout: 480_000 }, async () => {
  const ws = project();
  const notes: string[] = [];
  const summary = await record(ws, 'app.BootTest#bootSetsTheDefaultName', [], (p) => p.note && notes.push(p.note));
  assert.equal(summary.total, 4);
  assert.equal(summary.jvms, 2, 'the first attempt, then one JVM with the jars shared');
  assert.equal(summary.repetitions?.freshStatic, true, 'the project\'s classes are still loaded afresh');
  assert.equal(summary.repetitions?.freshLibraries, undefined);
  assert.match(String(summary.repetitions?.librariesSharedBecause), /the library class regconf\.DefaultName \(regconf-1\.0\.jar, loaded afresh per repetition\) is loaded through another class loader/);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /the libraries' static state cannot start fresh in one JVM: .*regconf-1\.0\.jar stays shared by the repetitions from run 0 on/);
  // the first attempt's failure is not kept: run 0 passes; the shared default fails the later runs
  assert.deepEqual(
    summary.runs.map((r) => r.outcome),
    ['pass', 'fail', 'fail', 'fail'],
  );
  assert.match(readFileSync(summary.runs[0].logPath, 'utf8'), /^(?![\s\S]*NoClassDefFoundError)/, 'the kept log is the shared-jar JVM\'s');
});
