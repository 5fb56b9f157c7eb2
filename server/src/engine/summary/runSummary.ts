/**
 * Run summaries in and out of a PatternRegistry: `encodeRuns` writes runs
 * analyzed here as a SummaryFile (its own tables, patterns by stable key);
 * `SummaryMerger` re-interns a SummaryFile into a receiving registry, so
 * the same pattern found in another process gets this registry's id.
 */
import { checkedFailure } from '../runFailure';
import type { Diagnostic } from '../trace/traceFormat';
import type { RunResult } from '../analysis';
import { patternDefinition } from '../unicorn/patternCatalog';
import { noteLocCall, type PatternRegistry } from '../unicorn/patternRegistry';
import { CollectionOptions, collectionOptions, ENGINE_VERSION, SUMMARY_FORMAT, SUMMARY_VERSION, SummaryFile, SummaryRun } from './summaryFile';
import { NumberIdMap } from '../unicorn/numberIdMap';
import { boundValue } from '../trace/boundedValue';

export interface EncodedRun {
  run: RunResult;
  diagnostics: Diagnostic[];
  hash?: string;
}

/** A SummaryFile of `runs` (in this order: a pattern is described by its first run here). */
export function encodeRuns(registry: PatternRegistry, runs: EncodedRun[], options: CollectionOptions): SummaryFile {
  const out: SummaryFile = {
    format: SUMMARY_FORMAT,
    version: SUMMARY_VERSION,
    engine: ENGINE_VERSION,
    options: collectionOptions(options),
    variables: [],
    threadNames: [],
    locs: [],
    stacks: [],
    accesses: [],
    patterns: { n: [], accesses: [], roles: [], stacks: [], values: [], names: [] },
    runs: [],
  };
  const vars = new Map<number, number>();
  const locs = new Map<number, number>();
  const stacks = new Map<number, number>();
  const accesses = new Map<number, number>();
  const patterns = new Map<number, number>();
  const variable = (v: number) => {
    let k = vars.get(v);
    if (k === undefined) {
      vars.set(v, (k = out.variables.length));
      out.variables.push(registry.variables[v]);
    }
    return k;
  };
  const loc = (l: number) => {
    let k = locs.get(l);
    if (k === undefined) {
      locs.set(l, (k = out.locs.length));
      const info = registry.locs[l];
      out.locs.push({
        file: info.file,
        line: info.line,
        method: info.method,
        ...(info.call !== undefined ? { call: info.call } : {}),
        ...(info.mixedCalls ? { mixedCalls: true } : {}),
        ...(info.harness ? { harness: true } : {}),
      });
    }
    return k;
  };
  const stack = (s: number) => {
    if (s < 0) return -1;
    let k = stacks.get(s);
    if (k === undefined) {
      stacks.set(s, (k = out.stacks.length));
      out.stacks.push(registry.stackFrames(s).map(loc));
    }
    return k;
  };
  const access = (a: number) => {
    let k = accesses.get(a);
    if (k === undefined) {
      accesses.set(a, (k = out.accesses.length));
      const sa = registry.accesses[a];
      out.accesses.push([sa.write ? 1 : 0, variable(sa.variable), loc(sa.loc)]);
    }
    return k;
  };
  const threadNames = new Map<string, number>();
  const threadName = (name: string | undefined) => {
    if (name === undefined) return -1;
    let k = threadNames.get(name);
    if (k === undefined) {
      threadNames.set(name, (k = out.threadNames.length));
      out.threadNames.push(name);
    }
    return k;
  };
  const cols = out.patterns;
  const pattern = (id: number) => {
    let k = patterns.get(id);
    if (k === undefined) {
      patterns.set(id, (k = cols.n.length));
      const info = registry.pattern(id);
      cols.n.push(info.def.n);
      // the registry's patterns are views: each property is built when read, so read each once
      const accs = info.accesses;
      const roles = info.roles;
      const stks = info.stacks;
      const vals = info.values;
      const names = info.threadNames;
      for (let j = 0; j < accs.length; j++) {
        cols.accesses.push(access(accs[j]));
        cols.roles.push(roles[j]);
        cols.stacks.push(stack(stks[j]));
        cols.names.push(threadName(names[j]));
        if (vals[j] !== undefined) cols.values.push([k, j, vals[j]]);
      }
    }
    return k;
  };
  for (const { run, diagnostics, hash } of runs) {
    const r: SummaryRun = {
      file: run.file,
      execution: run.execution,
      outcome: run.outcome,
      events: run.events,
      stats: run.stats,
      uncaught: run.uncaught,
      droppedEvents: run.droppedEvents,
      patterns: Array.from(run.patterns, pattern),
      diagnostics,
    };
    // (once each: left out, as before occurrences were kept)
    if (run.occurrences && run.occurrences.some((c) => c !== 1)) r.occurrences = Array.from(run.occurrences);
    // (none overtaken: left out)
    if (run.overtaken && run.overtaken.some((c) => c !== 0)) r.overtaken = Array.from(run.overtaken);
    for (const f of ['outcomeReason', 'outcomeDetail', 'program', 'test', 'seed', 'failPoint'] as const) if (run[f] !== undefined) (r as unknown as Record<string, unknown>)[f] = run[f];
    if (run.plan) r.plan = { ...run.plan };
    if (run.failure) r.failure = run.failure;
    if (run.afterFailure) r.afterFailure = run.afterFailure.map(pattern);
    if (hash) r.hash = hash;
    out.runs.push(r);
  }
  return out;
}

