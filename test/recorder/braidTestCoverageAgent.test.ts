/**
 * `braid test` under Maven with jacoco's coverage agent in surefire's argLine (issue 38):
 * test/fixtures/maven/coverage measures coverage the usual way — jacoco-maven-plugin 0.8.2's
 * prepare-agent sets the argLine property to its agent while the build runs, surefire's argLine is
 * `@{argLine} -Dledger.clerks=2`. That agent cannot instrument JDK 17's classes: given to the runs,
 * every run ended before the test started and braid test said only that every run failed. The
 * agent is left out of the recorded runs and said once; the project's own option is kept, and the
 * runs are repetitions in one JVM. A real Maven build from Central (a local repository of this
 * test's own, kept between runs: test/helpers/mavenCentral.ts); without mvn or a reachable Central
 * the test skips, under CI=true that fails.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runBraid } from '../helpers/braidCli';
import { mavenCentralProject, mavenCentralTestMissing } from '../helpers/mavenCentral';

const root = path.resolve(__dirname, '..', '..');
const missing = mavenCentralTestMissing(root);
const skip = missing && !process.env.CI ? missing : false;
if (missing) console.log(`# coverage agent test skipped: ${missing}`);
if (missing && process.env.CI) test('Maven and Maven Central are there (CI=true)', () => assert.fail(missing));

test("jacoco's agent from surefire's @{argLine} (prepare-agent, jacoco 0.8.2 on JDK 17) is left out of the recorded runs and said once; the argLine's own option is applied; every run reaches the test and passes", { skip, timeout: 900_000 }, async () => {
  const { ws } = mavenCentralProject(path.join(root, 'test/fixtures/maven/coverage'), 'coverage');
  const r = await runBraid(['test', 'ledger.LedgerTest#postsOfTwoClerksAreAllKept', '--project', ws, '--runs', '4', '--seed', '7', '--format', 'json']);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  assert.ok(r.out.trim(), `no report: ${r.err}`);
  const notes = r.err.match(/surefire's argLine gives the test JVM jacoco's coverage agent \(-javaagent:\S+org\.jacoco\.agent-0\.8\.2-runtime\.jar=destfile=\S+; set by jacoco-maven-plugin 0\.8\.2's prepare-agent in the build of \S+\/pom\.xml\): left out of the recorded runs/g) ?? [];
  assert.equal(notes.length, 1, `the coverage agent named once:\n${r.err}`);
  assert.ok(r.err.includes("surefire's configuration applied to the runs: argLine -Dledger.clerks=2"), r.err);
  const rec = JSON.parse(r.out).recording;
  assert.ok(!rec.command.some((w: string) => w.startsWith('-javaagent:')), `no agent in the runs' command: ${rec.command.join(' ')}`);
  assert.ok(rec.command.includes('-Dledger.clerks=2'), rec.command.join(' '));
  assert.equal(rec.runs, 4);
  // the test is synchronized: every run passes once it reaches the test (with the agent, none did)
  assert.equal(rec.passed, 4, `runs that did not pass:\n${r.err}`);
  assert.equal(rec.jvms, 1, 'repetitions in one JVM (no other agent next to the recorder)');
});
