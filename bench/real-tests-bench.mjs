// Real projects' own tests as the recorder bench (issue 45, item 3). Three libraries from Maven
// Central, each with its release's `-tests.jar` (the project's compiled test classes and test
// resources): a collections library (commons-collections4), a cache (commons-jcs3-core) and a
// pool (commons-pool2). Each runs one of its own test classes with the JUnit console launcher,
// plain and under Braid's Java agent the way `braid test` records (include = the library's
// package, noise 0), with the agent's filter on (default) and off. Paired, alternating rounds:
// each round runs plain, filter=off and filter on once each, the round's first configuration
// rotating, so that the shared machine's load hits all alike. Prints per project and
// configuration: median plain and recorded seconds, the end-to-end factor (median of the
// rounds' recorded/plain ratios, wall and CPU), events recorded, events per second (of the
// recorded run's wall time), trace bytes per event, and the tests' outcome. Prints; never asserts.
//
//   node --import tsx bench/real-tests-bench.mjs [--rounds 5] [--only commons-pool2,…]   (or npm run bench -- real-tests)
//
// One-time setup (reported apart): Maven resolves each project's jars from Central into ~/.m2 (a
// generated pom under test-output/real-tests-bench/<id>/, its class path cached there), and test
// resources that the tests read from src/test/resources are unpacked there. A second run reuses
// both. Needs dist/braid-agent.jar (npm run build:agent), a JDK, mvn, /usr/bin/time (for CPU).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countEventLines, launcherSummary, median, pairedFactor, roundOrder, timeToolFigures } from './realTestsFigures.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = path.join(root, 'test-output', 'real-tests-bench');
const agentJar = process.env.BRAID_AGENT_JAR ? path.resolve(process.env.BRAID_AGENT_JAR) : path.join(root, 'dist', 'braid-agent.jar');
const LAUNCHER = { g: 'org.junit.platform', a: 'junit-platform-console-standalone', v: '1.10.2' };
const RUN_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * The projects: a release whose `-tests.jar` is on Central, its test-scoped dependencies (from the
 * release's pom and its parents' dependency management), the test class run, and where the tests
 * read files relative to the working directory (unpacked from the tests jar). A test is a class or
 * a `Class#method`.
 */
const PROJECTS = [
  {
    id: 'commons-collections4',
    kind: 'collections',
    lib: { g: 'org.apache.commons', a: 'commons-collections4', v: '4.4' },
    deps: [
      { g: 'junit', a: 'junit', v: '4.12' },
      { g: 'org.easymock', a: 'easymock', v: '4.0.2' },
      { g: 'org.apache.commons', a: 'commons-lang3', v: '3.9' },
    ],
    include: 'org.apache.commons.collections4',
    tests: ['org.apache.commons.collections4.map.HashedMapTest'],
    // AbstractObjectTest reads its canonical serialized forms from src/test/resources/data/test
    resources: { prefix: 'data/', into: 'src/test/resources' },
  },
  {
    id: 'commons-jcs3-core',
    kind: 'cache',
    lib: { g: 'org.apache.commons', a: 'commons-jcs3-core', v: '3.2' },
    deps: [
      { g: 'org.apache.logging.log4j', a: 'log4j-api', v: '2.20.0' },
      { g: 'org.apache.logging.log4j', a: 'log4j-core', v: '2.20.0' },
      { g: 'org.apache.commons', a: 'commons-dbcp2', v: '2.9.0' },
      { g: 'hsqldb', a: 'hsqldb', v: '1.8.0.10' },
      { g: 'org.apache.commons', a: 'commons-collections4', v: '4.4' },
      { g: 'junit', a: 'junit', v: '4.13.2' },
      { g: 'org.hamcrest', a: 'hamcrest', v: '2.2' },
      { g: 'org.apache.httpcomponents', a: 'httpclient', v: '4.5.14' },
      { g: 'javax.servlet', a: 'servlet-api', v: '2.5' },
    ],
    include: 'org.apache.commons.jcs3',
    tests: [
      'org.apache.commons.jcs3.engine.memory.lru.LRUMemoryCacheConcurrentUnitTest',
      'org.apache.commons.jcs3.utils.struct.LRUMapConcurrentUnitTest',
      'org.apache.commons.jcs3.JCSRemovalSimpleConcurrentTest',
    ],
  },
  {
    id: 'commons-pool2',
    kind: 'pool',
    lib: { g: 'org.apache.commons', a: 'commons-pool2', v: '2.12.0' },
    deps: [
      { g: 'cglib', a: 'cglib', v: '3.3.0' },
      { g: 'org.ow2.asm', a: 'asm-util', v: '9.5' },
      { g: 'org.junit.jupiter', a: 'junit-jupiter', v: '5.10.0' },
      { g: 'org.hamcrest', a: 'hamcrest-library', v: '2.2' },
      { g: 'org.apache.commons', a: 'commons-lang3', v: '3.13.0' },
    ],
    include: 'org.apache.commons.pool2',
    tests: [
      'org.apache.commons.pool2.impl.TestSoftReferenceObjectPool',
      'org.apache.commons.pool2.impl.TestGenericObjectPool#testThreaded1',
      'org.apache.commons.pool2.impl.TestGenericObjectPool#testConcurrentBorrowAndEvict',
      'org.apache.commons.pool2.impl.TestGenericObjectPool#testMakeConcurrentWithReturn',
    ],
  },
];

