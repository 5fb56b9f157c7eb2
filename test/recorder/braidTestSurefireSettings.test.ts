/**
 * `braid test` under Maven applies surefire's configuration on the in-JVM path (issue 41 item 4):
 * test/fixtures/maven/configured's test runs as meant only with the parent's argLine (a property
 * and `@{argLine}`, surefire's late replacement) and the module's systemPropertyVariables,
 * environmentVariables and workingDirectory — without any of them every run fails on a
 * precondition. The build step's one Maven start also writes the effective POM
 * (maven-help-plugin from Central on first use, into a local repository of this test's own,
 * test/helpers/mavenCentral.ts); the runs are repetitions in one JVM. Without mvn or a reachable
 * Central the test skips; under CI=true that fails.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runBraid } from '../helpers/braidCli';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';
import { mavenCentralProject, mavenCentralTestMissing } from '../helpers/mavenCentral';
import { LspSession } from '../lsp/lspHarness';
import type { RecordResult, TestCommandResult } from '../../server/src/lsp/protocol';

const root = path.resolve(__dirname, '..', '..');
const missing = mavenCentralTestMissing(root);
const skip = missing && !process.env.CI ? missing : false;
if (missing) console.log(`# surefire settings tests skipped: ${missing}`);
if (missing && process.env.CI) test('Maven and Maven Central are there (CI=true)', () => assert.fail(missing));

test(
  "surefire's argLine (@{argLine}, a property), systemPropertyVariables, environmentVariables and workingDirectory from the effective POM: applied to the console launcher's runs, repeated in one JVM; the root cause first; the same through braid/record",
  { skip, timeout: 900_000 },
  async () => {
    const { ws } = mavenCentralProject(path.join(root, 'test/fixtures/maven/configured'), 'surefire'); // its own local repository: braidTestMavenCentral may download at the same time
    const r = await runBraid(['test', 'tally.TallyTest#concurrentAddsAreAllKept', '--project', ws, '--runs', '20', '--seed', '7', '--format', 'json']);
    assert.ok(r.code === 0 || r.code === 1, r.err);
    assert.ok(r.out.trim(), `no report: ${r.err}`);
    // one Maven start: compiled, the class path and the effective POM written
    assert.equal((r.err.match(/building:/g) ?? []).length, 1, r.err);
    assert.match(r.err, /building: mvn -q -f \S+\/pom\.xml -pl app -am test-compile org\.apache\.maven\.plugins:maven-dependency-plugin:build-classpath /);
    assert.doesNotMatch(r.err, /could not resolve the test class path|could not read surefire's configuration|has no value before Maven runs/, r.err);
    // the one setting not applied, named once (from the effective POM, not again from the poms)
    assert.deepEqual(r.err.match(/note: surefire's .* not applied to the runs/g), ["note: surefire's classpathDependencyExcludes is not applied to the runs"], r.err);
    const rundir = path.join(ws, 'app', 'rundir');
    assert.ok(
      r.err.includes(`surefire's configuration applied to the runs: argLine -Dtally.late=late replaced -Xss2m -Dtally.mode=counting; system properties tally.expected; environment TALLY_WORKERS; working directory ${rundir}`),
      r.err,
    );
    const rec = JSON.parse(r.out).recording;
    assert.equal(rec.tool, 'maven');
    assert.equal(rec.cwd, rundir, "surefire's workingDirectory");
    const jar = rec.command.indexOf('-jar');
    assert.deepEqual(rec.command.slice(1, jar), ['-Dtally.late=late replaced', '-Xss2m', '-Dtally.mode=counting', '-Dtally.expected=100'], 'the JVM options before -jar');
    assert.equal(rec.runs, 20);
    assert.equal(rec.jvms, 1, 'repetitions in one JVM');
    assert.equal(rec.staticState, 'fresh');
    // a run passes only when every setting reached the test (else its preconditions fail it)
    assert.ok(rec.passed > 0, `no run passed: surefire's settings did not reach the test\n${r.err}`);
    assert.ok(rec.failed > 0, `no run failed in ${rec.runs}`);
    const j = JSON.parse(r.out);
    const bugs = bugLinesIn(path.join(ws, 'app/src/main/java'));
    assert.ok(isRootCause(j.patterns[0], bugs), `the first pattern is not on the @bug lines: ${JSON.stringify(j.patterns[0]?.accesses)}`);

    // the editor's way (braid/testCommand, then braid/record with its build step): the same settings applied
    rmSync(path.join(ws, '.braid', 'traces'), { recursive: true, force: true });
    const s = new LspSession(ws);
    try {
      await s.initialize();
      const file = 'app/src/test/java/tally/TallyTest.java';
      const uri = await s.open(file, readFileSync(path.join(ws, file), 'utf8'));
      const plan = (await s.connection.sendRequest('braid/testCommand', { uri, className: 'tally.TallyTest', method: 'concurrentAddsAreAllKept', framework: 'junit4' })) as TestCommandResult;
      assert.equal(plan.command[0], 'java');
      assert.ok(plan.prepare[0].surefire, 'the build step writes the effective POM');
      // no noise: the race almost never shows, so the runs pass when (and only when) the settings reach the test
      const res = (await s.connection.sendRequest('braid/record', { command: plan.command, runs: 3, noise: 0, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, jobs: 1, timeoutSeconds: 300 })) as RecordResult;
      assert.equal(res.runs, 3);
      assert.ok(res.passed > 0, `no run passed through braid/record: ${JSON.stringify(res)}`);
      const manifest = JSON.parse(readFileSync(path.join(res.outDir, 'recording.json'), 'utf8'));
      assert.equal(manifest.cwd, rundir);
      assert.deepEqual(manifest.command.slice(1, manifest.command.indexOf('-jar')), ['-Dtally.late=late replaced', '-Xss2m', '-Dtally.mode=counting', '-Dtally.expected=100']);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nthe server's stderr: ${s.stderr.slice(-4000)}`);
    } finally {
      await s.close();
    }
  },
);
