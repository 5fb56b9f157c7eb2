/**
 * Static signatures, interned once for all runs of an analysis so that the
 * same pattern in different runs is the same id: variables, source
 * locations, call stacks, static accesses (type, variable, statement), pairs
 * of static accesses (roles T1 → T2 implied) and patterns.
 */
import { PairRelation, pairPatternNumber, PatternDefinition, PATTERNS } from './patternCatalog';
import { combinedPatternNumber, EXECUTION_ORDER } from './patternCombination';
import { IntColumn, NumberIdMap } from './numberIdMap';
import { CombinationMemo, ROW_P1_LIMIT } from './combinationMemo';

export interface LocInfo {
  file: string;
  line: number;
  method: string;
  /** a library call at this line (trace loc.call; with mixedCalls, one of them) */
  call?: string;
  /**
   * the line makes several library calls (`line.length() > 0` then `line.append(',')`; a for-each's
   * values(), iterator(), hasNext(), next()): locations are kept per line, so `call` names only one of
   * them — a forcing plan must then not match by call
   */
  mixedCalls?: boolean;
  /** marked as test code by the recorder (trace loc.harness) */
  harness?: boolean;
}

/**
 * Adds a library call seen at a location: a call different from the one kept marks the location
 * mixedCalls; `keep` 'last' (a trace's locations, in definition order) or 'first' (merged summaries).
 */
export function noteLocCall(info: LocInfo, call: string | undefined, mixed?: boolean, keep: 'first' | 'last' = 'last'): void {
  if (mixed) info.mixedCalls = true;
  if (call === undefined) return;
  if (info.call !== undefined && info.call !== call) info.mixedCalls = true;
  if (info.call === undefined || keep === 'last') info.call = call;
}

export interface StaticAccess {
  write: boolean;
  variable: number;
  loc: number;
}

/**
 * One pattern as read by the analysis (a view: the registry keeps patterns in
 * typed columns, and each getter builds its answer on demand).
 */
export interface PatternInfo {
  /** dense id in this registry */
  readonly id: number;
  readonly def: PatternDefinition;
  /** static access ids in execution order */
  readonly accesses: number[];
  /** thread roles (1|2) in execution order */
  readonly roles: readonly (1 | 2)[];
  /** call stack ids (global) of the first occurrence, per access */
  readonly stacks: number[];
  /** values read or written at the first occurrence, per access (undefined: not recorded) */
  readonly values: unknown[];
  /** thread names (trace `def thread`) at the first occurrence, per access (undefined: the trace names no thread) */
  readonly threadNames: (string | undefined)[];
  /** stable text key of the static signature (same across processes) */
  readonly key: string;
}

/**
 * The dynamic accesses of one pair (slots 0, 1) or of two pairs (a1, a2, b1,
 * b2 = slots 0–3), in pair order: what a new pattern keeps of its first
 * occurrence. Collectors fill one and reuse it.
 */
export class Occurrence {
  readonly stacks = new Int32Array(4);
  readonly values: unknown[] = [undefined, undefined, undefined, undefined];
  readonly names: (string | undefined)[] = [undefined, undefined, undefined, undefined];
  set(k: number, stack: number, value: unknown, name: string | undefined): void {
    this.stacks[k] = stack;
    this.values[k] = value;
    this.names[k] = name;
  }
}

/** A pattern of the registry, read through its columns. */
class PatternView implements PatternInfo {
  constructor(
    readonly id: number,
    private readonly reg: PatternRegistry,
  ) {}
  get def(): PatternDefinition {
    return this.reg.patternDef(this.id);
  }
  get accesses(): number[] {
    return this.reg.patternColumn(this.id, 0) as number[];
  }
  get roles(): readonly (1 | 2)[] {
    return this.def.roles;
  }
  get stacks(): number[] {
    return this.reg.patternColumn(this.id, 1) as number[];
  }
  get values(): unknown[] {
    return this.reg.patternValues(this.id);
  }
  get threadNames(): (string | undefined)[] {
    return this.reg.patternColumn(this.id, 2) as (string | undefined)[];
  }
  get key(): string {
    return this.reg.patternKey(this.id);
  }
}


