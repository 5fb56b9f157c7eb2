/**
 * Issue 45, item 1: the agent's filter (agent option filter, on by default; docs/recorder.md) leaves
 * out exactly the reads test/helpers/shadowedReads.ts describes — a read of a location whose last
 * recorded access is the same thread's, which wrote it since another thread last touched it — and
 * nothing else. test/fixtures/java/filter runs its workers one after another, so a run with the
 * filter and one without record the same accesses in the same order; the one with it must be the
 * one without minus such reads. The agent keeps the last access to two locations per stripe, so a
 * read whose location shares its stripe with two others touched in between is kept (rare: 4,096
 * stripes); the test allows that, and asks that at least 90% of the reads are left out. The
 * analysis of both traces finds the same patterns (test/unit/filterExactness.test.ts shows the same
 * on every committed recording). test/fixtures/java/filter/Collide has two static fields in one
 * stripe: its filtered trace must be exactly the reference.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { accessOf, traceText, withoutShadowedReads } from '../helpers/shadowedReads';
import { prepare, record } from './recorderHarness';

before(() => prepare());

/**
 * Event lines without what differs between two JVMs: the index, object ids (numbered by first
 * appearance), and stack ids (as their frames: the writer numbers an access's stack when it first
 * writes it, so a read the filter leaves out can shift the numbering).
 */
function normalized(text: string): string[] {
  const ids = new Map<number, number>();
  const id = (o: number) => {
    if (!ids.has(o)) ids.set(o, ids.size);
    return ids.get(o)!;
  };
  const stacks = new Map<number, string>();
  for (const l of text.split('\n')) {
    if (!l.startsWith('{"def":"stack"')) continue;
    const d = JSON.parse(l) as { id: number; parent?: number; frame: number };
    stacks.set(d.id, `${d.parent !== undefined ? `${stacks.get(d.parent)}>` : ''}${d.frame}`);
  }
  return text
    .split('\n')
    .filter((l) => l.startsWith('['))
    .map((l) => {
      const e = JSON.parse(l) as unknown[];
      e[0] = 0;
      if (['R', 'W', 'ACQ', 'REL'].includes(e[2] as string) && typeof e[5] === 'number') e[5] = `s${stacks.get(e[5])}`;
      if (accessOf(l) !== undefined) {
        if (typeof e[6] === 'number' && e[6] !== 0) e[6] = `o${id(e[6])}`;
        if (typeof e[8] === 'string') e[8] = e[8].replace(/@(-?\d+)$/, (_, n: string) => `@o${id(Number(n))}`);
      }
      return JSON.stringify(e);
    });
}

test('filter on: the trace is the trace without the filter minus reads after the same thread\'s own write', { timeout: 180_000 }, async () => {
  const common = { runs: 1, noise: 0, include: ['filter'], jobs: 1 };
  const off = await record('filter-off', 'filter.Phases', { ...common, agentOptions: ['filter=off'] });
  const on = await record('filter-on', 'filter.Phases', common);
  const offText = traceText(off.traces[0]);
  const onText = traceText(on.traces[0]);
  const reference = withoutShadowedReads(offText);
  assert.ok(reference.dropped >= 30, `the fixture has reads after own writes (${reference.dropped})`);

  // Walk both: every event of the run without the filter is in the run with it, except reads the reference leaves out.
  const all = normalized(offText);
  const refKept = normalized(reference.text);
  const got = normalized(onText);
  let r = 0;
  let g = 0;
  let leftOut = 0;
  for (const line of all) {
    if (g < got.length && got[g] === line) {
      g++;
      if (r < refKept.length && refKept[r] === line) r++;
      continue;
    }
    // not in the filtered trace: must be a read the reference leaves out (not the reference's next kept event)
    assert.ok(!(r < refKept.length && refKept[r] === line), `the filter left out an event it must keep: ${line}`);
    assert.equal(JSON.parse(line)[2], 'R', `only reads are left out: ${line}`);
    leftOut++;
  }
  assert.equal(g, got.length, `the filtered trace has events the unfiltered one lacks: ${got.slice(g, g + 3).join(' ')}`);
  assert.equal(r, refKept.length, 'every event the reference keeps is in the filtered trace');
  assert.ok(leftOut >= 0.9 * reference.dropped, `left out ${leftOut} of the reference's ${reference.dropped} reads`);

  // the same patterns (ordered pairs kept: start/join order every pair of this program)
  const keys = async (file: string) => (await analyzeTraceFiles([file], { happensBefore: false })).patterns.map((p) => `${p.key} ${p.failed}/${p.passed}`).sort();
  const before = await keys(off.traces[0]);
  assert.ok(before.length > 0, 'patterns');
  assert.deepEqual(await keys(on.traces[0]), before);
});

test('filter on: two locations of one stripe do not displace each other (the same reads left out whatever the identity hash codes)', { timeout: 180_000 }, async () => {
  const common = { runs: 1, noise: 0, include: ['filter'], jobs: 1 };
  const off = await record('filter-collide-off', 'filter.Collide', { ...common, agentOptions: ['filter=off'] });
  const on = await record('filter-collide-on', 'filter.Collide', common);
  const reference = withoutShadowedReads(traceText(off.traces[0]));
  assert.equal(reference.dropped, 100, 'every read of aj and cr follows the thread\'s own write');
  const got = normalized(traceText(on.traces[0]));
  const reads = got.filter((l) => JSON.parse(l)[2] === 'R').length;
  assert.equal(reads, 0, `reads of aj and cr recorded with the filter on: ${reads}`);
  assert.deepEqual(got, normalized(reference.text));
});
