/**
 * The callers the failing runs had (issue 40; engine/confirm/instanceCallers.ts, the agent's
 * force.accesses[].callers): fixture `forcing.NestedWiring` wires one proxy per level of a recursion and
 * publishes the outermost one unwired; `R1 get → W2 setDelegate` is about that proxy only. Matched from
 * any caller, the builder is held at each nested level's wiring (a proxy nobody reads) until the hold
 * times out; matched only from the outermost call (the builder's lambda), it is held once, where the
 * reader's read meets it.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { forcingPlan, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, record, root } from './recorderHarness';

before(() => prepare());

const FILE = 'forcing/NestedWiring.java';

function tagLine(name: string): number {
  const k = readFileSync(path.join(fixturesDir, FILE), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(`// @force ${name}`));
  assert.ok(k >= 0, `NestedWiring.java has // @force ${name}`);
  return k + 1;
}

const V = 'forcing.NestedWiring$Proxy.delegate';
const P = 'forcing.NestedWiring$Proxy';

async function forced(name: string, p: ForcedPattern, byCaller: boolean, runs: number) {
  const file = path.join(tempDir(), `${name}.json`);
  // held at the outermost wiring, the builder waits for the reader's read (50 ms after the publication:
  // a long hold leaves room for a loaded machine); from any caller each nested level's hold times out
  const plan = forcingPlan(name, p, 'pattern', byCaller ? { waitMs: 2000 } : { waitMs: 200, byCaller: false });
  await writeNoisePlan(file, plan);
  return record(name, 'forcing.NestedWiring', { runs, noise: 0, include: ['forcing'], plan: { file, plan } });
}

test('the wiring held only where the failing runs had it (the outermost call): met without a timeout; from any caller the nested levels\' holds time out', async () => {
  const runs = 4;
  const p: ForcedPattern = {
    key: 'R1 W2',
    id: 'P1',
    kind: 'RW',
    rank: 1,
    accesses: [
      { thread: 1, type: 'R', variable: V, file: FILE, line: tagLine('read'), method: `${P}.get` },
      { thread: 2, type: 'W', variable: V, file: FILE, line: tagLine('wire'), method: `${P}.setDelegate` },
    ],
    callers: [
      {
        at: 1,
        sites: [
          // as braid confirm writes them: by method, any line
          { file: FILE, line: 0, method: 'forcing.NestedWiring.build' },
          { file: FILE, line: 0, method: 'forcing.NestedWiring.lambda$main$0' },
        ],
      },
    ],
  };
  const byCaller = await forced('callers-on', p, true, runs);
  for (const r of byCaller.runs) {
    const w = r.forcing?.waits?.[0];
    assert.ok(r.forcing?.ok, `met: ${JSON.stringify(r.forcing)}`);
    assert.equal(w?.timedOut, 0, `no hold timed out: ${JSON.stringify(r.forcing)}`);
    assert.equal(r.outcome, 'fail', 'the reader read the outermost proxy unwired');
  }
  // as before (ForcingOptions.byCaller false): the builder is held at each nested level's wiring, on a
  // proxy nobody reads, until the hold times out
  const any = await forced('callers-any', p, false, runs);
  for (const r of any.runs) {
    const w = r.forcing?.waits?.[0];
    assert.ok((w?.timedOut ?? 0) >= 1, `from any caller a nested level's hold timed out: ${JSON.stringify(r.forcing)}`);
  }
});

test('the agent checks callers as the runner does (NoisePlanLoader.java): a bad call site is named, the program runs unforced', async () => {
  const q: ForcedPattern = {
    key: 'R1 W2',
    id: 'P1',
    kind: 'RW',
    rank: 1,
    accesses: [
      { thread: 1, type: 'R', variable: V, file: FILE, line: tagLine('read'), method: `${P}.get` },
      { thread: 2, type: 'W', variable: V, file: FILE, line: tagLine('wire'), method: `${P}.setDelegate` },
    ],
  };
  const plan = forcingPlan('bad', q, 'pattern') as unknown as { force: { accesses: Record<string, unknown>[] } };
  const jar = path.join(root, 'dist/braid-agent.jar');
  const dir = tempDir();
  const run = (callers: unknown, n: number): string => {
    plan.force.accesses[1].callers = callers;
    const file = path.join(dir, `plan-${n}.json`);
    writeFileSync(file, JSON.stringify(plan));
    return spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=include=forcing,out=${path.join(dir, `t${n}.trace.jsonl`)},plan=${file}`, '-cp', classesDir, 'forcing.NestedWiring'], { encoding: 'utf8' }).stderr;
  };
  assert.match(run([{ file: FILE, line: -1, method: 'forcing.NestedWiring.build' }], 1), /bad noise plan .*force\.accesses\[1\]\.callers\[0\]\.line: must be a whole number ≥ 0/);
  assert.match(run([], 2), /force\.accesses\[1\]\.callers: must be a non-empty array of at most 8 call sites/);
  assert.match(run([{ line: 3, method: 'm' }], 3), /force\.accesses\[1\]\.callers\[0\]\.file/);
});
