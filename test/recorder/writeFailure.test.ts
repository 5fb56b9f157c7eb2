/**
 * A disk that refuses writes during `braid record` (issue 31, N12): the recording stops with a
 * message that says what happened and where ("disk full writing <file>"), its own exit code (3,
 * not Ctrl-C's 130), no `.part` (or anything else) of the unfinished run left behind, and the runs
 * finished before kept. Two ways a write fails: the runner's own write of the outcome line (ENOSPC
 * injected by test/helpers/recordWithFullDisk.ts) and the agent's writes of the trace (a real
 * EFBIG under `ulimit -f`, which the JVM reports as "File too large").
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { AgentWriteFailureWatch, EXIT_WRITE_FAILURE, RecordWriteError, writeFailure } from '../../server/src/recorder/runs/writeFailure';

const root = path.resolve(__dirname, '../..');
const FAST_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const helper = path.join(root, 'test/helpers/recordWithFullDisk.ts');

// Run 1 (execution big-0001) records ~400,000 accesses (~16 MB of trace), the others 400.
const BIG = `
package bigtrace;
public class Big {
  static int counter;
  public static void main(String[] args) throws Exception {
    String ex = System.getenv("BRAID_EXECUTION");
    int n = ex != null && ex.endsWith("-0001") ? 100000 : 100;
    Thread t = new Thread(() -> work(n));
    t.start();
    work(n);
    t.join();
  }
  static void work(int n) { for (int i = 0; i < n; i++) counter++; }
}
`;

let classes: string | undefined;
function prepare(): string {
  if (classes) return classes;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-agent.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the agent failed:\n${build.stdout}${build.stderr}`);
  const dir = tempDir('braid-bigtrace-');
  mkdirSync(path.join(dir, 'src/bigtrace'), { recursive: true });
  writeFileSync(path.join(dir, 'src/bigtrace/Big.java'), BIG);
  const javac = spawnSync('javac', ['-g', '-d', path.join(dir, 'classes'), path.join(dir, 'src/bigtrace/Big.java')], { encoding: 'utf8' });
  if (javac.status !== 0) throw new Error(javac.stderr);
  classes = path.join(dir, 'classes');
  return classes;
}

function recordArgs(out: string): string[] {
  return ['--runs', '3', '--jobs', '1', '--seed', '1', '--noise', '0', '--name', 'big', '--include', 'bigtrace', '--out', out, '--', 'java', ...FAST_JVM, '-cp', prepare(), 'bigtrace.Big'];
}

function record(args: string[], env: NodeJS.ProcessEnv, shell?: string) {
  const cmd = [process.execPath, '--import', 'tsx', helper, ...args];
  const r = shell
    ? spawnSync('bash', ['-c', `${shell} && exec "$@"`, 'bash', ...cmd], { cwd: root, encoding: 'utf8', env: { ...process.env, TSX_DISABLE_CACHE: '1', ...env } })
    : spawnSync(cmd[0], cmd.slice(1), { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('N12: disk full while completing a trace: "disk full writing <file>", exit 3, no .part left, the finished run kept', { timeout: 120000 }, () => {
  const out = tempDir();
  const r = record(recordArgs(out), { BRAID_TEST_FULL_DISK: 'big-0001.trace.jsonl.part' });
  const part = path.join(out, 'big-0001.trace.jsonl.part');
  assert.equal(r.code, EXIT_WRITE_FAILURE, r.out + r.err);
  assert.match(r.err, new RegExp(`^braid record: disk full writing ${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; recording stopped: the unfinished run's files are deleted, the 1 finished run\\(s\\) are kept$`, 'm'));
  assert.match(r.out, /^stopped: recorded 1 run\(s\) in [\d.]+ s: 1 passed, 0 failed/m);
  assert.doesNotMatch(r.out, /interrupted/);
  // run 0 kept whole; nothing of run 1 (no .part, no trace, no log); run 2 never started
  assert.deepEqual(readdirSync(out).filter((n) => !n.startsWith('.')).sort(), ['big-0000.log', 'big-0000.trace.jsonl', 'recording.json']);
});

test('N12: the agent cannot write its trace (a real EFBIG under ulimit -f): the recording stops naming the file, exit 3, no .part left', { skip: process.platform === 'win32', timeout: 120000 }, () => {
  const out = tempDir();
  // 2 MiB per file: run 0's trace (~30 KB) fits, run 1's (~16 MB) does not
  const r = record(recordArgs(out), {}, 'ulimit -f 2048');
  const part = path.join(out, 'big-0001.trace.jsonl.part');
  assert.equal(r.code, EXIT_WRITE_FAILURE, r.out + r.err);
  assert.ok(r.err.includes(`braid record: file too large writing ${part}; recording stopped`), r.err);
  assert.match(r.out, /^stopped: recorded 1 run\(s\)/m);
  assert.deepEqual(readdirSync(out).filter((n) => !n.startsWith('.')).sort(), ['big-0000.log', 'big-0000.trace.jsonl', 'recording.json']);
});

test('N12: write failures name the file and what happened; the agent\'s notice is found across output chunks', () => {
  const e = (code: string) => Object.assign(new Error(code), { code });
  assert.deepEqual(
    ['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG'].map((c) => writeFailure('/t/x.trace.jsonl.part', e(c))?.message),
    [
      'disk full writing /t/x.trace.jsonl.part',
      'disk quota exceeded writing /t/x.trace.jsonl.part',
      'I/O error writing /t/x.trace.jsonl.part',
      'read-only file system writing /t/x.trace.jsonl.part',
      'file too large writing /t/x.trace.jsonl.part',
    ],
  );
  assert.equal(writeFailure('/t/x', e('EACCES')), undefined);
  const w = new AgentWriteFailureWatch();
  for (const part of ['hello\n[braid-agent] cannot wr', 'ite trace /t/a b.trace.jsonl.part: No space left on de', 'vice\r\nmore']) w.push(part);
  assert.ok(w.failure instanceof RecordWriteError);
  assert.equal(w.failure.message, 'disk full writing /t/a b.trace.jsonl.part');
  const other = new AgentWriteFailureWatch();
  other.push('[braid-agent] cannot write trace /t/y.part: /t/y.part (Read-only file system)');
  other.end();
  assert.equal(other.failure?.message, 'read-only file system writing /t/y.part');
  const quiet = new AgentWriteFailureWatch();
  quiet.push('x [braid-agent] cannot write trace /t/y.part: No space left on device\n');
  quiet.end();
  assert.equal(quiet.failure, undefined, 'only a whole line from the agent counts');
});
