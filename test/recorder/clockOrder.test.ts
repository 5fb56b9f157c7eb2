/**
 * The Java agent's two orders (agent option order, docs/recorder.md "How it works"): `counter`, one
 * global index per event, and `clock`, Lamport clocks per thread and per stripe merged by the trace
 * writer (issue 45). (1) A fixture whose every run is ordered by happens-before (order.Turns: two
 * threads take turns through CountDownLatches, every odd run loses an update) is recorded with both:
 * the traces are the same event for event, so the ranking and GRIFFIN's bugs are identical. (2) A
 * racy program (bank.Bank under noise) recorded with `clock`: every read has the value of the write
 * before it in the trace, a lock is acquired only when no other thread holds it, a thread's events
 * come after its START and before its JOIN — the trace orders conflicting accesses and
 * synchronization as they happened.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { traceText } from '../helpers/shadowedReads';
import { bugTags, prepare, record, workDir } from './recorderHarness';

before(() => prepare());

/**
 * Event lines without what differs between two JVMs: the index, object ids (by first appearance),
 * stack ids (as their frames) and END events (the racy test below checks that each comes after its
 * thread's last event and before its JOIN).
 */
function normalized(text: string): string[] {
  const ids = new Map<number, number>();
  const id = (o: number) => {
    if (!ids.has(o)) ids.set(o, ids.size);
    return ids.get(o)!;
  };
  const stacks = new Map<number, string>();
  const out: string[] = [];
  for (const l of text.split('\n')) {
    if (l.startsWith('{"def":"stack"')) {
      const d = JSON.parse(l) as { id: number; parent?: number; frame: number };
      stacks.set(d.id, `${d.parent !== undefined ? `${stacks.get(d.parent)}>` : ''}${d.frame}`);
    }
    if (!l.startsWith('[')) continue;
    const e = JSON.parse(l) as unknown[];
    // a thread's END: where the writer noticed that the thread had ended, unless its JOIN came first (either order)
    if (e[2] === 'END') continue;
    e[0] = 0;
    if (['R', 'W', 'ACQ', 'REL'].includes(e[2] as string) && typeof e[5] === 'number') e[5] = `s${stacks.get(e[5])}`;
    if (e[2] === 'FAIL' && typeof e[4] === 'number') e[4] = `s${stacks.get(e[4])}`;
    if (e[2] === 'R' || e[2] === 'W') {
      if (typeof e[6] === 'number' && e[6] !== 0) e[6] = `o${id(e[6])}`;
      if (typeof e[8] === 'string') e[8] = e[8].replace(/@(-?\d+)$/, (_, n: string) => `@o${id(Number(n))}`);
    }
    if (e[2] === 'ACQ' || e[2] === 'REL' || e[2] === 'SND' || e[2] === 'RCV') e[3] = `o${id(e[3] as number)}`;
    out.push(JSON.stringify(e));
  }
  return out;
}

const runIndex = (f: string) => Number(/(\d+)\.trace\.jsonl(\.gz)?$/.exec(f)?.[1] ?? -1);

