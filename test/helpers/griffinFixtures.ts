/**
 * Trace files with call stacks for GRIFFIN's tests. Every frame points at a
 * real line of a source file in test/fixtures/griffin/, found by its text, so
 * that tests can check that suspicious methods resolve to real code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './traceBuilder';

export const FIXTURE_DIR = path.resolve(__dirname, '../fixtures/griffin');

export interface Frame {
  file: string;
  line: number;
  method: string;
}

const sourceCache = new Map<string, string[]>();

export function sourceLines(file: string): string[] {
  let lines = sourceCache.get(file);
  if (!lines) sourceCache.set(file, (lines = readFileSync(path.join(FIXTURE_DIR, file), 'utf8').split('\n')));
  return lines;
}

/** 1-based line of the only line of the fixture file containing `text`. */
export function lineOf(file: string, text: string): number {
  const hits = sourceLines(file)
    .map((l, k) => (l.includes(text) ? k + 1 : 0))
    .filter((k) => k > 0);
  if (hits.length !== 1) throw new Error(`"${text}" is on ${hits.length} lines of ${file}, expected 1`);
  return hits[0];
}

/** A frame of `method` at the line of `file` containing `text`. */
export function frame(file: string, text: string, method: string): Frame {
  return { file, line: lineOf(file, text), method };
}

export interface StackAccess {
  thread: number;
  type: 'R' | 'W';
  variable: string;
  /** dynamic object id (0 = static) */
  obj?: number;
  /** bottom first; the last frame is the access itself */
  stack: Frame[];
}

export interface StackTrace {
  execution: string;
  outcome: 'pass' | 'fail';
  accesses: StackAccess[];
  program?: string;
}

/** Trace format v1 text with loc, stack and access events (stack id in the 6th element). */
export function stackTraceText(t: StackTrace): string {
  const lines: string[] = [JSON.stringify({ braid: 'trace', version: 1, execution: t.execution, outcome: t.outcome, program: t.program ?? 'fixture' })];
  const threads = new Set<number>();
  const vars = new Map<string, number>();
  const locs = new Map<string, number>();
  const stacks = new Map<string, number>();
  const locId = (f: Frame) => {
    const k = `${f.file}:${f.line}:${f.method}`;
    let id = locs.get(k);
    if (id === undefined) {
      locs.set(k, (id = locs.size));
      lines.push(JSON.stringify({ def: 'loc', id, file: f.file, line: f.line, method: f.method }));
    }
    return id;
  };
  let i = 0;
  for (const a of t.accesses) {
    if (!threads.has(a.thread)) {
      threads.add(a.thread);
      lines.push(JSON.stringify({ def: 'thread', id: a.thread, name: `T${a.thread}` }));
    }
    let v = vars.get(a.variable);
    if (v === undefined) {
      vars.set(a.variable, (v = vars.size));
      lines.push(JSON.stringify({ def: 'var', id: v, name: a.variable }));
    }
    const frames = a.stack.map(locId);
    const sk = frames.join(',');
    let s = stacks.get(sk);
    if (s === undefined) {
      stacks.set(sk, (s = stacks.size));
      lines.push(JSON.stringify({ def: 'stack', id: s, frames }));
    }
    lines.push(JSON.stringify([++i, a.thread, a.type, v, frames[frames.length - 1], s, a.obj ?? 0]));
  }
  return lines.join('\n') + '\n';
}

export function writeStackTraces(traces: StackTrace[], dir = tempDir('braid-griffin-')): string {
  for (const t of traces) writeFileSync(path.join(dir, `${t.execution}.trace.jsonl`), stackTraceText(t));
  return dir;
}

// ---------------------------------------------------------------------------
// The Vector example (thesis Figure 8, Table 9, Figure 11)

