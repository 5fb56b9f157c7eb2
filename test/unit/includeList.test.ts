/**
 * A list option (`--include`, `--exclude`) ends at the next option, long or short: `braid test …
 * --include org.apache.commons.io.input -o FILE` took `-o` and the file name as packages (found on
 * the real corpus, issue 38). No package, class or glob starts with `-`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseTestArgs } from '../../server/src/cli/testCliCommand';
import { parseRecordArgs, takeList } from '../../server/src/recorder/runs/recordOptions';

test('--include ends at a short option too (-o FILE)', () => {
  assert.deepEqual(takeList(['a.b', 'c.d', '-o', 'x.json'], 0), [['a.b', 'c.d'], 2]);
  const a = parseTestArgs(['bank.AccountTest#t', '--include', 'org.apache.commons.io.input', '-o', 'report.json']);
  assert.deepEqual(a.include, ['org.apache.commons.io.input']);
  assert.equal(a.output, 'report.json');
  const r = parseRecordArgs(['--include', 'bank', 'shop', '--', 'java', 'Main'], process.cwd());
  assert.deepEqual(r.include, ['bank', 'shop']);
});