/** The dynamic access as the collectors see it (only what patterns need). */
export interface AccessRef {
  idx: number;
  thread: number;
  write: boolean;
  sacc: number;
  stack: number;
  /** the value read or written, when the trace has one */
  value?: unknown;
  /** the name of the access's thread, when the trace defines one */
  threadName?: string;
}

const PAIR_KEY_LIMIT = 2 ** 26;
/** pair signatures below this have their combinations in a flat table (256 · 256 · 8 int32 = 2 MiB) */
const DENSE_SIGS = 256;
/** combination() answer: not computed yet */
export const UNKNOWN_COMBINATION = -2;
/** combination() answer: the pairs form no pattern */
export const NO_PATTERN = -1;

export class PatternRegistry {
  /**
   * Locations per library call (AnalysisOptions.callLocations): a line's values(), iterator(),
   * hasNext() and next() are four locations, each with its one call. Set before anything is interned.
   */
  callLocations = false;
  readonly variables: string[] = [];
  private readonly variableIds = new Map<string, number>();
  readonly locs: LocInfo[] = [];
  private readonly locIds = new Map<number | string, number>();
  private readonly names = new Map<string, number>();
  /**
   * Call stacks as a tree shared by all runs: per global stack id its parent
   * stack (-1 bottom) and top frame (global loc id), so a stack costs one
   * node whatever its depth (see stackFrames).
   */
  private readonly stackParents: number[] = [];
  private readonly stackLocs: number[] = [];
  private readonly stackIds = new Map<number | string, number>();
  readonly accesses: StaticAccess[] = [];
  /** static access keys: a flat hash table of numeric keys (loc · 2^27 + variable · 2 + write), a Map for the rest */
  private readonly flatAccessIds = new NumberIdMap();
  private readonly accessIds = new Map<string, number>();
  /** static access id → 1 when it is a write (the hot path's copy of accesses[s].write) */
  private accessWrite = new Uint8Array(64);
  /** pair signature → first and second static access */
  private readonly pairFirst = new IntColumn();
  private readonly pairSecond = new IntColumn();
  private readonly flatPairIds = new NumberIdMap();
  private readonly pairIds = new Map<string, number>();
  /** pair signature → its P1–P3 pattern id (-1: not yet) */
  private readonly pairPatterns = new IntColumn();
  /** pair signature → its access types, first · 2 + second (W = 1): the pair window's chain class */
  private pairKinds = new Uint8Array(1024);
  /** (p1, p2, relation) → pattern id + 2, 1 no pattern, 0 unknown; a flat table for the first DENSE_SIGS signatures, by p2 first (the pair window looks up many p1 for one p2: one 8 KiB row) */
  private readonly denseCombos = new Int32Array(DENSE_SIGS * DENSE_SIGS * 8);
  /** (p1, p2, relation) → pattern id + 2, 1 no pattern, beyond DENSE_SIGS: one row per p2 (p1 below ROW_P1_LIMIT) */
  private readonly combos = new CombinationMemo();
  private readonly bigCombos = new Map<string, number>();
  /** thread names, interned */
  private readonly threadNameList: string[] = [];
  private readonly threadNameIds = new Map<string, number>();
  /** patterns, in columns: Table 1 number, and per access (4 slots) static access, stack, thread name id */
  private patternN = new Uint8Array(1024);
  private readonly patternAcc = new IntColumn(4096);
  private readonly patternStack = new IntColumn(4096);
  private readonly patternName = new IntColumn(4096);
  /** values of the first occurrence, only for patterns that have one */
  private readonly patternVals = new Map<number, unknown[]>();
  /** number of patterns (ids 0 … patternCount − 1) */
  private patternTotal = 0;

  /** Number of patterns. */
  get patternCount(): number {
    return this.patternTotal;
  }

  /**
   * Pattern `id` read through a small view (the read API: pattern(id).def, .accesses, .key, …). Views
   * are made on demand, not kept: millions of patterns cost no object each (issue 14).
   */
  pattern(id: number): PatternInfo {
    if (!(id >= 0 && id < this.patternTotal)) throw new RangeError(`no pattern ${id} (the registry has ${this.patternTotal})`);
    return new PatternView(id, this);
  }

