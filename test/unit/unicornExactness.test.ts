/**
 * Randomized exactness (issue 14): the engine's UNICORN Steps 1–2 against the
 * naive reference implementation of Algorithm 2 (test/helpers/unicornReference.ts),
 * on random traces (threads, locations, reads/writes, thread start/join and
 * hand-off tokens), with and without the happens-before filter, and on one
 * trace with more than 2^20 pairs whose first location is touched at the start
 * and at the end only (it holds the pair ordering back for the whole run).
 * Per run the pattern sets must be identical; per pattern the failed/passed counts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Analyzer } from '../../server/src/engine/analysis';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { PatternRegistry } from '../../server/src/engine/unicorn/patternRegistry';
import { UnicornCollector } from '../../server/src/engine/unicorn/unicornCollector';
import { RefAccess, RefEvent, runPatterns } from '../helpers/unicornReference';
import { rng } from '../helpers/seededRandom';

const FILES = ['A.java', 'B.java'];

interface RandomRun {
  execution: string;
  outcome: 'pass' | 'fail';
  events: RefEvent[];
}

/** A random run: a few threads, variables, objects and elements; some thread starts/joins and hand-offs. */
function randomRun(seed: number, execution: string): RandomRun {
  const r = rng(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const threads = 2 + pick(4);
  const variables = 1 + pick(4);
  const objects = 1 + pick(3);
  const lines = 2 + pick(6);
  const length = 5 + pick(r() < 0.2 ? 400 : 80);
  const events: RefEvent[] = [];
  let idx = 0;
  const started = new Set<number>([1]);
  const useSync = r() < 0.6;
  if (useSync && r() < 0.5) for (let t = 2; t <= threads; t++) if (r() < 0.7) (events.push({ kind: 'START', idx: ++idx, thread: 1, arg: t }), started.add(t));
  for (let k = 0; k < length; k++) {
    const thread = 1 + pick(threads);
    const x = r();
    if (useSync && x < 0.05) {
      events.push({ kind: 'SND', idx: ++idx, thread, arg: pick(3) });
      continue;
    }
    if (useSync && x < 0.1) {
      events.push({ kind: 'RCV', idx: ++idx, thread, arg: pick(3) });
      continue;
    }
    if (useSync && x < 0.12) {
      events.push({ kind: r() < 0.5 ? 'START' : 'JOIN', idx: ++idx, thread, arg: 1 + pick(threads) });
      continue;
    }
    const v = pick(variables);
    const obj = pick(objects);
    const elem = r() < 0.2 ? pick(2) : -1;
    const line = 1 + pick(lines);
    const a: RefAccess = {
      kind: 'access',
      idx: ++idx,
      thread,
      write: r() < 0.45,
      location: `${v}/${obj}/${elem}`,
      variable: `v${v}`,
      file: FILES[line % 2],
      line,
    };
    events.push(a);
  }
  if (useSync && r() < 0.5) for (let t = 2; t <= threads; t++) events.push({ kind: 'JOIN', idx: ++idx, thread: 1, arg: t });
  return { execution, outcome: r() < 0.4 ? 'fail' : 'pass', events };
}

/** The trace file (format v1) of a run: definitions first, then one line per event. */
function* traceLines(run: RandomRun): Generator<string> {
  yield JSON.stringify({ braid: 'trace', version: 1, execution: run.execution, outcome: run.outcome });
  const vars = new Map<string, number>();
  const locs = new Map<string, number>();
  const threads = new Set<number>();
  for (const e of run.events) {
    if (!threads.has(e.thread)) {
      threads.add(e.thread);
      yield JSON.stringify({ def: 'thread', id: e.thread, name: `T${e.thread}` });
    }
    if (e.kind !== 'access') {
      yield JSON.stringify([e.idx, e.thread, e.kind, e.arg]);
      continue;
    }
    if (!vars.has(e.variable)) {
      vars.set(e.variable, vars.size);
      yield JSON.stringify({ def: 'var', id: vars.get(e.variable), name: e.variable });
    }
    const lk = `${e.file}:${e.line}`;
    if (!locs.has(lk)) {
      locs.set(lk, locs.size);
      yield JSON.stringify({ def: 'loc', id: locs.get(lk), file: e.file, line: e.line, method: `m${e.line}` });
    }
    const [, obj, elem] = e.location.split('/').map(Number);
    const value = (e as RefAccess & { value?: unknown }).value;
    yield JSON.stringify([e.idx, e.thread, e.write ? 'W' : 'R', vars.get(e.variable), locs.get(lk), null, obj, elem, ...(value === undefined ? [] : [value])]);
  }
}

async function writeTrace(file: string, run: RandomRun): Promise<void> {
  const out = createWriteStream(file);
  let buf = '';
  for (const line of traceLines(run)) {
    buf += line + '\n';
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** Runs the engine and the reference over the same runs and compares per run and per pattern. */
async function compare(runs: RandomRun[], accessWindow: number, pairWindow: number, happensBefore: boolean, label: string, sigsBefore = 0, windowWrites: 'adjacent' | 'latest' = 'latest'): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exact-'));
  try {
    const analyzer = new Analyzer({ accessWindow, pairWindow, happensBefore, windowWrites });
    // pair signatures interned before the runs (no pattern): the runs' signatures get ids past them
    const reg = analyzer.registry;
    for (let k = 0; k < sigsBefore; k++) {
      const v = reg.internVariable(`other.V${k}`);
      reg.internPair(reg.internAccess(true, v, reg.internLoc('Other.java', k + 1, 'other.M.m')), reg.internAccess(false, v, reg.internLoc('Other.java', k + 1, 'other.M.m')));
    }
    const expected = new Map<string, Set<string>>();
    const counts = new Map<string, { failed: number; passed: number }>();
    for (const run of runs) {
      const file = path.join(dir, `${run.execution}.trace.jsonl`);
      await writeTrace(file, run);
      const result = await analyzer.addTrace(file);
      assert.ok(result, `${label} ${run.execution}: the engine read the trace`);
      const ref = runPatterns(run.events, accessWindow, pairWindow, happensBefore, windowWrites === 'adjacent');
      expected.set(run.execution, ref);
      for (const k of ref) {
        const c = counts.get(k) ?? { failed: 0, passed: 0 };
        if (run.outcome === 'fail') c.failed++;
        else c.passed++;
        counts.set(k, c);
      }
      const got = Array.from(result.patterns, (id) => analyzer.registry.pattern(id).key).sort();
      const want = [...ref].sort();
      if (got.join('\n') !== want.join('\n')) {
        const missing = want.filter((k) => !got.includes(k));
        const extra = got.filter((k) => !want.includes(k)); // small runs: a linear search is fine
        assert.fail(`${label} ${run.execution} (w=${accessWindow}, pw=${pairWindow}, hb=${happensBefore}, ${windowWrites}): missing ${JSON.stringify(missing.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))} (${missing.length}/${extra.length})`);
      }
      assert.equal(result.stats.latePairs ?? 0, 0);
    }
    const ranked = analyzer.rank();
    assert.equal(ranked.patterns.length, counts.size, `${label}: number of patterns`);
    for (const p of ranked.patterns) {
      const c = counts.get(p.key);
      assert.ok(c, `${label}: unexpected pattern ${p.key}`);
      assert.deepEqual({ failed: p.failed, passed: p.passed }, c, `${label}: counts of ${p.key}`);
    }
    return counts.size;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the engine finds exactly the reference patterns on 320 random traces (random windows, with and without happens-before, the thesis\' window writes and adjacent ones)', async () => {
  const r = rng(2024);
  let traces = 0;
  let patterns = 0;
  for (let group = 0; group < 40; group++) {
    const runs = Array.from({ length: 8 }, (_, k) => randomRun(1000 * group + k + 1, `g${group}r${k}`));
    const accessWindow = 2 + Math.floor(r() * 5);
    const pairWindow = [0, 1, 2, 3, 5, 8, 20, 100][Math.floor(r() * 8)];
    const hb = group % 2 === 0;
    patterns += await compare(runs, accessWindow, pairWindow, hb, `group ${group}`, 0, group % 4 < 2 ? 'latest' : 'adjacent');
    traces += runs.length;
  }
  assert.equal(traces, 320);
  assert.ok(patterns > 2000, `the random traces form many patterns (${patterns})`);
});

test('pair signatures past the dense combination table (300 signatures interned first): exact on 80 random traces', async () => {
  const r = rng(4048);
  let patterns = 0;
  for (let group = 0; group < 10; group++) {
    const runs = Array.from({ length: 8 }, (_, k) => randomRun(7000 * group + k + 1, `s${group}r${k}`));
    const accessWindow = 2 + Math.floor(r() * 5);
    const pairWindow = [1, 2, 3, 5, 8, 20, 100][Math.floor(r() * 7)];
    patterns += await compare(runs, accessWindow, pairWindow, group % 2 === 0, `sparse group ${group}`, 300, group % 4 < 2 ? 'latest' : 'adjacent');
  }
  assert.ok(patterns > 400, `the random traces form many patterns (${patterns})`);
});

test('one trace with more than 2^20 pairs, its first location touched only at the start and at the end: exact', async () => {
  const r = rng(77);
  const events: RefEvent[] = [];
  let idx = 0;
  const access = (thread: number, write: boolean, v: number, obj: number, line: number): RefAccess => ({
    kind: 'access',
    idx: ++idx,
    thread,
    write,
    location: `${v}/${obj}/-1`,
    variable: `v${v}`,
    file: FILES[line % 2],
    line,
  });
  // W1 W2 on v0 at the start; its window holds the pair ordering's watermark until the end
  events.push(access(1, true, 0, 0, 1), access(2, true, 0, 0, 2));
  let thread = 1;
  while (idx < 600_000) {
    if (r() < 0.3) thread = 1 + Math.floor(r() * 4);
    events.push(access(thread, r() < 0.5, 1 + Math.floor(r() * 6), Math.floor(r() * 4), 3 + Math.floor(r() * 6)));
  }
  events.push(access(1, false, 0, 0, 1), access(2, true, 0, 0, 2));
  const run: RandomRun = { execution: 'big', outcome: 'fail', events };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exact-big-'));
  try {
    const file = path.join(dir, 'big.trace.jsonl');
    await writeTrace(file, run);
    const analyzer = new Analyzer({ accessWindow: 5, pairWindow: 8, happensBefore: false });
    const result = await analyzer.addTrace(file);
    assert.ok(result);
    assert.ok(result.stats.pairs > 2 ** 20, `more than 2^20 pairs (${result.stats.pairs})`);
    const want = [...runPatterns(events, 5, 8, false, true)].sort();
    const got = Array.from(result.patterns, (id) => analyzer.registry.pattern(id).key).sort();
    const gotSet = new Set(got);
    const wantSet = new Set(want);
    const missing = want.filter((k) => !gotSet.has(k));
    const extra = got.filter((k) => !wantSet.has(k));
    assert.deepEqual({ missing: missing.slice(0, 10), extra: extra.slice(0, 10), counts: [missing.length, extra.length] }, { missing: [], extra: [], counts: [0, 0] });
    assert.equal(got.length, want.length);
    assert.equal(result.stats.latePairs ?? 0, 0);
    assert.ok((result.stats.spilledPairs ?? 0) > 0, 'the pair ordering went past its memory budget and spilled sorted runs to disk');
    // the pairs of the start and end accesses of v0 are among them
    assert.ok(wantSet.has('P3|W1:v0@B.java:1|W2:v0@A.java:2'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('spilling to disk changes nothing: same patterns, same first-occurrence values, stacks and thread names', async () => {
  const r = rng(5);
  const events: RefEvent[] = [];
  let idx = 0;
  const VALUES = [0, 1, -3.5, 'a', 'é"\\', null, true, false];
  const access = (thread: number, write: boolean, v: number, line: number, value?: unknown) => {
    const a: RefAccess & { value?: unknown } = { kind: 'access', idx: ++idx, thread, write, location: `${v}/0/-1`, variable: `v${v}`, file: FILES[line % 2], line };
    if (value !== undefined) a.value = value;
    events.push(a);
  };
  access(1, true, 0, 1, 'start');
  access(2, true, 0, 2, null);
  let thread = 1;
  while (idx < 30_000) {
    if (r() < 0.3) thread = 1 + Math.floor(r() * 3);
    access(thread, r() < 0.5, 1 + Math.floor(r() * 5), 3 + Math.floor(r() * 8), r() < 0.8 ? VALUES[Math.floor(r() * VALUES.length)] : undefined);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exact-spill-'));
  try {
    const file = path.join(dir, 'spill.trace.jsonl');
    await writeTrace(file, { execution: 'spill', outcome: 'fail', events });
    const collect = async (maxBufferedPairs?: number) => {
      const reg = new PatternRegistry();
      const c = new UnicornCollector(reg, 4, 10, false, { maxBufferedPairs, adjacentWrites: true });
      await readTrace(file, c);
      const found = c.finish();
      const seen = new Map(found.ids.map((id) => {
        const p = reg.pattern(id);
        return [p.key, JSON.stringify([p.values, p.threadNames, found.earliestEnd(id)])];
      }));
      return { seen, stats: c.stats() };
    };
    const spilled = await collect(300);
    const memory = await collect();
    assert.ok((spilled.stats.spilledPairs ?? 0) > 10_000, `spilled ${spilled.stats.spilledPairs}`);
    assert.equal(memory.stats.spilledPairs, 0);
    assert.deepEqual([...spilled.seen].sort(), [...memory.seen].sort());
    const want = runPatterns(events, 4, 10, false, true);
    assert.deepEqual([...spilled.seen.keys()].sort(), [...want].sort());
    assert.ok([...memory.seen.values()].some((v) => v.includes('"start"')), 'values are recorded');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
