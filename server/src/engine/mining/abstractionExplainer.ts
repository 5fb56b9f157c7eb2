/**
 * Seed 000 (Tabaei Befrouei, Wang, Weissenbacher), Algorithm 2: bug explanation patterns by trace
 * abstraction and closed sequential pattern mining.
 *
 *  1. macros (split at context switches, refined to a fixed point) and abstract events;
 *     common prefix/suffix pruned                                           — macros.ts
 *  2. closed patterns of the failing abstract traces (max length 4)         — closedMiner.ts
 *  3. keep abstract patterns with a context switch (≥ 2 threads)
 *  4. concretize to macro patterns (γ)
 *  5. drop macro patterns that occur in no failing macro trace
 *  6. keep macro patterns with an occurrence where every macro has a data dependency with
 *     another macro of the pattern, across threads                          — dependencies.ts
 *  7. relative support rel_supp = supp_F / (supp_F + supp_P), supports as fractions of |Σ_F| and
 *     |Σ_P| (the formula is lost in the seed's text; this is the one the project uses); keep > 0.5
 *  8. group by (rel_supp, dependency set), rank groups by rel_supp
 *
 * Steps 5–7 use the macro traces (the seed's "second option", §4.1), not the original traces.
 */
import { competitionRanks } from '../ranking/competitionRanking';
import { mineSequences } from './closedMiner';
import { DependencyKind, writerIndex, WriterIndex } from './dependencies';
import { abstractMacros, Abstraction, commonPrefixSuffix, deriveMacros, Macros, MacroTrace, pruneMacroTrace } from './macros';
import { eventLabel, Execution, StaticEvent, TraceSet } from './traceSet';
import { terminalLine } from '../outputEscaping';

export interface AbstractionOptions {
  /**
   * fraction of the failing traces (0..1], or 'auto' (default): 1.0, 0.9, … down to `autoFloor`
   * (default 0.1) until a group with a causal dependency set is found (see `ExplanationGroup.causal`)
   */
  minSupport?: number | 'auto';
  autoFloor?: number;
  /** max abstract pattern length (default 4, as in the seed) */
  maxLength?: number;
  /** keep groups with rel_supp above this (default 0.5) */
  minRelSupport?: number;
  /** cap of macro patterns per abstract pattern (γ can be a large product; default 512) */
  maxConcretizations?: number;
  /** cap of occurrences examined per failing trace and macro pattern (default 64) */
  maxOccurrences?: number;
  /**
   * step 6. 'every-macro' (the seed, Definition 3): every macro of the pattern has a dependency
   * with another macro. 'every-thread' (default): every thread of the pattern has a macro with a
   * dependency, and at least two macros have one; the other macros are kept as context. Closed
   * patterns include a thread's program-order neighbours of the racing accesses (e.g. a read of the
   * initial value, which has no flow source because Java's default values are not written), which
   * the seed's rule would reject.
   */
  dependencyRule?: 'every-macro' | 'every-thread';
  /**
   * prune the macros common to the start ('prefix'), the end ('suffix') or both of all traces
   * (default 'prefix'). The seed prunes both; in Braid's traces the end holds the program's own
   * outcome check and failure report, where failing runs read the same variables more often than
   * passing ones, so pruning a common last macro leaves failing traces with a read that passing
   * traces lost — a spurious rel_supp of 1.
   */
  pruneCommon?: 'prefix' | 'suffix' | 'both' | 'none';
  /** cap of abstract patterns mined (default 200000) */
  maxPatterns?: number;
}

/** One event of an explanation, with its source line. */
export interface ExplainedEvent {
  thread: string;
  kind: string;
  /** variable (accesses) or statement (SPIN actions) */
  target: string;
  file?: string;
  line?: number;
  method?: string;
  label: string;
}

export interface DependencyEdge {
  kind: DependencyKind;
  from: ExplainedEvent;
  to: ExplainedEvent;
  variable: string;
}