const V = 'Vector.java';
const VT = 'VectorTest.java';
const SHARED = 7; // object id of the shared Vector c
export const VECTOR = {
  main: frame(VT, 'Vector copy = new Vector(shared);', 'fixture.VectorTest.main'),
  ctorSize: frame(V, 'size = c.size();', 'fixture.Vector.<init>'),
  ctorToArray: frame(V, 'c.toArray(data);', 'fixture.Vector.<init>'),
  size: frame(V, 'return size;', 'fixture.Vector.size'),
  toArraySize: frame(V, 'int n = size;', 'fixture.Vector.toArray'),
  toArrayData: frame(V, 'System.arraycopy(data, 0, a, 0, n);', 'fixture.Vector.toArray'),
  adderRun: frame(VT, 'shared.addAll(new Vector(null));', 'fixture.VectorTest$Adder.run'),
  addAllSize: frame(V, 'size += c.size;', 'fixture.Vector.addAll'),
  addAllData: frame(V, 'data = java.util.Arrays.copyOf(data, size);', 'fixture.Vector.addAll'),
  clearerRun: frame(VT, 'shared.removeAllElements();', 'fixture.VectorTest$Clearer.run'),
  clearSize: frame(V, 'size = 0;', 'fixture.Vector.removeAllElements'),
  clearData: frame(V, 'data = new Object[10];', 'fixture.Vector.removeAllElements'),
  removerRun: frame(VT, 'shared.remove(0);', 'fixture.VectorTest$Remover.run'),
  removeSize: frame(V, 'size--;', 'fixture.Vector.remove'),
  removeData: frame(V, 'data = java.util.Arrays.copyOf(data, Math.max(size, 0));', 'fixture.Vector.remove'),
};
const SIZE = 'fixture.Vector.size';
const DATA = 'fixture.Vector.data';

/** Thread 1's accesses in the copy constructor: read size (271), then size and data in toArray (681, 682). */
const ctorRead271: StackAccess = { thread: 1, type: 'R', variable: SIZE, obj: SHARED, stack: [VECTOR.main, VECTOR.ctorSize, VECTOR.size] };
const ctorRead681: StackAccess = { thread: 1, type: 'R', variable: SIZE, obj: SHARED, stack: [VECTOR.main, VECTOR.ctorToArray, VECTOR.toArraySize] };
const ctorRead682: StackAccess = { thread: 1, type: 'R', variable: DATA, obj: SHARED, stack: [VECTOR.main, VECTOR.ctorToArray, VECTOR.toArrayData] };

type Mutator = 'addAll' | 'removeAllElements' | 'remove';
function mutatorWrites(m: Mutator): [StackAccess, StackAccess] {
  const [run, s, d] =
    m === 'addAll'
      ? [VECTOR.adderRun, VECTOR.addAllSize, VECTOR.addAllData]
      : m === 'removeAllElements'
        ? [VECTOR.clearerRun, VECTOR.clearSize, VECTOR.clearData]
        : [VECTOR.removerRun, VECTOR.removeSize, VECTOR.removeData];
  return [
    { thread: 2, type: 'W', variable: SIZE, obj: SHARED, stack: [run, s] },
    { thread: 2, type: 'W', variable: DATA, obj: SHARED, stack: [run, d] },
  ];
}

/** The atomicity violation: 271 → write size → write data → 681 → 682. */
function violation(m: Mutator): StackAccess[] {
  const [ws, wd] = mutatorWrites(m);
  return [ctorRead271, ws, wd, ctorRead681, ctorRead682];
}

/**
 * Figure 11's runs: E1–E3 fail with B1 (addAll), E4–E5 with B2
 * (removeAllElements), E6–E7 with B3 (remove); E8–E15 pass. In E8–E10 addAll
 * runs between the two reads of toArray, so PI5 (852 → 682) is also seen in
 * 3 passing runs, as in Table 9; the other passing runs are serial.
 */
export function vectorTraces(): StackTrace[] {
  const out: StackTrace[] = [];
  const fail = (execution: string, m: Mutator) => out.push({ execution, outcome: 'fail', accesses: violation(m), program: 'Vector' });
  fail('E1', 'addAll');
  fail('E2', 'addAll');
  fail('E3', 'addAll');
  fail('E4', 'removeAllElements');
  fail('E5', 'removeAllElements');
  fail('E6', 'remove');
  fail('E7', 'remove');
  const [ws, wd] = mutatorWrites('addAll');
  for (const e of ['E8', 'E9', 'E10']) out.push({ execution: e, outcome: 'pass', accesses: [ctorRead271, ctorRead681, ws, wd, ctorRead682], program: 'Vector' });
  const serial: Mutator[] = ['addAll', 'removeAllElements', 'remove', 'addAll', 'remove'];
  serial.forEach((m, k) => {
    const [s, d] = mutatorWrites(m);
    out.push({ execution: `E${11 + k}`, outcome: 'pass', accesses: [ctorRead271, ctorRead681, ctorRead682, s, d], program: 'Vector' });
  });
  return out;
}
