/**
 * Fix advice per bug, in plain words (thesis §6.7.2.3: participants could
 * name the bug but fixed it no better with the tools; they asked for fix
 * advice). From the bug's best pattern — its accesses, the values the trace
 * recorded, the library calls, the suspicious methods — it names the bug's
 * *shape* (a lazy initialisation, a lost update, a check-then-act on a map, …),
 * says in one plain sentence what each thread did (the headline), and gives
 * the fix strategies usual for that shape, naming the methods and lines.
 * Advice only: Braid never edits code.
 *
 * The headline marks names and calls as code spans (`` `balance` ``); every
 * trace-derived string in it is stripped of backticks, so the only backticks
 * are the span delimiters — the views render the spans (or drop the
 * backticks) and escape the rest for where it goes.
 */
import type { CoverageMatrix, MatrixAccess } from './coverageMatrix';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { SuspiciousMethod } from './suspiciousMethods';
import { shortMethod as displayMethod, shortVariable, simpleClassName } from '../displayNames';
import { isJsSourceFile } from '../jsSourceFile';

export type BugKind = 'atomicity-violation' | 'multi-variable-atomicity-violation' | 'order-violation';

/**
 * What the bug looks like in the code, detected from its best pattern (docs/griffin.md, "Fix advice"):
 * the specific shapes first, the generic ones (`check-then-act`, `intermediate-state`, `order-violation`,
 * `multi-variable`) when none fits.
 */
export type AdviceShape =
  | 'lazy-initialisation'
  | 'check-then-act-map'
  | 'lost-update'
  | 'publication'
  | 'iteration-while-modified'
  | 'compound-on-thread-safe-collection'
  | 'race-inside-library-call'
  | 'check-then-act'
  | 'intermediate-state'
  | 'order-violation'
  | 'multi-variable';

/** Short labels of the shapes, for tags in the views. */
export const SHAPE_LABELS: Readonly<Record<AdviceShape, string>> = {
  'lazy-initialisation': 'lazy initialisation',
  'check-then-act-map': 'check-then-act on a map',
  'lost-update': 'lost update',
  publication: 'unsafe publication',
  'iteration-while-modified': 'iteration while modified',
  'compound-on-thread-safe-collection': 'compound action on a thread-safe collection',
  'race-inside-library-call': 'race inside a library call',
  'check-then-act': 'check-then-act',
  'intermediate-state': 'intermediate state seen',
  'order-violation': 'order violation',
  'multi-variable': 'multi-variable atomicity violation',
};

export interface FixAdvice {
  kind: BugKind;
  /** what the bug looks like in the code (detected from the best pattern) */
  shape: AdviceShape;
  /**
   * One plain sentence: what each thread did, with the values the trace recorded, where. Names and
   * calls are `code spans`; no other backtick occurs.
   */
  headline: string;
  /** one or two sentences: what goes wrong, where */
  summary: string;
  /** the bug's most suspicious interleaving, access by access */
  interleaving: string;
  /** fix strategies for the shape, most usual first, each naming methods and lines */
  steps: string[];
  /**
   * The lane where the fix usually goes: an atomicity violation's region (the thread whose accesses
   * the other interrupts), an order violation's writer (the write that comes at the wrong time); an
   * iteration while modified, the thread that changes the collection.
   */
  fixLane: 1 | 2;
}

interface LaneAccess {
  lane: 1 | 2;
  access: MatrixAccess;
}

/** Ranked rows searched for the atomicity pattern of a pair with evidence by order (orderExtension). */
const EXTENSION_ROWS = 500;

/**
 * A pair whose evidence is its order (the ranking's evidence by order: the pair is in passing runs too,
 * with a larger share of its accesses' occurrences in the failing ones) says which thread came first;
 * the atomicity pattern that tells its story is the best-ranked one that *continues* it — it starts with
 * the pair's two accesses by two threads, in the same order, and goes on (a check by one thread before
 * the other's put, then the first thread's own put). Such a pattern may lack evidence of its own
 * (a map cache's check and put happen for other keys in passing runs too) and not be among the bug's
 * members. Undefined when the pair's evidence is not its order or no such pattern is ranked.
 */
function orderExtension(m: CoverageMatrix, pair: Pick<PatternMember, 'row' | 'flip'>): PatternMember | undefined {
  if (!m.orderP || !(m.orderP[pair.row] <= 1)) return undefined;
  const [a, b] = m.pattern(pair.row).accesses;
  const rows = Math.min(m.rowCount, EXTENSION_ROWS);
  for (let row = 0; row < rows; row++) {
    const x = m.pattern(row).accesses;
    if (x.length < 3 || x[0].key !== a.key || x[1].key !== b.key || x[0].thread === x[1].thread) continue;
    // lanes: the pair's roles (flipped when the extension's first access is the other thread's)
    const flip = (x[0].thread !== a.thread) !== pair.flip;
    return { row, flip, score: m.scores?.[row] ?? 0, failed: m.failed[row], passed: m.passed[row] };
  }
  return undefined;
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
  if (len(lead) === 2) lead = orderExtension(m, lead) ?? members.find((x) => len(x) > 2) ?? lead;
  let main = lead;
  for (const x of members)
    if (m.failed[x.row] === m.failed[lead.row] && m.passed[x.row] === m.passed[lead.row] && len(x) > len(main)) main = x;
  const p = m.pattern(main.row);
  const seq: LaneAccess[] = p.accesses.map((a, k) => ({ lane: laneOf(m, main, k), access: a }));
  const interleaving = seq.map((x) => `T${x.lane} ${x.access.type} ${accessLabel(x.access)} @ ${loc(x.access.file, [x.access.line])} (${shortMethod(x.access.method)})`).join(' → ');
  const all: LaneAccess[] = members.flatMap((x) => m.pattern(x.row).accesses.map((a, k) => ({ lane: laneOf(m, x, k), access: a })));
  // the variables of the pattern told (not every variable of the bug's other patterns)
  const varText = listText(unique(seq.map((x) => varLabel(x.access))));
  const ctx: Ctx = { seq, all, methods, same: sameMethod(methods, all) };

  if (p.accesses.length === 2) return orderAdvice(ctx, varText, interleaving);

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
    `thread ${laneName(all, atomicLane)} in ${region.text} ${verb(first)} ${varLabel(first)} (${loc(first.file, [first.line])}) and later ${verb(last)} ${varLabel(last)} (${loc(last.file, [last.line])}), ` +
    `but in between thread ${laneName(all, otherLane)} in ${intruder.text} ${inner.map((x) => `${verb(x.access)} ${varLabel(x.access)} (${loc(x.access.file, [x.access.line])})`).join(' and ')}. ` +
    `The failing runs see a mix of the state before and after thread ${laneName(all, otherLane)}'s change.`;
  const generic = [
    region.method === intruder.method
      ? `Make ${region.text} atomic: guard it with a lock (e.g. synchronize on the object that holds ${varText}), so that no other thread running ${shortName(intruder.method)} can come between ${loc(first.file, [first.line])} and ${loc(last.file, [last.line])}.`
      : `Make ${region.text} atomic with respect to ${intruder.text}: guard both with the same lock (e.g. synchronize on the object that holds ${varText}), so that ${shortName(intruder.method)} cannot run between ${loc(first.file, [first.line])} and ${loc(last.file, [last.line])}.`,
    `Or read once: in ${region.text}, take one consistent snapshot of ${varText} (copy it under the lock, or ask for it in a single call) and use only that snapshot; re-check before use if the data may have changed.`,
    `Or remove the sharing: if the object must not change while ${shortName(region.method)} uses it, confine it to one thread or use a thread-safe / immutable (copy-on-write) structure for ${varText}.`,
  ];
  const again = `Afterwards record runs again: the bug's patterns (${interleavingShort(seq)}) should no longer show up in failing runs.`;
  const s = atomicityShape(ctx, kind);
  const story = tell(ctx, s, { region, intruder, first, last, varText, generic });
  const steps = isJavaScript(seq) ? javaScriptAtomicitySteps(seq, region.text, intruder.text, first, last, varText) : (story.steps ?? generic);
  // an iteration interrupted by a change: the fix goes to the changing side — the collection made safe to
  // iterate where it is created and changed (a copy-on-write or concurrent collection), not to the loop
  const fixLane = s === 'iteration-while-modified' ? ((3 - iteratingLane(seq)!) as 1 | 2) : atomicLane;
  return { kind, shape: s, headline: story.headline, summary, interleaving, steps: [...steps, again], fixLane };
}