/** A macro pattern: per position one macro, i.e. consecutive events of one thread. */
export interface MacroPatternExplanation {
  /** `context`: no dependency with another macro of the pattern (only with dependencyRule 'every-thread') */
  macros: { thread: string; events: ExplainedEvent[]; context?: boolean }[];
  /** number of failing / passing macro traces containing the pattern */
  failing: number;
  passing: number;
  relSupport: number;
  /** dependency edges of the qualifying occurrences (union) */
  dependencies: DependencyEdge[];
}

export interface SourceLine {
  file: string;
  line: number;
}

export interface ExplanationGroup {
  /** competition rank by relative support, causal groups before symptom groups (1 = best; ties share a rank) */
  rank: number;
  /**
   * position in the ranked list (0-based). Within a rank: higher failing support, fewer context
   * macros, more dependency edges, fewer events.
   */
  order: number;
  relSupport: number;
  /** max failing support of the group's patterns, as a fraction of |Σ_F| */
  failingSupport: number;
  passingSupport: number;
  /** the shared dependency set */
  dependencies: DependencyEdge[];
  /**
   * false when every qualifying occurrence has a dependency with an "extra" event: an occurrence
   * of a static event beyond the most that any passing trace has of it (0 for events only failing
   * runs execute) — typically the failure check and report, which Braid records while the seed's
   * traces stop at the assertion. Such groups are symptoms; they rank after causal groups of the
   * same relative support, and 'auto' min support keeps lowering until a causal group appears.
   */
  causal: boolean;
  patterns: MacroPatternExplanation[];
  /** source lines of the events taking part in the dependencies, then of all events */
  lines: SourceLine[];
  dependencyLines: SourceLine[];
}

export interface AbstractionStats {
  failing: number;
  passing: number;
  avgTraceLength: number;
  avgAbstractLength: number;
  macros: number;
  abstractEvents: number;
  prunedPrefix: number;
  prunedSuffix: number;
  minSupport: number;
  abstractPatterns: number;
  withContextSwitch: number;
  macroPatterns: number;
  occurring: number;
  withDependencies: number;
  aboveRelSupport: number;
  groups: number;
  truncated: boolean;
  ms: number;
}

export interface AbstractionResult {
  groups: ExplanationGroup[];
  stats: AbstractionStats;
}

