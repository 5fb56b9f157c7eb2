import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fisherOneSided } from '../../server/src/engine/ranking/fisherExact';

// Expected values written by hand from the hypergeometric formula.
test('Fisher one-sided p-value: hand-computed tables', () => {
  // 2 failing, 2 passing runs; pattern in both failing runs only: C(2,2)C(2,0)/C(4,2) = 1/6.
  assert.ok(Math.abs(fisherOneSided(2, 0, 2, 2) - 1 / 6) < 1e-12);
  // Pattern in 1 of 1 failing and none of 9 passing: 1/10.
  assert.ok(Math.abs(fisherOneSided(1, 0, 1, 9) - 0.1) < 1e-12);
  // Pattern in every run: no evidence at all.
  assert.equal(fisherOneSided(3, 7, 3, 7), 1);
  // Absent from failing runs: p = 1.
  assert.equal(fisherOneSided(0, 4, 3, 7), 1);
  // 5 of 5 failing, 0 of 95 passing: 1 / C(100,5) = 1/75287520.
  assert.ok(Math.abs(fisherOneSided(5, 0, 5, 95) - 1 / 75287520) < 1e-18);
  // Table 5 (thesis): I5 in both failing runs (E5, E6), no passing run of 4: C(2,2)C(4,0)/C(6,2) = 1/15.
  assert.ok(Math.abs(fisherOneSided(2, 0, 2, 4) - 1 / 15) < 1e-12);
  // f=1 of F=2, p=1 of P=2: P(X>=1), k=2: 1 - C(2,0)C(2,2)/C(4,2) = 5/6.
  assert.ok(Math.abs(fisherOneSided(1, 1, 2, 2) - 5 / 6) < 1e-12);
});
