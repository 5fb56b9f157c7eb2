/**
 * Forcing plans in the agent (issue 28, point 1; docs/noise.md "Forcing plans"), on real JVM runs of
 * test/fixtures/java/forcing: a lost update (two threads, `count = count + 1`) forced in the
 * pattern's order (R1 W2 W1: nearly every run loses an update) and in the opposite order (nearly
 * none does), with the agent's `forcing` trace line read back into RunResult.forcing; the same update
 * under `synchronized` (holds end for the lock, the reason names it, the run stays short); a wait
 * that can never be met (bounded: disabled after maxTimeouts) and one never reached; a check-then-act
 * on a ConcurrentHashMap (library calls); matching by point id; a bad force section refused with the
 * field named (runner and agent).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ForceAccess, ForceSpec, NoisePlan } from '../../server/src/engine/noise/noisePlan';
import { writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { forcingPlan as confirmPlan, patternForcing } from '../../server/src/engine/confirm/forcingPlan';
import type { PatternAccess } from '../../server/src/engine/analysis';
import { withCheckOfUse } from '../../server/src/engine/confirm/checkOfUse';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, record, root } from './recorderHarness';

const cli = path.join(root, 'dist/braid.js');
const jar = path.join(root, 'dist/braid-agent.jar');

before(() => prepare());

/** Line of the `// @force <name>` tag in a fixture. */
function tagLine(file: string, name: string): number {
  const k = readFileSync(path.join(fixturesDir, 'forcing', file), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(`// @force ${name}`));
  assert.ok(k >= 0, `${file} has // @force ${name}`);
  return k + 1;
}

const COUNTER = { variable: 'forcing.LostUpdate$Counter.count', file: 'forcing/LostUpdate.java', method: 'forcing.LostUpdate$Counter.increment' };
const update = (role: number, type: 'R' | 'W'): ForceAccess => ({ role, type, ...COUNTER, line: tagLine('LostUpdate.java', 'update') });

/** R1 W2 W1: the waits of docs/noise.md's example (the lead's forcingPlan.ts writes the same). */
function patternForce(accesses: ForceAccess[], o: Partial<ForceSpec> = {}): ForceSpec {
  return {
    order: 'pattern',
    waitMs: 300,
    times: 1,
    pattern: { key: 'lost-update', id: 'P4', rank: 1 },
    accesses,
    waits: [
      { at: 1, for: 0, sameObject: true },
      { at: 2, for: 1, since: 0, sameObject: true },
    ],
    ...o,
  };
}

/** The first access of role 1 waits for role 2's access: the opposite order. */
function oppositeForce(accesses: ForceAccess[]): ForceSpec {
  return { ...patternForce(accesses), order: 'opposite', waits: [{ at: 0, for: 1, sameObject: true }] };
}

function forcingPlan(name: string, force: unknown): NoisePlan {
  return { format: 'braid-noise-plan', version: 1, name, noise: { kind: 'yield' }, points: [], force: force as ForceSpec };
}

async function planFile(p: NoisePlan): Promise<{ file: string; plan: NoisePlan }> {
  const file = path.join(tempDir(), `${p.name}.json`);
  await writeNoisePlan(file, p);
  return { file, plan: p };
}

const LOST = [update(1, 'R'), update(2, 'W'), update(1, 'W')];