export function explainByAbstraction(set: TraceSet, options: AbstractionOptions = {}): AbstractionResult {
  const t0 = Date.now();
  const maxLength = options.maxLength ?? 4;
  const minRel = options.minRelSupport ?? 0.5;
  const maxConc = options.maxConcretizations ?? 512;
  const maxOcc = options.maxOccurrences ?? 64;
  const strict = options.dependencyRule === 'every-macro';
  const table = set.table.events;
  const threadIds = new Map<string, number>();
  const threadIdOf = table.map((e) => {
    let id = threadIds.get(e.thread);
    if (id === undefined) threadIds.set(e.thread, (id = threadIds.size));
    return id;
  });
  const execs = set.executions;
  const macros: Macros = deriveMacros(
    execs.map((e) => e.events),
    (ev) => threadIdOf[ev],
  );
  const abs: Abstraction = abstractMacros(macros);
  const prune = options.pruneCommon ?? 'prefix';
  const common = commonPrefixSuffix(macros.traces);
  const prefix = prune === 'prefix' || prune === 'both' ? common.prefix : 0;
  const suffix = prune === 'suffix' || prune === 'both' ? common.suffix : 0;
  const mtraces: MacroTrace[] = macros.traces.map((t) => pruneMacroTrace(t, prefix, suffix));
  const failIdx = execs.map((e, k) => (e.outcome === 'fail' ? k : -1)).filter((k) => k >= 0);
  const passIdx = execs.map((e, k) => (e.outcome === 'pass' ? k : -1)).filter((k) => k >= 0);
  const nF = failIdx.length;
  const nP = passIdx.length;
  const stats: AbstractionStats = {
    failing: nF,
    passing: nP,
    avgTraceLength: avg(execs.map((e) => e.events.length)),
    avgAbstractLength: avg(mtraces.map((t) => t.macros.length)),
    macros: macros.alive.filter(Boolean).length,
    abstractEvents: abs.members.length,
    prunedPrefix: prefix,
    prunedSuffix: suffix,
    minSupport: 0,
    abstractPatterns: 0,
    withContextSwitch: 0,
    macroPatterns: 0,
    occurring: 0,
    withDependencies: 0,
    aboveRelSupport: 0,
    groups: 0,
    truncated: false,
    ms: 0,
  };
  if (nF === 0) {
    stats.ms = Date.now() - t0;
    return { groups: [], stats };
  }
  const absTraces = failIdx.map((k) => {
    const t = mtraces[k].macros;
    const a = new Int32Array(t.length);
    for (let i = 0; i < t.length; i++) a[i] = abs.classOf[t[i]];
    return a;
  });
  // per failing trace and macro position: the dependency edges to other macro positions (cross-thread)
  const edgeCache = new Map<number, (MacroEdge[] | undefined)[]>();
  const edgesOf = (k: number): (MacroEdge[] | undefined)[] => {
    let out = edgeCache.get(k);
    if (out) return out;
    const ex = execs[k];
    const mt = mtraces[k];
    const w: WriterIndex = writerIndex(ex, (ev) => table[ev].kind);
    const extra = extraOf(k);
    const posOf = new Int32Array(ex.events.length).fill(-1);
    for (let q = 0; q < mt.macros.length; q++) {
      const st = mt.starts[q];
      const len = macros.events[mt.macros[q]].length;
      for (let i = st; i < st + len; i++) posOf[i] = q;
    }
    out = new Array(mt.macros.length);
    const seen = new Set<string>();
    const add = (kind: DependencyKind, from: number, to: number, q: number): void => {
      const q2 = kind === 'anti' ? posOf[to] : posOf[from];
      if (q2 < 0 || q2 === q || threadIdOf[ex.events[from]] === threadIdOf[ex.events[to]]) return;
      const e: MacroEdge = { kind, to: q2, fromEvent: ex.events[from], toEvent: ex.events[to], extra: !!(extra[from] || extra[to]) };
      const key = `${q}|${q2}|${kind}|${e.fromEvent}|${e.toEvent}|${e.extra}`;
      if (seen.has(key)) return;
      seen.add(key);
      (out![q] ??= []).push(e);
    };
    for (let i = 0; i < ex.events.length; i++) {
      const q = posOf[i];
      if (q < 0) continue;
      const pw = w.prevWrite[i];
      if (pw >= 0) add(w.isWrite[i] ? 'output' : 'flow', pw, i, q);
      if (!w.isWrite[i] && w.nextWrite[i] >= 0) add('anti', i, w.nextWrite[i], q);
    }
    edgeCache.set(k, out);
    return out;
  };

  const auto = options.minSupport === undefined || options.minSupport === 'auto';
  const thresholds = auto ? autoThresholds(options.autoFloor ?? 0.1) : [options.minSupport as number];
  // occurrences in failing traces beyond the most any passing trace has of that static event
  // (events of the failure report, extra reads of the failing check): symptoms, not causes
  const maxInPassing = new Int32Array(table.length);
  if (nP) {
    const cnt = new Int32Array(table.length);
    for (const k of passIdx) {
      const ev = execs[k].events;
      for (const e of ev) cnt[e]++;
      for (const e of ev) {
        if (cnt[e] > maxInPassing[e]) maxInPassing[e] = cnt[e];
        cnt[e] = 0;
      }
    }
  }
  const extraCache = new Map<number, Uint8Array>();
  const extraOf = (k: number): Uint8Array => {
    let x = extraCache.get(k);
    if (!x) {
      const ev = execs[k].events;
      x = new Uint8Array(ev.length);
      if (nP) {
        const cnt = new Map<number, number>();
        for (let i = 0; i < ev.length; i++) {
          const c = (cnt.get(ev[i]) ?? 0) + 1;
          cnt.set(ev[i], c);
          if (c > maxInPassing[ev[i]]) x[i] = 1;
        }
      }
      extraCache.set(k, x);
    }
    return x;
  };
  let groups: ExplanationGroup[] = [];
  for (const minSupport of thresholds) {
    const mined = mineSequences(absTraces, abs.members.length, {
      minSupport,
      minSupportIsFraction: true,
      maxLength,
      closed: true,
      maxPatterns: options.maxPatterns ?? 200000,
    });
    Object.assign(stats, {
      minSupport,
      abstractPatterns: mined.patterns.length,
      withContextSwitch: 0,
      macroPatterns: 0,
      occurring: 0,
      withDependencies: 0,
      aboveRelSupport: 0,
      truncated: mined.truncated,
    });
    const kept: MacroPatternExplanation[] = [];
    const keys: string[] = [];
    const causalFlags: boolean[] = [];
    for (const ap of mined.patterns) {
      // step 3: a context switch
      const threads = new Set(ap.items.map((c) => abs.thread[c]));
      if (threads.size < 2) continue;
      stats.withContextSwitch++;
      // step 4: concretize
      for (const mp of concretize(ap.items.map((c) => abs.members[c]), maxConc, () => (stats.truncated = true))) {
        stats.macroPatterns++;
        // step 5: occurs in failing macro traces
        const inF: number[] = [];
        for (const k of failIdx) if (containsSub(mtraces[k].macros, mp)) inF.push(k);
        const suppF = inF.length;
        if (suppF === 0) continue;
        stats.occurring++;
        // step 7 (before 6: it is cheaper, and the filters commute): relative support
        let suppP = 0;
        for (const k of passIdx) if (containsSub(mtraces[k].macros, mp)) suppP++;
        const fF = suppF / nF;
        const fP = nP ? suppP / nP : 0;
        const rel = fF / (fF + fP);
        if (!(rel > minRel)) continue;
        stats.aboveRelSupport++;
        // step 6: dependencies per occurrence
        const depKeys = new Map<number, DependencyEdge>();
        let qualifies = false;
        let causal = false;
        const coveredAll = new Set<number>();
        const mpThreads = mp.map((m) => macros.thread[m]);
        const threadCount = new Set(mpThreads).size;
        const coversThreads = (covered: Set<number>): boolean => {
          if (covered.size < 2) return false;
          const t = new Set<number>();
          for (const j of covered) t.add(mpThreads[j]);
          return t.size === threadCount;
        };
        for (const k of inF) {
          const mt = mtraces[k];
          const ex = execs[k];
          const edges = edgesOf(k);
          for (const occ of occurrences(mt.macros, mp, maxOcc)) {
            // dependencies between the occurrence's macros, from the per-position edge lists
            const covered = new Set<number>();
            const found: MacroEdge[] = [];
            for (let j = 0; j < occ.length; j++) {
              const list = edges[occ[j]];
              if (!list) continue;
              for (const e of list) {
                const j2 = occ.indexOf(e.to);
                if (j2 < 0 || j2 === j) continue;
                found.push(e);
                covered.add(j);
                covered.add(j2);
              }
            }
            if (!found.length) continue;
            if (strict ? covered.size < mp.length : !coversThreads(covered)) continue;
            qualifies = true;
            for (const j of covered) coveredAll.add(j);
            if (!causal && !found.some((e) => e.extra)) causal = true;
            for (const e of found) {
              const key = (KIND_INDEX[e.kind] * table.length + e.fromEvent) * table.length + e.toEvent;
              if (!depKeys.has(key))
                depKeys.set(key, { kind: e.kind, from: explained(table[e.fromEvent]), to: explained(table[e.toEvent]), variable: table[e.fromEvent].target });
            }
          }
        }
        if (!qualifies) continue;
        stats.withDependencies++;
        const depList = [...depKeys.entries()].sort((a, b) => a[0] - b[0]);
        keys.push(depList.map((d) => d[0]).join(','));
        kept.push({
          macros: mp.map((m, j) => {
            const x: { thread: string; events: ExplainedEvent[]; context?: boolean } = {
              thread: table[macros.events[m][0]].thread,
              events: [...macros.events[m]].map((e) => explained(table[e])),
            };
            if (!coveredAll.has(j)) x.context = true;
            return x;
          }),
          failing: suppF,
          passing: suppP,
          relSupport: rel,
          dependencies: depList.map((d) => d[1]),
        });
        causalFlags.push(causal);
      }
    }
    groups = groupPatterns(kept, keys, causalFlags, nF, nP);
    if (auto ? groups.some((g) => g.causal) : groups.length) break;
  }
  stats.groups = groups.length;
  stats.ms = Date.now() - t0;
  return { groups, stats };
}