  internVariable(name: string): number {
    let id = this.variableIds.get(name);
    if (id === undefined) {
      id = this.variables.length;
      this.variables.push(name);
      this.variableIds.set(name, id);
    }
    return id;
  }

  private nameId(s: string): number {
    let id = this.names.get(s);
    if (id === undefined) this.names.set(s, (id = this.names.size));
    return id;
  }

  /**
   * Global id of a source location. `call` (a library call made there) is part of the location only
   * with callLocations; otherwise a line is one location whatever it calls (noteLocCall).
   */
  internLoc(file: string, line: number, method: string, call?: string): number {
    // numeric key from interned file and method names (no key string per loc) while it fits in 53 bits
    const f = this.nameId(file);
    const m = this.nameId(method);
    const perCall = this.callLocations && call !== undefined;
    const key: number | string = perCall
      ? `${f},${m},${line},c${this.nameId(call)}`
      : f < 2 ** 14 && m < 2 ** 20 && line >= 0 && line < 2 ** 19 ? (f * 2 ** 20 + m) * 2 ** 19 + line : `${f},${m},${line}`;
    let id = this.locIds.get(key);
    if (id === undefined) {
      id = this.locs.length;
      this.locs.push(perCall ? { file, line, method, call } : { file, line, method });
      this.locIds.set(key, id);
    }
    return id;
  }

  /** Global id of the stack `frames` (global loc ids, bottom first); [] is -1. */
  internStack(frames: readonly number[]): number {
    let id = -1;
    for (const f of frames) id = this.internStackNode(id, f);
    return id;
  }

  /** Global id of the stack `parent` (-1: none) with frame `loc` pushed on top. */
  internStackNode(parent: number, loc: number): number {
    const key: number | string = parent + 1 < 2 ** 26 && loc < 2 ** 26 ? (parent + 1) * 2 ** 26 + loc : `${parent},${loc}`;
    let id = this.stackIds.get(key);
    if (id === undefined) {
      id = this.stackParents.length;
      this.stackParents.push(parent);
      this.stackLocs.push(loc);
      this.stackIds.set(key, id);
    }
    return id;
  }

  /** Number of interned call stacks. */
  get stackCount(): number {
    return this.stackParents.length;
  }

  /** The stack below a global stack id's top frame (-1: none), without making an array. */
  stackParent(id: number): number {
    return this.stackParents[id];
  }

  /** The top frame (global loc id) of a global stack id. */
  stackTop(id: number): number {
    return this.stackLocs[id];
  }

  /** Frames (global loc ids, bottom first) of a global stack id. */
  stackFrames(id: number): number[] {
    const rev: number[] = [];
    for (let s = id; s >= 0; s = this.stackParents[s]) rev.push(this.stackLocs[s]);
    return rev.reverse();
  }

  internAccess(write: boolean, variable: number, loc: number): number {
    // one flat table (no Map per loc) while the ids fit in 53 bits
    const flat = loc < 2 ** 25 && variable < 2 ** 26;
    const k = flat ? loc * 2 ** 27 + variable * 2 + (write ? 1 : 0) : -1;
    const sk = flat ? '' : `${loc},${variable},${write ? 1 : 0}`;
    let id: number | undefined = flat ? this.flatAccessIds.get(k) : this.accessIds.get(sk);
    if (id === undefined || id < 0) {
      id = this.accesses.length;
      this.accesses.push({ write, variable, loc });
      if (flat) this.flatAccessIds.set(k, id);
      else this.accessIds.set(sk, id);
      if (id >= this.accessWrite.length) {
        const g = new Uint8Array(this.accessWrite.length * 2);
        g.set(this.accessWrite);
        this.accessWrite = g;
      }
      this.accessWrite[id] = write ? 1 : 0;
    }
    return id;
  }

  /** True when static access `s` is a write. */
  isWrite(s: number): boolean {
    return this.accessWrite[s] === 1;
  }

  /** The pair signature of (first, second) static accesses (roles T1 → T2 implied). */
  internPair(first: number, second: number): number {
    if (first < PAIR_KEY_LIMIT && second < PAIR_KEY_LIMIT) {
      const key = first * PAIR_KEY_LIMIT + second;
      let id = this.flatPairIds.get(key);
      if (id < 0) {
        id = this.newPair(first, second);
        this.flatPairIds.set(key, id);
      }
      return id;
    }
    const key = `${first},${second}`;
    let id = this.pairIds.get(key);
    if (id === undefined) this.pairIds.set(key, (id = this.newPair(first, second)));
    return id;
  }

