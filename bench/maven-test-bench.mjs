// `braid test` under Maven (issue 29's target: the root cause at rank 1 within 8× one plain
// `mvn -o -q test -Dtest=…`) on the real Maven project test/fixtures/maven/inventory, offline with
// Debian's plugins (a settings.xml whose local repository is a fresh folder and whose only mirror is
// file:///usr/share/maven-repo, as test/recorder/braidTestMaven.test.ts sets up). Prints; never asserts.
//   node --import tsx bench/maven-test-bench.mjs [--via-runs N]
// Rows: one plain mvn run (after a first one that fills the local repository); braid test as the lens
// runs it (--runs auto: mvn test-compile + the class path once, then the JUnit console launcher each
// run); and N runs (default 5) with --via-build-tool (mvn each run) for the cost per run.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bugLinesIn, isRootCause } from '../test/helpers/rootCause.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST = 'shop.StockTest#neverSellsMoreThanInStock';
const viaRuns = Number(process.argv[process.argv.indexOf('--via-runs') + 1]) || 5;

const mvnOk = spawnSync('mvn', ['-v']).status === 0;
const plugins = ['maven-compiler-plugin/3.10.1', 'maven-resources-plugin/3.3.0', 'maven-surefire-plugin/2.22.3', 'maven-dependency-plugin/3.5.0'];
const lacking = plugins.filter((p) => !existsSync(path.join('/usr/share/maven-repo/org/apache/maven/plugins', p)));
if (!mvnOk || lacking.length || !existsSync(path.join(root, 'dist/braid.js'))) {
  console.log(`skipped: ${!mvnOk ? 'mvn is not installed' : lacking.length ? `Debian's Maven repository lacks ${lacking.join(', ')} (bash .ci/run installs them)` : 'dist/braid.js is missing (npm run build)'}`);
  process.exit(0);
}

const top = mkdtempSync(path.join(tmpdir(), 'braid-maven-bench-'));
const ws = path.join(top, 'inventory');
cpSync(path.join(root, 'test/fixtures/maven/inventory'), ws, { recursive: true });
writeFileSync(
  path.join(top, 'settings.xml'),
  `<settings><localRepository>${path.join(top, 'm2-repository')}</localRepository><mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors></settings>\n`,
);
mkdirSync(path.join(ws, '.mvn'));
writeFileSync(path.join(ws, '.mvn', 'maven.config'), `-s ${path.join(top, 'settings.xml')}\n-Daether.offline.protocols=file\n`);

const timed = (cmd, args) => {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: ws, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { s: (performance.now() - t0) / 1000, r };
};
const mvnTest = ['-o', '-q', 'test', '-Dtest=StockTest#neverSellsMoreThanInStock', '-Dsurefire.failIfNoSpecifiedTests=false'];
try {
  // fills the local repository from Debian's (untimed), then the plain run twice
  timed('mvn', mvnTest);
  const plain = [timed('mvn', mvnTest).s, timed('mvn', mvnTest).s];
  const plainS = Math.min(...plain);
  const plainF0 = timed('mvn', [...mvnTest, '-DforkCount=0']).s;
  rmSync(path.join(ws, 'target'), { recursive: true, force: true });

  const braid = (extra) => {
    const { s, r } = timed(process.execPath, [path.join(root, 'dist/braid.js'), 'test', TEST, '--project', ws, '--format', 'json', ...extra]);
    let j;
    try {
      j = JSON.parse(r.stdout);
    } catch {
      console.log(`braid test ${extra.join(' ')} failed (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
      return undefined;
    }
    return { s, j };
  };
  const bugs = bugLinesIn(path.join(ws, 'src/main/java'));
  const auto = braid([]);
  const via = braid(['--via-build-tool', '--runs', String(viaRuns)]);
  console.log(`Maven (offline, Debian's plugins: surefire 2.22.3), ${TEST}; machine: ${spawnSync('nproc').stdout.toString().trim()} cores, load ${spawnSync('cat', ['/proc/loadavg']).stdout.toString().split(' ').slice(0, 3).join(' ')}`);
  console.log(`plain mvn -o -q test -Dtest=…            ${plain.map((x) => x.toFixed(1)).join(' s, ')} s (best ${plainS.toFixed(1)} s; with -DforkCount=0: ${plainF0.toFixed(1)} s)`);
  const row = (label, x) => {
    if (!x) return;
    const rec = x.j.recording;
    const first = x.j.patterns[0];
    const rank1 = first ? isRootCause(first, bugs) : false;
    console.log(
      `${label.padEnd(40)} ${x.s.toFixed(1)} s wall = ${(x.s / plainS).toFixed(1)}× plain mvn · ${rec.runs} runs (${rec.failed} failed), build ${rec.buildSeconds} s, recording ${rec.seconds} s = ${(rec.seconds / rec.runs).toFixed(2)} s/run, stopped: ${rec.stopped}, lead p ${rec.leadPValue === null ? '-' : rec.leadPValue.toExponential(1)}, root cause at rank 1: ${rank1 ? 'yes' : 'no'}`,
    );
  };
  row('braid test (--runs auto, the lens)', auto);
  row(`braid test --via-build-tool --runs ${viaRuns}`, via);
  console.log('(issue 29 target: braid test within 8× one plain mvn run; on Debian\'s surefire 2.22.3 about 10 s of each mvn test run is surefire waiting after its forked JVM has exited)');
} finally {
  rmSync(top, { recursive: true, force: true });
}