function autoThresholds(floor: number): number[] {
  const out: number[] = [];
  for (let s = 10; s >= Math.round(floor * 10); s--) out.push(s / 10);
  return out;
}

function avg(a: number[]): number {
  return a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0;
}

export function explained(e: StaticEvent): ExplainedEvent {
  return { thread: e.thread, kind: e.kind, target: e.target, file: e.file, line: e.line, method: e.method, label: eventLabel(e) };
}

/** γ: the macro patterns of an abstract pattern (cartesian product of the classes), at most `cap`. */
function* concretize(classes: number[][], cap: number, onTruncate: () => void): Generator<number[]> {
  const idx = new Array(classes.length).fill(0);
  let produced = 0;
  for (;;) {
    if (produced++ >= cap) {
      onTruncate();
      return;
    }
    yield idx.map((i, j) => classes[j][i]);
    let j = classes.length - 1;
    while (j >= 0 && ++idx[j] === classes[j].length) idx[j--] = 0;
    if (j < 0) return;
  }
}

function containsSub(s: Int32Array, p: readonly number[]): boolean {
  let k = 0;
  for (let i = 0; i < s.length && k < p.length; i++) if (s[i] === p[k]) k++;
  return k === p.length;
}

/** Occurrences (position tuples) of p in s, in lexicographic order, at most `cap`. */
function occurrences(s: Int32Array, p: readonly number[], cap: number): number[][] {
  const out: number[][] = [];
  const pos: number[] = new Array(p.length);
  // last[j]: the latest start of p[j..] in s (backward greedy), so that every explored partial
  // occurrence completes — enumeration is output-sensitive
  const last = new Int32Array(p.length);
  for (let j = p.length - 1, i = s.length - 1; j >= 0; j--) {
    while (i >= 0 && s[i] !== p[j]) i--;
    if (i < 0) return out;
    last[j] = i--;
  }
  const rec = (j: number, from: number): void => {
    if (j === p.length) {
      out.push(pos.slice());
      return;
    }
    for (let i = from; i <= last[j] && out.length < cap; i++) {
      if (s[i] !== p[j]) continue;
      pos[j] = i;
      rec(j + 1, i + 1);
    }
  };
  rec(0, 0);
  return out;
}