function orderAdvice(ctx: Ctx, varText: string, interleaving: string): FixAdvice {
  const { seq, methods } = ctx;
  const [a, b] = seq;
  const pa = place(methods, a.lane, [a]);
  const pb = place(methods, b.lane, [b]);
  const A = `${noun(a.access)} of ${varLabel(a.access)} at ${loc(a.access.file, [a.access.line])}`;
  const B = `${noun(b.access)} of ${varLabel(b.access)} at ${loc(b.access.file, [b.access.line])}`;
  const read = (a.access.type === 'R' ? a : b).access;
  const summary =
    `Order violation on ${varText}: in the failing runs thread ${laneName(seq, a.lane)}'s ${A} (in ${pa.text}) happens before thread ${laneName(seq, b.lane)}'s ${B} (in ${pb.text}); ` +
    `the passing runs have the other order, or no such interleaving.`;
  const generic = [
    `Enforce the intended order: make ${shortName(pa.method)} wait until ${shortName(pb.method)} has done its ${noun(b.access)} at ${loc(b.access.file, [b.access.line])} (join the thread, a latch / future / condition variable, or do the ${noun(b.access)} before the other thread is started).`,
    `Or, if either order is legal, make ${shortName(pa.method)} tolerate it: check the state of ${varText} at ${loc(a.access.file, [a.access.line])} under a lock and wait or retry until it is ready, instead of assuming it.`,
    a.access.type === 'W' && b.access.type === 'W'
      ? `Both are writes: decide which value must win and make the other write conditional (compare-and-set) or ordered after it.`
      : `If the order itself is fine and only the value's visibility is at stake, publish ${varText} safely (a volatile field, an atomic, or a lock held by both sides) so that the read at ${loc(read.file, [read.line])} cannot see a stale or half-built value; a read that can run before the write needs the order enforced (above).`,
  ];
  const again = `Afterwards record runs again: the ordering ${interleavingShort(seq)} should no longer show up in failing runs.`;
  const s = orderShape(ctx);
  const story = tell(ctx, s, { region: pa, intruder: pb, first: a.access, last: b.access, varText, generic });
  const fixLane = orderFixLane(seq);
  const steps = isJavaScript(seq) ? javaScriptOrderSteps(seq, pa.method, pb.method, varText) : (story.steps ?? generic);
  return { kind: 'order-violation', shape: s, headline: story.headline, summary, interleaving, steps: [...steps, again], fixLane };
}

/**
 * The lane of an order violation where the fix usually goes. Threads (Java): the writer — the write comes
 * at the wrong time (a field assigned after the reader thread was started: assign it before). Async tasks
 * (JavaScript, except an event emitted before its listener is registered, where the registration moves,
 * and worker threads on shared memory, which are threads: write the data before the flag):
 * a task's write is made when an asynchronous operation completes or another caller comes in, a moment
 * the code does not choose, and the fix goes where the state is assumed — the reader, which awaits the
 * pending operation or re-checks the state (the steps JavaScript's order advice gives: generic-pool's
 * `clear` walks the free list before a pending create adds to it, and must wait for the creates); of two
 * writes, the second, whose value wins (lokijs' save callback clears the dirty flag an update set
 * meanwhile: the clearing moves).
 */
function orderFixLane(seq: readonly LaneAccess[]): 1 | 2 {
  const writes = seq.filter((x) => x.access.type === 'W');
  if (isJavaScript(seq) && !isEmitterOrder(seq) && !seq.some((x) => isTypedArray(x.access.variable))) {
    const reads = seq.filter((x) => x.access.type === 'R');
    if (writes.length === 1 && reads.length === 1) return reads[0].lane;
    if (writes.length === seq.length) return seq[seq.length - 1].lane;
  }
  return writes.length === 1 ? writes[0].lane : seq[0].lane;
}

/** An order on an EventEmitter's listener list (an emit and a registration): the Node.js recorder's `EventEmitter` accesses. */
function isEmitterOrder(seq: readonly LaneAccess[]): boolean {
  return seq.some((x) => x.access.variable === 'EventEmitter' || /EventEmitter\./.test(x.access.call ?? ''));
}

// ---------------------------------------------------------------------------------------------------
// JavaScript and TypeScript (the Node.js recorder, docs/recorder-node.md): a thread is an async task,
// except a worker thread; there are no locks to take, and `await` is where other tasks come between

/** Every access of the pattern is in a JavaScript or TypeScript file. */
function isJavaScript(seq: readonly LaneAccess[]): boolean {
  return seq.length > 0 && seq.every((x) => isJsSourceFile(x.access.file));
}

/** A typed array's element (a SharedArrayBuffer between worker threads, or a plain typed array). */
function isTypedArray(v: string): boolean {
  return /^(?:Int8|Uint8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float32|Float64|BigInt64|BigUint64)Array\[\]$/.test(v);
}