  private newPair(first: number, second: number): number {
    this.pairFirst.push(first);
    this.pairSecond.push(second);
    const id = this.pairPatterns.push(-1);
    if (id >= this.pairKinds.length) {
      const g = new Uint8Array(this.pairKinds.length * 2);
      g.set(this.pairKinds);
      this.pairKinds = g;
    }
    this.pairKinds[id] = this.accessWrite[first] * 2 + this.accessWrite[second];
    return id;
  }

  /** Access types of pair signature `sig`: first · 2 + second, W = 1 (RW 1, WR 2, WW 3). */
  pairKind(sig: number): number {
    return this.pairKinds[sig];
  }

  /** Number of pair signatures. */
  get pairCount(): number {
    return this.pairFirst.length;
  }

  /** [first, second] static accesses of a pair signature. */
  pairAccesses(sig: number): [number, number] {
    return [this.pairFirst.data[sig], this.pairSecond.data[sig]];
  }

  /** The P1–P3 pattern of pair signature `sig` if it exists already, else -1. */
  knownPairPattern(sig: number): number {
    return this.pairPatterns.data[sig];
  }

  /**
   * The P1–P3 pattern of pair signature `sig`; on its first occurrence the
   * pattern keeps `occ`'s slots 0 and 1 (stacks, values, thread names).
   */
  pairPattern(sig: number, occ: Occurrence): number {
    const known = this.pairPatterns.data[sig];
    if (known >= 0) return known;
    const a = this.pairFirst.data[sig];
    const b = this.pairSecond.data[sig];
    const id = this.newPattern(pairPatternNumber(this.isWrite(a), this.isWrite(b)), PairRelation.Pair, a, b, -1, -1, occ);
    this.pairPatterns.data[sig] = id;
    return id;
  }

  /**
   * Memoized combination of pair signatures p1 (T1 → T2) then p2 (T2 → T1)
   * placed as `rel`: the pattern id, NO_PATTERN, or UNKNOWN_COMBINATION (then
   * call internCombination once).
   */
  combination(p1: number, p2: number, rel: PairRelation): number {
    if (p1 < DENSE_SIGS && p2 < DENSE_SIGS) return this.denseCombos[(p2 * DENSE_SIGS + p1) * 8 + rel] - 2;
    // absent: 0 - 2 = UNKNOWN_COMBINATION
    if (p1 < ROW_P1_LIMIT) return this.combos.get(p2, p1 * 8 + rel + 1) - 2;
    const id = this.bigCombos.get(`${p1},${p2},${rel}`);
    return id === undefined ? UNKNOWN_COMBINATION : id;
  }

  /**
   * Decides (once per signature tuple) whether p1 and p2 placed as `rel` form
   * one of P4–P17; a new pattern keeps `occ` (slots a1, a2, b1, b2).
   */
  internCombination(p1: number, p2: number, rel: PairRelation, occ: Occurrence): number {
    const a1 = this.pairFirst.data[p1];
    const a2 = this.pairSecond.data[p1];
    const b1 = this.pairFirst.data[p2];
    const b2 = this.pairSecond.data[p2];
    // one location: b1 is a2 (the same dynamic access, so the same static access)
    const n = rel === PairRelation.SharedMiddle && a2 !== b1 ? 0 : combinedPatternNumber(rel, this.isWrite(a1), this.isWrite(a2), this.isWrite(b1), this.isWrite(b2));
    const id = n ? this.newPattern(n, rel, a1, a2, b1, b2, occ) : NO_PATTERN;
    if (p1 < DENSE_SIGS && p2 < DENSE_SIGS) {
      this.denseCombos[(p2 * DENSE_SIGS + p1) * 8 + rel] = id + 2;
      return id;
    }
    if (p1 < ROW_P1_LIMIT) this.combos.set(p2, p1 * 8 + rel + 1, id + 2);
    else this.bigCombos.set(`${p1},${p2},${rel}`, id);
    return id;
  }