const KIND_INDEX: Record<DependencyKind, number> = { flow: 0, anti: 1, output: 2 };

/** A dependency from an event of one macro position to an event of another (`to`: that position). */
interface MacroEdge {
  kind: DependencyKind;
  to: number;
  fromEvent: number;
  toEvent: number;
  /** involves an occurrence beyond the passing traces' counts (see ExplanationGroup.causal) */
  extra: boolean;
}

function lineKey(l: SourceLine): string {
  return `${l.file}:${l.line}`;
}

function groupPatterns(patterns: MacroPatternExplanation[], keys: string[], causal: boolean[], nF: number, nP: number): ExplanationGroup[] {
  const byKey = new Map<string, MacroPatternExplanation[]>();
  const causalOf = new Map<MacroPatternExplanation, boolean>();
  patterns.forEach((p, k) => {
    causalOf.set(p, causal[k]);
    const key = `${p.relSupport.toFixed(12)}#${keys[k]}`;
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = []));
    g.push(p);
  });
  const groups: ExplanationGroup[] = [];
  for (const ps of byKey.values()) {
    ps.sort((a, b) => b.failing - a.failing || size(a) - size(b));
    const lines = new Map<string, SourceLine>();
    const depLines = new Map<string, SourceLine>();
    for (const d of ps[0].dependencies)
      for (const e of [d.from, d.to]) if (e.file !== undefined && e.line !== undefined) depLines.set(lineKey(e as SourceLine), { file: e.file, line: e.line });
    for (const p of ps)
      for (const m of p.macros) for (const e of m.events) if (e.file !== undefined && e.line !== undefined) lines.set(lineKey(e as SourceLine), { file: e.file, line: e.line });
    const best = ps[0];
    groups.push({
      rank: 0,
      order: 0,
      relSupport: best.relSupport,
      failingSupport: Math.max(...ps.map((p) => p.failing)) / nF,
      passingSupport: nP ? Math.min(...ps.map((p) => p.passing)) / nP : 0,
      dependencies: best.dependencies,
      causal: causalOf.get(best)!,
      patterns: ps,
      lines: [...depLines.values(), ...[...lines.values()].filter((l) => !depLines.has(lineKey(l)))],
      dependencyLines: [...depLines.values()],
    });
  }
  groups.sort(
    (a, b) =>
      Number(b.causal) - Number(a.causal) ||
      b.relSupport - a.relSupport ||
      b.failingSupport - a.failingSupport ||
      contextMacros(a.patterns[0]) - contextMacros(b.patterns[0]) ||
      b.dependencies.length - a.dependencies.length ||
      size(a.patterns[0]) - size(b.patterns[0]),
  );
  // causal groups first: their ranks are by rel_supp; symptom groups follow (offset by 1 so they never tie with causal ones)
  const ranks = competitionRanks(groups.map((g) => g.relSupport + (g.causal ? 1 : 0)));
  groups.forEach((g, k) => {
    g.rank = ranks[k];
    g.order = k;
  });
  return groups;
}