function javaScriptAtomicitySteps(seq: readonly LaneAccess[], region: string, intruder: string, first: MatrixAccess, last: MatrixAccess, varText: string): string[] {
  const span = `${loc(first.file, [first.line])} and ${loc(last.file, [last.line])}`;
  if (seq.some((x) => isTypedArray(x.access.variable)))
    return [
      `These are worker threads on shared memory: make the update one atomic operation — Atomics.add / Atomics.compareExchange on ${varText} instead of the plain read at ${loc(first.file, [first.line])} and write at ${loc(last.file, [last.line])} — or guard both sides with a lock built on Atomics.wait / Atomics.notify.`,
      `Or keep the shared memory to one writer: let one thread own ${varText} and send it the changes with postMessage.`,
    ];
  const file = seq.some((x) => x.access.variable === 'file');
  return [
    `Other tasks run only where ${region} awaits: between ${span} it awaits, and ${intruder} comes in. Make the check and the act one synchronous stretch (no await between them), or run ${region} one at a time per key — keep the in-flight promise (in a Map) and have a later caller await it instead of starting again, or chain the calls on a promise (an async mutex).`,
    `Or re-check after the await: read ${varText} again after the last await, and act only if it still holds what was checked.`,
    file
      ? `For a file, make the read-modify-write one operation the file system orders: write to a temporary file and rename it only if the version you read is still current, or take a lock file (open with the wx flag) around the whole sequence.`
      : `Or remove the sharing: give each task its own copy of ${varText}, or let one task own it and receive the changes.`,
  ];
}

function javaScriptOrderSteps(seq: readonly LaneAccess[], first: string, second: string, varText: string): string[] {
  const [a, b] = seq;
  const B = `${noun(b.access)} at ${loc(b.access.file, [b.access.line])}`;
  if (seq.some((x) => isTypedArray(x.access.variable)))
    return [
      `These are worker threads on shared memory: publish with Atomics — write the data first and the flag last with Atomics.store (and Atomics.notify), and read the flag with Atomics.load or Atomics.wait before reading the data — so that ${shortName(first)} cannot see ${varText} before ${shortName(second)}'s ${B}.`,
      `Or hand the data over in the message itself (postMessage), not beside it in shared memory.`,
    ];
  const emitter = isEmitterOrder(seq);
  return [
    emitter
      ? `An event emitted before its listener is registered is lost: register the listener before the operation that emits can run, or remember that it happened (a ready flag or a promise resolved at the emit) and check it before waiting for the event.`
      : `Enforce the intended order: keep the promise of the operation that does the ${B} and have ${shortName(first)} await it before its ${noun(a.access)} at ${loc(a.access.file, [a.access.line])}.`,
    emitter
      ? `Or make the event sticky: where it is emitted, at ${loc(a.access.file, [a.access.line])} or ${loc(b.access.file, [b.access.line])}, also set a flag (or resolve a promise), and have a listener that may register late check it first.`
      : `Or tolerate either order: at ${loc(a.access.file, [a.access.line])}, check whether ${varText} is ready and otherwise wait for it (a promise resolved when it is), instead of assuming it.`,
  ];
}

// ---------------------------------------------------------------------------------------------------
// Shape detection

interface Ctx {
  /** the best pattern's accesses on the bug's lanes, in order */
  seq: LaneAccess[];
  /** every access of the bug's patterns, on the bug's lanes */
  all: LaneAccess[];
  methods: readonly SuspiciousMethod[];
  /** both lanes run the same method (the suspicious methods, else the accessing methods) */
  same: boolean;
}

/** The shape of an atomicity violation (a best pattern of 3–4 accesses). */
function atomicityShape(ctx: Ctx, kind: BugKind): AdviceShape {
  const { seq } = ctx;
  const outerLane = seq[0].lane;
  const outer = seq.filter((x) => x.lane === outerLane).map((x) => x.access);
  const inner = seq.filter((x) => x.lane !== outerLane).map((x) => x.access);
  const acc = seq.map((x) => x.access);
  const oneObject = new Set(acc.map((a) => a.variable)).size === 1;
  // one thread only reads, by iterating (an iterator's call, get/size on a list, an iterator's library code), the other changes the collection
  if (oneObject && iteratingLane(seq) !== undefined) return 'iteration-while-modified';
  if (acc.every((a) => a.library)) return 'race-inside-library-call';
  const calls = acc.every((a) => a.call !== undefined);
  if (oneObject && calls) {
    const type = acc[0].variable;
    if (isThreadSafeType(type) && outer.length >= 2) return 'compound-on-thread-safe-collection';
    if (isMapType(type) && outer[0].type === 'R' && outer.some((a) => a.type === 'W') && inner.some((a) => a.type === 'W')) return 'check-then-act-map';
  }
  // one field of the user's code (no call, not inside a library)
  if (oneObject && acc.every((a) => a.call === undefined && !a.library)) {
    if (isLazyInit(ctx)) return 'lazy-initialisation';
    if (kindOf(acc) === 'RWW') return readModifyWrite(acc) ? 'lost-update' : 'check-then-act';
    if (repeatedUpdate(outer)) return 'lost-update';
  }
  if (kind === 'multi-variable-atomicity-violation') return 'multi-variable';
  return outer[0].type === 'W' ? 'intermediate-state' : 'check-then-act';
}

/** The shape of a bug of pairs alone. */
function orderShape(ctx: Ctx): AdviceShape {
  const { seq, all } = ctx;
  const [a, b] = seq.map((x) => x.access);
  if (a.variable !== b.variable) return 'order-violation';
  if (a.call !== undefined && b.call !== undefined) {
    if (a.type === 'R' && isIterationCall(a) && b.type === 'W') return 'iteration-while-modified';
    if (ctx.same && isMapType(a.variable) && !isThreadSafeType(a.variable) && a.type === 'R' && b.type === 'W') return 'check-then-act-map';
    return 'order-violation';
  }
  if (a.call !== undefined || b.call !== undefined || a.library || b.library) return 'order-violation';
  if (isLazyInit(ctx)) return 'lazy-initialisation';
  // publication: the reader (first) never writes the field; the writer is other code, a constructor or
  // a write of the real value the reader should have seen (it saw the default)
  const readerWrites = all.some((x) => x.lane === seq[0].lane && x.access.variable === a.variable && x.access.type === 'W');
  if (a.type === 'R' && b.type === 'W' && !readerWrites && !ctx.same) {
    const inCtor = constructorOf(b) !== undefined;
    const sawDefault = isDefault(a.value) && b.value !== undefined && !isDefault(b.value);
    if (inCtor || sawDefault) return 'publication';
  }
  return 'order-violation';
}

/**
 * The lane that iterates over a collection while the other lane changes it: all its accesses are
 * reads, one an iteration (an iterator's or view's call, get/size on a list, or an iterator's own
 * library code such as ArrayList$Itr), and the other lane writes the collection (a call or library code).
 */
