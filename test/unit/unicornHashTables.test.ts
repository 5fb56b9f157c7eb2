/**
 * The hot path's hash tables: the registry's combination memo (one row per
 * second pair signature) and the per-run pattern set, against a Map on many
 * keys (rows grow and the pool is repacked), and on small cases by hand.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { CombinationMemo } from '../../server/src/engine/unicorn/combinationMemo';
import { PatternSet } from '../../server/src/engine/unicorn/patternSet';
import { rng } from '../helpers/seededRandom';

test('combination memo: absent keys read 0, stored values read back per row', () => {
  const m = new CombinationMemo();
  assert.equal(m.get(0, 1), 0);
  assert.equal(m.get(5000, 9), 0);
  m.set(3, 9, 7);
  m.set(4, 9, 1);
  assert.equal(m.get(3, 9), 7);
  assert.equal(m.get(4, 9), 1);
  assert.equal(m.get(3, 10), 0);
  assert.equal(m.get(2, 9), 0);
  assert.equal(m.size, 2);
});

test('combination memo: 200,000 random entries over 3,000 rows (rows grow, the pool is repacked) match a Map', () => {
  const r = rng(11);
  const m = new CombinationMemo();
  const ref = new Map<string, number>();
  for (let k = 0; k < 200_000; k++) {
    // a few big rows and many small ones
    const p2 = r() < 0.3 ? Math.floor(r() * 5) : Math.floor(r() * 3000);
    const key = 1 + Math.floor(r() * 2 ** 27) * 8 + Math.floor(r() * 8);
    if (ref.has(`${p2},${key}`)) continue;
    const v = 1 + Math.floor(r() * 1e6);
    m.set(p2, key, v);
    ref.set(`${p2},${key}`, v);
  }
  assert.equal(m.size, ref.size);
  for (const [k, v] of ref) {
    const [p2, key] = k.split(',').map(Number);
    assert.equal(m.get(p2, key), v, k);
  }
  for (let k = 0; k < 10_000; k++) {
    const p2 = Math.floor(r() * 3000);
    const key = 1 + Math.floor(r() * 2 ** 27) * 8;
    assert.equal(m.get(p2, key), ref.get(`${p2},${key}`) ?? 0);
  }
});

test('pattern set: ids in first-seen order, earliest end per id, sorted ids', () => {
  const s = new PatternSet();
  s.add(7, 100);
  s.add(2, 50);
  s.add(7, 40);
  s.add(7, 90);
  s.add(1_000_000, -1);
  assert.deepEqual(s.ids, [7, 2, 1_000_000]);
  assert.equal(s.earliestEnd(7), 40);
  assert.equal(s.earliestEnd(2), 50);
  assert.equal(s.earliestEnd(1_000_000), -1);
  assert.equal(s.earliestEnd(3), -1);
  assert.deepEqual(s.sortedIds(), [2, 7, 1_000_000]);
  assert.equal(s.size, 3);
});

test('pattern set: 50,000 random ids (the table grows) match a Map of earliest ends', () => {
  const r = rng(5);
  const s = new PatternSet();
  const ref = new Map<number, number>();
  for (let k = 0; k < 200_000; k++) {
    const id = Math.floor(r() * 50_000) * 37;
    const end = Math.floor(r() * 1e6);
    s.add(id, end);
    ref.set(id, Math.min(end, ref.get(id) ?? Infinity));
  }
  assert.equal(s.size, ref.size);
  assert.deepEqual(s.ids, [...ref.keys()]);
  for (const [id, end] of ref) assert.equal(s.earliestEnd(id), end);
  assert.deepEqual(s.sortedIds(), [...ref.keys()].sort((a, b) => a - b));
});

test('pattern set: sorted ids up to 2^31 − 2 (three radix digits)', () => {
  const s = new PatternSet();
  const want: number[] = [];
  for (let k = 0; k < 1000; k++) {
    const id = (k * 2_147_483) % 2_147_483_646;
    s.add(id);
    want.push(id);
  }
  s.add(2 ** 31 - 2);
  want.push(2 ** 31 - 2);
  want.sort((a, b) => a - b);
  assert.deepEqual(s.sortedIds(), want);
});
