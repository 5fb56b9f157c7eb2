/**
 * Static signatures, interned once for all runs of an analysis so that the
 * same pattern in different runs is the same id: variables, source
 * locations, call stacks, static accesses (type, variable, statement), pairs
 * of static accesses (roles T1 → T2 implied) and patterns.
 */
import { PairRelation, patternDefinition, PatternDefinition } from './patternCatalog';
import { orderedAccesses } from './patternCombination';

export interface LocInfo {
  file: string;
  line: number;
  method: string;
  /** a library call at this line (trace loc.call) */
  call?: string;
  /** marked as test code by the recorder (trace loc.harness) */
  harness?: boolean;
}

export interface StaticAccess {
  write: boolean;
  variable: number;
  loc: number;
}

export interface PatternInfo {
  /** dense id in this registry */
  id: number;
  def: PatternDefinition;
  /** static access ids in execution order */
  accesses: number[];
  /** thread roles (1|2) in execution order */
  roles: (1 | 2)[];
  /** call stack ids (global) of the first occurrence, per access */
  stacks: number[];
  /** values read or written at the first occurrence, per access (undefined: not recorded) */
  values: unknown[];
  /** thread names (trace `def thread`) at the first occurrence, per access (undefined: the trace names no thread) */
  threadNames: (string | undefined)[];
  /** stable text key of the static signature (same across processes) */
  key: string;
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
/** pair signatures below this use the flat combination key (2^22 · 2^22 · 8 < 2^53) */
const COMBO_SIG_LIMIT = 2 ** 22;

export class PatternRegistry {
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
  private readonly accessIds = new Map<number | string, number>();
  /** pair signature → [first sacc, second sacc] */
  readonly pairs: [number, number][] = [];
  private readonly pairIds = new Map<number, Map<number, number>>();
  private readonly flatPairIds = new Map<number, number>();
  readonly patterns: PatternInfo[] = [];
  private readonly patternIds = new Map<number, Map<number, number>>();
  /** pair signature → its P1–P3 pattern id */
  private readonly pairPatterns: number[] = [];
  private readonly comboPatterns = new Map<number, number>();

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

  internLoc(file: string, line: number, method: string): number {
    // numeric key from interned file and method names (no key string per loc) while it fits in 53 bits
    const f = this.nameId(file);
    const m = this.nameId(method);
    const key: number | string = f < 2 ** 14 && m < 2 ** 20 && line >= 0 && line < 2 ** 19 ? (f * 2 ** 20 + m) * 2 ** 19 + line : `${f},${m},${line}`;
    let id = this.locIds.get(key);
    if (id === undefined) {
      id = this.locs.length;
      this.locs.push({ file, line, method });
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

  /** Frames (global loc ids, bottom first) of a global stack id. */
  stackFrames(id: number): number[] {
    const rev: number[] = [];
    for (let s = id; s >= 0; s = this.stackParents[s]) rev.push(this.stackLocs[s]);
    return rev.reverse();
  }

  internAccess(write: boolean, variable: number, loc: number): number {
    // one flat table (no Map per loc) while the ids fit in 53 bits
    const k: number | string = loc < 2 ** 25 && variable < 2 ** 26 ? loc * 2 ** 27 + variable * 2 + (write ? 1 : 0) : `${loc},${variable},${write ? 1 : 0}`;
    let id = this.accessIds.get(k);
    if (id === undefined) {
      id = this.accesses.length;
      this.accesses.push({ write, variable, loc });
      this.accessIds.set(k, id);
    }
    return id;
  }

  internPair(first: number, second: number): number {
    // one flat key while static access ids fit in 26 bits (67M), else nested
    if (first < PAIR_KEY_LIMIT && second < PAIR_KEY_LIMIT) {
      const key = first * PAIR_KEY_LIMIT + second;
      let id = this.flatPairIds.get(key);
      if (id === undefined) {
        id = this.pairs.length;
        this.pairs.push([first, second]);
        this.flatPairIds.set(key, id);
      }
      return id;
    }
    let bySecond = this.pairIds.get(first);
    if (!bySecond) this.pairIds.set(first, (bySecond = new Map()));
    let id = bySecond.get(second);
    if (id === undefined) {
      id = this.pairs.length;
      this.pairs.push([first, second]);
      bySecond.set(second, id);
    }
    return id;
  }

  /**
   * The pattern made of pair signature p1 (and p2 with relation rel, or
   * rel = Pair for P1–P3). `n` is its Table 1 number; a1, a2 (and b1, b2)
   * are the dynamic accesses of the pairs (for roles and first-seen stacks).
   */
  internPattern(p1: number, p2: number, rel: PairRelation, n: number, a1: AccessRef, a2: AccessRef, b1?: AccessRef, b2?: AccessRef): number {
    // fast paths: a pair's own pattern by array index; combinations by one flat key
    if (rel === PairRelation.Pair) {
      const known = this.pairPatterns[p1];
      if (known !== undefined) return known;
    } else if (p1 < COMBO_SIG_LIMIT && p2 < COMBO_SIG_LIMIT) {
      const known = this.comboPatterns.get(p1 * COMBO_SIG_LIMIT * 8 + p2 * 8 + rel);
      if (known !== undefined) return known;
    }
    let inner = this.patternIds.get(p1);
    if (!inner) this.patternIds.set(p1, (inner = new Map()));
    const k = rel === PairRelation.Pair ? -1 : p2 * 8 + rel;
    let id = inner.get(k);
    if (id === undefined) {
      id = this.patterns.length;
      const ordered = rel === PairRelation.Pair || !b1 || !b2 ? [a1, a2] : orderedAccesses(rel, a1, a2, b1, b2);
      const t1 = ordered[0].thread;
      const roles = ordered.map((a) => (a.thread === t1 ? 1 : 2) as 1 | 2);
      const accesses = ordered.map((a) => a.sacc);
      const def = patternDefinition(n);
      this.patterns.push({
        id,
        def,
        accesses,
        roles,
        stacks: ordered.map((a) => a.stack),
        values: ordered.map((a) => a.value),
        threadNames: ordered.map((a) => a.threadName),
        key: `${def.id}|${accesses.map((s, j) => this.accessKey(s, roles[j])).join('|')}`,
      });
      inner.set(k, id);
    }
    if (rel === PairRelation.Pair) this.pairPatterns[p1] = id;
    else if (p1 < COMBO_SIG_LIMIT && p2 < COMBO_SIG_LIMIT) this.comboPatterns.set(p1 * COMBO_SIG_LIMIT * 8 + p2 * 8 + rel, id);
    return id;
  }

  accessKey(sacc: number, role: number): string {
    const a = this.accesses[sacc];
    const l = this.locs[a.loc];
    return `${a.write ? 'W' : 'R'}${role}:${this.variables[a.variable]}@${l.file}:${l.line}`;
  }
}
