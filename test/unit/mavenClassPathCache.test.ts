/**
 * A warm `braid test` under Maven reuses the test class path an earlier call wrote while it is
 * current (mavenClassPathCache.ts): newer than every pom of the tree, .mvn/maven.config and the
 * user's settings, every entry on disk. Hand-made project folders, mtimes set explicitly.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropMavenBuildStamp, mavenBuildKey, mavenBuildUpToDate, mavenClassPathCurrent, mavenClassPathInputs, writeMavenBuildStamp } from '../../server/src/recorder/java/mavenClassPathCache';
import { inferTestCommand } from '../../server/src/recorder/java/testCommand';

const TEST = 'core/src/test/java/bank/AccountTest.java';
const BUILD_CLASSPATH = 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath';

/** A two-module reactor with a launcher jar, a local "repository" jar and a fake home; every file dated `t0`. */
function reactor(t0: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-cpcache-'));
  const files: Record<string, string> = {
    'pom.xml': '<project><modules><module>core</module><module>util</module></modules></project>',
    'core/pom.xml': '<project/>',
    'util/pom.xml': '<project/>',
    'lib/junit-platform-console-standalone-1.9.2.jar': '',
    'repo/a/a-1.jar': '',
    'home/.m2/placeholder': '',
    [TEST]: 'class AccountTest {}',
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
    utimesSync(path.join(dir, f), t0, t0);
  }
  const cpFile = path.join(dir, '.braid', 'build', 'maven', 'core.test-classpath');
  const home = path.join(dir, 'home');
  return { dir, cpFile, home };
}

/** Writes the class path file naming `entries`, dated `t`. */
function writeClassPath(cpFile: string, entries: string[], t: number) {
  mkdirSync(path.dirname(cpFile), { recursive: true });
  writeFileSync(cpFile, entries.join(path.delimiter));
  utimesSync(cpFile, t, t);
}

const touch = (file: string, t: number) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '<project/>');
  utimesSync(file, t, t);
};

test('Maven class path cache: current only while newer than every input and every entry exists', (t) => {
  const t0 = 1_700_000_000;
  const { dir, cpFile, home } = reactor(t0);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const jar = path.join(dir, 'repo', 'a', 'a-1.jar');
  const inputs = () => mavenClassPathInputs(dir, dir, home);
  // every pom of the tree (not .braid's or target's), Maven's per-project configuration and the user's settings
  mkdirSync(path.join(dir, 'core', 'target'), { recursive: true });
  writeFileSync(path.join(dir, 'core', 'target', 'pom.xml'), '<project/>');
  const named = inputs().map((f) => path.relative(dir, f)).sort();
  assert.deepEqual(named, ['.mvn/maven.config', '.mvn/extensions.xml', 'core/pom.xml', 'home/.m2/settings.xml', 'pom.xml', 'util/pom.xml'].sort());

  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false, 'no class path file yet');
  writeClassPath(cpFile, [jar, path.join(dir, 'util', 'target', 'classes')], t0 + 10);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false, 'an entry is missing (the reactor module not compiled yet)');
  mkdirSync(path.join(dir, 'util', 'target', 'classes'), { recursive: true });
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), true);

  // another module's pom changed after the class path was written
  touch(path.join(dir, 'util', 'pom.xml'), t0 + 20);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false);
  writeClassPath(cpFile, [jar], t0 + 30);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), true);
  // a new .mvn/maven.config (e.g. another local repository), then the user's settings
  touch(path.join(dir, '.mvn', 'maven.config'), t0 + 40);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false);
  writeClassPath(cpFile, [jar], t0 + 50);
  touch(path.join(home, '.m2', 'settings.xml'), t0 + 60);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false);
  writeClassPath(cpFile, [jar], t0 + 70);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), true);
  // the local repository was cleaned
  rmSync(jar);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false);
  // an empty class path file is never reused
  writeClassPath(cpFile, [], t0 + 80);
  assert.equal(mavenClassPathCurrent(cpFile, inputs()), false);
});

