/**
 * Issue 39 leftover: "`kill -TERM` of `braid record` leaves non-JVM children running". The runs'
 * commands run in process groups of their own (processTree.ts), so a signal to braid record alone
 * never reaches them: braid record stops them on SIGTERM (and SIGHUP) as on Ctrl-C, and exits 143.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const tsx = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;
const cli = path.join(root, 'server/src/cli/braid.ts');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (what()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return what();
}

test('"kill -TERM of braid record leaves non-JVM children running": SIGTERM stops the runs\' process groups (children and grandchildren), exit 143', { skip: process.platform === 'win32', timeout: 120_000 }, async () => {
  const dir = tempDir();
  const pids = path.join(dir, 'pids');
  // a non-JVM command with two grandchildren in the background
  const script = `sleep 300 & echo $! >> '${pids}'; sleep 300 & echo $! >> '${pids}'; echo $$ >> '${pids}'; wait`;
  const child = spawn(process.execPath, ['--import', tsx, cli, 'record', '--runs', '2', '--jobs', '1', '--timeout', '300', '--out', path.join(dir, 'traces'), '--', 'sh', '-c', script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  assert.ok(await until(() => existsSync(pids) && readFileSync(pids, 'utf8').trim().split('\n').length === 3, 60_000), `the run started: ${err}`);
  const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
  assert.ok(started.every(alive));
  child.kill('SIGTERM');
  const code = await exited;
  const gone = await until(() => !started.some(alive), 5_000);
  for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
  assert.ok(gone, `processes of the run still running after braid record ended: ${started.filter(alive).join(' ')}`);
  assert.equal(code, 143, err);
  assert.match(err, /braid record: stopping \(SIGTERM again to quit at once\)/);
});
