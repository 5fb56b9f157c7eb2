/**
 * `braid test` on a real Maven project, offline (issue 29; kept offline on purpose since Central is
 * reachable — braidTestMavenCentral.test.ts has Maven as users have it, this file the machine without
 * Central and the fallback to mvn each run): test/fixtures/maven/inventory built with
 * the Maven plugins of Debian's packages (libmaven-compiler-plugin-java, libmaven-resources-plugin-java,
 * libsurefire-java, libmaven-dependency-plugin-java, junit5 — .ci/run installs them) from
 * /usr/share/maven-repo. Each test copies the project, writes a settings.xml whose local repository
 * is a fresh folder and whose only mirror is file:///usr/share/maven-repo, and points the copy's
 * .mvn/maven.config at it (with aether.offline.protocols=file, so that `mvn -o` — the lens' command —
 * may read that file:// mirror); nothing touches ~/.m2. Then the lens' flow for real: build, resolve
 * the test class path once, record runs of the JUnit console launcher, analyze; and the fallback to
 * `mvn -o test` each run when the class path cannot be resolved.
 * Without mvn or Debian's plugins the tests skip with the reason; under CI=true that is a failure.
 */
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { runBraid } from '../helpers/braidCli';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';
import { LspSession } from '../lsp/lspHarness';
import type { RecordResult, TestCommandResult } from '../../server/src/lsp/protocol';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist/braid.js');
const FIXTURE = path.join(root, 'test/fixtures/maven/inventory');
const TEST = 'shop.StockTest#neverSellsMoreThanInStock';
const DEBIAN_REPO = '/usr/share/maven-repo';
/** The plugins the fixture's pom pins, as Debian 12 ships them (package in parentheses). */
const PLUGINS: [string, string][] = [
  ['org/apache/maven/plugins/maven-compiler-plugin/3.10.1', 'libmaven-compiler-plugin-java'],
  ['org/apache/maven/plugins/maven-resources-plugin/3.3.0', 'libmaven-resources-plugin-java'],
  ['org/apache/maven/plugins/maven-surefire-plugin/2.22.3', 'libsurefire-java'],
  ['org/apache/maven/plugins/maven-dependency-plugin/3.5.0', 'libmaven-dependency-plugin-java'],
  ['org/junit/jupiter/junit-jupiter-engine/5.9.2', 'junit5'],
];

function missing(): string | false {
  const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
  if (mvn.error || mvn.status !== 0) return 'mvn is not installed (Debian package maven)';
  const lacking = PLUGINS.filter(([dir]) => !existsSync(path.join(DEBIAN_REPO, dir))).map(([, pkg]) => pkg);
  if (lacking.length) return `Debian's Maven repository ${DEBIAN_REPO} lacks what the fixture's pom needs: install ${lacking.join(' ')}`;
  if (!existsSync('/usr/share/java/junit-platform-console-standalone.jar')) return 'the JUnit console launcher is missing (Debian package junit5)';
  if (!existsSync(path.join(root, 'dist/braid-agent.jar'))) return 'dist/braid-agent.jar is missing (npm run build)';
  return false;
}
const skip = missing();
if (skip) console.log(`# Maven tests skipped: ${skip}`);
// under CI a missing tool fails the run instead of skipping (.ci/run installs maven and the plugins)
if (skip && process.env.CI) test('Maven and Debian\'s Maven plugins are installed (CI=true)', () => assert.fail(`${skip} (.ci/run does)`));

const braid = (args: string[], cwd = root) => runBraid(args, cwd);

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A copy of the fixture whose Maven reads only Debian's repository into a local repository of its own. */
function mavenProject(): { ws: string; repo: string } {
  const top = tempDir('braid-test-maven-');
  made.push(top);
  const ws = path.join(top, 'inventory');
  cpSync(FIXTURE, ws, { recursive: true });
  const repo = path.join(top, 'm2-repository');
  const settings = path.join(top, 'settings.xml');
  writeFileSync(
    settings,
    `<settings>
  <localRepository>${repo}</localRepository>
  <mirrors>
    <mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file://${DEBIAN_REPO}</url></mirror>
  </mirrors>
</settings>
`,
  );
  mkdirSync(path.join(ws, '.mvn'));
  writeFileSync(path.join(ws, '.mvn', 'maven.config'), `-s ${settings}\n-Daether.offline.protocols=file\n`);
  return { ws, repo };
}

