/**
 * Pattern details with values (issue 12, item 5): when traces record values, a ranked pattern
 * carries the values of its first occurrence, and the text report prints
 * "values: T1 read size = 3; T2 wrote size = 4".
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { textReport, valueLine } from '../../server/src/engine/report/textReport';

function trace(execution: string, outcome: 'pass' | 'fail', events: string[]): string {
  return [
    `{"braid":"trace","version":1,"execution":"${execution}","outcome":"${outcome}"}`,
    '{"def":"thread","id":1,"name":"T1"}',
    '{"def":"thread","id":2,"name":"T2"}',
    '{"def":"var","id":0,"name":"shop.Cart.size"}',
    '{"def":"loc","id":0,"file":"shop/Cart.java","line":10,"method":"shop.Cart.check"}',
    '{"def":"loc","id":1,"file":"shop/Cart.java","line":20,"method":"shop.Cart.add"}',
    ...events,
    '',
  ].join('\n');
}

test('the top pattern carries its first occurrence values; the text report prints them', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-values-'));
  // failing run: T1 reads size (3), then T2 writes size (4): pattern R1 W2
  writeFileSync(path.join(dir, 'f.trace.jsonl'), trace('f', 'fail', ['[1,1,"R",0,0,null,7,-1,3]', '[2,2,"W",0,1,null,7,-1,4]']));
  // passing run: T2 writes first, then T1 reads (W2 R1 instead)
  writeFileSync(path.join(dir, 'p.trace.jsonl'), trace('p', 'pass', ['[1,2,"W",0,1,null,7,-1,4]', '[2,1,"R",0,0,null,7,-1,4]']));
  const r = await analyzeTraceFiles([dir]);
  const rw = r.patterns.find((p) => p.kind === 'RW');
  assert.ok(rw, `an RW pattern; got ${r.patterns.map((p) => p.kind).join(',')}`);
  assert.deepEqual(rw.accesses.map((a) => a.value), [3, 4]);
  assert.equal(valueLine(rw), 'values: T1 read size = 3; T2 wrote size = 4');
});

test('without values in the traces, no value line', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-values-'));
  writeFileSync(path.join(dir, 'f.trace.jsonl'), trace('f', 'fail', ['[1,1,"R",0,0]', '[2,2,"W",0,1]']));
  const r = await analyzeTraceFiles([dir]);
  assert.ok(r.patterns.length > 0);
  assert.equal(valueLine(r.patterns[0]), '');
  assert.equal(r.patterns[0].accesses[0].value, undefined);
});

test('each pattern access carries its thread name at the first occurrence (UNICORN and FALCON)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-threadnames-'));
  const named = (execution: string, events: string[]) =>
    trace(execution, 'fail', events).replace('"name":"T1"', '"name":"checker"').replace('"name":"T2"', '"name":"pool-1-thread-1"');
  // thread 2 (pool-1-thread-1) writes first, so it has role 1; thread 3 has no def line
  writeFileSync(path.join(dir, 'f.trace.jsonl'), named('f', ['[1,2,"W",0,1]', '[2,1,"R",0,0]', '[3,3,"W",0,1]']));
  for (const strategy of ['unicorn', 'falcon'] as const) {
    const r = await analyzeTraceFiles([dir], { strategy });
    const wr = r.patterns.find((p) => p.kind === 'WR');
    assert.ok(wr, `${strategy}: a WR pattern; got ${r.patterns.map((p) => p.kind).join(',')}`);
    assert.deepEqual(wr.accesses.map((a) => [a.thread, a.threadName]), [[1, 'pool-1-thread-1'], [2, 'checker']], strategy);
    const rw = r.patterns.find((p) => p.kind === 'RW');
    assert.ok(rw, `${strategy}: an RW pattern`);
    assert.deepEqual(rw.accesses.map((a) => a.threadName), ['checker', undefined], strategy);
  }
});

test('the text report says each pattern in plain words under its row (issue 30: the sentence of the hover and the tree)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-values-'));
  writeFileSync(path.join(dir, 'f.trace.jsonl'), trace('f', 'fail', ['[1,1,"R",0,0,null,7,-1,3]', '[2,2,"W",0,1,null,7,-1,4]']));
  writeFileSync(path.join(dir, 'p.trace.jsonl'), trace('p', 'pass', ['[1,2,"W",0,1,null,7,-1,4]', '[2,1,"R",0,0,null,7,-1,4]']));
  const r = await analyzeTraceFiles([dir]);
  const lines = textReport(r).split('\n');
  const row = lines.findIndex((l) => /^1\s+\d\.\d{3}\s+P\d+\s+RW\s/.test(l));
  assert.ok(row >= 0, `a rank-1 RW row:\n${lines.join('\n')}`);
  // the row, its second access, its values, then the sentence (no backticks: plain text for a terminal)
  const words = lines.slice(row + 1, row + 5).find((l) => /^ {5}Thread /.test(l));
  assert.equal(words?.trim(), 'Thread T1 read size (3), then thread T2 wrote it (4).');
});
