/**
 * The command that runs one test (Maven / Gradle / JUnit console launcher / TestNG) inferred from
 * hand-made project folders, the tests found in Java sources, and the Record Runs suggestion.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classPathProblem, commandLine, inferTestCommand, mainClassOf, mavenBuildFailed, mavenReactor, suggestRecordCommand, surefireSettingsIn, TestCommandError } from '../../server/src/recorder/java/testCommand';
import { blankJava, findTests } from '../../server/src/recorder/java/testDiscovery';

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-testcmd-'));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

const TEST = 'src/test/java/bank/AccountTest.java';
const target = (dir: string, method?: string) => ({ file: path.join(dir, TEST), className: 'bank.AccountTest', method, framework: 'junit5' as const });

test('Maven project without a console launcher (or --via-build-tool, or TestNG): mvn -o -q test -Dtest=Class#method each run, in the folder of pom.xml', (t) => {
  const dir = project({ 'pom.xml': '<project/>', [TEST]: 'class AccountTest {}' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = inferTestCommand(dir, target(dir, 'transfer'), { javaLibs: [] });
  assert.equal(p.tool, 'maven');
  assert.deepEqual(p.command.slice(0, 5), ['mvn', '-o', '-q', 'test', '-Dtest=AccountTest#transfer']);
  assert.equal(p.cwd, dir);
  assert.deepEqual(p.prepare, []);
  assert.equal(p.name, 'AccountTest.transfer');
  assert.deepEqual(p.include, ['bank']);
  assert.equal(inferTestCommand(dir, target(dir), { javaLibs: [] }).command[4], '-Dtest=AccountTest', 'a whole class');
  mkdirSync(path.join(dir, 'lib'));
  writeFileSync(path.join(dir, 'lib', 'junit-platform-console-standalone-1.9.2.jar'), '');
  assert.deepEqual(inferTestCommand(dir, target(dir, 'transfer'), { javaLibs: [], viaBuildTool: true }), p);
  assert.deepEqual(inferTestCommand(dir, { ...target(dir, 'transfer'), framework: 'testng' }, { javaLibs: [] }).command, p.command);
});

test('Maven project with a console launcher: test-compile, the test class path resolved once, then the launcher each run (mvn each run if that fails)', (t) => {
  const dir = project({ 'pom.xml': '<project/>', 'lib/junit-platform-console-standalone-1.9.2.jar': '', [TEST]: 'class AccountTest {}' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const launcher = path.join(dir, 'lib', 'junit-platform-console-standalone-1.9.2.jar');
  const cpFile = path.join(dir, '.braid', 'build', 'maven', 'root.test-classpath');
  const p = inferTestCommand(dir, target(dir, 'transfer'), { javaLibs: [] });
  assert.equal(p.tool, 'maven');
  assert.deepEqual(p.prepare, [
    // built and the class path resolved in one Maven start, which may download on first use (a fresh ~/.m2); the recorded runs never do (-o)
    {
      command: ['mvn', '-q', 'test-compile', 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath', '-Dmdep.includeScope=test', `-Dmdep.outputFile=${cpFile}`],
      cwd: dir,
      orElse: { command: ['mvn', '-o', '-q', 'test', '-Dtest=AccountTest#transfer', '-Dsurefire.failIfNoSpecifiedTests=false', '-DfailIfNoTests=false'], classPathFile: cpFile },
      // written after a successful build, so that a later call with no edit skips it (mavenClassPathCache.ts)
      stamp: { file: path.join(dir, '.braid', 'build', 'maven', 'root.build-stamp'), build: 'mvn\0test-compile' },
    },
  ]);
  // a failure of the build itself is a failed build; a class path goal that cannot be had is not
  assert.ok(mavenBuildFailed('[ERROR] COMPILATION ERROR :\n[ERROR] /w/src/A.java:[3,1] class, interface, or enum expected'));
  assert.ok(mavenBuildFailed('[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project a:b:jar:1'));
  assert.ok(!mavenBuildFailed('[ERROR] Plugin org.apache.maven.plugins:maven-dependency-plugin:9.9.9-none or one of its dependencies could not be resolved'));
  assert.deepEqual(p.command, [
    'java', '-jar', launcher, '--disable-banner', '--disable-ansi-colors', '--details=summary', '--fail-if-no-tests',
    '--class-path', path.join(dir, 'target', 'test-classes'), '--class-path', path.join(dir, 'target', 'classes'), '--class-path', `@${cpFile}`,
    '--select-method', 'bank.AccountTest#transfer',
  ]);
  assert.deepEqual(inferTestCommand(dir, target(dir), { javaLibs: [] }).command.slice(-2), ['--select-class', 'bank.AccountTest']);
  // a module: its own class path file, its own folders
  mkdirSync(path.join(dir, 'core'));
  writeFileSync(path.join(dir, 'core', 'pom.xml'), '<project/>');
  const m = inferTestCommand(dir, { ...target(dir, 'transfer'), file: path.join(dir, 'core', TEST) }, { javaLibs: [] });
  assert.equal(m.cwd, path.join(dir, 'core'));
  assert.ok(m.prepare[0].command.at(-1)!.endsWith(path.join('maven', 'core.test-classpath')));
  assert.ok(m.command.includes(path.join(dir, 'core', 'target', 'test-classes')));
  // a module of the reactor (listed in the top pom): the steps from the top pom, for the module and what it depends on
  writeFileSync(path.join(dir, 'pom.xml'), '<project><modules><!-- <module>old</module> --><module>core</module></modules></project>');
  assert.deepEqual(mavenReactor(dir, path.join(dir, 'core')), { top: dir, module: 'core' });
  assert.equal(mavenReactor(dir, dir), undefined);
  const r = inferTestCommand(dir, { ...target(dir, 'transfer'), file: path.join(dir, 'core', TEST) }, { javaLibs: [] });
  const reactor = ['-f', path.join(dir, 'pom.xml'), '-pl', 'core', '-am'];
  assert.deepEqual(r.prepare.map((s) => [s.command.slice(0, 9), s.cwd]), [[['mvn', '-q', ...reactor, 'test-compile', 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath'], dir]]);
  assert.deepEqual(r.prepare[0].orElse?.command.slice(0, 9), ['mvn', '-o', '-q', ...reactor, 'test']);
  assert.equal(r.cwd, path.join(dir, 'core'), 'the test runs in its module, as surefire runs it');
  assert.equal(r.notes, undefined);
  assert.equal(r.prepare[0].surefire, undefined, 'no surefire settings: no effective POM asked for');
  assert.ok(!r.prepare[0].command.some((a) => a.includes('maven-help-plugin')));
  // surefire settings the runs apply: the same Maven start writes the effective POM they are read from (surefireSettings.ts)
  writeFileSync(path.join(dir, 'core', 'pom.xml'), '<project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><!-- <argLine>-Dold</argLine> --><systemPropertyVariables><a>1</a></systemPropertyVariables><workingDirectory>w</workingDirectory></configuration></plugin></plugins></build></project>');
  assert.deepEqual(surefireSettingsIn(dir, path.join(dir, 'core')), ['systemPropertyVariables (core/pom.xml)', 'workingDirectory (core/pom.xml)']);
  const s = inferTestCommand(dir, { ...target(dir, 'transfer'), file: path.join(dir, 'core', TEST) }, { javaLibs: [] });
  assert.equal(s.notes, undefined, 'settings that are applied are not in the note');
  const effectivePom = path.join(dir, '.braid', 'build', 'maven', 'core.effective-pom.xml');
  assert.deepEqual(s.prepare[0].surefire, { effectivePom, module: path.join(dir, 'core') });
  assert.deepEqual(s.prepare[0].command.slice(-2), ['org.apache.maven.plugins:maven-help-plugin:3.5.2:effective-pom', `-Doutput=${effectivePom}`]);
  // an argLine property (surefire's default) in the parent counts; settings outside the list stay a note
  writeFileSync(path.join(dir, 'pom.xml'), '<project><properties><argLine>-ea</argLine></properties><modules><module>core</module></modules><build><pluginManagement><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><classpathDependencyExcludes><e>a:b</e></classpathDependencyExcludes></configuration></plugin></plugins></pluginManagement></build></project>');
  writeFileSync(path.join(dir, 'core', 'pom.xml'), '<project/>');
  assert.deepEqual(surefireSettingsIn(dir, path.join(dir, 'core')), ['argLine (pom.xml)', 'classpathDependencyExcludes (pom.xml)']);
  const n = inferTestCommand(dir, { ...target(dir, 'transfer'), file: path.join(dir, 'core', TEST) }, { javaLibs: [] });
  assert.ok(n.prepare[0].surefire);
  assert.match(String(n.notes), /^surefire's classpathDependencyExcludes \(pom\.xml\) is not applied to the runs .*--via-build-tool/);
  writeFileSync(path.join(dir, 'pom.xml'), '<project><modules><!-- <module>old</module> --><module>core</module></modules></project>');
  // nested two folders down, through an intermediate aggregator
  mkdirSync(path.join(dir, 'core', 'sub'));
  writeFileSync(path.join(dir, 'core', 'pom.xml'), '<project><modules><module>sub</module></modules></project>');
  assert.deepEqual(mavenReactor(dir, path.join(dir, 'core', 'sub')), { top: dir, module: 'core/sub' });
  // a pom in between that does not list the module ends the reactor
  writeFileSync(path.join(dir, 'core', 'pom.xml'), '<project/>');
  assert.equal(mavenReactor(dir, path.join(dir, 'core', 'sub')), undefined);
});

test('Maven: classPathProblem says why a class path file cannot be used', (t) => {
  const dir = project({ ok: '/r/a.jar:/r/b.jar\n', empty: '\n', spaced: '/home/J Doe/.m2/a.jar:/r/b.jar' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(classPathProblem(path.join(dir, 'ok')), undefined);
  assert.match(classPathProblem(path.join(dir, 'missing'))!, /was not written \(ENOENT\)/);
  assert.match(classPathProblem(path.join(dir, 'empty'))!, /is empty/);
  assert.match(classPathProblem(path.join(dir, 'spaced'))!, /a space/);
});

test('Gradle project: gradle test --offline --tests pkg.Class.method (./gradlew when present)', (t) => {
  const dir = project({ 'build.gradle.kts': 'plugins { java }', [TEST]: 'class AccountTest {}' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = inferTestCommand(dir, target(dir, 'transfer'));
  assert.equal(p.tool, 'gradle');
  assert.equal(p.command[0], 'gradle');
  assert.deepEqual(p.command.slice(-2), ['--tests', 'bank.AccountTest.transfer']);
  assert.ok(p.command.includes('--offline') && p.command.includes('test'));
  writeFileSync(path.join(dir, 'gradlew'), '#!/bin/sh');
  assert.equal(inferTestCommand(dir, target(dir)).command[0], path.join(dir, 'gradlew'));
  assert.deepEqual(inferTestCommand(dir, target(dir)).command.slice(-2), ['--tests', 'bank.AccountTest']);
});

test('no build tool: javac into .braid/build/classes, then the JUnit console launcher from lib/', (t) => {
  const dir = project({
    'lib/junit-platform-console-standalone-1.9.1.jar': '',
    'lib/extra.jar': '',
    'src/main/java/bank/Account.java': 'package bank; class Account {}',
    [TEST]: 'package bank; class AccountTest {}',
    'notes/Other.java': 'not compiled: outside the source folders',
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = inferTestCommand(dir, target(dir, 'transfer'), { javaLibs: [] });
  assert.equal(p.tool, 'junit-console');
  const out = path.join(dir, '.braid', 'build', 'classes');
  const launcher = path.join(dir, 'lib', 'junit-platform-console-standalone-1.9.1.jar');
  assert.equal(p.prepare.length, 1);
  assert.deepEqual(p.prepare[0].command.slice(0, 5), ['javac', '-g', '-nowarn', '-d', out]);
  assert.deepEqual(p.prepare[0].command.slice(-2), [path.join(dir, 'src/main/java/bank/Account.java'), path.join(dir, TEST)]);
  assert.deepEqual(p.command.slice(0, 3), ['java', '-jar', launcher]);
  assert.equal(p.command[p.command.indexOf('--class-path') + 1], [out, path.join(dir, 'lib', 'extra.jar')].join(path.delimiter));
  assert.deepEqual(p.command.slice(-2), ['--select-method', 'bank.AccountTest#transfer']);
  assert.deepEqual(inferTestCommand(dir, target(dir), { javaLibs: [] }).command.slice(-2), ['--select-class', 'bank.AccountTest']);
});

test('no build tool and no console launcher: a clear error naming the folders searched', (t) => {
  const dir = project({ [TEST]: 'class AccountTest {}' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(() => inferTestCommand(dir, target(dir), { javaLibs: ['/nowhere'] }), (e: Error) => e instanceof TestCommandError && /junit-platform-console-standalone/.test(e.message) && /\/nowhere/.test(e.message));
});

test('JUnit 4 with the console launcher adds junit4 and hamcrest; TestNG runs org.testng.TestNG', (t) => {
  const libs = project({ 'junit-platform-console-standalone.jar': '', 'junit4.jar': '', 'hamcrest-core.jar': '', 'testng-7.5.jar': '', 'jcommander.jar': '' });
  const dir = project({ [TEST]: 'class AccountTest {}' });
  t.after(() => [libs, dir].forEach((d) => rmSync(d, { recursive: true, force: true })));
  const j4 = inferTestCommand(dir, { ...target(dir, 'transfer'), framework: 'junit4' }, { javaLibs: [libs] });
  const cp = j4.command[j4.command.indexOf('--class-path') + 1].split(path.delimiter);
  assert.deepEqual(cp.slice(1), [path.join(libs, 'junit4.jar'), path.join(libs, 'hamcrest-core.jar')]);
  const ng = inferTestCommand(dir, { ...target(dir, 'transfer'), framework: 'testng' }, { javaLibs: [libs] });
  assert.equal(ng.tool, 'testng');
  assert.ok(ng.command.includes('org.testng.TestNG'));
  assert.deepEqual(ng.command.slice(-4), ['-testclass', 'bank.AccountTest', '-methods', 'bank.AccountTest.transfer']);
  assert.ok(ng.command[ng.command.indexOf('-cp') + 1].includes(path.join(libs, 'testng-7.5.jar')));
});

test('the sample JUnit 5 project compiles and runs with Debian\'s junit5 jars when installed', { skip: !require('node:fs').existsSync('/usr/share/java/junit-platform-console-standalone.jar') && 'Debian junit5 not installed' }, async (t) => {
  const { cpSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-junit5-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(path.join(__dirname, '..', 'fixtures', 'junit5-sample'), dir, { recursive: true });
  const p = inferTestCommand(dir, { file: path.join(dir, 'src/test/java/bank/AccountTest.java'), className: 'bank.AccountTest', method: 'singleDeposit', framework: 'junit5' });
  const c = spawnSync(p.prepare[0].command[0], p.prepare[0].command.slice(1), { cwd: p.prepare[0].cwd, encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  const r = spawnSync(p.command[0], p.command.slice(1), { cwd: p.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /1 tests successful/);
});

test('commandLine quotes what splitCommandLine would split', () => {
  assert.equal(commandLine(['java', '-cp', 'a b', 'x.Y#m', 'say "hi"']), 'java -cp "a b" x.Y#m "say \\"hi\\""');
});

test('findTests: JUnit 5 methods (@Test, @ParameterizedTest, @RepeatedTest), nested classes, no comments or strings', () => {
  const src = [
    'package shop;', // 0
    'import org.junit.jupiter.api.*;', // 1
    'import org.junit.jupiter.params.ParameterizedTest;', // 2
    '/* @Test void commented() {} */', // 3
    'class InventoryTest {', // 4
    '  String s = "@Test void inString() {}";', // 5
    '  @Test', // 6
    '  @DisplayName("two (parens)")', // 7
    '  void takesLast() {', // 8
    '    if (x) { run(); }', // 9
    '  }', // 10
    '  @ParameterizedTest @ValueSource(ints = {1, 2}) void many(int n) {}', // 11
    '  @RepeatedTest(3) public void again() {}', // 12
    '  void helper() {}', // 13
    '  @Nested class WhenEmpty {', // 14
    '    @Test void fails() {}', // 15
    '  }', // 16
    '}', // 17
  ].join('\n');
  const found = findTests(src).map((t) => `${t.className}${t.method ? '#' + t.method : ''}@${t.line}:${t.character}`);
  assert.deepEqual(found, [
    'shop.InventoryTest@4:6',
    'shop.InventoryTest#takesLast@8:7',
    'shop.InventoryTest#many@11:54',
    'shop.InventoryTest#again@12:31',
    'shop.InventoryTest$WhenEmpty@14:16',
    'shop.InventoryTest$WhenEmpty#fails@15:15',
  ]);
  assert.ok(findTests(src).every((t) => t.framework === 'junit5'));
});