test('order=clock: a run ordered by happens-before has the same trace as with order=counter, hence the same ranking and bugs', { timeout: 300_000 }, async () => {
  const dir = path.join(workDir, 'clock-order');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const runs = 6;
  const rec = (order: string) =>
    record(`turns-${order}`, 'order.Turns', { runs, noise: 0, include: ['order'], jobs: 1, agentOptions: [`order=${order}`], env: { BRAID_TURNS_FILE: path.join(dir, `${order}.count`) } });
  const counter = await rec('counter');
  const clock = await rec('clock');
  for (const s of [counter, clock]) {
    assert.equal(s.failed, runs / 2, 'every odd run loses the update');
    assert.equal(s.passed, runs / 2);
  }
  const a = [...counter.traces].sort((x, y) => runIndex(x) - runIndex(y));
  const b = [...clock.traces].sort((x, y) => runIndex(x) - runIndex(y));
  assert.equal(a.length, runs);
  assert.equal(b.length, runs);
  assert.match(traceText(b[0]).split('\n')[0], /"order":"clock"/, 'the header names the order');
  for (let k = 0; k < runs; k++) assert.deepEqual(normalized(traceText(b[k])), normalized(traceText(a[k])), `run ${k}`);

  const analyze = async (files: string[]) => {
    // without happens-before: the latches order every pair of this program, which would leave no pattern
    const result = await analyzeTraceFiles(files, { happensBefore: false });
    const ranking = result.patterns.map((p) => `${p.key} ${p.failed}/${p.passed} ${p.score}`);
    const bugs = explainBugs(undefined, result).map((g) => `${g.kind} ${g.patternKeys.join(',')} ${g.failingRuns.length} ${g.score}`);
    return { ranking, bugs, top: result.patterns[0] };
  };
  const before = await analyze(a);
  const after = await analyze(b);
  assert.ok(before.ranking.length > 0 && before.bugs.length > 0, 'patterns and a bug');
  assert.deepEqual(after.ranking, before.ranking);
  assert.deepEqual(after.bugs, before.bugs);
  // rank 1 is on a line of the lost update
  const tagged = bugTags('order').map((t) => `Turns.java:${t.line}|`);
  assert.ok(tagged.some((l) => `${after.top.key}|`.includes(l)), `rank 1 on an @bug line: ${after.top.key}`);
});

test('order=clock: in a racy program every read has the value of the write before it, locks alternate, threads run between START and JOIN', { timeout: 300_000 }, async () => {
  const s = await record('bank-clock', 'bank.Bank', { runs: 20, noise: 0.3, include: ['bank'], agentOptions: ['order=clock'] });
  assert.equal(s.total, 20);
  let reads = 0;
  let acquires = 0;
  for (const file of s.traces) {
    const last = new Map<string, unknown>();
    const holder = new Map<unknown, { t: number; n: number }>();
    const first = new Map<number, number>();
    const lastOf = new Map<number, number>();
    const started = new Map<number, number>();
    const joined = new Map<number, number>();
    let prev = -1;
    for (const l of traceText(file).split('\n')) {
      if (!l.startsWith('[')) continue;
      const e = JSON.parse(l) as [number, number, string, ...unknown[]];
      const [i, t, k] = e;
      assert.ok(i > prev, `${file}: index ${i} after ${prev}`);
      prev = i;
      if (!first.has(t)) first.set(t, i);
      lastOf.set(t, i);
      if (k === 'R' || k === 'W') {
        const key = `${e[3]} ${e[6]} ${e[7]}`;
        if (e.length <= 8) continue;
        if (k === 'W') last.set(key, e[8]);
        else if (last.has(key)) {
          reads++;
          assert.deepEqual(e[8], last.get(key), `${file}: ${l} reads another value than the write before it`);
        }
      } else if (k === 'ACQ') {
        const h = holder.get(e[3]);
        assert.ok(!h || h.t === t, `${file}: ${l} while thread ${h?.t} holds the lock`);
        holder.set(e[3], { t, n: h ? h.n + 1 : 1 });
        acquires++;
      } else if (k === 'REL') {
        const h = holder.get(e[3]);
        assert.ok(h && h.t === t, `${file}: ${l} of a lock the thread does not hold`);
        if (h.n > 1) holder.set(e[3], { t, n: h.n - 1 });
        else holder.delete(e[3]);
      } else if (k === 'START') started.set(e[3] as number, i);
      else if (k === 'JOIN') joined.set(e[3] as number, i);
    }
    for (const [c, at] of started) if (first.has(c)) assert.ok(first.get(c)! > at, `${file}: thread ${c} before its START`);
    for (const [c, at] of joined) if (lastOf.has(c)) assert.ok(lastOf.get(c)! < at, `${file}: thread ${c} after its JOIN`);
  }
  assert.ok(reads > 20, `reads after a write checked: ${reads}`);
  assert.ok(acquires >= 0);
});
