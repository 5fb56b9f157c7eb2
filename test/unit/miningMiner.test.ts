/**
 * Closed sequential pattern mining (issue 8): the seed 002 example, a brute-force oracle on random
 * databases, max-length semantics, SPMF reading/writing and `braid mine`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isSubsequence, isSubstring, mineSequences, supportCount } from '../../server/src/engine/mining/closedMiner';
import { formatPatternLine, formatSpmfDb, parsePatternLines, parseSpmf, SequenceDb, spmfToDb, SpmfFormatError } from '../../server/src/engine/mining/sequenceDb';
import { bruteForce, rng } from '../helpers/miningOracle';
import { tempDir } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const spmf = path.join(root, 'test/fixtures/spmf');

function letters(db: SequenceDb<string>, patterns: { items: number[]; support: number }[]): string[] {
  return patterns.map((p) => `${p.items.map((i) => db.items[i]).join('')}:${p.support}`).sort();
}

function seed002(): SequenceDb<string> {
  const db = new SequenceDb<string>();
  for (const s of ['abcd', 'abecf', 'agbch', 'abijc', 'aklc']) db.add([...s]);
  return db;
}

test('seed 002 §3.2: S = {abcd, abecf, agbch, abijc, aklc}, min support 4 → CS = {abc:4, ac:5}', () => {
  const db = seed002();
  assert.deepEqual(letters(db, db.mine({ minSupport: 4, closed: true }).patterns), ['abc:4', 'ac:5']);
});

test('seed 002 §3.2: the frequent set FS = {a:5, b:4, c:5, ab:4, ac:5, bc:4, abc:4}', () => {
  const db = seed002();
  assert.deepEqual(letters(db, db.mine({ minSupport: 4, closed: false }).patterns), ['a:5', 'ab:4', 'abc:4', 'ac:5', 'b:4', 'bc:4', 'c:5']);
});

test('seed 002 example as fractions: 0.8 of 5 sequences is 4', () => {
  const db = seed002();
  assert.equal(supportCount(0.8, 5), 4);
  assert.deepEqual(letters(db, db.mine({ minSupport: 0.8 }).patterns), ['abc:4', 'ac:5']);
  assert.deepEqual(letters(db, db.mine({ minSupport: 1 }).patterns), ['ac:5'], '1 is 100%');
  // count 1: the five sequences themselves (each is in no other) plus the closed patterns of support ≥ 2,
  // which use only a, b and c (every other letter occurs in one sequence): abc:4 and ac:5
  assert.deepEqual(letters(db, db.mine({ minSupport: 1, minSupportIsFraction: false }).patterns), ['abc:4', 'abcd:1', 'abecf:1', 'abijc:1', 'ac:5', 'agbch:1', 'aklc:1'], 'count 1');
});

test('max length: closed within the patterns of length ≤ L (every frequent length-L pattern is reported)', () => {
  const db = seed002();
  assert.deepEqual(letters(db, db.mine({ minSupport: 4, maxLength: 2 }).patterns), ['ab:4', 'ac:5', 'bc:4']);
  assert.deepEqual(letters(db, db.mine({ minSupport: 4, maxLength: 1 }).patterns), ['a:5', 'b:4', 'c:5']);
});

test('BIDE+ and PrefixSpan agree with brute force on 1500 random databases (closed/all, max length, supports, scans/bitmaps)', () => {
  let checked = 0;
  for (let t = 0; t < 1500; t++) {
    const r = rng(t + 1);
    const n = 1 + Math.floor(r() * 7);
    const alphabet = 2 + Math.floor(r() * 5);
    const seqs: number[][] = [];
    for (let i = 0; i < n; i++) {
      const len = Math.floor(r() * 10);
      seqs.push(Array.from({ length: len }, () => Math.floor(r() * alphabet)));
    }
    const minSup = 1 + Math.floor(r() * n);
    const maxLen = r() < 0.5 ? Infinity : 1 + Math.floor(r() * 4);
    const closed = r() < 0.7;
    const expected = bruteForce(seqs, minSup, maxLen === Infinity ? 99 : maxLen, closed);
    // both growth strategies: suffix scans and position bitmaps (issue 14)
    for (const bitmaps of [false, true]) {
      const got = mineSequences(
        seqs.map((s) => Int32Array.from(s)),
        alphabet,
        { minSupport: minSup, minSupportIsFraction: false, maxLength: maxLen, closed, bitmaps },
      );
      const g = new Map(got.patterns.map((p) => [p.items.join(' '), p.support]));
      assert.deepEqual([...g].sort(), [...expected].sort(), `case ${t}: ${JSON.stringify(seqs)} minSup ${minSup} maxLen ${maxLen} closed ${closed} bitmaps ${bitmaps}`);
    }
    checked++;
  }
  assert.equal(checked, 1500);
});

test('position bitmaps across several words (sequences of 20 to 100 items) agree with brute force', () => {
  for (let t = 0; t < 60; t++) {
    const r = rng(5000 + t);
    const n = 2 + Math.floor(r() * 6);
    const alphabet = 2 + Math.floor(r() * 3);
    const seqs = Array.from({ length: n }, () => Array.from({ length: 20 + Math.floor(r() * 81) }, () => Math.floor(r() * alphabet)));
    const minSup = 1 + Math.floor(r() * n);
    const maxLen = 2 + Math.floor(r() * 2);
    const closed = r() < 0.8;
    const expected = bruteForce(seqs, minSup, maxLen, closed);
    for (const bitmaps of [false, true]) {
      const got = mineSequences(
        seqs.map((s) => Int32Array.from(s)),
        alphabet,
        { minSupport: minSup, minSupportIsFraction: false, maxLength: maxLen, closed, bitmaps },
      );
      assert.deepEqual(got.patterns.map((p) => `${p.items.join(' ')}:${p.support}`).sort(), [...expected].map(([k, v]) => `${k}:${v}`).sort(), `case ${t} bitmaps ${bitmaps}`);
    }
  }
});

test('long sequences: 200 sequences of length 2000 over 50 items mine without blowing up', () => {
  // speed is measured by bench/mining-bench.mjs, not here
  const r = rng(42);
  const seqs = Array.from({ length: 200 }, () => Int32Array.from({ length: 2000 }, () => Math.floor(r() * 50)));
  const res = mineSequences(seqs, 50, { minSupport: 1, closed: true, maxLength: 2 });
  // each item occurs about 40 times in every sequence, so every ordered pair (a, b), a = b included,
  // occurs in all 200: the closed set within length 2 is the 2,500 pairs at support 200 (each single
  // item is absorbed by a pair of equal support)
  for (const s of seqs) assert.equal(new Set(s).size, 50, 'precondition: every item in every sequence');
  const expected: string[] = [];
  for (let a = 0; a < 50; a++) for (let b = 0; b < 50; b++) expected.push(`${a} ${b}:200`);
  assert.deepEqual(res.patterns.map((p) => `${p.items.join(' ')}:${p.support}`).sort(), expected.sort());
});

test('maxPatterns truncates and says so', () => {
  const db = seed002();
  const res = db.mine({ minSupport: 1, minSupportIsFraction: false, closed: false, maxPatterns: 3 });
  assert.equal(res.patterns.length, 3);
  assert.equal(res.truncated, true);
});

test('subsequence and substring', () => {
  assert.ok(isSubsequence([1, 3], [1, 2, 3]));
  assert.ok(!isSubsequence([3, 1], [1, 2, 3]));
  assert.ok(isSubstring([2, 3], [1, 2, 3]));
  assert.ok(!isSubstring([1, 3], [1, 2, 3]));
});

test('SPMF: parses general itemsets, comments, and writes single-item sequences', () => {
  const seqs = parseSpmf('# comment\n@CONVERTED_FROM_TEXT\n1 2 -1 3 -1 -2\n\n4 -1 -2\n', 'x.txt');
  assert.deepEqual(seqs, [
    { line: 3, itemsets: [[1, 2], [3]] },
    { line: 5, itemsets: [[4]] },
  ]);
  assert.equal(formatSpmfDb([Int32Array.from([5, 6]), Int32Array.from([7])]), '5 -1 6 -1 -2\n7 -1 -2\n');
  assert.equal(formatPatternLine([1, 2, 3], 4), '1 2 3 #SUP: 4');
  assert.equal(formatPatternLine([1, 2], 4, true), '1 -1 2 -1 #SUP: 4');
  assert.deepEqual(parsePatternLines('1 -1 2 -1 #SUP: 4\n3 #SUP: 5\n'), [
    { items: [1, 2], support: 4 },
    { items: [3], support: 5 },
  ]);
});

test('SPMF: bad input is rejected with file:line', () => {
  const bad: [string, RegExp][] = [
    ['1 -1 2 -1\n', /x\.txt:1: sequence does not end with -2/],
    ['1 -1 -2\n1 -1 -1 -2\n', /x\.txt:2: empty itemset/],
    ['1 -1 a -1 -2\n', /x\.txt:1: "a" is not an integer/],
    ['1 -1 -5 -1 -2\n', /x\.txt:1: negative item -5/],
    ['1 -1 -2 3\n', /x\.txt:1: "3" after the end/],
  ];
  for (const [text, re] of bad) assert.throws(() => parseSpmf(text, 'x.txt'), (e: unknown) => e instanceof SpmfFormatError && re.test((e as Error).message), text);
  const seqs = parseSpmf('1 -1 -2\n# x\n1 2 -1 -2\n', 'y.txt');
  assert.throws(() => spmfToDb(seqs, 'y.txt'), /y\.txt:3: itemset \{1 2\} has 2 items/);
});

function braid(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/cli/braid.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('braid mine --closed on the seed 002 file prints the expected closed set', () => {
  const r = braid('mine', '--input', path.join(spmf, 'seed002.txt'), '--minsup', '4', '--closed');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(parsePatternLines(r.out), parsePatternLines(readFileSync(path.join(spmf, 'seed002.closed-4.txt'), 'utf8')));
  assert.match(r.err, /5 sequences, min support 4, 2 closed patterns/);
});

test('braid mine: fractions, all frequent patterns, --max-length, --spmf and --output', () => {
  const out = path.join(tempDir(), 'out.txt');
  const r = braid('mine', '--input', path.join(spmf, 'seed002.txt'), '--minsup', '0.8', '--max-length', '2', '--spmf', '--output', out);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '');
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  assert.deepEqual(lines, ['1 -1 #SUP: 5', '1 -1 2 -1 #SUP: 4', '1 -1 3 -1 #SUP: 5', '2 -1 #SUP: 4', '2 -1 3 -1 #SUP: 4', '3 -1 #SUP: 5']);
});

test('braid mine: malformed input names file:line; usage errors exit 2', () => {
  const r = braid('mine', '--input', path.join(spmf, 'itemset-of-two.txt'), '--minsup', '1');
  assert.equal(r.code, 1);
  assert.match(r.err, /itemset-of-two\.txt:1: itemset \{2 3\} has 2 items/);
  const e = braid('mine', '--input', path.join(spmf, 'empty-itemset.txt'), '--minsup', '1');
  assert.equal(e.code, 1);
  assert.match(e.err, /empty-itemset\.txt:2: empty itemset/);
  assert.equal(braid('mine', '--minsup', '1').code, 2);
  assert.equal(braid('mine', '--input', 'x', '--minsup', 'abc').code, 2);
  assert.equal(braid('mine', '--input', 'x', '--minsup', '1', '--bogus').code, 2);
});

test('braid mine round-trips a database written with formatSpmfDb', () => {
  const dir = tempDir();
  const file = path.join(dir, 'db.txt');
  const r = rng(7);
  const seqs = Array.from({ length: 30 }, () => Int32Array.from({ length: 12 }, () => Math.floor(r() * 6)));
  writeFileSync(file, formatSpmfDb(seqs));
  const out = braid('mine', '--input', file, '--minsup', '0.5', '--closed', '--max-length', '3');
  assert.equal(out.code, 0, out.err);
  const expected = bruteForce(seqs.map((s) => [...s]), 15, 3, true);
  const got = new Map(parsePatternLines(out.out).map((p) => [p.items.join(' '), p.support]));
  assert.deepEqual([...got].sort(), [...expected].sort());
});