const CONFIGS = [
  { key: 'plain', label: 'plain', agent: undefined },
  { key: 'off', label: 'recorded, filter=off', agent: 'filter=off' },
  { key: 'on', label: 'recorded, filter on', agent: '' },
];

class BenchError extends Error {}

function arg(name) {
  const k = process.argv.indexOf(name);
  if (k < 0) return undefined;
  const v = process.argv[k + 1];
  if (v === undefined || v.startsWith('--')) throw new BenchError(`${name} needs a value`);
  return v;
}

function dependencyXml({ g, a, v }, classifier) {
  return `    <dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version>${classifier ? `<classifier>${classifier}</classifier>` : ''}</dependency>`;
}

/** The generated pom: the release, its tests jar, its test dependencies and the console launcher. */
function pomOf(p) {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.braid.bench</groupId>
  <artifactId>real-tests-${p.id}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${[dependencyXml(p.lib), dependencyXml(p.lib, 'tests'), ...p.deps.map((d) => dependencyXml(d)), dependencyXml(LAUNCHER)].join('\n')}
  </dependencies>
</project>
`;
}

/**
 * Resolves the project's class path with Maven (cached: the pom and the class path file are kept,
 * and reused while the pom is unchanged and every jar is still there). Returns the class path
 * (without the launcher), the launcher jar, the tests jar and the seconds spent (0 when cached).
 */
function setUp(p) {
  const dir = path.join(work, p.id);
  mkdirSync(dir, { recursive: true });
  const pomFile = path.join(dir, 'pom.xml');
  const cpFile = path.join(dir, 'classpath.txt');
  const pom = pomOf(p);
  const t0 = performance.now();
  let cached = existsSync(pomFile) && readFileSync(pomFile, 'utf8') === pom && existsSync(cpFile);
  let jars = cached ? readFileSync(cpFile, 'utf8').trim().split(path.delimiter) : [];
  if (cached && !jars.every((j) => existsSync(j))) cached = false;
  if (!cached) {
    writeFileSync(pomFile, pom);
    rmSync(cpFile, { force: true });
    const r = spawnSync('mvn', ['-q', '-B', 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath', `-Dmdep.outputFile=${cpFile}`], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.error) throw new BenchError(`${p.id}: could not start mvn (${r.error.message}); install Maven (Debian package maven)`);
    if (r.status !== 0 || !existsSync(cpFile)) {
      throw new BenchError(`${p.id}: Maven could not resolve the project's jars from Central (mvn dependency:build-classpath in ${dir}, exit ${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`);
    }
    jars = readFileSync(cpFile, 'utf8').trim().split(path.delimiter);
  }
  const launcher = jars.find((j) => path.basename(j).startsWith(`${LAUNCHER.a}-`));
  const testsJar = jars.find((j) => path.basename(j) === `${p.lib.a}-${p.lib.v}-tests.jar`);
  if (!launcher) throw new BenchError(`${p.id}: the class path in ${cpFile} has no ${LAUNCHER.a} jar`);
  if (!testsJar) throw new BenchError(`${p.id}: the class path in ${cpFile} has no ${p.lib.a}-${p.lib.v}-tests.jar`);
  if (p.resources) {
    const into = path.join(dir, p.resources.into);
    const marker = path.join(into, '.unpacked');
    if (!existsSync(marker)) {
      mkdirSync(into, { recursive: true });
      const r = spawnSync('unzip', ['-o', '-q', testsJar, `${p.resources.prefix}*`, '-d', into], { encoding: 'utf8' });
      if (r.error || r.status !== 0) throw new BenchError(`${p.id}: could not unpack ${p.resources.prefix} of ${testsJar} into ${into}: ${r.error?.message ?? r.stderr}`);
      writeFileSync(marker, '');
    }
  }
  return { dir, classPath: jars.filter((j) => j !== launcher).join(path.delimiter), launcher, seconds: cached ? 0 : (performance.now() - t0) / 1000 };
}

