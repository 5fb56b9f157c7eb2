/**
 * Shared helpers of the recorder tests: builds the agent, compiles the Java fixtures once, records
 * runs programmatically, and reads `// @bug` tags from fixture sources.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { recordRuns, RecordSummary } from '../../server/src/recorder/runs/recordRuns';
import { RecordOptions } from '../../server/src/recorder/runs/recordOptions';

export const root = path.resolve(__dirname, '..', '..');
export const fixturesDir = path.join(root, 'test', 'fixtures', 'java');
export const workDir = path.join(root, 'test-output', 'recorder');
/**
 * The compiled Java fixtures: built once by scripts/test.mjs before the test processes start
 * (BRAID_TEST_CLASSES); a file run on its own compiles into a folder of its own process.
 */
export const classesDir = process.env.BRAID_TEST_CLASSES ?? path.join(workDir, `classes-${process.pid}`);
/** JVM flags that make the many short runs start faster. */
/** The sample programs of test/fixtures/java, with the noise that makes each fail sometimes. */
export interface SampleProgram {
  pkg: string;
  main: string;
  include: string[];
  noise: number;
  /** classes recorded as test code (agent option testCode; loc.harness) */
  testCode?: string[];
  /** runs of the committed recording (scripts/record-subjects.mjs); default 100 */
  runs?: number;
}

export const SAMPLE_PROGRAMS: readonly SampleProgram[] = [
  { pkg: 'bank', main: 'bank.Bank', include: ['bank'], noise: 0.3 },
  { pkg: 'airline', main: 'airline.Airline', include: ['airline'], noise: 0.3 },
  { pkg: 'shop', main: 'shop.Shop', include: ['shop'], noise: 0.3 },
  { pkg: 'tablelog', main: 'tablelog.TableLog', include: ['tablelog'], noise: 0.1 },
  { pkg: 'orderviolation', main: 'orderviolation.OrderViolation', include: ['orderviolation'], noise: 0.1 },
  { pkg: 'vectorcopy', main: 'vectorcopy.VectorCopy', include: ['vectorcopy'], noise: 0.1 },
  { pkg: 'unsafelist', main: 'unsafelist.UnsafeList', include: ['unsafelist', 'java.util.ArrayList'], noise: 0.1 },
];

/**
 * The evaluation set of issue 11: subjects modelled on public bug reports (each names its report),
 * recorded with the final agent into test/fixtures/recorded/<pkg>/ by scripts/record-subjects.mjs.
 */
export const EVALUATION_SUBJECTS: readonly SampleProgram[] = [
  { pkg: 'boundedbuffer', main: 'boundedbuffer.SlotBufferTest', include: ['boundedbuffer'], noise: 0.1, testCode: ['boundedbuffer.SlotBufferTest'] },
  { pkg: 'hashmaprace', main: 'hashmaprace.HitCounter', include: ['hashmaprace'], noise: 0.1 },
  { pkg: 'startpublish', main: 'startpublish.Dispatcher', include: ['startpublish'], noise: 0.2 },
  { pkg: 'joinresults', main: 'joinresults.Tickets', include: ['joinresults'], noise: 0.3 },
  { pkg: 'sbjoin', main: 'sbjoin.CsvLine', include: ['sbjoin'], noise: 0.1 },
  { pkg: 'executorcount', main: 'executorcount.BatchJob', include: ['executorcount'], noise: 0.3 },
  { pkg: 'threeslots', main: 'threeslots.PermitGate', include: ['threeslots'], noise: 0.1 },
  { pkg: 'manythreads', main: 'manythreads.RequestLog', include: ['manythreads'], noise: 0.1, runs: 30 },
  { pkg: 'racytest', main: 'racytest.ChecksumTest', include: ['racytest'], noise: 0.1, testCode: ['racytest.ChecksumTest'] },
  { pkg: 'auditlog', main: 'auditlog.Wallet', include: ['auditlog'], noise: 0.2 },
  { pkg: 'reportcache', main: 'reportcache.ReportBuilder', include: ['reportcache'], noise: 0.1 },
  { pkg: 'downloadstats', main: 'downloadstats.DownloadStatsTest', include: ['downloadstats'], noise: 0.1, testCode: ['downloadstats.DownloadStatsTest'] },
];

/** Every bundled sample and evaluation subject. */
export const ALL_SUBJECTS: readonly SampleProgram[] = [...SAMPLE_PROGRAMS, ...EVALUATION_SUBJECTS];