test('Maven class path cache: a file written with it (the effective POM) must be current too', (t) => {
  const t0 = 1_700_000_000;
  const { dir, cpFile, home } = reactor(t0);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const jar = path.join(dir, 'repo', 'a', 'a-1.jar');
  const effectivePom = path.join(path.dirname(cpFile), 'core.effective-pom.xml');
  writeClassPath(cpFile, [jar], t0 + 10);
  const inputs = mavenClassPathInputs(dir, dir, home);
  assert.equal(mavenClassPathCurrent(cpFile, inputs, [effectivePom]), false, 'no effective POM');
  writeFileSync(effectivePom, '<project/>');
  utimesSync(effectivePom, t0 + 10, t0 + 10);
  assert.equal(mavenClassPathCurrent(cpFile, inputs, [effectivePom]), true);
  touch(path.join(dir, 'core', 'pom.xml'), t0 + 15);
  assert.equal(mavenClassPathCurrent(cpFile, inputs, [effectivePom]), false);
});

test('braid test under Maven: the build step skips build-classpath while the last class path is current, resolves again after a pom change or with freshClassPath', (t) => {
  const t0 = 1_700_000_000;
  const { dir, cpFile } = reactor(t0);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const target = { file: path.join(dir, TEST), className: 'bank.AccountTest', method: 'transfer', framework: 'junit5' as const };
  const step = (o: { freshClassPath?: boolean } = {}) => inferTestCommand(dir, target, { javaLibs: [], ...o }).prepare[0];
  // first call: compile and resolve in one Maven start
  assert.ok(step().command.includes(BUILD_CLASSPATH));
  // an earlier call wrote it (the real time: the user's home settings are not under our control here)
  const now = Date.now() / 1000;
  writeClassPath(cpFile, [path.join(dir, 'repo', 'a', 'a-1.jar')], now + 5);
  const warm = step();
  assert.deepEqual(warm.command, ['mvn', '-q', '-f', path.join(dir, 'pom.xml'), '-pl', 'core', '-am', 'test-compile']);
  // still the fallback of one Maven start per run if the step fails
  assert.equal(warm.orElse?.classPathFile, cpFile);
  // recording.json keeps the full step: a fix check that changes a pom gets its own class path
  assert.deepEqual(warm.rerun, step({ freshClassPath: true }).command);
  assert.ok(step({ freshClassPath: true }).command.includes(BUILD_CLASSPATH));
  touch(path.join(dir, 'core', 'pom.xml'), now + 10);
  assert.ok(step().command.includes(BUILD_CLASSPATH), 'the module pom changed after the class path was written');
});

/** Dates every folder under `dir` (not `dir` itself) `t`, as if the tree had been there since. */
function dateFolders(dir: string, t: number) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    dateFolders(path.join(dir, e.name), t);
    utimesSync(path.join(dir, e.name), t, t);
  }
}

