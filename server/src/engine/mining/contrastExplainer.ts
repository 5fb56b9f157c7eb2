/**
 * Seed 002 (Leue, Tabaei Befrouei): explaining counterexamples by contrasting closed sequential
 * patterns of the bad (failing) and good (passing) traces.
 *
 *  - optional subtrace reduction at an action a (Definition 8): every trace is broken at each
 *    execution of a; subtrace i runs from the i-th a up to (not including) the next one. Events
 *    before the first a are dropped, as in the seed (n executions of a give n subtraces).
 *  - anomalies: closed patterns of the bad traces not frequent in the good ones (default), or
 *    AS = CS(Σ_B, T_B) − CS(Σ_G, T_G) literally (Definition 7, `difference: 'closed-set'`)
 *  - patterns that are substrings (contiguous) of another anomaly are removed
 *  - groups: the longest remaining pattern leads a group holding every pattern that is a
 *    subsequence of it (each pattern in the first, i.e. longest, group that takes it); groups
 *    are ordered by the length of their longest pattern, shortest first (ties: higher bad
 *    support, then lower fraction of good traces containing it — Braid's tie-break)
 */
import { isSubsequence, isSubstring, mineSequences } from './closedMiner';
import { explained, ExplainedEvent, SourceLine } from './abstractionExplainer';
import { TraceSet } from './traceSet';
import { terminalLine } from '../outputEscaping';

export interface ContrastOptions {
  /** T_B: fraction of the bad (sub)traces (default 0.9, the seed's starting threshold) */
  badSupport?: number;
  /** T_G: fraction of the good (sub)traces (default: same as badSupport) */
  goodSupport?: number;
  /** static event (label or predicate) at which traces are broken into subtraces; none by default */
  breakAt?: string | ((e: ExplainedEvent) => boolean);
  /**
   * 'frequent' (default): an anomaly is a closed pattern of the bad traces that is not frequent
   * (support < T_G) in the good traces — the seed's "patterns which are only frequent in the bad
   * dataset". 'closed-set': Definition 7 literally, CS(Σ_B) − CS(Σ_G), which also keeps patterns
   * frequent in good traces but not closed there.
   */
  difference?: 'frequent' | 'closed-set';
  /** max pattern length (default unbounded) */
  maxLength?: number;
  /** safety cap on mined patterns per dataset (default 200000) */
  maxPatterns?: number;
}

export interface ContrastPattern {
  events: ExplainedEvent[];
  /** number of bad (sub)traces containing the pattern, and its fraction */
  badSupport: number;
  badFraction: number;
  /** good (sub)traces containing it (it is not closed-frequent there, but may occur) */
  goodSupport: number;
  goodFraction: number;
}

export interface ContrastGroup {
  /** 1 = inspect first (shortest longest pattern) */
  rank: number;
  /** the longest pattern; the others are its subsequences */
  longest: ContrastPattern;
  patterns: ContrastPattern[];
  lines: SourceLine[];
}

export interface ContrastResult {
  groups: ContrastGroup[];
  stats: {
    bad: number;
    good: number;
    badSequences: number;
    goodSequences: number;
    avgBadLength: number;
    avgGoodLength: number;
    closedBad: number;
    closedGood: number;
    anomalies: number;
    afterSubstringFilter: number;
    truncated: boolean;
    ms: number;
  };
}