function iteratingLane(seq: readonly LaneAccess[]): 1 | 2 | undefined {
  for (const lane of [1, 2] as const) {
    const mine = seq.filter((x) => x.lane === lane).map((x) => x.access);
    const other = seq.filter((x) => x.lane !== lane).map((x) => x.access);
    if (!mine.length || !other.length) continue;
    if (mine.every((a) => a.type === 'R') && mine.some(isIteration) && other.some((a) => a.type === 'W' && (a.call !== undefined || a.library !== undefined))) return lane;
  }
  return undefined;
}

function isIteration(a: MatrixAccess): boolean {
  if (a.type !== 'R') return false;
  if (a.call !== undefined) return isIterationCall(a);
  return a.library !== undefined && isIteratorClass(ownerOf(a.library.method));
}

/** `java.util.ArrayList$Itr`, `java.util.HashMap$KeyIterator`, `…$ListItr`, `…Spliterator`: an iterator's code. */
function isIteratorClass(cls: string): boolean {
  return /(^|[.$])(Itr|ListItr|\w*Iterator|\w*Spliterator|\w*Enumerator)$/.test(cls);
}

/** A field read as null by one lane, and a new object written to it, by a lane that also writes it. */
function isLazyInit(ctx: Ctx): boolean {
  const { seq, all } = ctx;
  const r = seq[0];
  if (r.access.type !== 'R' || r.access.value !== null) return false;
  if (!seq.some((x) => x.access.type === 'W' && objectType(x.access.value) !== undefined)) return false;
  // the thread that saw null creates one too (the check-then-create), in this pattern or another of the bug's
  return all.some((x) => x.lane === r.lane && x.access.type === 'W' && x.access.variable === r.access.variable);
}

/**
 * The outer thread's two writes are one statement run twice (the same line: an update in a loop,
 * `count++`), the other thread's access in between: not a two-step update whose middle was seen
 * ("intermediate state", "lock between Hit.java:17 and Hit.java:17"), but two threads running the
 * same update at once — the other thread's update is overwritten. Which of W1 W2 W1, W1 R2 W1 and
 * R1 W2 W1 leads a bug varies between recordings of the same race (issue 43); all three tell one story.
 */
function repeatedUpdate(outer: readonly MatrixAccess[]): boolean {
  return outer.length === 2 && outer.every((a) => a.type === 'W') && outer[0].file === outer[1].file && outer[0].line === outer[1].line;
}

/**
 * R1 W2 W1 of one variable is a lost update when the values show it (or are not recorded): thread 1's
 * write ignores thread 2's (both wrote the same, or numbers not one after the other). When thread 1's
 * write continues from thread 2's (1 → 0 → -1: it re-read the value after its check) or the values
 * are not numbers (a claim: null → "passenger-1", "passenger-0"), it is a check-then-act.
 */