test('a lost update forced in the pattern\'s order fails nearly every run, in the opposite order nearly none; RunResult.forcing says ok', async () => {
  const runs = 10;
  const forced = await record('forcing-pattern', 'forcing.LostUpdate', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('pattern', patternForce(LOST))) });
  const opposite = await record('forcing-opposite', 'forcing.LostUpdate', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('opposite', oppositeForce(LOST))) });
  assert.equal(forced.total, runs);
  assert.equal(opposite.total, runs);
  // measured: 10/10 and 0/10
  assert.ok(forced.failed >= 9, `pattern order: ${forced.failed}/${runs} runs failed, expected ≥ 9`);
  assert.ok(opposite.failed <= 1, `opposite order: ${opposite.failed}/${runs} runs failed, expected ≤ 1`);
  for (const r of forced.runs.filter((x) => x.outcome === 'fail')) assert.match(r.detail ?? '', /IllegalStateException: lost update: count = [1-5] in thread/);
  const okRuns = (s: typeof forced) => s.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(okRuns(forced) >= 9, `pattern order: ok in ${okRuns(forced)}/${runs} runs: ${JSON.stringify(forced.runs.map((r) => r.forcing))}`);
  assert.ok(okRuns(opposite) >= 9, `opposite order: ok in ${okRuns(opposite)}/${runs} runs: ${JSON.stringify(opposite.runs.map((r) => r.forcing))}`);
  const f = forced.runs.find((r) => r.forcing?.ok)!.forcing!;
  assert.equal(f.order, 'pattern');
  assert.deepEqual(f.pattern, { key: 'lost-update', id: 'P4', rank: 1 });
  assert.deepEqual(f.waits.map((w) => [w.at, w.for]), [[1, 0], [2, 1]]);
  assert.ok(f.waits.every((w) => w.met >= 1));
  assert.equal(f.waits[1].met, 1, 'times 1: forcing stops once the last wait was met');
  assert.equal(f.reason, undefined);
  // the line is in the trace, before the runner's outcome line
  const lines = readFileSync(forced.traces[0], 'utf8').trim().split('\n');
  const at = lines.findIndex((l) => l.startsWith('{"forcing":'));
  assert.ok(at > 0 && at < lines.length - 1 && JSON.parse(lines[lines.length - 1]).outcome, 'forcing line before the outcome line');
  assert.equal(opposite.runs.find((r) => r.forcing)?.forcing?.order, 'opposite');

  // without a force section nothing changes: no forcing line, no RunResult.forcing, and the race stays rare
  const plain = await record('forcing-none', 'forcing.LostUpdate', { runs: 3, noise: 0, include: ['forcing'] });
  assert.ok(plain.runs.every((r) => r.forcing === undefined));
  assert.ok(plain.traces.every((t) => !readFileSync(t, 'utf8').includes('{"forcing":')));
});

test('the update under synchronized: a hold under the counter\'s monitor ends as soon as the other thread blocks on it; once it has finished, as soon as it is gone; ok:false names the lock, no hold waits its whole waitMs', async () => {
  const line = tagLine('LockedUpdate.java', 'locked');
  const locked = { variable: 'forcing.LockedUpdate$Counter.count', file: 'forcing/LockedUpdate.java', method: 'forcing.LockedUpdate$Counter.increment', line };
  const accesses: ForceAccess[] = [
    { role: 1, type: 'R', ...locked },
    { role: 2, type: 'W', ...locked },
    { role: 1, type: 'W', ...locked },
  ];
  const waitMs = 3000;
  const s = await record('forcing-locked', 'forcing.LockedUpdate', { runs: 3, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('locked', patternForce(accesses, { waitMs }))) });
  assert.equal(s.total, 3);
  for (const r of s.runs) {
    assert.equal(r.outcome, 'pass', `${r.reason}: ${r.detail}`);
    const f = r.forcing;
    assert.ok(f, 'a forcing report');
    assert.equal(f.ok, false);
    assert.ok(f.waits.reduce((n, w) => n + w.lock, 0) >= 1, JSON.stringify(f));
    assert.match(f.reason ?? '', /thread worker-[12] is blocked on forcing\.LockedUpdate\$Counter \(monitor\) held by worker-[12] while it waits at LockedUpdate\.java:\d+/);
    // no hold waits its whole waitMs: while the other thread is blocked on the monitor the hold ends for the lock,
    // once it has finished the hold ends because no thread of the pattern is left (without both: 6 × 3 s = 18 s;
    // the bound leaves a JVM on a loaded CI machine its start-up time — 3 s alone failed at a load of 30)
    assert.ok(r.durationMs < 4 * waitMs, `the run took ${r.durationMs} ms: ${JSON.stringify(f)}`);
  }
});

