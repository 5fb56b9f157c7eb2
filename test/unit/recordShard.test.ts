/**
 * `braid record --shard K/N`: each shard records its part of the runs with the
 * execution ids and seeds they have in one whole recording, so shards from
 * many machines merge without clashes (issue 14 item 5).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseRecordArgs, shardRange, UsageError } from '../../server/src/recorder/runs/recordOptions';
import { runSpec } from '../../server/src/recorder/runs/recordRuns';

const cmd = ['--', 'java', '-cp', 'out', 'bank.Bank'];

test('--shard K/N splits --runs into N contiguous parts covering every run once', () => {
  const parts = [1, 2, 3].map((k) => shardRange(parseRecordArgs(['--runs', '10', '--seed', '7', '--shard', `${k}/3`, ...cmd], '/tmp')));
  assert.deepEqual(parts, [
    { from: 0, to: 3 },
    { from: 3, to: 6 },
    { from: 6, to: 10 },
  ]);
  assert.deepEqual(shardRange(parseRecordArgs(['--runs', '10', ...cmd], '/tmp')), { from: 0, to: 10 });
});

test('a shard run has the execution id and seed of the same run in the whole recording', () => {
  const whole = parseRecordArgs(['--runs', '10', '--seed', '7', ...cmd], '/tmp');
  const shard = parseRecordArgs(['--runs', '10', '--seed', '7', '--shard', '3/3', ...cmd], '/tmp');
  assert.deepEqual(
    [runSpec(shard, 6).execution, runSpec(shard, 6).seed, runSpec(shard, 9).execution, runSpec(shard, 9).seed],
    ['bank.Bank-0006', '13', 'bank.Bank-0009', '16'],
  );
  assert.equal(runSpec(whole, 6).execution, runSpec(shard, 6).execution);
});

test('bad --shard values are usage errors saying what is expected', () => {
  assert.throws(() => parseRecordArgs(['--shard', '4/3', '--seed', '1', ...cmd]), (e: Error) => e instanceof UsageError && /K must be from 1 to N/.test(e.message));
  assert.throws(() => parseRecordArgs(['--shard', 'two', '--seed', '1', ...cmd]), /--shard needs K\/N, e.g. --shard 2\/4, got "two"/);
  assert.throws(() => parseRecordArgs(['--shard', '1/2', ...cmd]), /--shard needs --seed S/);
});
