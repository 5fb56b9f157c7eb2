/**
 * `braid test` on Maven projects from Maven Central, as users have them (issue 41 item 4, issue 38
 * item 1): the build and class path steps may download on first use (the tests' shared local
 * repository, test/helpers/mavenCentral.ts, never ~/.m2), the recorded runs never do. A multi-module
 * project (test/fixtures/maven/reactor): the test's module and its reactor dependency built from the
 * top pom, the dependency's classes as a folder, loaded afresh with the test's in each repetition; its
 * JUnit 4.11 (older than the vintage engine accepts) runs; `.mvn/maven.config` with a settings file
 * whose mirror is Central still works. The offline tests with Debian's repository are in
 * braidTestMaven.test.ts. Without mvn or a reachable Central the tests skip; under CI=true that fails.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runBraid } from '../helpers/braidCli';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';
import { mavenCentralProject, mavenCentralTestMissing } from '../helpers/mavenCentral';

const root = path.resolve(__dirname, '..', '..');
const missing = mavenCentralTestMissing(root);
const skip = missing && !process.env.CI ? missing : false;
if (missing) console.log(`# Maven Central tests skipped: ${missing}`);
if (missing && process.env.CI) test('Maven and Maven Central are there (CI=true)', () => assert.fail(missing));

test(
  'a multi-module project from Central (mirror in a settings file, .mvn/maven.config): built from the top pom for the module and its reactor dependency, its JUnit 4.11 test repeated in one JVM with fresh static state; the root cause first',
  { skip, timeout: 900_000 },
  async () => {
    const { ws } = mavenCentralProject(path.join(root, 'test/fixtures/maven/reactor'));
    const TEST = 'books.LedgerTest#concurrentPostingsAreAllKept';
    const r = await runBraid(['test', TEST, '--project', ws, '--runs', '20', '--seed', '7', '--format', 'json']);
    assert.ok(r.code === 0 || r.code === 1, r.err);
    assert.ok(r.out.trim(), `no report: ${r.err}`);
    // one Maven start from the top pom: the module and what it depends on compiled, the class path written
    assert.match(r.err, new RegExp(`braid test: building: mvn -q -f ${ws}/pom\\.xml -pl ledger-app -am test-compile org\\.apache\\.maven\\.plugins:maven-dependency-plugin:build-classpath `));
    assert.equal((r.err.match(/building:/g) ?? []).length, 1);
    assert.doesNotMatch(r.err, /could not resolve the test class path/);
    const j = JSON.parse(r.out);
    const rec = j.recording;
    assert.equal(rec.tool, 'maven');
    assert.equal(rec.cwd, path.join(ws, 'ledger-app'), 'the runs in the test\'s module, as surefire has them');
    const cp = readFileSync(path.join(ws, '.braid/build/maven/ledger-app.test-classpath'), 'utf8').trim().split(path.delimiter);
    assert.ok(cp.includes(path.join(ws, 'ledger-core', 'target', 'classes')), `the reactor dependency as its classes folder: ${cp.join(' ')}`);
    assert.ok(cp.some((e) => e.endsWith('junit-4.11.jar')), 'the project\'s own JUnit 4.11');
    assert.ok(cp.some((e) => e.endsWith('junit-platform-launcher-1.7.2.jar')), 'an old JUnit Platform launcher');
    assert.equal(rec.runs, 20);
    assert.equal(rec.jvms, 1, 'repetitions in one JVM');
    assert.equal(rec.staticState, 'fresh');
    assert.ok(rec.failed > 0 && rec.passed > 0, `${rec.failed} of ${rec.runs} runs failed`);
    const bugs = bugLinesIn(path.join(ws, 'ledger-core/src/main/java'));
    assert.ok(isRootCause(j.patterns[0], bugs), `the first pattern is not on the @bug lines: ${JSON.stringify(j.patterns[0]?.accesses)}`);
  },
);