test('a wait that can never be met times out after waitMs and is disabled after maxTimeouts; a wait never reached says so', async () => {
  const reset: ForceAccess = { role: 2, type: 'W', ...COUNTER, method: 'forcing.LostUpdate$Counter.reset', line: tagLine('LostUpdate.java', 'reset') };
  const never: ForceSpec = { order: 'opposite', waitMs: 100, times: 1, maxTimeouts: 3, accesses: [update(1, 'R'), reset], waits: [{ at: 0, for: 1, sameObject: true }] };
  // worker-2 (7 ms pauses) outlives the three holds of 100 ms: they time out, not for want of a partner
  const rounds = 60;
  const s = await record('forcing-never', 'forcing.LostUpdate', {
    runs: 2,
    noise: 0,
    include: ['forcing'],
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.LostUpdate', String(rounds)],
    plan: await planFile(forcingPlan('never', never)),
  });
  for (const r of s.runs) {
    const f = r.forcing!;
    assert.ok(f, `a forcing report: ${r.reason} ${r.detail}`);
    assert.equal(f.ok, false);
    const t = f.waits[0].timedOut;
    // 3 holds, and 3 more at most when the second worker takes part after the wait was given up (a new
    // thread tries the given-up waits again: maxTimeouts afresh)
    assert.ok(t >= 3 && t <= 6, `timed out ${t} times`);
    assert.deepEqual({ ...f.waits[0], skipped: 0, timedOut: 0 }, { at: 0, for: 1, met: 0, timedOut: 0, lock: 0, skipped: 0 });
    // 2 × 60 reads reach the wait: the holds, the rest skipped (another thread held in role 1, or the wait disabled)
    assert.equal(f.waits[0].skipped, 2 * rounds - t);
    // one hold timed out reads 'timed out once (100 ms)' (a loaded machine: the other ended when the partner was gone)
    assert.match(
      f.reason ?? '',
      /^wait 0: (timed out (once \(100 ms\)|[2-6] times \(100 ms each\))( and ended (once|\d times) when no other thread of the pattern was left)?|ended (once|[1-6] times) when no other thread of the pattern was left) at LostUpdate\.java:\d+ \(R count\) waiting for another thread's LostUpdate\.java:\d+ \(W count\) on the same object, which no thread performed; then disabled \(maxTimeouts 3\)$/,
    );
    // (the counts above say the other reads were skipped, not held: 120 holds of 100 ms would take 12 s;
    // no bound on the run's time, which a loaded machine stretches)
  }
  const unreached: ForceSpec = { ...never, order: 'pattern', waits: [{ at: 1, for: 0, sameObject: true }] };
  const u = await record('forcing-unreached', 'forcing.LostUpdate', { runs: 1, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('unreached', unreached)) });
  assert.deepEqual(u.runs[0].forcing, {
    ok: false,
    order: 'pattern',
    waits: [{ at: 1, for: 0, met: 0, timedOut: 0, lock: 0, skipped: 0 }],
    reason: `wait 0: no thread reached LostUpdate.java:${reset.line} (W count)`,
  });
});

test('library calls are forced too: a get-then-put on a ConcurrentHashMap loses an update in the pattern\'s order', async () => {
  const map = { variable: 'java.util.concurrent.ConcurrentHashMap', file: 'forcing/MapCount.java', method: 'forcing.MapCount.hit' };
  const get = tagLine('MapCount.java', 'get');
  const put = tagLine('MapCount.java', 'put');
  const accesses: ForceAccess[] = [
    { role: 1, type: 'R', ...map, line: get },
    { role: 2, type: 'W', ...map, line: put },
    { role: 1, type: 'W', ...map, line: put },
  ];
  const runs = 5;
  const s = await record('forcing-map', 'forcing.MapCount', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('map', patternForce(accesses))) });
  // measured: 5/5
  assert.ok(s.failed >= 4, `${s.failed}/${runs} runs failed, expected ≥ 4`);
  assert.ok(s.runs.filter((r) => r.forcing?.ok).length >= 4, JSON.stringify(s.runs.map((r) => r.forcing)));
  for (const r of s.runs.filter((x) => x.outcome === 'fail')) assert.match(r.detail ?? '', /lost update: hits = [1-5]/);
});