function contextMacros(p: MacroPatternExplanation): number {
  return p.macros.filter((m) => m.context).length;
}

function size(p: MacroPatternExplanation): number {
  return p.macros.reduce((n, m) => n + m.events.length, 0);
}

/** Text of the groups for terminals (`braid explain`). */
export function abstractionTextReport(res: AbstractionResult, top = 10): string {
  const s = res.stats;
  const out: string[] = [
    `Explanations by trace abstraction and closed pattern mining (seed 000): ${s.failing} failing, ${s.passing} passing traces`,
    `  avg trace length ${s.avgTraceLength.toFixed(1)} → ${s.avgAbstractLength.toFixed(1)} macros after pruning ${s.prunedPrefix}+${s.prunedSuffix}; ${s.macros} macros in ${s.abstractEvents} abstract events`,
    `  min support ${s.minSupport}: ${s.abstractPatterns} closed abstract patterns → ${s.withContextSwitch} with a context switch → ${s.macroPatterns} macro patterns → ${s.occurring} occurring → ${s.withDependencies} with dependencies → ${s.aboveRelSupport} with rel_supp > 0.5 → ${s.groups} groups (${s.ms} ms)${s.truncated ? ' [truncated]' : ''}`,
  ];
  for (const g of res.groups.slice(0, top)) {
    out.push('');
    out.push(
      `#${g.rank} rel_supp ${g.relSupport.toFixed(3)} (failing ${(g.failingSupport * 100).toFixed(0)}%, passing ${(g.passingSupport * 100).toFixed(0)}%), ${g.patterns.length} pattern(s)${g.causal ? '' : ', symptom (events only in failing runs)'}`,
    );
    for (const d of g.dependencies) out.push(`    ${d.kind.padEnd(6)} ${d.from.label}  →  ${d.to.label}`);
    const p = g.patterns[0];
    p.macros.forEach((m, k) => out.push(`    [${k + 1}]${m.context ? ' (context)' : ''} ${m.thread}: ${m.events.map((e) => `${e.kind} ${e.target}${e.line !== undefined ? ` :${e.line}` : ''}`).join(', ')}`));
    out.push(`    lines: ${g.lines.map(lineKey).join(' ')}`);
  }
  if (!res.groups.length) out.push('', 'no explanation (try a lower --minsup, more failing/passing traces, or --max-length)');
  return out.map(terminalLine).join('\n');
}

export type { Execution };