/** A run re-interned into the receiving registry. */
export interface MergedRun {
  run: RunResult;
  diagnostics: Diagnostic[];
  hash?: string;
}

/**
 * Re-interns summaries into one registry. A pattern is the same here when
 * its Table 1 number, thread roles and static accesses (this registry's ids)
 * are: looked up by a numeric hash of these, checked against the pattern
 * found (a run of a busy program has tens of thousands of patterns: no key
 * text per lookup). Every pattern of the registry is indexed, also those its
 * own collectors interned, so a pattern found by a summary and by a trace
 * read here is one id.
 */
export class SummaryMerger {
  /** shape hash → the first pattern with it (typed open addressing: the keys are 53-bit, not small integers) */
  private readonly byHash = new NumberIdMap();
  /** further patterns whose shape hash is taken */
  private readonly clashes = new Map<number, number[]>();
  private scanned = 0;
  private readonly acc = new Int32Array(4);
  private readonly role = new Int32Array(4);

  constructor(private readonly registry: PatternRegistry) {}

  /** 53-bit hash of the shape in acc/role. */
  private hash(n: number, len: number): number {
    let h1 = Math.imul(n, 0x9e3779b1) ^ len;
    let h2 = n * 31 + len;
    for (let j = 0; j < len; j++) {
      const x = this.acc[j] * 2 + this.role[j];
      h1 = Math.imul(h1 ^ x, 0x85ebca6b);
      h1 ^= h1 >>> 13;
      h2 = (Math.imul(h2, 0x27d4eb2d) + x) | 0;
    }
    return (h1 >>> 0) * 2 ** 21 + ((h2 >>> 0) & 0x1fffff);
  }

  /** per registry id: Table 1 number, roles bits and 4 static accesses (-1 unused), to check a hash hit without reading the registry */
  private shapes = new Int32Array(6 * 1024);

  private keepShape(id: number, n: number, len: number): void {
    if ((id + 1) * 6 > this.shapes.length) {
      const g = new Int32Array(Math.max(this.shapes.length * 2, (id + 1) * 6));
      g.set(this.shapes);
      this.shapes = g;
    }
    const o = id * 6;
    let bits = 0;
    for (let j = 0; j < len; j++) if (this.role[j] === 2) bits |= 1 << j;
    this.shapes[o] = n;
    this.shapes[o + 1] = bits;
    for (let j = 0; j < 4; j++) this.shapes[o + 2 + j] = j < len ? this.acc[j] : -1;
  }

  private same(id: number, n: number, len: number): boolean {
    const o = id * 6;
    const sh = this.shapes;
    if (sh[o] !== n) return false;
    let bits = 0;
    for (let j = 0; j < len; j++) {
      if (sh[o + 2 + j] !== this.acc[j]) return false;
      if (this.role[j] === 2) bits |= 1 << j;
    }
    return sh[o + 1] === bits;
  }

  private find(n: number, len: number): number | undefined {
    const h = this.hash(n, len);
    const id = this.byHash.get(h);
    if (id < 0) return undefined;
    if (this.same(id, n, len)) return id;
    for (const other of this.clashes.get(h) ?? []) if (this.same(other, n, len)) return other;
    return undefined;
  }

  private remember(n: number, len: number, id: number): void {
    this.keepShape(id, n, len);
    const h = this.hash(n, len);
    const first = this.byHash.get(h);
    if (first < 0) this.byHash.set(h, id);
    else if (!this.same(first, n, len)) {
      const l = this.clashes.get(h);
      if (!l) this.clashes.set(h, [id]);
      else if (!l.some((x) => this.same(x, n, len))) l.push(id);
    }
  }

  /** Indexes the patterns the registry got since the last call (from its own collectors). */
  private catchUp(): void {
    const reg = this.registry;
    for (const count = reg.patternCount; this.scanned < count; this.scanned++) {
      // read from the registry's columns: no view or arrays per pattern
      const def = reg.patternDef(this.scanned);
      const len = def.kind.length;
      for (let j = 0; j < len; j++) {
        this.acc[j] = reg.patternAccessAt(this.scanned, j);
        this.role[j] = def.roles[j];
      }
      this.remember(def.n, len, this.scanned);
    }
  }

