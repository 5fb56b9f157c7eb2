/**
 * `braid mine`'s byte-level SPMF reader (issue 14 item 7): the same database and the same
 * errors as the string parser (parseSpmf + spmfToDb), and `braid mine` on small files whose
 * closed patterns were worked out by hand (SPMF's BIDE+ prints the same sets; the bench
 * bench/mine-spmf-bench.mjs compares with SPMF itself, this test does not need it).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { mineSequences } from '../../server/src/engine/mining/closedMiner';
import { parsePatternLines, parseSpmf, spmfToDb, SpmfFormatError } from '../../server/src/engine/mining/sequenceDb';
import { readSpmfDb } from '../../server/src/engine/mining/spmfReader';
import { rng } from '../helpers/miningOracle';

const root = path.resolve(__dirname, '../..');
const spmf = path.join(root, 'test/fixtures/spmf');

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
/** The database as raw items per sequence, plus the item order (dense ids). */
const view = (db: { seqs: Int32Array[]; items: number[] }) => ({ seqs: db.seqs.map((s) => Array.from(s, (id) => db.items[id])), items: [...db.items] });

test('reader: comments, blank lines, CRLF, tabs, leading blanks, a last item closed by -2 alone', () => {
  const text = '# c\r\n@CONVERTED_FROM_TEXT\n% x\n\n   \n  7 -1 3 -1 -2\r\n3\t-1 9 -2\n   # indented comment\n12 -1 -2';
  const db = readSpmfDb(bytes(text), 'x.txt');
  // written out by hand: three sequences, items interned in order of first appearance
  assert.deepEqual(view(db), { seqs: [[7, 3], [3, 9], [12]], items: [7, 3, 9, 12] });
  assert.deepEqual(view(readSpmfDb(bytes(''), 'x.txt')), { seqs: [], items: [] });
});

test('reader: large items (past the direct-index table) and a Unicode space (string parser fallback)', () => {
  const db = readSpmfDb(bytes('5000000 -1 4 -1 9007199254740991 -1 -2\n4\u00a0-1 5000000 -1 -2\n'), 'x.txt');
  assert.deepEqual(view(db), { seqs: [[5000000, 4, 9007199254740991], [4, 5000000]], items: [5000000, 4, 9007199254740991] });
});

test('reader: the same database as parseSpmf + spmfToDb on 300 random files', () => {
  for (let t = 0; t < 300; t++) {
    const r = rng(1000 + t);
    const lines: string[] = [];
    const n = Math.floor(r() * 12);
    for (let k = 0; k < n; k++) {
      if (r() < 0.1) lines.push(r() < 0.5 ? '# comment 1 -1 -2' : '');
      const len = 1 + Math.floor(r() * 8);
      const toks: string[] = [];
      for (let i = 0; i < len; i++) toks.push(String(Math.floor(r() * (r() < 0.1 ? 1e7 : 20))), '-1');
      if (r() < 0.2) toks.pop(); // "x -2" closes the last itemset
      toks.push('-2');
      const sep = r() < 0.2 ? '  ' : r() < 0.1 ? '\t' : ' ';
      lines.push((r() < 0.1 ? ' ' : '') + toks.join(sep));
    }
    const text = lines.join(r() < 0.3 ? '\r\n' : '\n') + (r() < 0.5 ? '\n' : '');
    const expected = spmfToDb(parseSpmf(text, 'r.txt'), 'r.txt');
    assert.deepEqual(view(readSpmfDb(bytes(text), 'r.txt')), view(expected), text);
  }
});

test('reader: bad input names file:line with the string parser message', () => {
  const bad: [string, RegExp][] = [
    ['1 -1 2 -1\n', /^x\.txt:1: sequence does not end with -2$/],
    ['1 -1 -2\n1 -1 -1 -2\n', /^x\.txt:2: empty itemset/],
    ['# c\n\n1 -1 a -1 -2\n', /^x\.txt:3: "a" is not an integer/],
    ['1 -1 -5 -1 -2\n', /^x\.txt:1: negative item -5/],
    ['1 -1 -2 3\n', /^x\.txt:1: "3" after the end/],
    ['1 -1 -2\n% m\n1 2 -1 -2\n', /^x\.txt:3: itemset \{1 2\} has 2 items/],
    ['1 -1 -2\r\n2x -1 -2\r\n', /^x\.txt:2: "2x" is not an integer/],
    ['1 -1 99999999999999999999 -1 -2\n', /^x\.txt:1: item 99999999999999999999 is too large/],
  ];
  for (const [text, re] of bad)
    assert.throws(
      () => readSpmfDb(bytes(text), 'x.txt'),
      (e: unknown) => e instanceof SpmfFormatError && re.test((e as Error).message),
      JSON.stringify(text),
    );
});