/** Events and bytes of a trace file, read in chunks (traces of real tests reach gigabytes). */
function traceFigures(file) {
  const bytes = statSync(file).size;
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 22);
  let events = 0;
  let last = 0x0a;
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      const c = countEventLines(buf.subarray(0, n), last);
      events += c.events;
      last = c.last;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, events };
}

const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** One run of the project's tests; throws a BenchError naming the run and its log when it did not complete. */
function runOnce(p, env, config, round) {
  const logs = path.join(env.dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const log = path.join(logs, `${config.key}-${round}.log`);
  const trace = path.join(env.dir, 'traces', `${config.key}-${round}.trace.jsonl`);
  const java = [];
  if (config.agent !== undefined) {
    mkdirSync(path.dirname(trace), { recursive: true });
    rmSync(trace, { force: true });
    java.push(`-javaagent:${agentJar}=out=${trace},include=${p.include},noise=0,seed=1${config.agent ? ',' + config.agent : ''}`);
  }
  java.push('-jar', env.launcher, 'execute', '--disable-banner', '--disable-ansi-colors', '--details=summary', '--class-path', env.classPath, ...p.tests.flatMap((t) => (t.includes('#') ? ['--select-method', t] : ['--select-class', t])));
  const t0 = performance.now();
  const r = timeTool
    ? spawnSync(timeTool, ['-f', 'BRAIDCPU %U %S %M', 'java', ...java], { cwd: env.dir, encoding: 'utf8', maxBuffer: 1 << 28, timeout: RUN_TIMEOUT_MS })
    : spawnSync('java', java, { cwd: env.dir, encoding: 'utf8', maxBuffer: 1 << 28, timeout: RUN_TIMEOUT_MS });
  const s = (performance.now() - t0) / 1000;
  writeFileSync(log, `${r.stdout ?? ''}\n--- stderr\n${r.stderr ?? ''}`);
  const what = `${p.id}, ${config.label}, round ${round}`;
  if (r.error) throw new BenchError(`${what}: java did not run to the end (${r.error.message}); output in ${log}`);
  const summary = launcherSummary(r.stdout ?? '');
  // the console launcher exits 1 when a test failed; no summary means it did not finish
  if (!summary || (r.status !== 0 && r.status !== 1)) throw new BenchError(`${what}: the JUnit console launcher did not finish (exit ${r.status}${r.signal ? ', ' + r.signal : ''}); output in ${log}`);
  if (summary.found === 0) throw new BenchError(`${what}: the launcher found no tests in ${p.tests.join(', ')}; output in ${log}`);
  const { cpuMs, rssKiB } = timeToolFigures(r.stderr ?? '');
  let events = NaN;
  let bytes = NaN;
  if (config.agent !== undefined) {
    if (!existsSync(trace)) throw new BenchError(`${what}: the agent wrote no trace at ${trace}; output in ${log}`);
    ({ events, bytes } = traceFigures(trace));
    rmSync(trace, { force: true });
    if (events === 0) throw new BenchError(`${what}: the trace has no events (include=${p.include} matched no class?); output in ${log}`);
  }
  return { s, cpuMs, rssKiB, events, bytes, failed: summary.failed, found: summary.found };
}

function load() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

const fmt = (x, digits = 1) => (Number.isNaN(x) ? '-' : x.toFixed(digits));
const big = (x) => (Number.isNaN(x) ? '-' : Math.round(x).toLocaleString('en-US'));

function main() {
  const rounds = Number(arg('--rounds') ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new BenchError(`--rounds must be a whole number ≥ 1, got ${arg('--rounds')}`);
  const only = arg('--only')?.split(',');
  const unknown = only?.filter((id) => !PROJECTS.some((p) => p.id === id));
  if (unknown?.length) throw new BenchError(`--only: no project ${unknown.join(', ')} (projects: ${PROJECTS.map((p) => p.id).join(', ')})`);
  if (!existsSync(agentJar)) throw new BenchError(`the agent jar ${agentJar} is missing; run npm run build:agent (or set BRAID_AGENT_JAR)`);
  const projects = PROJECTS.filter((p) => !only || only.includes(p.id));
  console.log(`Real tests as the recorder bench: ${rounds} paired rounds per project (plain, filter=off, filter on; first configuration rotating); ${spawnSync('nproc').stdout?.toString().trim() ?? '?'} cores, load ${load()} at start`);
  const results = [];
  for (const p of projects) {
    const env = setUp(p);
    console.log(`\n${p.id} ${p.lib.v} (${p.kind}): ${p.tests.join(', ')}; include=${p.include}; one-time setup ${env.seconds ? fmt(env.seconds) + ' s (Maven resolution from Central' + (p.resources ? ', test resources unpacked' : '') + ')' : 'cached'}`);
    const warm = runOnce(p, env, CONFIGS[0], 0); // file cache, not counted
    console.log(`  warm-up plain run ${fmt(warm.s)} s (${warm.found} tests, ${warm.failed} failed)`);
    const runs = CONFIGS.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      for (const k of roundOrder(round - 1, CONFIGS.length)) runs[k].push(runOnce(p, env, CONFIGS[k], round));
      console.log(`  round ${round}: ${CONFIGS.map((c, k) => `${c.key} ${fmt(runs[k][round - 1].s)} s`).join(', ')}; load ${load()}`);
    }
    results.push({ p, runs });
  }
  console.log(`\nMedians of ${rounds} rounds; end to end = median of the rounds' recorded/plain ratios (wall, and whole-JVM CPU = user + system); events/s over the recorded run's wall time. Load ${load()} at the end.`);
  console.log('| project (tests) | configuration | plain s | recorded s | end to end | CPU factor | events | events/s | bytes/event | peak RSS MiB plain / recorded | tests failed plain / recorded |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { p, runs } of results) {
    const plain = runs[0];
    for (const k of [1, 2]) {
      const rec = runs[k];
      const events = median(rec.map((r) => r.events));
      console.log(
        `| ${p.id} (${[...new Set(p.tests.map((t) => t.split('.').pop().split('#')[0]))].join(', ')}, ${plain[0].found} tests) | ${CONFIGS[k].label} | ${fmt(median(plain.map((r) => r.s)))} | ${fmt(median(rec.map((r) => r.s)))} | ` +
          `${fmt(pairedFactor(plain.map((r) => r.s), rec.map((r) => r.s)), 2)}× | ${fmt(pairedFactor(plain.map((r) => r.cpuMs), rec.map((r) => r.cpuMs)), 2)}× | ${big(events)} | ` +
          `${big(median(rec.map((r) => r.events / r.s)))} | ${fmt(median(rec.map((r) => r.bytes / r.events)))} | ${fmt(median(plain.map((r) => r.rssKiB)) / 1024, 0)} / ${fmt(median(rec.map((r) => r.rssKiB)) / 1024, 0)} | ` +
          `${plain.map((r) => r.failed).join(' ')} / ${rec.map((r) => r.failed).join(' ')} |`,
      );
    }
  }
  console.log('Target (issue 45): recorded ≤ 3× the plain run on each (noise 0).');
}

try {
  main();
} catch (e) {
  if (!(e instanceof BenchError)) throw e;
  console.error(`real-tests-bench: ${e.message}`);
  process.exit(1);
}