  /** The runs of `s` with this registry's ids (runs in file order, their pattern ids ascending). */
  merge(s: SummaryFile, file?: (stored: string) => string): MergedRun[] {
    const reg = this.registry;
    const vars = s.variables.map((v) => reg.internVariable(v));
    const locs = s.locs.map((l) => {
      const id = reg.internLoc(l.file, l.line, l.method, l.mixedCalls ? undefined : l.call);
      if (l.call !== undefined || l.harness || l.mixedCalls) {
        const info = reg.locs[id];
        noteLocCall(info, l.call, l.mixedCalls, 'first');
        if (l.harness) info.harness = true;
      }
      return id;
    });
    const stacks = s.stacks.map((frames) => reg.internStack(frames.map((f) => locs[f])));
    const accesses = s.accesses.map(([w, v, l]) => reg.internAccess(w === 1, vars[v], locs[l]));
    const cols = s.patterns;
    const count = cols.n.length;
    const ids: number[] = new Array(count);
    const values = new Map<number, [number, unknown][]>();
    for (const [k, j, v] of cols.values) {
      let l = values.get(k);
      if (!l) values.set(k, (l = []));
      // a shard's value is kept as a trace's would be: bounded by what it can be shown as (boundedValue.ts)
      l.push([j, boundValue(v)]);
    }
    this.catchUp();
    let at = 0;
    for (let k = 0; k < count; k++) {
      const n = cols.n[k];
      const def = patternDefinition(n);
      const len = def.kind.length;
      for (let j = 0; j < len; j++) {
        this.acc[j] = accesses[cols.accesses[at + j]];
        this.role[j] = cols.roles[at + j];
      }
      let id = this.find(n, len);
      if (id === undefined) {
        const vals: unknown[] = new Array(len).fill(undefined);
        const given = values.get(k);
        if (given) for (const [j, v] of given) vals[j] = v;
        const info: Parameters<PatternRegistry['adoptPattern']>[0] = {
          def,
          accesses: Array.from(this.acc.subarray(0, len)),
          stacks: cols.stacks.slice(at, at + len).map((x) => (x < 0 ? -1 : stacks[x])),
          values: vals,
          threadNames: cols.names.slice(at, at + len).map((x) => (x < 0 ? undefined : s.threadNames[x])),
        };
        id = reg.adoptPattern(info);
        this.remember(n, len, id);
        this.scanned = id + 1;
      }
      ids[k] = id;
      at += len;
    }
    const asc = (a: number, b: number) => a - b;
    return s.runs.map((r) => {
      const name = file ? file(r.file) : r.file;
      const run: RunResult = {
        file: name,
        execution: r.execution,
        outcome: r.outcome,
        outcomeReason: r.outcomeReason,
        outcomeDetail: r.outcomeDetail,
        program: r.program,
        test: r.test,
        seed: r.seed,
        ...(r.plan ? { plan: { ...r.plan } } : {}),
        events: r.events,
        ...patternsOf(r.patterns, r.occurrences, r.overtaken, ids),
        failPoint: r.failPoint,
        ...(() => {
          const f = checkedFailure(r.failure);
          return f && f !== 'bad' ? { failure: f } : {};
        })(),
        afterFailure: r.afterFailure?.map((k) => ids[k]).sort(asc),
        stats: r.stats,
        uncaught: r.uncaught,
        droppedEvents: r.droppedEvents,
      };
      // a shard's diagnostics are about its run: any other file they name is said in the message, never
      // taken as a place (a CI log or problem matcher would point at it: /etc/shadow)
      const diagnostics = r.diagnostics.map((d) =>
        d.file === r.file ? { ...d, file: name } : { severity: d.severity, file: name, message: `${d.message} (the summary names ${JSON.stringify(d.file)}${d.line !== undefined ? `:${d.line}` : ''})` },
      );
      return { run, diagnostics, hash: r.hash };
    });
  }
}

/**
 * A summary run's patterns as registry ids, ascending, with their occurrences and overtaken occurrences in
 * the same order (absent from the summary: once each, none overtaken).
 */
function patternsOf(
  patterns: readonly number[],
  occurrences: readonly number[] | undefined,
  overtaken: readonly number[] | undefined,
  ids: ArrayLike<number>,
): { patterns: Int32Array; occurrences: Int32Array; overtaken: Int32Array } {
  const order = Array.from(patterns, (_, j) => j).sort((a, b) => ids[patterns[a]] - ids[patterns[b]]);
  return {
    patterns: Int32Array.from(order, (j) => ids[patterns[j]]),
    occurrences: Int32Array.from(order, (j) => (occurrences ? occurrences[j] : 1)),
    overtaken: Int32Array.from(order, (j) => (overtaken ? overtaken[j] : 0)),
  };
}
