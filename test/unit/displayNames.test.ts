/**
 * Display names (server/src/engine/displayNames.ts) and weak patterns (weakPatterns.ts), issue 16.
 * Expected values written by hand.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileLine, shortMethod, shortValue, shortVariable, threadLegend } from '../../server/src/engine/displayNames';
import { isWeakPattern } from '../../server/src/lsp/weakPatterns';
import { findOccurrence } from '../../webview/src/tracer/occurrence';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { toRunDto } from '../../server/src/lsp/analysisState';

test('class simple name + member; lambdas and anonymous classes readable', () => {
  assert.equal(shortVariable('vectorcopy.VectorCopy$MyVector.size'), 'MyVector.size');
  assert.equal(shortVariable('vectorcopy.VectorCopy$MyVector.data[]'), 'MyVector.data[]');
  assert.equal(shortVariable('count'), 'count');
  assert.equal(shortVariable('java.lang.Object[]'), 'Object[]');
  assert.equal(shortVariable('java.lang.Object[][]'), 'Object[][]');
  assert.equal(shortVariable('java.util.ArrayList.elementData[]'), 'ArrayList.elementData[]');
  assert.equal(shortMethod('vectorcopy.VectorCopy$MyVector.addAll(Collection)'), 'MyVector.addAll');
  assert.equal(shortMethod('vectorcopy.VectorCopy$MyVector.<init>'), 'MyVector.<init>');
  assert.equal(shortMethod('vectorcopy.VectorCopy.lambda$main$1'), 'VectorCopy.lambda in main');
  assert.equal(shortMethod('app.Main.lambda$static$0'), 'Main.lambda');
  assert.equal(shortMethod('app.Server$1.run'), 'Server$1.run');
  assert.equal(shortMethod('main'), 'main');
  assert.equal(fileLine('src/main/java/bank/Account.java', 42), 'Account.java:42');
  assert.equal(fileLine('C:\\src\\Account.java'), 'Account.java');
});

test('thread legend: the named roles in role order', () => {
  assert.equal(threadLegend([{ thread: 2, threadName: 'main' }, { thread: 1, threadName: 'copier' }, { thread: 2 }]), 'T1 = copier · T2 = main');
  assert.equal(threadLegend([{ thread: 1 }, { thread: 2 }]), '');
  assert.equal(threadLegend([{ thread: 1, threadName: 'T1' }, { thread: 2, threadName: 'T1' }]), 'T2 = T1', 'a name equal to its own role adds nothing');
});

test('weak: below the minimum score, or in every passing run — unless it has evidence', () => {
  assert.equal(isWeakPattern({ score: 0.5, passed: 10 }, 14), false, 'thesis example: 0.5 with 10 of 14 passing stays');
  assert.equal(isWeakPattern({ score: 0.29, passed: 0 }, 14), true);
  assert.equal(isWeakPattern({ score: 0.3, passed: 0 }, 14), false, 'the threshold itself is not weak');
  assert.equal(isWeakPattern({ score: 0.6, passed: 14 }, 14), true, 'present in every passing run');
  assert.equal(isWeakPattern({ score: 0, passed: 0 }, 0, 0), true, 'a zero score is always weak');
  assert.equal(isWeakPattern({ score: 0.1, passed: 0 }, 0, 0), false, 'minScore 0 keeps every scoring pattern');
  // a pattern with evidence is listed as a cause by the report and the panel: never folded as one that does not separate
  assert.equal(isWeakPattern({ score: 0.278, passed: 0, evidence: true }, 12), false, 'R1 W2 in 5 of 18 failing runs, no passing run');
  assert.equal(isWeakPattern({ score: 0.278, passed: 0, evidence: false }, 12), true);
});

test('a pattern\'s occurrence in a run: one event per access, roles on consistent threads, tightest first', () => {
  const F = 'V.java';
  const ev = (i: number, thread: number, kind: string, variable: string, line: number) => ({ i, thread, kind, variable, file: F, line });
  // RWR on x: R1 at line 1, W2 at line 2, R1 at line 3
  const acc = [
    { thread: 1, type: 'R', variable: 'x', file: F, line: 1 },
    { thread: 2, type: 'W', variable: 'x', file: F, line: 2 },
    { thread: 1, type: 'R', variable: 'x', file: F, line: 3 },
  ];
  const events = [
    ev(0, 7, 'R', 'x', 1), // thread 7 reads …
    ev(1, 7, 'W', 'x', 2), // … its own write is not an interleaving one
    ev(2, 7, 'R', 'x', 3),
    ev(3, 8, 'R', 'x', 1), // thread 8 reads
    ev(4, 8, 'R', 'x', 1), // and again: the tighter start
    ev(5, 9, 'W', 'x', 2), // thread 9 writes
    ev(6, 9, 'R', 'x', 3), // a read by the writer: not role 1
    ev(7, 8, 'R', 'x', 3), // thread 8 reads again: the occurrence ends
  ];
  assert.deepEqual(findOccurrence(events, acc), [4, 5, 7]);
  assert.equal(findOccurrence(events, acc, 4), undefined, 'no later occurrence');
  assert.equal(findOccurrence(events.slice(0, 7), acc), undefined);
});

test('a failure names its thread: "in thread 3" of the recorded run reads "in thread copier" (the trace names thread 3 copier)', async () => {
  const file = path.resolve(__dirname, '../fixtures/e2e/vectorcopy/vectorcopy.VectorCopy-0000.trace.jsonl');
  const r = await analyzeTraceFiles([file]);
  assert.deepEqual(r.runs[0].failingThread, { id: 3, name: 'copier' });
  const dto = toRunDto(r.runs[0]);
  assert.equal(dto.detail, 'java.lang.ArrayIndexOutOfBoundsException: Index 8 out of bounds for length 8 in thread copier');
  assert.deepEqual(dto.failingThread, { id: 3, name: 'copier' });
});

test('issue 30, point 4: array elements, types and object values short and whole (the Tracer cut `lang.Object[][0]`, `util.HashMap`, `java.lang.Obj…`)', () => {
  assert.equal(shortVariable('java.lang.Object[][0]'), 'Object[][0]');
  assert.equal(shortVariable('java.util.ArrayList.elementData[][12]'), 'ArrayList.elementData[][12]');
  assert.equal(shortVariable('app.Grid.cells[][3][4]'), 'Grid.cells[][3][4]');
  assert.equal(shortVariable('java.util.HashMap'), 'HashMap');
  assert.equal(shortVariable('java.util.Collections$SynchronizedMap'), 'SynchronizedMap');
  assert.equal(shortVariable('shop.Inventory.MAX'), 'Inventory.MAX', 'an upper-case field of a class stays a field');
  assert.equal(shortVariable('Counter.count'), 'Counter.count');
  assert.equal(shortValue('java.lang.Object@1b6d3586'), 'Object@1b6d3586');
  assert.equal(shortValue('java.util.HashMap$Node[]@-5f2a'), 'Node[]@-5f2a');
  assert.equal(shortValue('hello'), '"hello"');
  assert.equal(shortValue('user@example'), '"user@example"', 'not a Type@hex');
  assert.equal(shortValue(3), '3');
  assert.equal(shortValue(null), 'null');
  assert.equal(shortValue('x'.repeat(100)).length, 80);
});
