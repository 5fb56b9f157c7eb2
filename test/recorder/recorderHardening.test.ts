/**
 * The recorder under hostile conditions (issue 15, findings 5, 10 and 13):
 * one recording per trace folder (and a folder of its own for a second recording
 * started in the same second with the default --out), traces being written are never analyzed,
 * and the JVM dies with the recorder (SIGKILL of `braid record`).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTraceFolder, recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { parseRecordArgs, RecordOptions } from '../../server/src/recorder/runs/recordOptions';
import { LOCK_NAME } from '../../server/src/recorder/runs/recordingLock';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { tempDir } from '../helpers/traceBuilder';
import { compileGlob } from '../../server/src/workspace/glob';
import { DEFAULT_SETTINGS } from '../../server/src/lsp/settings';

const root = path.resolve(__dirname, '../..');
const FAST_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

// A program that records some accesses, writes its pid, and waits until the file `go` exists.
const WAITER = `
package waiter;
import java.nio.file.*;
public class Waiter {
  static int counter;
  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    Thread t = new Thread(() -> { for (int i = 0; i < 200; i++) counter++; });
    t.start();
    t.join();
    Files.writeString(dir.resolve("pid-" + ProcessHandle.current().pid()), "");
    while (!Files.exists(dir.resolve("go"))) { counter++; Thread.sleep(20); }
  }
}
`;

let classes: string | undefined;
function prepare(): string {
  if (classes) return classes;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-agent.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the agent failed:\n${build.stdout}${build.stderr}`);
  const dir = tempDir('braid-waiter-');
  mkdirSync(path.join(dir, 'src/waiter'), { recursive: true });
  writeFileSync(path.join(dir, 'src/waiter/Waiter.java'), WAITER);
  const javac = spawnSync('javac', ['-g', '-d', path.join(dir, 'classes'), path.join(dir, 'src/waiter/Waiter.java')], { encoding: 'utf8' });
  if (javac.status !== 0) throw new Error(javac.stderr);
  classes = path.join(dir, 'classes');
  return classes;
}

function options(outDir: string, flags: string, extra: Partial<RecordOptions> = {}): RecordOptions {
  return {
    command: ['java', ...FAST_JVM, '-cp', prepare(), 'waiter.Waiter', flags],
    runs: 1,
    noise: 0,
    include: ['waiter'],
    exclude: [],
    outDir,
    timeoutSeconds: 60,
    jobs: 1,
    seed: 1,
    name: 'waiter',
    cwd: root,
    ...extra,
  };
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('finding 13: a trace being recorded has an in-progress name that neither the CLI nor the editor globs read; renamed when complete', async () => {
  const outDir = tempDir();
  const flags = tempDir();
  const recording = recordRuns(options(outDir, flags));
  assert.ok(await until(() => readdirSync(flags).some((f) => f.startsWith('pid-')), 30000), 'the program started');
  assert.ok(await until(() => readdirSync(outDir).some((f) => f.endsWith('.part')), 10000), 'the agent wrote its in-progress trace');
  const names = readdirSync(outDir);
  assert.ok(names.includes('waiter-0000.trace.jsonl.part'), names.join(' '));
  assert.ok(!names.some((n) => /\.trace\.jsonl(\.gz)?$/.test(n)), names.join(' '));
  assert.deepEqual((await findTraceFiles([outDir])).files, []);
  const editorGlob = compileGlob(DEFAULT_SETTINGS.traceGlobs[0]).regex;
  assert.ok(editorGlob.test('.braid/traces/w/waiter-0000.trace.jsonl') && !editorGlob.test('.braid/traces/w/waiter-0000.trace.jsonl.part'));
  writeFileSync(path.join(flags, 'go'), '');
  const summary = await recording;
  assert.deepEqual(summary.traces, [path.join(outDir, 'waiter-0000.trace.jsonl')]);
  assert.deepEqual(readdirSync(outDir).filter((n) => n.includes('.trace.')), ['waiter-0000.trace.jsonl']);
  const res = await analyzeTraceFiles([outDir]);
  assert.equal(res.executions.total, 1);
  assert.deepEqual(res.diagnostics, []);
});

test('finding 5: a second recording into the same folder is refused while the first runs; a stale lock is taken over', async () => {
  const outDir = tempDir();
  const flags = tempDir();
  const first = recordRuns(options(outDir, flags));
  assert.ok(await until(() => existsSync(path.join(outDir, LOCK_NAME)), 30000));
  await assert.rejects(recordRuns(options(outDir, flags)), (e: Error) => {
    assert.equal(e.message, `another braid record (pid ${process.pid}) is recording into ${outDir}; wait for it or use another --out folder (if no recording runs, delete ${path.join(outDir, LOCK_NAME)})`);
    return true;
  });
  writeFileSync(path.join(flags, 'go'), '');
  const s1 = await first;
  assert.equal(s1.total, 1);
  assert.ok(!existsSync(path.join(outDir, LOCK_NAME)), 'the lock is released');
  // a lock left by a recorder that died (its pid is gone)
  const dead = spawnSync('true').pid!;
  writeFileSync(path.join(outDir, LOCK_NAME), `${dead}\n`);
  const s2 = await recordRuns(options(tempDir(), flags, { outDir, name: 'again' }));
  assert.equal(s2.total, 1);
  // every trace has exactly one outcome line
  for (const t of [...s1.traces, ...s2.traces]) assert.equal(readFileSync(t, 'utf8').split('\n').filter((l) => l.startsWith('{"outcome"')).length, 1, t);
});

test('finding 5 leftover (issue 31): a second recording started in the same second with the default --out gets its own folder (-2), not a refusal', async () => {
  const cwd = tempDir();
  const flags = tempDir();
  // the default folder .braid/traces/<name>-<time>, as parsed for both recordings in the same second
  const o = parseRecordArgs(['--runs', '1', '--noise', '0', '--name', 'waiter', '--include', 'waiter', '--', 'java', ...FAST_JVM, '-cp', prepare(), 'waiter.Waiter', flags], cwd);
  assert.match(path.relative(cwd, o.outDir), /^\.braid[/\\]traces[/\\]waiter-\d{8}-\d{6}$/);
  const first = recordRuns(o);
  assert.ok(await until(() => existsSync(path.join(o.outDir, LOCK_NAME)), 30000));
  const second = recordRuns({ ...o });
  writeFileSync(path.join(flags, 'go'), '');
  const [s1, s2] = await Promise.all([first, second]);
  assert.equal(s1.outDir, o.outDir);
  assert.equal(s2.outDir, `${o.outDir}-2`);
  assert.deepEqual([s1.total, s2.total], [1, 1]);
  // each recording's execution ids are its folder's: analyzed together, both runs count (an id the two
  // shared left one run out: "execution id … is used by both", a CI run of test/lsp/record.test.ts)
  const name = path.basename(o.outDir);
  assert.deepEqual(readdirSync(o.outDir).filter((n) => n.includes('.trace.')), [`${name}-0000.trace.jsonl`]);
  assert.deepEqual(readdirSync(`${o.outDir}-2`).filter((n) => n.includes('.trace.')), [`${name}-2-0000.trace.jsonl`]);
  const both = await analyzeTraceFiles([o.outDir, `${o.outDir}-2`]);
  assert.equal(both.executions.total, 2);
  assert.deepEqual(both.diagnostics.filter((d) => /execution id/.test(d.message)), []);
  // a third one takes -3; an explicit --out folder is still shared only through its lock (finding 5 above)
  assert.equal(await makeTraceFolder(o), `${o.outDir}-3`);
  assert.equal(await makeTraceFolder({ outDir: o.outDir }), o.outDir);
});

test('finding 10: SIGKILL of `braid record` stops its JVM, and the partial trace stays marked in progress', { timeout: 120000 }, async () => {
  prepare();
  const outDir = tempDir();
  const flags = tempDir();
  const cli = spawn(process.execPath, [path.join(root, 'bin/braid.js'), 'record', '--runs', '1', '--noise', '0', '--name', 'waiter', '--include', 'waiter', '--out', outDir, '--', 'java', ...FAST_JVM, '-cp', prepare(), 'waiter.Waiter', flags], {
    stdio: 'ignore',
  });
  let jvm = 0;
  try {
    assert.ok(await until(() => readdirSync(flags).some((f) => f.startsWith('pid-')), 30000), 'the program started');
    jvm = Number(readdirSync(flags).find((f) => f.startsWith('pid-'))!.slice(4));
    assert.ok(alive(jvm));
    cli.kill('SIGKILL');
    assert.ok(await until(() => !alive(jvm), 15000), `the JVM (pid ${jvm}) still runs 15 s after its recorder was killed`);
    const names = readdirSync(outDir).filter((n) => n.includes('.trace.'));
    assert.deepEqual(names, ['waiter-0000.trace.jsonl.part']);
    assert.deepEqual((await findTraceFiles([outDir])).files, []);
  } finally {
    if (jvm && alive(jvm)) process.kill(jvm, 'SIGKILL');
    writeFileSync(path.join(flags, 'go'), '');
  }
});