  /**
   * The pattern made of pair signature p1 (and p2 with relation rel, or
   * rel = Pair for P1–P3), from dynamic accesses (FALCON's entry point).
   */
  internPattern(p1: number, p2: number, rel: PairRelation, n: number, a1: AccessRef, a2: AccessRef, b1?: AccessRef, b2?: AccessRef): number {
    const occ = this.scratch;
    occ.set(0, a1.stack, a1.value, a1.threadName);
    occ.set(1, a2.stack, a2.value, a2.threadName);
    if (rel === PairRelation.Pair || !b1 || !b2) return this.pairPattern(p1, occ);
    occ.set(2, b1.stack, b1.value, b1.threadName);
    occ.set(3, b2.stack, b2.value, b2.threadName);
    const known = this.combination(p1, p2, rel);
    const id = known === UNKNOWN_COMBINATION ? this.internCombination(p1, p2, rel, occ) : known;
    if (id < 0) throw new Error(`pairs ${p1} and ${p2} form no P${n}`);
    return id;
  }

  private readonly scratch = new Occurrence();

  /** the last two names looked up (a new pattern names the same two threads over and over) */
  private lastName0: string | undefined;
  private lastNameId0 = -1;
  private lastName1: string | undefined;
  private lastNameId1 = -1;

  private threadNameId(name: string | undefined): number {
    if (name === undefined) return -1;
    if (name === this.lastName0) return this.lastNameId0;
    if (name === this.lastName1) return this.lastNameId1;
    const id = this.threadNameIdSlow(name);
    this.lastName1 = this.lastName0;
    this.lastNameId1 = this.lastNameId0;
    this.lastName0 = name;
    this.lastNameId0 = id;
    return id;
  }

  private threadNameIdSlow(name: string): number {
    let id = this.threadNameIds.get(name);
    if (id === undefined) {
      id = this.threadNameList.length;
      this.threadNameList.push(name);
      this.threadNameIds.set(name, id);
    }
    return id;
  }

  private newPattern(n: number, rel: PairRelation, a1: number, a2: number, b1: number, b2: number, occ: Occurrence): number {
    const id = this.patternTotal;
    if (id >= this.patternN.length) {
      const g = new Uint8Array(this.patternN.length * 2);
      g.set(this.patternN);
      this.patternN = g;
    }
    this.patternN[id] = n;
    const order = EXECUTION_ORDER[rel];
    let values: unknown[] | undefined;
    for (let k = 0; k < 4; k++) {
      const slot = order[k];
      if (slot === undefined) {
        this.patternAcc.push(-1);
        this.patternStack.push(-1);
        this.patternName.push(-1);
        continue;
      }
      this.patternAcc.push(slot === 0 ? a1 : slot === 1 ? a2 : slot === 2 ? b1 : b2);
      this.patternStack.push(occ.stacks[slot]);
      this.patternName.push(this.threadNameId(occ.names[slot]));
      if (occ.values[slot] !== undefined) (values ??= new Array(order.length).fill(undefined))[k] = occ.values[slot];
    }
    if (values) this.patternVals.set(id, values);
    this.patternTotal++;
    return id;
  }

  /**
   * Adds a pattern described elsewhere (a summary from another process,
   * server/src/engine/summary/runSummary.ts): the caller has checked that it
   * is new here. Its roles are its definition's. Returns its id.
   */
  adoptPattern(p: { def: PatternDefinition; accesses: readonly number[]; stacks: readonly number[]; values: readonly unknown[]; threadNames?: readonly (string | undefined)[] }): number {
    const id = this.patternTotal;
    if (id >= this.patternN.length) {
      const g = new Uint8Array(this.patternN.length * 2);
      g.set(this.patternN);
      this.patternN = g;
    }
    this.patternN[id] = p.def.n;
    const len = p.def.kind.length;
    let values: unknown[] | undefined;
    for (let k = 0; k < 4; k++) {
      if (k >= len) {
        this.patternAcc.push(-1);
        this.patternStack.push(-1);
        this.patternName.push(-1);
        continue;
      }
      this.patternAcc.push(p.accesses[k]);
      this.patternStack.push(p.stacks[k]);
      this.patternName.push(this.threadNameId(p.threadNames?.[k]));
      if (p.values[k] !== undefined) (values ??= new Array(len).fill(undefined))[k] = p.values[k];
    }
    if (values) this.patternVals.set(id, values);
    this.patternTotal++;
    return id;
  }