function mine(file: string, minsup: number): string[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/cli/braid.ts'), 'mine', '--input', path.join(spmf, file), '--minsup', String(minsup), '--closed'], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 0, r.stderr);
  return parsePatternLines(r.stdout)
    .map((p) => `${p.items.join(' ')}:${p.support}`)
    .sort();
}

test('braid mine on hand-checked files (closed patterns worked out by hand)', () => {
  // hand-a: 1 2 3 1 / 1 3 2 / 2 1 3 / 1 2 3. Frequent at 2: 1:4 2:4 3:4 12:3 13:4 21:2 23:3 123:2;
  // 1 and 3 are absorbed by 1 3 (support 4), the rest are closed
  assert.deepEqual(mine('hand-a.txt', 2), ['1 2 3:2', '1 2:3', '1 3:4', '2 1:2', '2 3:3', '2:4']);
  // hand-b: 4 1 2 4 / 4 2 1 2 / 1 4 2 (CRLF, a blank line, leading blanks, a tab, "2 -2").
  // At 3: 4:3 1:3 2:3 42:3 12:3; 2 is not closed by a backward extension (4 before it everywhere)
  assert.deepEqual(mine('hand-b.txt', 3), ['1 2:3', '4 2:3']);
  // at 2 also 41:2 (absorbed by 412:2), 14:2, 412:2
  assert.deepEqual(mine('hand-b.txt', 2), ['1 2:3', '1 4:2', '4 1 2:2', '4 2:3']);
});

test('dropping infrequent items does not change the result (closed, all, max length)', () => {
  // items 7..9 occur once; the expected sets are those of hand-a (above) with them absent
  const seqs = [
    [1, 2, 7, 3, 1],
    [8, 1, 3, 2],
    [2, 1, 3, 9],
    [1, 2, 3],
  ].map((s) => Int32Array.from(s));
  const got = (closed: boolean, maxLength?: number) =>
    mineSequences(seqs, 10, { minSupport: 2, minSupportIsFraction: false, closed, maxLength })
      .patterns.map((p) => `${p.items.join(' ')}:${p.support}`)
      .sort();
  assert.deepEqual(got(true), ['1 2 3:2', '1 2:3', '1 3:4', '2 1:2', '2 3:3', '2:4']);
  assert.deepEqual(got(false), ['1 2 3:2', '1 2:3', '1 3:4', '1:4', '2 1:2', '2 3:3', '2:4', '3:4']);
  assert.deepEqual(got(true, 1), ['1:4', '2:4', '3:4']);
});

test('bin/braid.js mine runs the small bundle (dist/braid-mine.js) with the same results and errors', () => {
  const mineBundle = path.join(root, 'dist/braid-mine.js');
  assert.ok(existsSync(mineBundle), 'dist/braid-mine.js is missing: run `npm run build` first');
  const run = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'mine', ...args], { encoding: 'utf8', cwd: root });
  const ok = run('--input', path.join(spmf, 'hand-a.txt'), '--minsup', '2', '--closed', '--spmf');
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(ok.stdout.trim().split('\n').sort(), ['1 -1 2 -1 #SUP: 3', '1 -1 2 -1 3 -1 #SUP: 2', '1 -1 3 -1 #SUP: 4', '2 -1 #SUP: 4', '2 -1 1 -1 #SUP: 2', '2 -1 3 -1 #SUP: 3']);
  const bad = run('--input', path.join(spmf, 'itemset-of-two.txt'), '--minsup', '1');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /itemset-of-two\.txt:1: itemset \{2 3\} has 2 items/);
  assert.equal(run('--minsup', '1').status, 2);
  assert.match(run('--help').stdout, /braid mine --input FILE --minsup F/);
});