test('Maven build stamp: a warm call skips the build while no file of the tree, no input, no class path jar changed since Braid\'s build and its output is there', (t) => {
  const t0 = 1_700_000_000;
  const { dir, cpFile, home } = reactor(t0);
  // the local repository outside the tree (as ~/.m2 is)
  const repo = mkdtempSync(path.join(tmpdir(), 'braid-buildstamp-repo-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  rmSync(path.join(dir, 'repo'), { recursive: true });
  const jar = path.join(repo, 'a-1.jar');
  touch(jar, t0);
  const testClass = path.join(dir, 'core', 'target', 'test-classes', 'bank', 'AccountTest.class');
  touch(testClass, t0 + 105);
  writeClassPath(cpFile, [jar, path.join(dir, 'core', 'target', 'test-classes')], t0 + 105);
  dateFolders(dir, t0);
  const stamp = path.join(path.dirname(cpFile), 'core.build-stamp');
  const key = mavenBuildKey(['mvn', '-f', path.join(dir, 'pom.xml'), '-pl', 'core', '-am', 'test-compile']);
  const inputs = mavenClassPathInputs(dir, dir, home);
  const upToDate = () => mavenBuildUpToDate(stamp, key, dir, inputs, [testClass], cpFile);
  assert.equal(upToDate(), undefined, 'no stamp: build');
  writeMavenBuildStamp(stamp, key, (t0 + 100) * 1000, (t0 + 110) * 1000);
  assert.equal(upToDate()?.getTime(), (t0 + 100) * 1000);
  assert.equal(mavenBuildUpToDate(stamp, mavenBuildKey(['./mvnw', 'test-compile']), dir, inputs, [testClass], cpFile), undefined, 'another build command');
  // what the build and Braid write does not count: a module folder (target/ created), target/, .braid/
  touch(path.join(dir, 'core', 'target', 'classes', 'bank', 'Account.class'), t0 + 200);
  touch(path.join(dir, '.braid', 'traces', 'x.trace.jsonl'), t0 + 200);
  utimesSync(path.join(dir, 'core'), t0 + 200, t0 + 200);
  assert.ok(upToDate(), 'build output and Braid\'s files are not inputs');
  // a source edited after the build started
  const src = path.join(dir, TEST);
  utimesSync(src, t0 + 100, t0 + 100);
  assert.equal(upToDate(), undefined, 'a source as new as the build start');
  utimesSync(src, t0, t0);
  assert.ok(upToDate());
  // a file added or removed: its folder's time
  const folder = path.join(dir, 'core', 'src', 'test', 'java', 'bank');
  utimesSync(folder, t0 + 200, t0 + 200);
  assert.equal(upToDate(), undefined, 'a file added to or removed from a source folder');
  utimesSync(folder, t0, t0);
  // a resource, another module's pom, Maven's per-project configuration, the user's settings
  for (const f of [path.join(dir, 'util', 'src', 'main', 'resources', 'app.properties'), path.join(dir, '.mvn', 'maven.config'), path.join(home, '.m2', 'settings.xml')]) {
    touch(f, t0 + 200);
    assert.equal(upToDate(), undefined, `${path.relative(dir, f)} changed`);
    rmSync(f);
    dateFolders(dir, t0);
  }
  utimesSync(path.join(dir, 'core'), t0 + 200, t0 + 200);
  assert.ok(upToDate());
  // a class path jar newer than the build's end (a SNAPSHOT installed since); one downloaded during the build is fine
  utimesSync(jar, t0 + 108, t0 + 108);
  assert.ok(upToDate(), 'downloaded by the build itself');
  utimesSync(jar, t0 + 300, t0 + 300);
  assert.equal(upToDate(), undefined, 'a jar replaced after the build');
  utimesSync(jar, t0, t0);
  // the output gone (mvn clean)
  rmSync(testClass);
  assert.equal(upToDate(), undefined, 'the test class is gone');
  touch(testClass, t0 + 105);
  assert.ok(upToDate());
  // a build that starts removes the stamp (a failed or stopped build leaves none)
  dropMavenBuildStamp(stamp);
  assert.equal(upToDate(), undefined);
});

test('braid test under Maven: the plan\'s build step is skipped (upToDate says why) while the stamp is current, never with freshClassPath', (t) => {
  const t0 = 1_700_000_000;
  const { dir, cpFile } = reactor(t0);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const target = { file: path.join(dir, TEST), className: 'bank.AccountTest', method: 'transfer', framework: 'junit5' as const };
  const step = (o: { freshClassPath?: boolean } = {}) => inferTestCommand(dir, target, { javaLibs: [], ...o }).prepare[0];
  const first = step();
  assert.equal(first.upToDate, undefined);
  assert.equal(first.stamp?.file, path.join(path.dirname(cpFile), 'core.build-stamp'));
  // the real time: the user's home settings are not under our control here
  const now = Date.now();
  touch(path.join(dir, 'core', 'target', 'test-classes', 'bank', 'AccountTest.class'), now / 1000 + 5);
  writeClassPath(cpFile, [path.join(dir, 'repo', 'a', 'a-1.jar')], now / 1000 + 5);
  writeMavenBuildStamp(first.stamp!.file, first.stamp!.build, now + 2000, now + 6000);
  const warm = step();
  assert.match(warm.upToDate ?? '', /^no file under .* changed since Braid's build at \d\d:\d\d:\d\d, its output is there \(--fresh-class-path builds anyway\)$/);
  // recording.json still gets the full step (a fix check builds)
  assert.ok(warm.rerun?.includes(BUILD_CLASSPATH));
  assert.equal(step({ freshClassPath: true }).upToDate, undefined);
  touch(path.join(dir, TEST), now / 1000 + 10);
  assert.equal(step().upToDate, undefined, 'the test edited after the build');
});