  /** Table 1 definition of a pattern. */
  patternDef(id: number): PatternDefinition {
    return PATTERNS[this.patternN[id] - 1];
  }

  /** Per access of a pattern: 0 static access ids, 1 stacks, 2 thread names. */
  patternColumn(id: number, column: 0 | 1 | 2): (number | string | undefined)[] {
    const len = this.patternDef(id).kind.length;
    const out = new Array(len);
    const data = (column === 0 ? this.patternAcc : column === 1 ? this.patternStack : this.patternName).data;
    for (let k = 0; k < len; k++) {
      const v = data[id * 4 + k];
      out[k] = column === 2 ? (v < 0 ? undefined : this.threadNameList[v]) : v;
    }
    return out;
  }

  /** Static access id of a pattern's access k (no array built: for loops over every pattern). */
  patternAccessAt(id: number, k: number): number {
    return this.patternAcc.data[id * 4 + k];
  }

  /** Call stack id of a pattern's access k at its first occurrence (-1: none). */
  patternStackAt(id: number, k: number): number {
    return this.patternStack.data[id * 4 + k];
  }

  /** The value of a pattern's access k at its first occurrence (undefined: not recorded). */
  patternValueAt(id: number, k: number): unknown {
    return this.patternVals.get(id)?.[k];
  }

  /** The thread name of a pattern's access k at its first occurrence (undefined: the trace names none). */
  patternThreadNameAt(id: number, k: number): string | undefined {
    const v = this.patternName.data[id * 4 + k];
    return v < 0 ? undefined : this.threadNameList[v];
  }

  /** Values of a pattern's first occurrence, per access. */
  patternValues(id: number): unknown[] {
    const v = this.patternVals.get(id);
    return v ? v.slice() : new Array(this.patternDef(id).kind.length).fill(undefined);
  }

  /** Stable text key of a pattern's static signature: "P9|W1:TABLE@TableLog.java:11|…". */
  patternKey(id: number): string {
    const def = this.patternDef(id);
    let key = def.id;
    for (let k = 0; k < def.kind.length; k++) key += '|' + this.accessKey(this.patternAcc.data[id * 4 + k], def.roles[k]);
    return key;
  }

  accessKey(sacc: number, role: number): string {
    const a = this.accesses[sacc];
    const l = this.locs[a.loc];
    // with callLocations a library access's key names its call ("…@PooledDataSource.java:55#java.util.Iterator.next"):
    // the key without "#…" is the pattern's key with locations per line
    return `${a.write ? 'W' : 'R'}${role}:${this.variables[a.variable]}@${l.file}:${l.line}${this.callLocations && l.call !== undefined ? `#${l.call}` : ''}`;
  }

  // ---- workspace snapshot (server/src/engine/summary/workspaceSnapshot.ts): the registry as columns ----
  // One block, kept apart from the interning code above: exportColumns reads the registry's fields,
  // importColumns replays the interning (so every intern map is rebuilt) and restores the memo.

  /** The registry's tables as columns (views of its own arrays where it has them: copy before changing it). */
  exportColumns(): RegistryColumns {
    const accesses = this.accesses.length;
    const accessVariable = new Int32Array(accesses);
    const accessLoc = new Int32Array(accesses);
    for (let s = 0; s < accesses; s++) {
      accessVariable[s] = this.accesses[s].variable;
      accessLoc[s] = this.accesses[s].loc;
    }
    const values: [number, number, unknown][] = [];
    for (const [id, vals] of this.patternVals) for (let k = 0; k < vals.length; k++) if (vals[k] !== undefined) values.push([id, k, vals[k]]);
    const pairs = this.pairFirst.length;
    const patterns = this.patternTotal;
    return {
      variables: this.variables,
      threadNames: this.threadNameList,
      locs: this.locs,
      stackParents: Int32Array.from(this.stackParents),
      stackLocs: Int32Array.from(this.stackLocs),
      accessWrite: this.accessWrite.subarray(0, accesses),
      accessVariable,
      accessLoc,
      pairFirst: this.pairFirst.data.subarray(0, pairs),
      pairSecond: this.pairSecond.data.subarray(0, pairs),
      pairPatterns: this.pairPatterns.data.subarray(0, pairs),
      patternN: this.patternN.subarray(0, patterns),
      patternAcc: this.patternAcc.data.subarray(0, patterns * 4),
      patternStack: this.patternStack.data.subarray(0, patterns * 4),
      patternName: this.patternName.data.subarray(0, patterns * 4),
      values,
    };
  }