/**
 * The bug set of issue 27 (test/fixtures/java/<pkg>/truth.json; recordings in test/fixtures/bugset/):
 * programs modelled on public bug reports with two or three bugs, races inside helper classes, drivers
 * inside the library's package, benign orders. Each writes which bug each run hit through
 * evaltruth.Truth (never instrumented); `npm run eval` scores GRIFFIN on them (bench/evaluate.ts).
 */
export const BUG_SET: readonly SampleProgram[] = [
  { pkg: 'objpool', main: 'objpool.PoolTest', include: ['objpool'], noise: 0.3, testCode: ['objpool.PoolTest'] },
  { pkg: 'lazyarray', main: 'lazyarray.LogStorm', include: ['lazyarray'], noise: 0.1 },
  { pkg: 'datasource', main: 'datasource.PoolStress', include: ['datasource'], noise: 0.3 },
  { pkg: 'twoaccounts', main: 'twoaccounts.BranchDay', include: ['twoaccounts'], noise: 0.1 },
  { pkg: 'samesymptom', main: 'samesymptom.Receiving', include: ['samesymptom'], noise: 0.3 },
  { pkg: 'lazymap', main: 'lazymap.MetricsDriver', include: ['lazymap'], noise: 0.2 },
  { pkg: 'sessionmap', main: 'sessionmap.RequestReplay', include: ['sessionmap'], noise: 0.1 },
  { pkg: 'listeners', main: 'listeners.TableViewDemo', include: ['listeners', 'java.util.ArrayList'], noise: 0.1 },
  { pkg: 'threebugs', main: 'threebugs.DownloadSession', include: ['threebugs'], noise: 0.1 },
  { pkg: 'ringbuffer', main: 'ringbuffer.QueueStress', include: ['ringbuffer'], noise: 0.3 },
];

export const FAST_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

function javaFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) javaFiles(p, out);
    else if (name.endsWith('.java')) out.push(p);
  }
  return out;
}

let prepared = false;

/** Builds dist/braid-agent.jar (skipped when up to date) and compiles the fixtures. */
export function prepare(): void {
  if (prepared) return;
  if (process.env.BRAID_TEST_CLASSES) {
    if (!existsSync(path.join(classesDir, 'bank', 'Bank.class'))) throw new Error(`${classesDir} has no compiled fixtures (scripts/test.mjs builds them)`);
    prepared = true;
    return;
  }
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-agent.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the agent failed:\n${build.stdout}${build.stderr}`);
  const sources = javaFiles(fixturesDir);
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  const stamp = path.join(classesDir, 'bank', 'Bank.class');
  if (!existsSync(stamp) || statSync(stamp).mtimeMs < newest) {
    rmSync(classesDir, { recursive: true, force: true });
    mkdirSync(classesDir, { recursive: true });
    const javac = spawnSync('javac', ['-g', '-d', classesDir, ...sources], { encoding: 'utf8' });
    if (javac.status !== 0) throw new Error(`javac of the fixtures failed:\n${javac.stdout}${javac.stderr}`);
  }
  prepared = true;
}

export async function record(
  name: string,
  mainClass: string,
  options: Partial<RecordOptions> & { runs: number },
): Promise<RecordSummary> {
  const outDir = path.join(workDir, 'traces', name);
  rmSync(outDir, { recursive: true, force: true });
  const o: RecordOptions = {
    command: ['java', ...FAST_JVM, '-cp', classesDir, mainClass],
    noise: 0.1,
    include: [],
    exclude: [],
    outDir,
    timeoutSeconds: 20,
    jobs: 2,
    seed: 1000,
    name,
    cwd: root,
    ...options,
  };
  return recordRuns(o);
}

export interface BugTag {
  name: string;
  file: string;
  line: number;
  /** for bugs inside another source file (a JDK class): that file */
  inFile?: string;
}

/** The `// @bug <name> [file=<path>]` tags of one fixture folder; file paths relative to the source root. */
export function bugTags(pkg: string): BugTag[] {
  const tags: BugTag[] = [];
  for (const f of javaFiles(path.join(fixturesDir, pkg))) {
    const rel = path.relative(fixturesDir, f).split(path.sep).join('/');
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((text, k) => {
        const m = /\/\/ @bug (\S+)(?:\s+file=(\S+))?/.exec(text);
        if (m) tags.push({ name: m[1], file: rel, line: k + 1, inFile: m[2] });
      });
  }
  return tags;
}