test('a library access matches by its call: of a for-each\'s four calls on a HashMap at one line, the hold is at next()', async () => {
  const map = { variable: 'java.util.HashMap', file: 'forcing/MapIterate.java' };
  const accesses = (call?: string): ForceAccess[] => [
    { role: 1, type: 'W', ...map, line: tagLine('MapIterate.java', 'remove'), method: 'forcing.MapIterate.lambda$main$1' },
    { role: 2, type: 'R', ...map, line: tagLine('MapIterate.java', 'iterate'), method: 'forcing.MapIterate.lambda$main$0', ...(call ? { call } : {}) },
  ];
  const force = (call?: string) => patternForce(accesses(call), { waits: [{ at: 1, for: 0, sameObject: true }] });
  const runs = 5;
  const atNext = await record('forcing-iterate', 'forcing.MapIterate', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('iterate-next', force('java.util.Iterator.next'))) });
  // measured: 5/5 (ConcurrentModificationException in the scanner)
  assert.ok(atNext.failed >= 4, `held at next(): ${atNext.failed}/${runs} runs failed, expected ≥ 4 — ${JSON.stringify(atNext.runs.map((r) => r.forcing))}`);
  for (const r of atNext.runs.filter((x) => x.outcome === 'fail')) assert.match(r.detail ?? '', /ConcurrentModificationException/);
  // without the call the first call at the line (values()) is held: the remove lands before the loop;
  // unforced, the scan is over before the remove
  const unforced = await record('forcing-iterate-none', 'forcing.MapIterate', { runs: 2, noise: 0, include: ['forcing'] });
  assert.equal(unforced.failed, 0);
  const anyCall = await record('forcing-iterate-any', 'forcing.MapIterate', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('iterate-any', force())) });
  assert.ok(anyCall.failed <= 1, `held at the line's first call: ${anyCall.failed}/${runs} runs failed, expected ≤ 1`);
});