function readModifyWrite(acc: readonly MatrixAccess[]): boolean {
  const [r, w2, w1] = acc.map((a) => a.value);
  if (r === undefined && w2 === undefined && w1 === undefined) return true;
  if (typeof w1 === 'number' && typeof w2 === 'number') {
    if (w1 === w2) return true;
    if (typeof r === 'number' && w2 !== r && w1 - w2 === w2 - r) return false;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Headlines and steps per shape

interface Told {
  region: { text: string; method: string };
  intruder: { text: string; method: string };
  first: MatrixAccess;
  last: MatrixAccess;
  varText: string;
  /** the shape-independent steps (make the region atomic / enforce the order) */
  generic: string[];
}

function tell(ctx: Ctx, shape: AdviceShape, t: Told): { headline: string; steps?: string[] } {
  const { seq } = ctx;
  const outerLane = seq[0].lane;
  const innerLane = (3 - outerLane) as 1 | 2;
  const outer = seq.filter((x) => x.lane === outerLane).map((x) => x.access);
  const inner = seq.filter((x) => x.lane === innerLane).map((x) => x.access);
  const who = new Actors(ctx);
  const at = new Where();
  const r = outer[0];
  const lastOuter = outer[outer.length - 1];
  // both lanes run the same code and the other lane's access is at the first's last line: the same steps
  const symmetric = ctx.same && inner.length === 1 && outer.length === 2 && inner[0].line === lastOuter.line && inner[0].file === lastOuter.file;
  const v = code(fieldName(r));
  const M = shortName(t.region.method);
  // the code to guard: the region, and the other lane's method when it is other code
  const guarded = t.region.method === t.intruder.method ? t.region.text : `${t.region.text} and ${t.intruder.text}`;
  const lines = `${loc(t.first.file, [t.first.line])}${t.last.line !== t.first.line || t.last.file !== t.first.file ? ` and ${loc(t.last.file, [t.last.line])}` : ''}`;
  switch (shape) {
    case 'lost-update': {
      const w = inner[0];
      const headline = symmetric
        ? `Both threads read ${v}${eq(r)} at ${at.at(r)}, then each wrote ${eachWrote(w, lastOuter)} at ${at.at(lastOuter)}: one update is lost.`
        : `${narrate(ctx, who, at)}: ${who.poss(innerLane)} update is lost.`;
      return {
        headline,
        steps: [
          `Make the read-modify-write of ${t.varText} one atomic step: an AtomicInteger / AtomicLong (incrementAndGet, addAndGet, updateAndGet) instead of the read at ${loc(r.file, [r.line])} and the write at ${loc(lastOuter.file, [lastOuter.line])} in ${M}.`,
          `Or guard ${guarded}, and every other update of ${t.varText}, with the same lock (synchronized on the object that holds it), so that no write can come between the read and the write.`,
          `For a counter that many threads update and few read, a LongAdder (add, sum). A volatile field alone does not help: it makes the value visible, not the update atomic.`,
        ],
      };
    }
    case 'lazy-initialisation': {
      const w = seq.find((x) => x.access.type === 'W' && objectType(x.access.value) !== undefined)!.access;
      const T = code(objectType(w.value)!);
      const writes = ctx.all.filter((x) => x.access.type === 'W' && x.access.variable === r.variable);
      const bothAtOneLine = ctx.same && new Set(writes.map((x) => `${x.access.file}:${x.access.line}`)).size === 1;
      const headline = bothAtOneLine
        ? `Both threads read ${v} = null at ${at.at(r)}, then each wrote a new ${T} at ${at.at(w)}: one ${T}, and whatever was stored in it, is lost.`
        : `${narrate(ctx, who, at, true)}: one ${T}, and whatever was stored in it, is lost.`;
      return {
        headline,
        steps: [
          `Initialise ${t.varText} eagerly: create it in the constructor or the field initialiser (and make the field final), so that no thread ever sees null at ${loc(r.file, [r.line])} — the simplest fix when creating it is cheap.`,
          `Or, for a lazily created static, the holder idiom: a private static nested class whose static final field holds the instance; the JVM creates it once, on first use, without locks.`,
          `Or double-checked locking: declare the field volatile; in ${M} check it, lock, check again, and create and assign it only if it is still null (${lines}).`,
          `Or, when the value lives in a map, let the map create it: computeIfAbsent on a ConcurrentHashMap; for a single field, AtomicReference.compareAndSet(null, created) or updateAndGet, keeping the value that won.`,
        ],
      };
    }
    case 'check-then-act-map': {
      // the update: the first lane's last write (a pair: the other lane's write)
      const outerPut = [...outer].reverse().find((a) => a.type === 'W');
      const put = outerPut ?? seq.find((x) => x.access.type === 'W')!.access;
      const T = typeName(r.variable);
      const headline = symmetric
        ? `Both threads called ${callText(r, true)} at ${at.at(r)} before either called ${callText(put, false)} at ${at.at(put)}: the second ${callText(put, false)} replaces the first one's entry, so one thread's update is lost.`
        : outerPut
          ? `${narrate(ctx, who, at)}: ${who.s(outerLane)} acted on a stale lookup and replaced ${who.poss(innerLane)} entry.`
          : `${narrate(ctx, who, at)}: the lookup and the update are two calls, and another thread's can come between them.`;
      return {
        headline,
        steps: [
          `Make the lookup and the update one atomic call on a ConcurrentHashMap, instead of ${callName(r)} at ${loc(r.file, [r.line])} and ${callName(put)} at ${loc(put.file, [put.line])} in ${M}: computeIfAbsent(key, k -> new …) for get-or-create, merge(key, 1, Integer::sum) or compute for a read-modify-write of the value, putIfAbsent when the first value must win.`,
          `Or, if the map must stay a ${T}, guard every use of it — ${guarded}, and all its other readers and writers — with one lock.`,
          `A ConcurrentHashMap alone is not enough: its get and put are each atomic, but the gap between them is not.`,
        ],
      };
    }
    case 'compound-on-thread-safe-collection': {
      const T = typeName(r.variable);
      const headline =
        ctx.same && inner.length === 1 && outer.some((a) => a.line === inner[0].line && a.file === inner[0].file)
          ? `Both threads called ${callText(r, true)} at ${at.at(r)} before either called ${callText(lastOuter, false)} at ${at.at(lastOuter)}: each call on the ${code(T)} is atomic, but the two together are not.`
          : `${narrate(ctx, who, at)}: each call on the ${code(T)} is atomic, but the sequence is not.`;
      const atomic = isMapType(r.variable)
        ? 'computeIfAbsent, putIfAbsent, merge, compute, or replace(key, expected, updated)'
        : /CopyOnWrite/.test(r.variable)
          ? 'addIfAbsent, removeIf, or replaceAll'
          : isAdderType(r.variable)
            ? `${/Adder$/.test(r.variable) ? 'sumThenReset' : 'getThenReset'} when the sequence reads then clears it; a ${T} has no call that reads and updates otherwise, so keep a value that decides its own update in an AtomicLong (updateAndGet / accumulateAndGet, or compareAndSet retried in a loop)`
          : isAtomicType(r.variable)
            ? 'updateAndGet / accumulateAndGet (or getAndSet), or compareAndSet(expected, updated) retried in a loop until it succeeds'
          : 'one call that does the whole change (e.g. removeIf, addAll)';
      return {
        headline,
        steps: [
          `Replace the sequence (${outer.map((a) => `${callName(a)} at ${loc(a.file, [a.line])}`).join(', then ')} in ${M}) by one atomic call of the ${T}: ${atomic}.`,
          /Concurrent|\.atomic\./.test(r.variable)
            ? `Or hold one lock over the whole sequence in ${t.region.text} and around every other change of the ${T}${t.region.method === t.intruder.method ? '' : ` (${t.intruder.text})`}; ${/^[AEIOU]/.test(T) ? 'an' : 'a'} ${T} has no lock of its own to borrow, so an atomic call is usually simpler.`
            : `Or hold the collection's own lock over the whole sequence — synchronized (the ${T}) { … } in ${t.region.text} — as its other users' single calls take that same lock.`,
          isAdderType(r.variable)
            ? `Each call on a ${T} is atomic; a read (sum, get) followed by an update is not, and a ${T} has no compareAndSet: its reads are meant for statistics, not for decisions.`
          : isAtomicType(r.variable)
            ? `Each call on an atomic is atomic; a get followed by a set on it is not — that is what compareAndSet is for.`
            : `Each call of a thread-safe collection is atomic; a check followed by an action on it is not, whatever the collection.`,
        ],
      };
    }
    case 'iteration-while-modified': {
      const I = iteratingLane(seq)!;
      const Mo = (3 - I) as 1 | 2;
      const its = seq.filter((x) => x.lane === I).map((x) => x.access);
      const mods = seq.filter((x) => x.lane === Mo && x.access.type === 'W').map((x) => x.access);
      const T = collectionName(seq.map((x) => x.access));
      // an iterator's call names itself (`Iterator.next`); an iterator's library code does not (ArrayList$Itr)
      const op = (a: MatrixAccess) =>
        a.call !== undefined ? `${callText(a, false)} at ${at.at(a)}` : a.library && !isIteratorClass(ownerOf(a.library.method)) ? `${code(shortName(a.library.method))} at ${at.at(a)}` : `at ${at.at(a)}`;
      const call = (a: MatrixAccess) => `${a.call !== undefined || (a.library && !isIteratorClass(ownerOf(a.library.method))) ? 'called ' : 'changed it '}${op(a)}`;
      let headline: string;
      if (I === outerLane) {
        const first = `${cap(who.s(I))} was iterating over the ${code(T)} (${op(its[0])})`;
        const changed = ` when ${who.s(Mo)} ${mods.map(call).join(' and ')}`;
        const later = its.slice(1);
        headline = `${first}${changed}${later.length ? `, and the loop went on (${later.map((a) => op(a)).join(', ')})` : ''}: the ${code(T)} changed in the middle of the iteration.`;
      } else {
        const first = `${cap(who.s(I))} was iterating over the ${code(T)} (${its.map((a) => op(a)).join(', ')})`;
        headline = `${first} between ${who.poss(Mo)} ${mods.map((a) => op(a)).join(' and ')}: the iteration saw the ${code(T)} in the middle of a change.`;
      }
      const pi = I === outerLane ? t.region : t.intruder;
      const pm = I === outerLane ? t.intruder : t.region;
      const map = seq.some((x) => isMapType(x.access.variable));
      // the changing side first (fixLane): the collection is made safe to iterate where it is made and changed
      return {
        headline,
        steps: [
          map
            ? `Make the ${T} safe to iterate while ${shortName(pm.method)} changes it: a ConcurrentHashMap, whose iterators are weakly consistent — they never throw ConcurrentModificationException and may or may not see concurrent changes.`
            : `Make the ${T} safe to iterate while ${shortName(pm.method)} changes it: a copy-on-write collection (CopyOnWriteArrayList / CopyOnWriteArraySet) where it is created, when iteration is frequent and changes are rare — each change copies the array, each iterator works on the array of its start.`,
          `Or iterate over a snapshot: in ${shortName(pi.method)}, copy the ${T} under a lock (new ArrayList<>(…), List.copyOf, new HashMap<>(…)) and loop over the copy.`,
          `Or lock both: hold one lock for the whole loop in ${pi.text} and around the change${pi.method === pm.method ? '' : ` in ${pm.text}`} — for a Vector or a Collections.synchronized… wrapper, synchronized (the collection) { … } around the loop, as their documentation requires.`,
        ],
      };
    }
    case 'race-inside-library-call': {
      const lib = (a: MatrixAccess) => shortName(a.library!.method);
      const T = collectionName(seq.map((x) => x.access));
      const vars = listText(unique(seq.map((x) => code(fieldName(x.access)))));
      const headline =
        ctx.same && lib(r) === lib(inner[0])
          ? `Both threads were inside ${code(lib(r))} (called at ${at.at(r)}) at the same time: their accesses to ${vars} interleaved, and ${code(T)} is not thread-safe.`
          : `${cap(who.s(outerLane))} was inside ${code(lib(r))} (called at ${at.at(r)}) while ${who.s(innerLane)} was inside ${code(lib(inner[0]))} (called at ${at.at(inner[0])}): their accesses to ${vars} interleaved, and ${code(T)} is not thread-safe.`;
      return {
        headline,
        steps: [
          `Use a thread-safe replacement for the shared ${T} (e.g. Collections.synchronizedList / CopyOnWriteArrayList / ConcurrentLinkedQueue for a list, ConcurrentHashMap for a map, one StringBuilder per thread for text).`,
          `Or guard every call on it — ${guarded}, and its other users — with one lock.`,
          `Or stop sharing it: give each thread its own ${T} and combine the results after the threads are joined.`,
        ],
      };
    }
    case 'publication': {
      const [rd, wr] = seq.map((x) => x.access);
      const ctor = constructorOf(wr);
      const Sr = who.s(seq[0].lane);
      const Sw = who.s(seq[1].lane);
      const wval = objectType(wr.value) !== undefined ? ` (${article(objectType(wr.value)!)} ${code(objectType(wr.value)!)})` : wr.value !== undefined ? ` (${valueText(wr.value)})` : '';
      const headline =
        `${cap(Sr)} read ${code(fieldName(rd))}${eq(rd)} at ${at.at(rd)} before ${Sw} assigned it${wval} at ${at.at(wr)}${ctor ? ` in the ${code(ctor)} constructor` : ''}: ` +
        (ctor ? 'the object was visible to another thread before its constructor had finished.' : 'the reading thread could already see the object before the field was set.');
      const R = loc(rd.file, [rd.line]);
      const W = loc(wr.file, [wr.line]);
      return {
        headline,
        steps: [
          `Assign ${t.varText} (${W}) before the reading thread is started or the object is handed to it (Thread.start, submit, a shared field or collection): everything a thread did before start() or the hand-off is visible to the other side.`,
          ctor
            ? `Do not let this escape the ${ctor} constructor (no thread started, no listener registered, no this stored where other threads look) before every field is set; make the fields final and start the thread after construction.`
            : `Make the field final and set it in the constructor, so that every thread that sees the object sees the value.`,
          `Or publish it safely — a volatile field, an AtomicReference, a concurrent collection, or a lock held by both sides — and, if the read at ${R} can run first, make it wait until the value is there (a latch or a future).`,
        ],
      };
    }
    case 'check-then-act': {
      const w = inner[0];
      const headline =
        symmetric && outer[0].type === 'R' && lastOuter.type === 'W' && w.type === 'W' && r.call === undefined
          ? `Both threads read ${v}${eq(r)} at ${at.at(r)}, then each wrote ${eachWrote(w, lastOuter, true)} at ${at.at(lastOuter)}${w.value !== undefined && lastOuter.value !== undefined && valueText(w.value) !== valueText(lastOuter.value) ? ` (${valueText(w.value)}, then ${valueText(lastOuter.value)})` : ''}: both acted on the same check, which no longer held for the second.`
          : `${narrate(ctx, who, at)}: ${lastOuter.type === 'R' ? `${who.s(outerLane)} then saw a different value than the one it had checked` : `${who.s(outerLane)} acted on a check that no longer held`}.`;
      // one field checked and then written: a compare-and-set does both at once
      const cas =
        outer[0].type === 'R' && lastOuter.type === 'W' && r.call === undefined && new Set(seq.map((x) => x.access.variable)).size === 1
          ? `Or, for this one field, let the check and the write be one compare-and-set (AtomicReference / AtomicInteger: compareAndSet(expected, new), updateAndGet): it fails, and can be retried or refused, when another thread got there first.`
          : undefined;
      return { headline, steps: cas ? [t.generic[0], cas, ...t.generic.slice(1)] : undefined };
    }
    case 'intermediate-state': {
      const k = kindOf(seq.map((x) => x.access));
      const story = narrate(ctx, who, at);
      const end =
        k === 'WRW'
          ? `${who.s(innerLane)} saw a value that ${who.s(outerLane)} had not finished with`
          : k === 'WWR'
            ? `${who.s(outerLane)} read back ${who.poss(innerLane)} value instead of its own`
            : `${who.poss(innerLane)} write came in the middle of ${who.poss(outerLane)} update`;
      return { headline: `${story}: ${end}.` };
    }
    case 'multi-variable': {
      const vars = listText(unique(seq.map((x) => code(fieldName(x.access)))));
      const story = narrate(ctx, who, at);
      const end = outer.every((a) => a.type === 'R')
        ? `${who.s(outerLane)} used ${vars} from two different states`
        : outer.every((a) => a.type === 'W')
          ? `${vars} now hold values from different threads' updates`
          : `${vars} went out of step`;
      return { headline: `${story}: ${end}.` };
    }
    case 'order-violation': {
      const [a, b] = seq;
      const sa = who.s(a.lane);
      const act = (x: MatrixAccess, again: boolean) =>
        x.call !== undefined ? `called ${callText(x, !again)}` : again && x.variable === a.access.variable ? `${x.type === 'W' ? 'wrote' : 'read'} it${x.value !== undefined ? ` (${valueText(x.value)})` : ''}` : `${x.type === 'W' ? 'wrote' : 'read'} ${code(fieldName(x))}${eq(x)}`;
      return { headline: `In the failing runs, ${sa} ${act(a.access, false)} at ${at.at(a.access)} before ${who.s(b.lane)} ${act(b.access, true)} at ${at.at(b.access)}.` };
    }
  }
}

/**
 * The accesses told in order, grouped by thread: "Thread 1 read `x` = 0 at A.java:10; then thread 2
 * wrote it (1) at line 20, then thread 1 wrote it (1) at line 11". `fresh`: a written object is "a new T".
 */
function narrate(ctx: Ctx, who: Actors, at: Where, fresh = false): string {
  const groups: LaneAccess[][] = [];
  for (const x of ctx.seq) {
    const g = groups[groups.length - 1];
    if (g && g[0].lane === x.lane) g.push(x);
    else groups.push([x]);
  }
  // one variable: "it" after its first mention; several: always named
  const single = new Set(ctx.seq.map((x) => x.access.variable)).size === 1;
  const named = new Set<string>();
  const types = new Set<string>();
  const act = (a: MatrixAccess): { verb: string; rest: string } => {
    if (a.call !== undefined) {
      const first = !types.has(a.variable);
      types.add(a.variable);
      return { verb: 'called', rest: `${callText(a, first)} at ${at.at(a)}` };
    }
    const verbed = a.type === 'W' ? 'wrote' : 'read';
    const obj = objectType(a.value);
    const val = obj !== undefined ? (fresh && a.type === 'W' ? `a new ${code(obj)}` : undefined) : a.value !== undefined ? valueText(a.value) : undefined;
    let text: string;
    if (single && named.has(a.variable)) text = `it${val !== undefined ? ` (${val})` : ''}`;
    else text = `${code(fieldName(a))}${val !== undefined ? (obj !== undefined ? ` (${val})` : ` = ${val}`) : ''}`;
    named.add(a.variable);
    return { verb: verbed, rest: `${text} at ${at.at(a)}` };
  };
  // "wrote `size` = 10 at line 46 and `data` at line 47": a verb said once per run of equal verbs
  const group = (g: LaneAccess[]) => {
    const acts = g.map((x) => act(x.access));
    return acts.map((x, k) => (k > 0 && acts[k - 1].verb === x.verb ? x.rest : `${x.verb} ${x.rest}`)).join(' and ');
  };
  const parts = groups.map((g) => `${who.s(g[0].lane)} ${group(g)}`);
  return cap(parts.map((p, k) => (k === 0 ? p : k === 1 ? `; then ${p}` : `, then ${p}`)).join(''));
}

/** How the headline names the two threads. */
class Actors {
  private readonly mode: 'same' | 'named' | 'numbered';
  private readonly names: Record<1 | 2, string | undefined>;
  private readonly seen = new Set<number>();
  /** same mode: the lane mentioned first ("one thread", then "the first") */
  private primary: 1 | 2 | undefined;
  constructor(ctx: Ctx) {
    this.names = { 1: realName(ctx.all, 1), 2: realName(ctx.all, 2) };
    const n1 = this.names[1];
    const n2 = this.names[2];
    // two lanes of the same code are "one thread" and "the other"; else their names when they tell roles apart
    // (`main` and `worker`, not `request-1` and `request-2`), else their numbers
    this.mode = ctx.same ? 'same' : n1 && n2 && stem(n1) !== stem(n2) ? 'named' : 'numbered';
  }
  /** the subject naming a lane */
  s(lane: 1 | 2): string {
    const again = this.seen.has(lane);
    this.seen.add(lane);
    if (this.mode === 'numbered') return `thread ${lane}`;
    if (this.mode === 'named') return this.names[lane] === 'main' ? 'the main thread' : `thread ${code(this.names[lane]!)}`;
    this.primary ??= lane;
    return lane === this.primary ? (again ? 'the first' : 'one thread') : 'the other';
  }
  poss(lane: 1 | 2): string {
    const s = this.s(lane);
    return s === 'the other' ? "the other thread's" : s === 'the first' || s === 'one thread' ? "the first thread's" : `${s}'s`;
  }
}

/** Where an access is: the file and line at first, then "line N" while the file stays the same. */
class Where {
  private last: string | undefined;
  at(a: MatrixAccess): string {
    const f = plain(baseName(a.file));
    if (f === this.last) return `line ${a.line}`;
    this.last = f;
    return `${f}:${a.line}`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Names and values

/** Both lanes run the same method: the suspicious methods, else the sets of accessing methods. */
function sameMethod(methods: readonly SuspiciousMethod[], all: readonly LaneAccess[]): boolean {
  const a = methods.find((x) => x.thread === 1);
  const b = methods.find((x) => x.thread === 2);
  if (a && b) return a.method === b.method;
  const of = (lane: 1 | 2) => [...new Set(all.filter((x) => x.lane === lane).map((x) => x.access.method))].sort().join('|');
  return of(1) !== '' && of(1) === of(2);
}

/** A lane's thread name, when the trace names it (not just `T1`). */
function realName(all: readonly LaneAccess[], lane: 1 | 2): string | undefined {
  for (const x of all) if (x.lane === lane && x.access.threadName && x.access.threadName !== `T${lane}`) return x.access.threadName;
  return undefined;
}

/** `request-1` → `request`, `pool-1-thread-3` → `pool-1-thread`: names that differ only by a number are one role. */
function stem(name: string): string {
  return name.replace(/[-_ #.]*\d+$/, '');
}

/** The variable as the headline names it: the field (`balance`), or the library object's type (`HashMap`). */
function fieldName(a: MatrixAccess): string {
  if (a.call !== undefined) return typeName(a.variable);
  const s = shortVariable(a.variable);
  const dot = s.lastIndexOf('.');
  return dot < 0 ? s : s.slice(dot + 1);
}

/** The variable as the summary names it: `Account.balance`, or the library object's type (`HashMap`). */
function varLabel(a: MatrixAccess): string {
  return a.call !== undefined ? typeName(a.variable) : shortVar(a.variable);
}

/** `java.util.concurrent.ConcurrentHashMap` → `ConcurrentHashMap`; `java.util.Collections$SynchronizedMap` → `Collections.synchronizedMap`. */
function typeName(type: string): string {
  const w = /^java\.util\.Collections\$Synchronized(\w+)$/.exec(type);
  if (w) return `Collections.synchronized${w[1]}`;
  return simpleClassName(type);
}

/** The collection iterated: the type of a call's object, else the class of the library code that changes it (or of the field). */
function collectionName(acc: readonly MatrixAccess[]): string {
  const c = acc.find((a) => a.call !== undefined);
  if (c) return typeName(c.variable);
  const lib = acc.find((a) => a.library && !isIteratorClass(ownerOf(a.library.method)));
  if (lib) return simpleClassName(ownerOf(lib.library!.method));
  return simpleClassName(ownerOf(acc[0].variable));
}

function ownerOf(method: string): string {
  const m = method.replace(/\(.*\)$/, '');
  return m.slice(0, Math.max(0, m.lastIndexOf('.')));
}

/** The called method's name (`get`, `Iterator.next`). */
function callName(a: MatrixAccess): string {
  const c = a.call ?? '';
  const owner = simpleClassName(ownerOf(c));
  const name = c.slice(c.lastIndexOf('.') + 1);
  return isIteratorOwner(owner) ? `${owner}.${name}` : name;
}

/** A call as code: `HashMap.get` when the type is named the first time, else `get`. */
function callText(a: MatrixAccess, withType: boolean): string {
  const n = callName(a);
  return code(withType && !n.includes('.') ? `${typeName(a.variable)}.${n}` : n);
}

function isIteratorOwner(owner: string): boolean {
  return /^(Iterator|ListIterator|Spliterator|Enumeration|PrimitiveIterator\.\w+|BaseStream|Stream|IntStream|LongStream|DoubleStream)$/.test(owner);
}

const ITERATION = new Set(['iterator', 'listIterator', 'spliterator', 'forEach', 'stream', 'parallelStream', 'toArray', 'get', 'size', 'isEmpty', 'elementAt', 'elements', 'subList', 'indexOf', 'keySet', 'values', 'entrySet']);
const MAP_ITERATION = new Set(['forEach', 'keySet', 'values', 'entrySet']);

/** A read call that walks the collection: an iterator's or view's call, or an index loop's get/size on a list. */
function isIterationCall(a: MatrixAccess): boolean {
  if (a.call === undefined || a.type !== 'R') return false;
  const c = a.call;
  const owner = simpleClassName(ownerOf(c));
  const name = c.slice(c.lastIndexOf('.') + 1);
  if (isIteratorOwner(owner)) return true;
  if (isAtomicType(a.variable)) return false;
  return isMapType(a.variable) ? MAP_ITERATION.has(name) : !/StringBuilder|StringBuffer/.test(a.variable) && ITERATION.has(name);
}

/** java.util.concurrent.atomic's AtomicReference, AtomicInteger, …Array, adders and accumulators: recorded as library calls (each atomic). */
function isAtomicType(type: string): boolean {
  return /^java\.util\.concurrent\.atomic\.Atomic\w+$/.test(type) || isAdderType(type);
}

/** LongAdder, DoubleAdder, LongAccumulator, DoubleAccumulator: atomic calls, but no compareAndSet. */
function isAdderType(type: string): boolean {
  return /^java\.util\.concurrent\.atomic\.(Long|Double)(Adder|Accumulator)$/.test(type);
}

function isMapType(type: string): boolean {
  return /(Map|Hashtable|Properties)$/.test(type);
}

/** Each call is atomic: Vector, Hashtable, java.util.concurrent collections, Collections.synchronized… wrappers. */
function isThreadSafeType(type: string): boolean {
  return /^java\.util\.(Vector|Stack|Hashtable|Properties|Collections\$Synchronized\w+|concurrent\.\w+|concurrent\.atomic\.Atomic\w+|concurrent\.atomic\.(Long|Double)(Adder|Accumulator))$/.test(type);
}

/** The class whose constructor makes the write (a `<init>` frame on its stack), if any. */
function constructorOf(a: MatrixAccess): string | undefined {
  for (let k = a.stack.length - 1; k >= 0; k--) {
    const f = a.stack[k].method.replace(/\(.*\)$/, '');
    if (f.endsWith('.<init>')) return simpleClassName(f.slice(0, -'.<init>'.length));
  }
  return undefined;
}

/** `"java.util.HashMap@1b6d3586"` (the agent's text for an object) → `HashMap`. */
function objectType(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\[\])*)@-?[0-9a-fA-F]+$/.exec(v);
  return m ? plain(simpleClassName(m[1].replace(/(\[\])+$/, '')) + (m[1].match(/(\[\])+$/)?.[0] ?? '')) : undefined;
}

function isDefault(v: unknown): boolean {
  return v === null || v === 0 || v === false;
}

/** A value as the headline shows it: null, 3, true, "text" (quoted, cut), an object as "a `Type`". */
function valueText(v: unknown): string {
  const obj = objectType(v);
  if (obj !== undefined) return `${article(obj)} ${code(obj)}`;
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  if (s.length > 40) s = `${s.slice(0, 40)}…`;
  return plain(typeof v === 'string' ? JSON.stringify(s) : s);
}

/** " = 0" after a name, when the value is recorded (objects are left out: their identity tells nothing). */
function eq(a: MatrixAccess): string {
  if (a.value === undefined || objectType(a.value) !== undefined) return '';
  return ` = ${valueText(a.value)}`;
}

/** What both wrote: "10" (the same value), "its own result (4, then 5)", "it" (no values); `bare`: "it" when they differ (the values follow). */
function eachWrote(w2: MatrixAccess, w1: MatrixAccess, bare = false): string {
  if (w2.value === undefined || w1.value === undefined) return 'it';
  const a = valueText(w2.value);
  const b = valueText(w1.value);
  return a === b ? a : bare ? 'it' : `its own result (${a}, then ${b})`;
}

function kindOf(acc: readonly MatrixAccess[]): string {
  return acc.map((a) => a.type).join('');
}

function article(word: string): string {
  return /^[AEIOUaeiou]/.test(word) ? 'an' : 'a';
}

/** A code span; the text loses its backticks (the only backticks of a headline delimit spans). */
function code(s: string): string {
  return '`' + plain(s) + '`';
}

/** Trace text without backticks or line breaks. */
function plain(s: string): string {
  return s.replace(/`/g, "'").replace(/[\r\n\u2028\u2029]+/g, ' ');
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
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

/** `vectorcopy.VectorCopy$MyVector.size` → `MyVector.size`: the names the views show (displayNames.ts). */
export function shortVar(v: string): string {
  return shortVariable(v);
}

function noun(a: MatrixAccess): string {
  return a.type === 'W' ? 'write' : 'read';
}

function verb(a: MatrixAccess): string {
  if (a.call !== undefined) return `calls ${callName(a)} on`;
  return a.type === 'W' ? 'writes' : 'reads';
}

function interleavingShort(seq: readonly LaneAccess[]): string {
  return seq.map((x) => `${x.access.type}${x.lane} ${accessLabel(x.access)}:${x.access.line}`).join(' → ');
}

/** An access's variable in the interleaving: `Account.balance`, or the call made (`HashMap.get`, `Iterator.next`). */
function accessLabel(a: MatrixAccess): string {
  if (a.call === undefined) return shortVar(a.variable);
  const n = callName(a);
  return n.includes('.') ? n : `${typeName(a.variable)}.${n}`;
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