test('findTests: JUnit 4 and TestNG, and nothing in a file without a test framework', () => {
  const j4 = 'import org.junit.Test;\npublic class ATest {\n  @Test(expected = IllegalStateException.class)\n  public void boom() {}\n}';
  assert.deepEqual(findTests(j4).map((t) => [t.framework, t.method, t.line]), [['junit4', undefined, 1], ['junit4', 'boom', 3]]);
  const ng = 'import org.testng.annotations.Test;\n@Test\npublic class NgTest {\n  public void a() {}\n}';
  assert.deepEqual(findTests(ng).map((t) => [t.framework, t.className, t.method]), [['testng', 'NgTest', undefined]], 'class-level TestNG @Test');
  assert.deepEqual(findTests('class Main { @Test void x() {} }'), []);
  assert.equal(blankJava('a // b\n"c" \'d\''), 'a     \n" " \' \'');
});

test('Record Runs suggestion: the open editor\'s main class (compiled or source-file mode), else Maven/Gradle tests', (t) => {
  const dir = project({ 'out/bank/Bank.class': '', 'bank/Bank.java': 'package bank;\npublic class Bank { public static void main(String[] a) {} }', 'shop/Shop.java': 'package shop; class Shop { static void main(String[] args) {} }' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const open = (f: string) => ({ file: path.join(dir, f), text: require('node:fs').readFileSync(path.join(dir, f), 'utf8') });
  assert.deepEqual(suggestRecordCommand(dir, open('bank/Bank.java')), ['java', '-cp', 'out', 'bank.Bank']);
  assert.deepEqual(suggestRecordCommand(dir, open('shop/Shop.java')), ['java', 'shop/Shop.java']);
  assert.equal(suggestRecordCommand(dir), undefined);
  writeFileSync(path.join(dir, 'pom.xml'), '<project/>');
  assert.deepEqual(suggestRecordCommand(dir), ['mvn', '-o', '-q', 'test']);
  rmSync(path.join(dir, 'pom.xml'));
  writeFileSync(path.join(dir, 'settings.gradle'), '');
  writeFileSync(path.join(dir, 'gradlew'), '');
  assert.deepEqual(suggestRecordCommand(dir), ['./gradlew', 'test', '--offline', '--no-daemon']);
  assert.equal(mainClassOf('class A { void main() {} }', 'A.java'), undefined);
});