export function explainByContrast(set: TraceSet, options: ContrastOptions = {}): ContrastResult {
  const t0 = Date.now();
  const table = set.table.events;
  const tB = options.badSupport ?? 0.9;
  const tG = options.goodSupport ?? tB;
  let breaker: ((id: number) => boolean) | undefined;
  if (options.breakAt !== undefined) {
    const b = options.breakAt;
    const ex = table.map((e) => explained(e));
    breaker = typeof b === 'string' ? (id) => ex[id].label === b || `${ex[id].thread}.${ex[id].target}` === b : (id) => b(ex[id]);
  }
  const split = (seq: Int32Array): Int32Array[] => {
    if (!breaker) return [seq];
    const out: Int32Array[] = [];
    let start = -1;
    for (let i = 0; i <= seq.length; i++) {
      if (i === seq.length || breaker(seq[i])) {
        if (start >= 0) out.push(seq.subarray(start, i));
        start = i;
      }
    }
    return out;
  };
  const bad: Int32Array[] = [];
  const good: Int32Array[] = [];
  let nBad = 0;
  let nGood = 0;
  for (const e of set.executions) {
    if (e.outcome === 'fail') {
      nBad++;
      bad.push(...split(e.events));
    } else {
      nGood++;
      good.push(...split(e.events));
    }
  }
  const maxPatterns = options.maxPatterns ?? 200000;
  const mb = mineSequences(bad, table.length, { minSupport: tB, minSupportIsFraction: true, closed: true, maxLength: options.maxLength, maxPatterns });
  const mg = good.length
    ? mineSequences(good, table.length, { minSupport: tG, minSupportIsFraction: true, closed: true, maxLength: options.maxLength, maxPatterns })
    : { patterns: [], truncated: false };
  const goodKeys = new Set(mg.patterns.map((p) => p.items.join(',')));
  const goodMin = good.length ? Math.max(1, Math.ceil(tG * good.length - 1e-9)) : Infinity;
  const frequentInGood = (items: number[]): boolean => {
    let c = 0;
    for (const s of good) if (isSubsequence(items, s) && ++c >= goodMin) return true;
    return false;
  };
  const anomalies = mb.patterns.filter((p) => !goodKeys.has(p.items.join(',')) && (options.difference === 'closed-set' || !frequentInGood(p.items)));
  // drop substrings of other anomalies
  const kept = anomalies.filter((p) => !anomalies.some((q) => q !== p && q.items.length > p.items.length && isSubstring(p.items, q.items)));
  const toPattern = (items: number[], badSupport: number): ContrastPattern => {
    let g = 0;
    for (const s of good) if (isSubsequence(items, s)) g++;
    return {
      events: items.map((i) => explained(table[i])),
      badSupport,
      badFraction: bad.length ? badSupport / bad.length : 0,
      goodSupport: g,
      goodFraction: good.length ? g / good.length : 0,
    };
  };
  // group by subsequence containment, longest first
  const order = kept.map((p, k) => k).sort((a, b) => kept[b].items.length - kept[a].items.length || kept[b].support - kept[a].support || a - b);
  const taken = new Array(kept.length).fill(false);
  const groups: ContrastGroup[] = [];
  for (const k of order) {
    if (taken[k]) continue;
    taken[k] = true;
    const members = [k];
    for (const j of order)
      if (!taken[j] && isSubsequence(kept[j].items, kept[k].items)) {
        taken[j] = true;
        members.push(j);
      }
    const patterns = members.map((j) => toPattern(kept[j].items, kept[j].support));
    const lines = new Map<string, SourceLine>();
    for (const e of patterns[0].events) if (e.file !== undefined && e.line !== undefined) lines.set(`${e.file}:${e.line}`, { file: e.file, line: e.line });
    groups.push({ rank: 0, longest: patterns[0], patterns, lines: [...lines.values()] });
  }
  groups.sort(
    (a, b) =>
      a.longest.events.length - b.longest.events.length ||
      b.longest.badSupport - a.longest.badSupport ||
      a.longest.goodFraction - b.longest.goodFraction,
  );
  groups.forEach((g, k) => (g.rank = k + 1));
  const avg = (a: Int32Array[]) => (a.length ? a.reduce((n, s) => n + s.length, 0) / a.length : 0);
  return {
    groups,
    stats: {
      bad: nBad,
      good: nGood,
      badSequences: bad.length,
      goodSequences: good.length,
      avgBadLength: avg(bad),
      avgGoodLength: avg(good),
      closedBad: mb.patterns.length,
      closedGood: mg.patterns.length,
      anomalies: anomalies.length,
      afterSubstringFilter: kept.length,
      truncated: mb.truncated || mg.truncated,
      ms: Date.now() - t0,
    },
  };
}

export function contrastTextReport(res: ContrastResult, top = 10): string {
  const s = res.stats;
  const out = [
    `Anomalies by contrasting closed patterns (seed 002): ${s.bad} bad, ${s.good} good traces (${s.badSequences}/${s.goodSequences} sequences, avg length ${s.avgBadLength.toFixed(1)}/${s.avgGoodLength.toFixed(1)})`,
    `  closed patterns: ${s.closedBad} bad, ${s.closedGood} good → ${s.anomalies} anomalies → ${s.afterSubstringFilter} after the substring filter → ${res.groups.length} groups (${s.ms} ms)${s.truncated ? ' [truncated]' : ''}`,
  ];
  for (const g of res.groups.slice(0, top)) {
    out.push('', `#${g.rank} ${g.longest.events.length} events, ${g.patterns.length} pattern(s), bad ${g.longest.badSupport} (${(g.longest.badFraction * 100).toFixed(0)}%), good ${g.longest.goodSupport} (${(g.longest.goodFraction * 100).toFixed(0)}%)`);
    for (const e of g.longest.events) out.push(`    ${e.label}`);
  }
  if (!res.groups.length) out.push('', 'no anomaly (try lower supports)');
  return out.map(terminalLine).join('\n');
}
