/**
 * Issue 39, partly open from the last round: "a shard's `stats` numbers are not type-checked
 * (strings end up in the JSON report's `stats`)". validateSummary (server/src/engine/summary/
 * summaryFile.ts) now checks every field of each run's `stats` and keeps only the known ones.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer } from '../../server/src/engine/analysis';
import { validateSummary } from '../../server/src/engine/summary/summaryFile';
import { recordedTraces } from '../helpers/recordedTraces';

async function shard(): Promise<any> {
  const a = new Analyzer();
  await a.addTrace(recordedTraces('bank')[0]);
  return JSON.parse(JSON.stringify(a.toSummary()));
}

for (const [field, value, message] of [
  ['accesses', '12<script>', /runs\[0\]\.stats\.accesses must be an integer ≥ 0/],
  ['pairs', -1, /runs\[0\]\.stats\.pairs must be an integer ≥ 0/],
  ['locations', 1.5, /runs\[0\]\.stats\.locations must be an integer ≥ 0/],
  ['latePairs', null, /runs\[0\]\.stats\.latePairs must be an integer ≥ 0/],
  ['orderedPairs', '3', /runs\[0\]\.stats\.orderedPairs must be an integer ≥ 0/],
  ['spilledPairs', {}, /runs\[0\]\.stats\.spilledPairs must be an integer ≥ 0/],
  ['hbOff', 'yes', /runs\[0\]\.stats\.hbOff must be true or false/],
] as const) {
  test(`a shard's \`stats\` numbers are not type-checked: stats.${field} = ${JSON.stringify(value)} is refused, naming the field`, async () => {
    const s = await shard();
    s.runs[0].stats[field] = value;
    assert.throws(() => validateSummary(s), message);
  });
}

test('a shard\'s stats: unknown fields are not carried into the analysis (nor the JSON report)', async () => {
  const s = await shard();
  s.runs[0].stats.note = '::error::injected';
  const checked = validateSummary(s);
  assert.equal((checked.runs[0].stats as unknown as Record<string, unknown>).note, undefined);
  assert.equal(typeof checked.runs[0].stats.accesses, 'number');
});