test(
  'braid test on a real Maven project (offline, Debian\'s plugins): built and the class path resolved once, the console launcher each run; the first pattern is on the @bug lines',
  { skip, timeout: 600_000 },
  async () => {
    const { ws, repo } = mavenProject();
    // 60 runs: 30 gave no failing run once in session 14's CI (a loaded machine), so the root-cause check below had nothing to rank
    const r = await braid(['test', TEST, '--project', ws, '--runs', '60', '--format', 'json', '--seed', '3']);
    assert.ok(r.code === 0 || r.code === 1, r.err);
    const j = JSON.parse(r.out);
    const rec = j.recording;
    assert.equal(rec.tool, 'maven');
    assert.equal(rec.cwd, ws);
    // the build step, one Maven start: test-compile and the test class path (dependency plugin) into .braid/build/maven
    assert.match(r.err, /braid test: building: mvn -q test-compile org\.apache\.maven\.plugins:maven-dependency-plugin:build-classpath /);
    assert.doesNotMatch(r.err, /could not resolve the test class path/);
    assert.ok(existsSync(path.join(ws, 'target/test-classes/shop/StockTest.class')), 'Maven compiled the tests');
    const cpFile = path.join(ws, '.braid/build/maven/root.test-classpath');
    const cp = readFileSync(cpFile, 'utf8').trim().split(path.delimiter);
    assert.ok(cp.some((j) => j.startsWith(repo + path.sep) && /junit-jupiter-api/.test(j)), `the class path is of the test's local repository: ${cp.join(' ')}`);
    // each run: the JUnit console launcher on that class path, no Maven
    assert.equal(rec.command[0], 'java');
    assert.deepEqual(rec.command.slice(-4), ['--class-path', `@${cpFile}`, '--select-method', TEST]);
    assert.ok(rec.buildSeconds > 0);
    assert.deepEqual([rec.runs, rec.failed + rec.passed], [60, 60]);
    // the runs are repetitions in one JVM (repeatedRuns.ts reads the @file class path)
    // (one more per noise level when no run failed in the first 20: adaptive exposure climbs with a fixed --runs too)
    assert.equal(rec.jvms, rec.exposure?.length ?? 1, 'one JVM for the 60 runs (one per noise level)');
    const manifest = JSON.parse(readFileSync(path.join(rec.traces, 'recording.json'), 'utf8'));
    assert.deepEqual(manifest.prepare.map((s: { command: string[] }) => s.command.slice(0, 4)), [['mvn', '-q', 'test-compile', 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath']]);
    assert.equal(readdirSync(rec.traces).filter((f) => f.endsWith('.trace.jsonl')).length, 60);
    // the root cause: the first pattern's accesses are on the // @bug lines of Stock.reserve
    assert.ok(rec.failed > 0 && rec.passed > 0, `${rec.failed} of ${rec.runs} runs failed`);
    const bugs = bugLinesIn(path.join(ws, 'src/main/java'));
    assert.deepEqual(bugs.map((b) => `${b.file}:${b.line}`), ['shop/Stock.java:17', 'shop/Stock.java:18']);
    const first = j.patterns[0];
    assert.ok(isRootCause(first, bugs), `the first pattern is not on the @bug lines: ${JSON.stringify(first.accesses)}`);
    assert.equal(first.group, 'cause');
    assert.ok(first.accesses.every((a: { variable: string }) => a.variable === 'shop.Stock.left'));
    // a second call (nothing changed): no Maven start at all — the build stamp of the first is current (mavenClassPathCache.ts) …
    const again = await braid(['test', TEST, '--project', ws, '--runs', '10', '--format', 'json', '--seed', '4']);
    assert.ok(again.code === 0 || again.code === 1, again.err);
    assert.match(again.err, /braid test: building: skipped, no file under \S+ changed since Braid's build at \d\d:\d\d:\d\d, its output is there \(--fresh-class-path builds anyway\)\n/);
    const rec2 = JSON.parse(again.out).recording;
    assert.equal(rec2.command[0], 'java');
    assert.equal(rec2.runs, 10);
    assert.equal(rec2.buildSeconds, 0);
    // … while its recording.json keeps the full step for a fix check
    const manifest2 = JSON.parse(readFileSync(path.join(rec2.traces, 'recording.json'), 'utf8'));
    assert.deepEqual(manifest2.prepare.map((s: { command: string[] }) => s.command.slice(0, 4)), [['mvn', '-q', 'test-compile', 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath']]);
    // a source edited since: only compiled, the class path of the first reused
    const stockFile = path.join(ws, 'src/main/java/shop/Stock.java');
    writeFileSync(stockFile, readFileSync(stockFile, 'utf8') + '\n');
    const third = await braid(['test', TEST, '--project', ws, '--runs', '2', '--format', 'json', '--seed', '5']);
    assert.ok(third.code === 0 || third.code === 1, third.err);
    assert.match(third.err, /braid test: building: mvn -q test-compile\n/);
    assert.equal(JSON.parse(third.out).recording.runs, 2);
  },
);

test(
  'Maven without the dependency plugin: a note, then mvn -o test each run (surefire inherits the agent); --via-build-tool asks for that; a compile error is a failed build',
  { skip, timeout: 600_000 },
  async () => {
    const { ws } = mavenProject();
    // a dependency plugin version the local and Debian's repository do not have: build-classpath fails, test-compile does not
    const pom = path.join(ws, 'pom.xml');
    writeFileSync(pom, readFileSync(pom, 'utf8').replace(/(<artifactId>maven-dependency-plugin<\/artifactId>\s*<version>)[^<]+/, '$19.9.9-none'));
    const r = await braid(['test', TEST, '--project', ws, '--runs', '2', '--format', 'json', '--seed', '3']);
    assert.ok(r.code === 0 || r.code === 1, r.err);
    assert.match(r.err, /note: could not resolve the test class path once \(mvn exit 1/);
    assert.match(r.err, /each run starts mvn instead \(slower\)/);
    const rec = JSON.parse(r.out).recording;
    assert.deepEqual(rec.command.slice(0, 5), ['mvn', '-o', '-q', 'test', '-Dtest=StockTest#neverSellsMoreThanInStock']);
    assert.equal(rec.runs, 2);
    // the runs went through surefire's forked JVM, which the agent recorded
    const traces = readdirSync(rec.traces).filter((f) => f.endsWith('.trace.jsonl'));
    assert.equal(traces.length, 2);
    assert.match(readFileSync(path.join(rec.traces, traces[0]), 'utf8'), /shop\.Stock/);
    // recording.json keeps no step (the one that failed is dropped; mvn test builds in each run)
    const manifest = JSON.parse(readFileSync(path.join(rec.traces, 'recording.json'), 'utf8'));
    assert.equal(manifest.prepare, undefined);
    // asked for: no class path step at all
    const v = await braid(['test', TEST, '--project', ws, '--runs', '1', '--format', 'json', '--via-build-tool']);
    assert.ok(v.code === 0 || v.code === 1, v.err);
    assert.doesNotMatch(v.err, /building:/);
    assert.equal(JSON.parse(v.out).recording.command[0], 'mvn');
    // a build that fails (a compile error) is a failed build, not a class path to do without
    const stock = path.join(ws, 'src/main/java/shop/Stock.java');
    writeFileSync(stock, readFileSync(stock, 'utf8').replace('public int left() {', 'public int left() { int broken = ;'));
    writeFileSync(pom, readFileSync(pom, 'utf8').replace('9.9.9-none', '3.5.0'));
    const b = await braid(['test', TEST, '--project', ws, '--runs', '2', '--format', 'json']);
    assert.equal(b.code, 1);
    assert.match(b.err, /braid test: the build failed \(mvn exit 1\):/);
    assert.match(b.err, /COMPILATION ERROR|Stock\.java/);
    assert.doesNotMatch(b.err, /could not resolve the test class path/);
    assert.equal(b.out, '', 'nothing recorded');
  },
);

test(
  'the code lens on the Maven project (language server): braid/testCommand, then braid/record resolves the class path once — or falls back to mvn each run',
  { skip, timeout: 600_000 },
  async () => {
    const { ws } = mavenProject();
    const s = new LspSession(ws);
    try {
      await s.initialize();
      const file = 'src/test/java/shop/StockTest.java';
      const uri = await s.open(file, readFileSync(path.join(ws, file), 'utf8'));
      const ask = () => s.connection.sendRequest('braid/testCommand', { uri, className: 'shop.StockTest', method: 'neverSellsMoreThanInStock', framework: 'junit5' }) as Promise<TestCommandResult>;
      const record = (plan: TestCommandResult, runs: number) =>
        s.connection.sendRequest('braid/record', { command: plan.command, runs, noise: 0.1, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, jobs: 1, timeoutSeconds: 300 }) as Promise<RecordResult>;
      const plan = await ask();
      assert.equal(plan.tool, 'maven');
      assert.equal(plan.command[0], 'java');
      assert.ok(plan.prepare[0].orElse && plan.prepare[0].orElse.command[0] === 'mvn');
      const res = await record(plan, 3);
      assert.equal(res.runs, 3);
      const manifest = JSON.parse(readFileSync(path.join(res.outDir, 'recording.json'), 'utf8'));
      assert.equal(manifest.command[0], 'java');
      assert.equal(manifest.prepare.length, 1);
      // asked again with no edit: the build step is skipped (PrepareStep.upToDate, mavenClassPathCache.ts); braid/record runs no Maven
      const warm = await ask();
      assert.match(warm.prepare[0].upToDate ?? '', /^no file under \S+ changed since Braid's build at /);
      const resWarm = await record(warm, 1);
      assert.equal(resWarm.runs, 1);
      assert.equal(JSON.parse(readFileSync(path.join(resWarm.outDir, 'recording.json'), 'utf8')).command[0], 'java');
      // the dependency plugin cannot be had offline: the same request records through mvn each run
      const pom = path.join(ws, 'pom.xml');
      writeFileSync(pom, readFileSync(pom, 'utf8').replace(/(<artifactId>maven-dependency-plugin<\/artifactId>\s*<version>)[^<]+/, '$19.9.9-none'));
      rmSync(path.join(ws, '.braid/build/maven'), { recursive: true, force: true });
      const res2 = await record(await ask(), 1);
      assert.equal(res2.runs, 1);
      const m2 = JSON.parse(readFileSync(path.join(res2.outDir, 'recording.json'), 'utf8'));
      assert.deepEqual(m2.command.slice(0, 4), ['mvn', '-o', '-q', 'test']);
      assert.equal(m2.prepare, undefined);
    } finally {
      await s.close();
    }
  },
);