  /**
   * Fills an empty registry with exported columns (checked: ids in range), so that it is the
   * exported registry: same ids, and interning goes on where it stopped (a pattern found again
   * gets its id, P4–P17 through the combination memo rebuilt from each pattern's accesses).
   * Throws on columns that do not fit together.
   */
  importColumns(c: RegistryColumns): void {
    if (this.variables.length || this.locs.length || this.accesses.length || this.patternTotal || this.stackParents.length) throw new Error('importColumns needs an empty registry');
    const bad = (what: string): never => {
      throw new Error(`registry columns: ${what}`);
    };
    const nVars = c.variables.length;
    const nLocs = c.locs.length;
    const nStacks = c.stackParents.length;
    const nAcc = c.accessWrite.length;
    const nPairs = c.pairFirst.length;
    const nPat = c.patternN.length;
    const nNames = c.threadNames.length;
    for (const v of c.variables) if (this.internVariable(v) !== this.variables.length - 1) bad(`variable "${v}" twice`);
    for (const l of c.locs) {
      const id = this.internLoc(l.file, l.line, l.method, l.mixedCalls ? undefined : l.call);
      if (id !== this.locs.length - 1) bad(`loc ${l.file}:${l.line} twice`);
      noteLocCall(this.locs[id], l.call, l.mixedCalls);
      if (l.harness) this.locs[id].harness = true;
    }
    if (c.stackLocs.length !== nStacks) bad('stack columns of different lengths');
    for (let s = 0; s < nStacks; s++) {
      const parent = c.stackParents[s];
      const loc = c.stackLocs[s];
      if (parent < -1 || parent >= s || loc < 0 || loc >= nLocs || this.internStackNode(parent, loc) !== s) bad(`stack ${s}`);
    }
    if (c.accessVariable.length !== nAcc || c.accessLoc.length !== nAcc) bad('access columns of different lengths');
    for (let s = 0; s < nAcc; s++) {
      const v = c.accessVariable[s];
      const l = c.accessLoc[s];
      if (v < 0 || v >= nVars || l < 0 || l >= nLocs || c.accessWrite[s] > 1 || this.internAccess(c.accessWrite[s] === 1, v, l) !== s) bad(`static access ${s}`);
    }
    if (c.pairSecond.length !== nPairs || c.pairPatterns.length !== nPairs) bad('pair columns of different lengths');
    for (let p = 0; p < nPairs; p++) {
      const a = c.pairFirst[p];
      const b = c.pairSecond[p];
      if (a < 0 || a >= nAcc || b < 0 || b >= nAcc || this.internPair(a, b) !== p) bad(`pair signature ${p}`);
      const pat = c.pairPatterns[p];
      if (pat < -1 || pat >= nPat) bad(`pattern of pair signature ${p}`);
    }
    for (const name of c.threadNames) if (this.threadNameIdSlow(name) !== this.threadNameList.length - 1) bad(`thread name "${name}" twice`);
    if (c.patternAcc.length !== nPat * 4 || c.patternStack.length !== nPat * 4 || c.patternName.length !== nPat * 4) bad('pattern columns of different lengths');
    for (let id = 0; id < nPat; id++) {
      const n = c.patternN[id];
      if (n < 1 || n > PATTERNS.length) bad(`pattern ${id}: Table 1 number ${n}`);
      const len = PATTERNS[n - 1].kind.length;
      for (let k = 0; k < 4; k++) {
        const o = id * 4 + k;
        const s = c.patternAcc[o];
        const st = c.patternStack[o];
        const nm = c.patternName[o];
        if (k < len ? s < 0 || s >= nAcc || st < -1 || st >= nStacks || nm < -1 || nm >= nNames : s !== -1) bad(`pattern ${id}, access ${k}`);
      }
    }
    // columns: bulk copies
    this.patternN = new Uint8Array(Math.max(1024, nPat));
    this.patternN.set(c.patternN);
    for (const [col, src] of [
      [this.patternAcc, c.patternAcc],
      [this.patternStack, c.patternStack],
      [this.patternName, c.patternName],
      [this.pairPatterns, c.pairPatterns],
    ] as const) {
      col.reserve(src.length);
      col.data.set(src);
      col.length = src.length;
    }
    this.patternTotal = nPat;
    for (const [id, k, v] of c.values) {
      if (!Number.isInteger(id) || id < 0 || id >= nPat || !Number.isInteger(k) || k < 0 || k >= PATTERNS[c.patternN[id] - 1].kind.length) bad(`value [${id}, ${k}]`);
      let vals = this.patternVals.get(id);
      if (!vals) this.patternVals.set(id, (vals = new Array(PATTERNS[c.patternN[id] - 1].kind.length).fill(undefined)));
      vals[k] = v;
    }
    // the memo: every pattern is the answer for its own signatures (patterns adopted from summaries included)
    for (let id = 0; id < nPat; id++) this.rememberPattern(id);
  }