test('an access matches by point id too (the plan\'s lines are wrong, its points right)', async () => {
  const r = spawnSync('javap', ['-c', '-p', '-cp', classesDir, 'forcing.LostUpdate$Counter'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const body = r.stdout.slice(r.stdout.indexOf('void increment()'));
  const offset = (insn: RegExp) => Number(new RegExp(`(\\d+): ${insn.source}`).exec(body)![1]);
  const id = (insn: RegExp) => `forcing/LostUpdate$Counter.increment()V@${offset(insn)}`;
  const read = id(/getfield\s+#\d+\s+\/\/ Field count:I/);
  const write = id(/putfield\s+#\d+\s+\/\/ Field count:I/);
  const moved = LOST.map((a, k) => ({ ...a, line: a.line + 40, points: [k === 0 ? read : write] }));
  const s = await record('forcing-points', 'forcing.LostUpdate', { runs: 3, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('points', patternForce(moved))) });
  assert.ok(s.failed >= 2, `${s.failed}/3 runs failed`);
  assert.ok(s.runs.filter((x) => x.forcing?.ok).length >= 2, JSON.stringify(s.runs.map((x) => x.forcing)));
});

test('braid record --plan: a bad force section is refused with the field named (exit 2), a good one is reported; the agent used directly runs without noise or forcing', () => {
  const dir = tempDir();
  const java = ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.LostUpdate'];
  const badFor = patternForce(LOST);
  badFor.waits[1].for = 3;
  writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(forcingPlan('bad', badFor)));
  const r1 = spawnSync(process.execPath, [cli, 'record', '--runs', '1', '--plan', 'bad.json', '--', ...java], { cwd: dir, encoding: 'utf8' });
  assert.equal(r1.status, 2, r1.stderr);
  assert.match(r1.stderr, /--plan bad\.json: force\.waits\[1\]\.for: must be an index into force\.accesses \(0\.\.2\)/);
  // a good one: braid record says it forces, and in how many runs every wait was met
  writeFileSync(path.join(dir, 'good.json'), JSON.stringify(forcingPlan('good', patternForce(LOST))));
  const r0 = spawnSync(process.execPath, [cli, 'record', '--runs', '2', '--plan', 'good.json', '--include', 'forcing', '--out', path.join(dir, 'traces'), '--', ...java], { cwd: dir, encoding: 'utf8' });
  assert.equal(r0.status, 0, r0.stderr);
  assert.match(r0.stderr, /noise plan "good" \(good\.json, 0 point\(s\), forcing the pattern order\)/);
  assert.match(r0.stdout, /^forcing: every wait met in [12] of 2 run\(s\)/m);

  // the agent used directly checks it the same way
  const badSince = patternForce(LOST);
  badSince.waits[1].since = 2;
  const file = path.join(dir, 'since.json');
  writeFileSync(file, JSON.stringify(forcingPlan('since', badSince)));
  const trace = path.join(dir, 'run.trace.jsonl');
  const r2 = spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=out=${trace},include=forcing,plan=${file}`, '-cp', classesDir, 'forcing.LostUpdate'], { encoding: 'utf8' });
  assert.match(r2.stderr, /\[braid-agent\] bad noise plan .*since\.json: force\.waits\[1\]\.since: must differ from at; the program runs without noise or forcing/);
  assert.ok(!readFileSync(trace, 'utf8').includes('{"forcing":'), 'no forcing');
  const badRole = patternForce(LOST);
  badRole.waits[0].for = 2;
  badRole.waits[0].at = 0;
  writeFileSync(file, JSON.stringify(forcingPlan('role', badRole)));
  const r3 = spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=out=${trace},include=forcing,plan=${file}`, '-cp', classesDir, 'forcing.LostUpdate'], { encoding: 'utf8' });
  assert.match(r3.stderr, /force\.waits\[0\]\.for: must be an access of another role than at \(force\.accesses\[0\] has role 1\); the program runs without noise or forcing/);

  // record=false: forcing needs the recording hooks; the agent says so and runs the program
  writeFileSync(file, JSON.stringify(forcingPlan('cheap', patternForce(LOST))));
  const r4 = spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=include=forcing,record=false,plan=${file}`, '-cp', classesDir, 'forcing.LostUpdate'], { encoding: 'utf8' });
  assert.match(r4.stderr, /the force section of the noise plan .*since\.json is ignored: forcing needs recording \(record=false\)/);
  assert.doesNotMatch(r4.stderr, /bad noise plan/);
});

test('sameKey: a get held for a put on a plain HashMap goes on after a put of its own key, not of another; two threads held for keys nobody else stores: one is let go', async () => {
  const map = { variable: 'java.util.HashMap', file: 'forcing/RegionCache.java' };
  const accesses: ForceAccess[] = [
    { role: 1, type: 'R', ...map, method: 'forcing.RegionCache.lookup', line: tagLine('RegionCache.java', 'get'), call: 'java.util.HashMap.get' },
    { role: 2, type: 'W', ...map, method: 'forcing.RegionCache.store', line: tagLine('RegionCache.java', 'put'), call: 'java.util.HashMap.put' },
  ];
  const force = (sameKey: boolean): ForceSpec => ({ ...patternForce(accesses), order: 'opposite', waitMs: 3000, waits: [{ at: 0, for: 1, sameObject: true, sameKey }] });
  const byObject = await record('forcing-key-object', 'forcing.RegionCache', { runs: 2, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('by-object', force(false))) });
  // the "us" put meets the wait: the lookup misses "eu"
  assert.equal(byObject.failed, 2, JSON.stringify(byObject.runs.map((r) => [r.outcome, r.forcing])));
  const byKey = await record('forcing-key-same', 'forcing.RegionCache', { runs: 2, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('by-key', force(true))) });
  assert.equal(byKey.failed, 0, JSON.stringify(byKey.runs.map((r) => [r.outcome, r.forcing])));
  assert.ok(byKey.runs.every((r) => r.forcing?.ok && r.forcing.waits[0].met === 1), JSON.stringify(byKey.runs.map((r) => r.forcing)));

  // worker-a waits at get("a") for a put("a"), worker-b at get("b") for a put("b"): nobody is left
  // to perform either, so the one that finds it lets go (RaceFuzzer's release); it finishes, and the
  // other's hold ends when no other thread of the pattern is left — both long before waitMs
  const stuck = await record('forcing-key-stuck', 'forcing.RegionCache', {
    runs: 1,
    noise: 0,
    include: ['forcing'],
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.RegionCache', 'lookups'],
    plan: await planFile(forcingPlan('stuck', force(true))),
  });
  const f = stuck.runs[0].forcing;
  assert.ok(f && !f.ok, JSON.stringify(stuck.runs[0]));
  assert.equal(f.waits[0].timedOut, 2, JSON.stringify(f));
  assert.match(f.reason ?? '', /^wait 0: ended once when no other thread of the pattern was left and let go once when every other thread of the pattern was held too at RegionCache\.java:\d+ \(R HashMap\) waiting for another thread's RegionCache\.java:\d+ \(W HashMap\) on the same key$/);
});

test('a window follows its object: a walker whose loop on the root\'s list is held gives way to the grower held at its add to a child\'s list, and fails on that list', async () => {
  const list = { variable: 'java.util.ArrayList', file: 'forcing/TreeWalk.java' };
  const walk = { role: 1 as const, type: 'R' as const, ...list, line: tagLine('TreeWalk.java', 'walk'), method: 'forcing.TreeWalk$Node.walk' };
  const add = { role: 2 as const, type: 'W' as const, ...list, line: tagLine('TreeWalk.java', 'add'), method: 'forcing.TreeWalk$Node.add', call: 'java.util.ArrayList.add' };
  // the waits braid confirm writes for R1 W2 R1 (forcingPlan.ts): the add waits for a read of its list,
  // the walker's next access to a list (guard) and its next step wait for the add since its read
  const force = patternForcing([walk, add, walk]);
  const runs = 6;
  const s = await record('forcing-tree', 'forcing.TreeWalk', { runs, noise: 0, include: ['forcing'], plan: await planFile(forcingPlan('tree', patternForce(force.accesses, { waits: force.waits }))) });
  // measured: 6/6 met and failing; without giving way (and a met hold still counted as held) 0/6
  const ok = s.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(ok >= runs - 1, `met in ${ok}/${runs}: ${JSON.stringify(s.runs.map((r) => r.forcing?.reason ?? 'ok'))}`);
  assert.ok(s.failed >= runs - 1, `${s.failed}/${runs} failed`);
  // exit code 3: a ConcurrentModificationException (TreeWalk.main)
  for (const r of s.runs.filter((x) => x.outcome === 'fail')) assert.equal(r.detail, 'exit code 3');
  const unforced = await record('forcing-tree-none', 'forcing.TreeWalk', { runs: 2, noise: 0, include: ['forcing'] });
  assert.equal(unforced.failed, 0);
});

test('a check then a use: the checker waits for the writer to be at its clear, so its check sees the field set and the clear lands before its use', async () => {
  const tags = { variable: 'forcing.CheckThenUse$Holder.tags', file: 'forcing/CheckThenUse.java' };
  const read = (line: number): PatternAccess => ({ thread: 1, type: 'R', ...tags, line, method: 'forcing.CheckThenUse$Holder.count', stack: [] });
  const clear: PatternAccess = { thread: 2, type: 'W', ...tags, line: tagLine('CheckThenUse.java', 'clear'), method: 'forcing.CheckThenUse$Holder.clear', stack: [] };
  const p = { key: 'check-then-use', id: 'P4', kind: 'RWR', rank: 1, accesses: [read(tagLine('CheckThenUse.java', 'check')), clear, read(tagLine('CheckThenUse.java', 'use'))] };
  const runs = 6;
  const s = await record('forcing-check-use', 'forcing.CheckThenUse', { runs, noise: 0, include: ['forcing'], plan: await planFile(confirmPlan('check-use', p, 'pattern')) });
  // measured: 6/6 met and failing; with the pattern's three waits alone 0/6 (the use is never reached).
  // 4 of 6 asked: at load ~20 on 2 cores a wait can time out (a fresh-clone CI had 3 of 6 before the
  // writer's guard of 26f9751f, a helper's run 4 of 6 after it), which is load, not the plan
  const ok = s.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(ok >= runs - 2, `met in ${ok}/${runs}: ${JSON.stringify(s.runs.map((r) => r.forcing?.reason ?? 'ok'))}`);
  assert.ok(s.failed >= runs - 2, `${s.failed}/${runs} failed`);
  // exit code 3: a NullPointerException at the use (CheckThenUse.main)
  for (const r of s.runs.filter((x) => x.outcome === 'fail')) assert.equal(r.detail, 'exit code 3');
  const unforced = await record('forcing-check-use-none', 'forcing.CheckThenUse', { runs: 2, noise: 0, include: ['forcing'] });
  assert.equal(unforced.failed, 0);
});

test('an order pattern W1 → R2 whose read is a use: forced with the check the ranking shows (R2 W1 R2), the use is reached and fails', async () => {
  const tags = { variable: 'forcing.CheckThenUse$Holder.tags', file: 'forcing/CheckThenUse.java' };
  const read = (thread: 1 | 2, line: number): PatternAccess => ({ thread, type: 'R', ...tags, line, method: 'forcing.CheckThenUse$Holder.count', stack: [] });
  const clear = (thread: 1 | 2): PatternAccess => ({ thread, type: 'W', ...tags, line: tagLine('CheckThenUse.java', 'clear'), method: 'forcing.CheckThenUse$Holder.clear', stack: [] });
  const order = { key: 'clear-then-use', id: 'P1', kind: 'WR', rank: 1, failed: 4, accesses: [clear(1), read(2, tagLine('CheckThenUse.java', 'use'))] };
  const checkThenUse = { key: 'check-then-use', id: 'P4', kind: 'RWR', rank: 4, failed: 3, accesses: [read(1, tagLine('CheckThenUse.java', 'check')), clear(2), read(1, tagLine('CheckThenUse.java', 'use'))] };
  const p = withCheckOfUse(order, [order, checkThenUse]);
  assert.equal(p.check?.line, tagLine('CheckThenUse.java', 'check'));
  const runs = 6;
  // measured: without the check (the order's two accesses alone) 0 of 6 met, the use never reached
  // (4 of 6 asked, not 5: the check-then-use test above failed once with 5 asked at load 20 on 2 cores)
  const s = await record('forcing-order-check', 'forcing.CheckThenUse', { runs, noise: 0, include: ['forcing'], plan: await planFile(confirmPlan('order-check', p, 'pattern')) });
  const ok = s.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(ok >= runs - 2, `met in ${ok}/${runs}: ${JSON.stringify(s.runs.map((r) => r.forcing?.reason ?? 'ok'))}`);
  assert.ok(s.failed >= runs - 2, `${s.failed}/${runs} failed`);
  for (const r of s.runs.filter((x) => x.outcome === 'fail')) assert.equal(r.detail, 'exit code 3');
});
