/**
 * Fix advice per bug, in plain words (thesis §6.7.2.3: participants could
 * name the bug but fixed it no better with the tools; they asked for fix
 * advice). From the bug's pattern kinds and suspicious methods it names the
 * bug type, the variables, the methods and lines involved, the interleaving,
 * and the usual fix strategies. Advice only: Braid never edits code.
 */
import type { CoverageMatrix, MatrixAccess } from './coverageMatrix';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { SuspiciousMethod } from './suspiciousMethods';
import { shortMethod as displayMethod, shortVariable } from '../displayNames';

export type BugKind = 'atomicity-violation' | 'multi-variable-atomicity-violation' | 'order-violation';

export interface FixAdvice {
  kind: BugKind;
  /** one or two sentences: what goes wrong, where */
  summary: string;
  /** the bug's most suspicious interleaving, access by access */
  interleaving: string;
  /** fix strategies, most usual first, each naming methods and lines */
  steps: string[];
}

interface LaneAccess {
  lane: 1 | 2;
  access: MatrixAccess;
}

export function fixAdvice(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[], methods: readonly SuspiciousMethod[]): FixAdvice {
  // The bug's best-ranked pattern explains it — the longest of those tied with it (the same failing and
  // passing runs): within a tie the ranking lists shorter patterns first (docs/algorithms.md), and a
  // pair tied with its own atomicity pattern is that atomicity violation. A longer pattern that ranks
  // lower is not the story: it adds a variable the best pattern does without (e.g. a counter updated
  // next to a check-then-act). Only a bug of pairs alone is an order violation: when the best is a
  // pair, the best-ranked atomicity pattern (≥ 3 accesses) explains the bug.
  const len = (x: Pick<PatternMember, 'row'>) => m.pattern(x.row).accesses.length;
  let lead = members[0];
  if (len(lead) === 2) lead = members.find((x) => len(x) > 2) ?? lead;
  let main = lead;
  for (const x of members)
    if (m.failed[x.row] === m.failed[lead.row] && m.passed[x.row] === m.passed[lead.row] && len(x) > len(main)) main = x;
  const p = m.pattern(main.row);
  const seq: LaneAccess[] = p.accesses.map((a, k) => ({ lane: laneOf(m, main, k), access: a }));
  const interleaving = seq.map((x) => `T${x.lane} ${x.access.type} ${shortVar(x.access.variable)} @ ${loc(x.access.file, [x.access.line])} (${shortMethod(x.access.method)})`).join(' → ');
  const variables = unique(members.flatMap((x) => m.pattern(x.row).accesses.map((a) => shortVar(a.variable))));
  const varText = listText(variables);
  const all: LaneAccess[] = members.flatMap((x) => m.pattern(x.row).accesses.map((a, k) => ({ lane: laneOf(m, x, k), access: a })));

  if (p.accesses.length === 2) return orderAdvice(seq, methods, varText, interleaving);

  const kind: BugKind = p.category === 'multi-variable atomicity' ? 'multi-variable-atomicity-violation' : 'atomicity-violation';
  const atomicLane = seq[0].lane;
  const otherLane = (3 - atomicLane) as 1 | 2;
  const region = place(methods, atomicLane, all);
  const intruder = place(methods, otherLane, all);
  const outer = seq.filter((x) => x.lane === atomicLane);
  const inner = seq.filter((x) => x.lane === otherLane);
  const first = outer[0].access;
  const last = outer[outer.length - 1].access;
  const summary =
    `${kind === 'multi-variable-atomicity-violation' ? 'Multi-variable atomicity violation' : 'Atomicity violation'} on ${varText}: ` +
    `thread ${laneName(all, atomicLane)} in ${region.text} ${verb(first)} ${shortVar(first.variable)} (${loc(first.file, [first.line])}) and later ${verb(last)} ${shortVar(last.variable)} (${loc(last.file, [last.line])}), ` +
    `but in between thread ${laneName(all, otherLane)} in ${intruder.text} ${inner.map((x) => `${verb(x.access)} ${shortVar(x.access.variable)} (${loc(x.access.file, [x.access.line])})`).join(' and ')}. ` +
    `The failing runs see a mix of the state before and after thread ${laneName(all, otherLane)}'s change.`;
  const steps = [
    `Make ${region.text} atomic with respect to ${intruder.text}: guard both with the same lock (e.g. synchronize on the object that holds ${varText}), so that ${shortName(intruder.method)} cannot run between ${loc(first.file, [first.line])} and ${loc(last.file, [last.line])}.`,
    `Or read once: in ${region.text}, take one consistent snapshot of ${varText} (copy it under the lock, or ask for it in a single call) and use only that snapshot; re-check before use if the data may have changed.`,
    `Or remove the sharing: if the object must not change while ${shortName(region.method)} uses it, confine it to one thread or use a thread-safe / immutable (copy-on-write) structure for ${varText}.`,
    `Afterwards record runs again: the bug's patterns (${interleavingShort(seq)}) should no longer show up in failing runs.`,
  ];
  return { kind, summary, interleaving, steps };
}

