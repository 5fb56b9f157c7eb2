/**
 * Many runs of one node:test test in one Node process (issue 42 item 5; docs/recorder-node.md
 * "Repetitions in one process", server/src/recorder/node/nodeRepetitions.ts), with real node:
 * - the balancemap sample (TypeScript through tsx): repetitions give failing and passing runs and the
 *   same rank 1 (the Map read and write of withdraw()) as one process per run (--fresh-process);
 * - module state and globals start fresh in each repetition (a module-level counter that a leaked
 *   module would count on), all runs in one process;
 * - a repetition that hangs is stopped by the time limit and the next runs go on in a new process;
 * - the next run's worker is started ahead, while a run runs, and is used for that run; the one left
 *   waiting when the runs end (also after a program that cannot load) is closed and the process ends
 *   on its own.
 * (A repetition that cannot load stops the recording at once: nodeLoadFailure.test.ts runs its tsx
 * case through repetitions.) Needs the bundles of node scripts/build.mjs and tsx in node_modules.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns, type RecordSummary } from '../../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { nodeRepeatCommandFor, nodeRepeatPlanFor, NodeRepeatSession } from '../../server/src/recorder/node/nodeRepetitions';
import { findNodeHook } from '../../server/src/recorder/node/nodeRunner';
import { runSpec } from '../../server/src/recorder/runs/recordRuns';

const root = path.resolve(__dirname, '..', '..');
const work = path.join(root, 'test-output', 'recorder', `node-repetitions-${process.pid}`);

function record(dir: string, args: string[], command: string[]): Promise<RecordSummary> {
  return recordRuns(parseRecordArgs([...args, '--out', path.join(dir, `out-${Math.random().toString(36).slice(2)}`), '--', ...command], dir));
}

before(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
});

test('which commands run as repetitions, and why the others do not', async () => {
  const dir = path.join(root, 'test', 'fixtures', 'node', 'balancemap');
  const r = await nodeRepeatCommandFor(['node', '--import', 'tsx', '--test', '--test-name-pattern=^x$', 'src/accounts.test.ts'], dir);
  assert.ok('command' in r, JSON.stringify(r));
  assert.deepEqual(r.command.execArgv, ['--test-name-pattern=^x$']);
  assert.equal(r.command.tsx, true);
  assert.equal(r.command.commonJs, true);
  const why = async (command: string[]) => {
    const x = await nodeRepeatCommandFor(command, dir);
    return 'because' in x ? x.because : 'repeated';
  };
  assert.match(await why(['npx', '--no', '--', 'vitest', 'run', 'a.test.ts']), /runs npx, not node --test/);
  assert.match(await why(['node', '-r', 'ts-node/register', '--test', 'src/accounts.test.ts']), /node option -r/);
  assert.match(await why(['node', '--test', 'src/accounts.test.ts', 'src/other.test.ts']), /more than one file/);
  assert.match(await why(['node', 'src/app.js']), /not a node --test command/);
  assert.match(await why(['node', '--test', 'src/accounts.test.ts']), /TypeScript and the command names no loader/);
});

test('repetitions in one process: failing and passing runs and the same rank 1 as one process per run (balancemap, tsx)', async () => {
  const dir = path.join(work, 'balancemap');
  cpSync(path.join(root, 'test', 'fixtures', 'node', 'balancemap'), dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  const command = ['node', '--import', 'tsx', '--test', '--test-name-pattern=^two withdrawals are both taken$', 'src/accounts.test.ts'];
  const first = (traces: string[]) =>
    analyzeTraceFiles(traces).then((a) =>
      a.patterns[0]?.accesses
        .map((x) => `${x.type} ${path.basename(x.file)}:${x.line}`)
        .sort()
        .join(' / '),
    );
  // evidence, not luck: a recording whose runs all failed or all passed is followed by one with the next seed (up to three)
  for (const [mode, extra] of [
    ['repetitions', []],
    ['one process per run', ['--fresh-process']],
  ] as const) {
    let traces: string[] = [];
    let failed = 0;
    let total = 0;
    for (let k = 0; k < 3 && (failed === 0 || failed === total); k++) {
      const s = await record(dir, ['--runs', '10', '--jobs', '2', '--noise', '0.5', '--seed', String(1 + 100 * k), ...extra], command);
      if (mode === 'repetitions') {
        assert.ok(s.nodeRepetitions && !s.nodeRepetitions.because, JSON.stringify(s.nodeRepetitions));
        assert.ok(s.nodeRepetitions!.processes >= 1 && s.nodeRepetitions!.processes <= 2, `one process per job: ${s.nodeRepetitions!.processes}`);
      } else assert.equal(s.nodeRepetitions, undefined);
      assert.equal(s.empty, 0);
      for (const r of s.runs) if (r.outcome === 'fail') assert.deepEqual([r.reason, r.location?.file, r.location?.line], ['exit-code', 'src/accounts.test.ts', 20], `${mode}: ${r.detail} ${r.message}`);
      traces = traces.concat(s.traces);
      failed += s.failed;
      total += s.total;
    }
    assert.ok(failed > 0 && failed < total, `${mode}: ${failed} of ${total} runs failed`);
    const header = JSON.parse(readFileSync(traces[0], 'utf8').split('\n')[0]);
    assert.equal(header.program, 'src/accounts.test.ts', `${mode}: the trace's program`);
    assert.equal(await first(traces), 'R accounts.ts:24 / W accounts.ts:27', `${mode}: rank 1`);
  }
});

test('each repetition starts with fresh module state and globals, all in one process', async () => {
  const dir = path.join(work, 'fresh');
  cpSync(path.join(root, 'test', 'fixtures', 'node', 'repetitions'), dir, { recursive: true });
  const s = await record(dir, ['--runs', '4', '--jobs', '1', '--noise', '0', '--seed', '1'], ['node', '--test', '--test-name-pattern=^the module and the globals start fresh$', 'counter.test.js']);
  assert.deepEqual(
    s.runs.map((r) => [r.outcome, r.message]),
    Array.from({ length: 4 }, () => ['pass', undefined]),
  );
  assert.deepEqual(s.nodeRepetitions, { processes: 1 });
  // each run its own trace, execution and seed
  assert.deepEqual(
    s.traces.map((t) => {
      const h = JSON.parse(readFileSync(t, 'utf8').split('\n')[0]);
      return [h.execution, h.recorder.options.seed];
    }),
    [0, 1, 2, 3].map((k) => [`node-test-000${k}`, String(1 + k)]),
  );
});

test('a repetition that hangs: stopped by the time limit, the next runs go on in a new process', async () => {
  const dir = path.join(work, 'hang');
  cpSync(path.join(root, 'test', 'fixtures', 'node', 'repetitions'), dir, { recursive: true });
  writeFileSync(path.join(dir, 'hang-marker'), '');
  const s = await recordRuns(
    parseRecordArgs(['--runs', '3', '--jobs', '1', '--noise', '0', '--seed', '1', '--timeout', '8', '--out', path.join(dir, 'out'), '--', 'node', '--test', '--test-name-pattern=^hangs once$', 'counter.test.js'], dir),
  );
  assert.deepEqual(
    s.runs.map((r) => [r.index, r.outcome, r.reason]),
    [
      [0, 'fail', 'timeout'],
      [1, 'pass', 'ok'],
      [2, 'pass', 'ok'],
    ],
  );
  assert.deepEqual(s.nodeRepetitions, { processes: 2 });
});

test('a file edited between two repetitions is instrumented afresh (the instrumented sources kept across repetitions are keyed by the source, never stale)', async () => {
  const dir = path.join(work, 'edited');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "edited", "private": true }\n');
  writeFileSync(path.join(dir, 'lib.js'), 'const state = { n: 0 };\nexports.bump = () => {\n  state.n = state.n + 1;\n};\n');
  // each run bumps, then adds a line at the top of lib.js: the next repetition's write is one line lower
  writeFileSync(
    path.join(dir, 'edit.test.js'),
    "const test = require('node:test');\nconst fs = require('node:fs');\nconst path = require('node:path');\ntest('edits its code under test', () => {\n  require('./lib').bump();\n  const f = path.join(__dirname, 'lib.js');\n  fs.writeFileSync(f, '// edited\\n' + fs.readFileSync(f, 'utf8'));\n});\n",
  );
  const s = await record(dir, ['--runs', '3', '--jobs', '1', '--noise', '0', '--seed', '1'], ['node', '--test', 'edit.test.js']);
  assert.deepEqual(s.nodeRepetitions, { processes: 1 });
  const writeLines = s.traces.map((t) => {
    const lines = readFileSync(t, 'utf8').split('\n');
    const locs = new Map<number, number>();
    const vars = new Map<number, string>();
    for (const l of lines) {
      if (!l.startsWith('{')) continue;
      const d = JSON.parse(l) as { def?: string; id?: number; file?: string; line?: number; name?: string };
      if (d.def === 'loc' && d.file === 'lib.js') locs.set(d.id!, d.line!);
      if (d.def === 'var') vars.set(d.id!, d.name!);
    }
    // an event: [seq, thread, kind, var, loc, …]
    const w = lines.filter((l) => l.startsWith('[')).map((l) => JSON.parse(l) as unknown[]).find((e) => e[2] === 'W' && vars.get(e[3] as number) === 'Object.n');
    return w ? locs.get(w[4] as number) : undefined;
  });
  assert.deepEqual(writeLines, [3, 4, 5]);
});

test('the next run\'s worker is started ahead and used for it; the one left waiting is closed at the end, also after a program that cannot load', async () => {
  const dir = path.join(work, 'ahead');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "ahead", "private": true }\n');
  // each run lasts a second: time enough for the next worker to be ready before its run comes
  writeFileSync(path.join(dir, 'slow.test.js'), "const test = require('node:test');\ntest('slow', async () => {\n  await new Promise((r) => setTimeout(r, 1000));\n  console.log(`braid-pid ${process.pid}`);\n});\n");
  writeFileSync(path.join(dir, 'broken.test.js'), "const test = require('node:test');\nlet x = 1 +* 2;\n");
  const session = async (file: string, out: string) => {
    const o = parseRecordArgs(['--runs', '8', '--jobs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, out), '--', 'node', '--test', file], dir);
    mkdirSync(o.outDir, { recursive: true });
    const plan = await nodeRepeatPlanFor(o, findNodeHook());
    assert.ok(plan && 'command' in plan, JSON.stringify(plan));
    return { o, s: new NodeRepeatSession(o, findNodeHook(), plan) };
  };
  const { o, s } = await session('slow.test.js', 'out-slow');
  // evidence, not luck: runs until two of them had their worker ready when they came (a loaded machine may be late once)
  let pid = 0;
  let k = 0;
  for (; k < 8 && s.aheadRuns < 2; k++) {
    const r = await s.run(runSpec(o, k));
    assert.equal(r.outcome, 'pass', `run ${k}: ${r.detail}`);
    pid = Number(/braid-pid (\d+)/.exec(readFileSync(r.logPath, 'utf8'))?.[1]);
  }
  assert.ok(s.aheadRuns >= 2, `runs whose worker was started ahead and ready: ${s.aheadRuns} of ${k}`);
  assert.equal(s.processes, 1);
  await s.close();
  assert.deepEqual(s.lastExit, { code: 0, sig: null }, 'the process of repetitions ended on its own, its waiting worker closed');
  assert.throws(() => process.kill(pid, 0), /ESRCH/, 'no process left');
  // a program that cannot load: its run ends with the error, and the worker started ahead is closed too
  const b = await session('broken.test.js', 'out-broken');
  const r = await b.s.run(runSpec(b.o, 0));
  assert.match(readFileSync(r.logPath, 'utf8'), /SyntaxError/);
  await b.s.close();
  assert.deepEqual(b.s.lastExit, { code: 0, sig: null });
});