  /** Makes pattern `id` the memoized answer for the pair signatures it is made of (interning them when new). */
  private rememberPattern(id: number): void {
    const n = this.patternN[id];
    const acc = this.patternAcc.data;
    const e0 = acc[id * 4];
    const e1 = acc[id * 4 + 1];
    if (n <= 3) {
      const sig = this.internPair(e0, e1);
      if (this.pairPatterns.data[sig] < 0) this.pairPatterns.data[sig] = id;
      return;
    }
    const rel = RELATION_OF[n];
    const order = EXECUTION_ORDER[rel];
    const slots = this.memoSlots;
    for (let k = 0; k < order.length; k++) slots[order[k]] = acc[id * 4 + k];
    if (rel === PairRelation.SharedMiddle) slots[2] = slots[1];
    const p1 = this.internPair(slots[0], slots[1]);
    const p2 = this.internPair(slots[2], slots[3]);
    if (this.combination(p1, p2, rel) !== UNKNOWN_COMBINATION) return;
    // as internCombination stores its answer
    if (p1 < DENSE_SIGS && p2 < DENSE_SIGS) this.denseCombos[(p2 * DENSE_SIGS + p1) * 8 + rel] = id + 2;
    else if (p1 < ROW_P1_LIMIT) this.combos.set(p2, p1 * 8 + rel + 1, id + 2);
    else this.bigCombos.set(`${p1},${p2},${rel}`, id);
  }

  private readonly memoSlots = new Int32Array(4);
}

/** Table 1 number → the placement of its two pairs (from the variables of its accesses: x x y y, x y x y, x y y x). */
const RELATION_OF: readonly PairRelation[] = [PairRelation.Pair, ...PATTERNS.map((d) =>
  d.kind.length === 2 ? PairRelation.Pair : d.kind.length === 3 ? PairRelation.SharedMiddle : d.vars[1] === 'x' ? PairRelation.Sequential : d.vars[2] === 'x' ? PairRelation.Interleaved : PairRelation.Nested,
)];

/** A PatternRegistry as columns (exportColumns / importColumns); patterns have 4 slots each (-1 unused). */
export interface RegistryColumns {
  variables: readonly string[];
  threadNames: readonly string[];
  locs: readonly LocInfo[];
  /** call stack tree: parent (-1 bottom) and top frame (loc id) per stack id */
  stackParents: Int32Array;
  stackLocs: Int32Array;
  /** static accesses: 1 write, variable id, loc id */
  accessWrite: Uint8Array;
  accessVariable: Int32Array;
  accessLoc: Int32Array;
  /** pair signatures: first and second static access, P1–P3 pattern (-1 none yet) */
  pairFirst: Int32Array;
  pairSecond: Int32Array;
  pairPatterns: Int32Array;
  /** patterns: Table 1 number; per slot static access, stack, thread name id */
  patternN: Uint8Array;
  patternAcc: Int32Array;
  patternStack: Int32Array;
  patternName: Int32Array;
  /** [pattern id, access index, value] of recorded first-occurrence values */
  values: [number, number, unknown][];
}