function orderAdvice(seq: LaneAccess[], methods: readonly SuspiciousMethod[], varText: string, interleaving: string): FixAdvice {
  const [a, b] = seq;
  const pa = place(methods, a.lane, [a]);
  const pb = place(methods, b.lane, [b]);
  const A = `${noun(a.access)} of ${shortVar(a.access.variable)} at ${loc(a.access.file, [a.access.line])}`;
  const B = `${noun(b.access)} of ${shortVar(b.access.variable)} at ${loc(b.access.file, [b.access.line])}`;
  const read = (a.access.type === 'R' ? a : b).access;
  const summary =
    `Order violation on ${varText}: in the failing runs thread ${laneName(seq, a.lane)}'s ${A} (in ${pa.text}) happens before thread ${laneName(seq, b.lane)}'s ${B} (in ${pb.text}); ` +
    `the passing runs have the other order, or no such interleaving.`;
  const steps = [
    `Enforce the intended order: make ${shortName(pa.method)} wait until ${shortName(pb.method)} has done its ${noun(b.access)} at ${loc(b.access.file, [b.access.line])} (join the thread, a latch / future / condition variable, or do the ${noun(b.access)} before the other thread is started).`,
    `Or, if either order is legal, make ${shortName(pa.method)} tolerate it: check the state of ${varText} at ${loc(a.access.file, [a.access.line])} under a lock and wait or retry until it is ready, instead of assuming it.`,
    a.access.type === 'W' && b.access.type === 'W'
      ? `Both are writes: decide which value must win and make the other write conditional (compare-and-set) or ordered after it.`
      : `If the order itself is fine and only the value's visibility is at stake, publish ${varText} safely (a volatile field, an atomic, or a lock held by both sides) so that the read at ${loc(read.file, [read.line])} cannot see a stale or half-built value; a read that can run before the write needs the order enforced (above).`,
    `Afterwards record runs again: the ordering ${interleavingShort(seq)} should no longer show up in failing runs.`,
  ];
  return { kind: 'order-violation', summary, interleaving, steps };
}

/**
 * How the advice names a lane's thread: its real name when the trace named it
 * (the same name the views show, issue 16), else the lane number.
 */
function laneName(all: readonly LaneAccess[], lane: 1 | 2): string {
  for (const x of all) if (x.lane === lane && x.access.threadName) return x.access.threadName;
  return String(lane);
}

/** The suspicious method of a lane with its lines, or the lane's access methods when no common stack is known. */
function place(methods: readonly SuspiciousMethod[], lane: 1 | 2, all: readonly LaneAccess[]): { text: string; method: string } {
  const sm = methods.find((x) => x.thread === lane);
  if (sm) return { text: `${shortMethod(sm.method)} (${loc(sm.file, sm.lines)})`, method: sm.method };
  const mine = all.filter((x) => x.lane === lane).map((x) => x.access);
  const names = unique(mine.map((a) => shortMethod(a.method)));
  return { text: `${listText(names)} (${unique(mine.map((a) => loc(a.file, [a.line]))).join(', ')})`, method: mine[0]?.method ?? '?' };
}

/** "fixture.Vector.size" → "Vector.size" */
/** `vectorcopy.VectorCopy$MyVector.size` → `MyVector.size`: the names the views show (displayNames.ts). */
export function shortVar(v: string): string {
  return shortVariable(v);
}

function noun(a: MatrixAccess): string {
  return a.type === 'W' ? 'write' : 'read';
}

function verb(a: MatrixAccess): string {
  return a.type === 'W' ? 'writes' : 'reads';
}

function interleavingShort(seq: readonly LaneAccess[]): string {
  return seq.map((x) => `${x.access.type}${x.lane} ${shortVar(x.access.variable)}:${x.access.line}`).join(' → ');
}

/** "Vector.java:150–152" or "Vector.java:150, 152" */
export function loc(file: string, lines: readonly number[]): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  const ls = [...new Set(lines)].sort((a, b) => a - b);
  if (ls.length === 0) return base;
  if (ls.length === 1) return `${base}:${ls[0]}`;
  const contiguous = ls.every((l, k) => k === 0 || l - ls[k - 1] <= 2);
  return contiguous ? `${base}:${ls[0]}–${ls[ls.length - 1]}` : `${base}:${ls.join(', ')}`;
}

/** "java.util.Vector.<init>" → "Vector.<init> (constructor)"; "a.b.C.m" → "C.m" */
export function shortMethod(m: string): string {
  const s = displayMethod(m);
  return s.endsWith('.<init>') ? `${s.slice(0, -'.<init>'.length)} constructor` : s;
}

function shortName(m: string): string {
  return displayMethod(m);
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

function listText(xs: readonly string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
