/**
 * The `braid.*` settings the server reads (workspace/configuration), with
 * their defaults. package.json's `contributes.configuration` declares the
 * same keys for the settings UI.
 */
import type { AnalysisOptions } from '../engine/analysis';
import type { GraphRepresentation } from '../engine/callgraph/methodRanking';
import type { InterThreadReading } from '../engine/callgraph/temporalEdges';
import { DEFAULT_MIN_SCORE } from './weakPatterns';

export interface BraidSettings {
  traceGlobs: string[];
  sourceRoots: string[];
  analysis: AnalysisOptions;
  /** GRIFFIN options (docs/griffin.md): Algorithm 3 t and s, Algorithm 4 patternTop, the merge step and the extensions */
  griffin: GriffinSettings;
  diagnostics: { enabled: boolean; maxRank: number };
  hover: { maxPatterns: number };
  /** ranked patterns kept for hovers, views and heat (the best ones) */
  maxPatterns: number;
  record: { outDir: string };
  /** call-graph method ranking (docs/callgraph.md) */
  /** codeLens: the Method Ranking's lenses above ranked methods (off by default: GRIFFIN's lenses name the bug's methods) */
  methods: { graph: GraphRepresentation; interThread: InterThreadReading; codeLens: boolean };
  /** the "find the root cause" code lens above test classes and methods */
  testLens: { enabled: boolean };
  /** patterns scoring below minScore (or in every passing run) are weak: folded, no heat/lens/hover (weakPatterns.ts) */
  views: { minScore: number };
}

export interface GriffinSettings {
  t: number;
  s: number;
  patternTop: number;
  /** evidence (default), merge (Algorithms 3/4 + merge step) or thesis; the legacy braid.griffin.merge maps to the latter two */
  clustering: 'evidence' | 'merge' | 'thesis';
  scoring: 'global' | 'cluster';
  minScoreRatio: number;
  weakRuns: number;
  alpha: number;
}

export const DEFAULT_SETTINGS: BraidSettings = {
  traceGlobs: ['.braid/traces/**/*.trace.jsonl{,.gz}'],
  sourceRoots: ['.', 'src/main/java', 'src/test/java', 'src'],
  analysis: { strategy: 'unicorn', accessWindow: 5, pairWindow: 100, formula: 'jaccard', happensBefore: true, grouping: true, testCode: [], windowWrites: 'adjacent' },
  griffin: { t: 30, s: 0.8, patternTop: 20, clustering: 'evidence', scoring: 'global', minScoreRatio: 0, weakRuns: 2, alpha: 0.05 },
  diagnostics: { enabled: false, maxRank: 10 },
  hover: { maxPatterns: 3 },
  maxPatterns: 20000,
  record: { outDir: '.braid/traces' },
  methods: { graph: 'inter', interThread: 'interrupting', codeLens: false },
  testLens: { enabled: true },
  views: { minScore: DEFAULT_MIN_SCORE },
};

/** Merges the client's `braid` section over the defaults, ignoring bad values. */
export function normalizeSettings(raw: unknown): BraidSettings {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, any>;
  const d = DEFAULT_SETTINGS;
  const strArr = (v: unknown, def: string[]) => (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length ? (v as string[]) : def);
  const int = (v: unknown, def: number, min: number) => (typeof v === 'number' && Number.isInteger(v) && v >= min ? v : def);
  const num = (v: unknown, def: number, min: number, max: number) => (typeof v === 'number' && v >= min && v <= max ? v : def);
  const a = r.analysis ?? {};
  const g = r.griffin ?? {};
  const diag = r.diagnostics ?? {};
  return {
    traceGlobs: strArr(r.traceGlobs, d.traceGlobs),
    sourceRoots: strArr(r.sourceRoots, d.sourceRoots),
    analysis: {
      strategy: a.strategy === 'falcon' ? 'falcon' : 'unicorn',
      accessWindow: int(a.accessWindow, d.analysis.accessWindow, 2),
      pairWindow: int(a.pairWindow, d.analysis.pairWindow, 0),
      formula: ['jaccard', 'ochiai', 'tarantula'].includes(a.formula) ? a.formula : d.analysis.formula,
      happensBefore: typeof a.happensBefore === 'boolean' ? a.happensBefore : d.analysis.happensBefore,
      grouping: typeof a.grouping === 'boolean' ? a.grouping : d.analysis.grouping,
      windowWrites: a.windowWrites === 'latest' ? 'latest' : 'adjacent',
      testCode: Array.isArray(r.testCode) ? r.testCode.filter((x: unknown): x is string => typeof x === 'string' && x !== '') : d.analysis.testCode,
      // the ranking rules of `braid analyze --order/--discovery/--absence/--symptoms/--cleared-read/--silent-last/--order-ties/--start-order/--pair-first`, in the options only
      // when not the default (as validateOptions keeps them: the options, and so the cache key, of the default stay as they were)
      ...(a.order === false ? { order: false } : {}),
      ...(a.discovery === false ? { discovery: false } : {}),
      ...(a.absence === true ? { absence: true } : {}),
      ...(a.symptoms === 'last' ? { symptomsLast: true } : {}),
      ...(a.clearedRead === false ? { clearedRead: false } : {}),
      ...(a.silentLast === false ? { silentLast: false } : {}),
      ...(a.orderTies === false ? { orderTies: false } : {}),
      ...(a.startOrder === false ? { startOrder: false } : {}),
      ...(a.pairFirst === true ? { pairFirst: true } : {}),
    },
    griffin: {
      t: int(g.t, d.griffin.t, 1),
      s: num(g.s, d.griffin.s, 0, 1),
      patternTop: int(g.patternTop, d.griffin.patternTop, 1),
      // the legacy braid.griffin.merge (true/false; null when unset) counts unless clustering names merge or thesis
      clustering:
        (g.clustering === 'merge' || g.clustering === 'thesis') ? g.clustering : typeof g.merge === 'boolean' ? (g.merge ? 'merge' : 'thesis') : d.griffin.clustering,
      scoring: g.scoring === 'cluster' ? 'cluster' : 'global',
      minScoreRatio: num(g.minScoreRatio, d.griffin.minScoreRatio, 0, 1),
      weakRuns: int(g.weakRuns, d.griffin.weakRuns, 0),
      alpha: num(g.alpha, d.griffin.alpha, 0, 1),
    },
    diagnostics: { enabled: diag.enabled === true, maxRank: int(diag.maxRank, d.diagnostics.maxRank, 1) },
    hover: { maxPatterns: int(r.hover?.maxPatterns, d.hover.maxPatterns, 1) },
    maxPatterns: int(r.analysis?.maxPatterns, d.maxPatterns, 1),
    record: { outDir: typeof r.record?.outDir === 'string' && r.record.outDir ? r.record.outDir : d.record.outDir },
    methods: {
      graph: ['call', 'next', 'inter', 'intra', 'all'].includes(r.methods?.graph) ? r.methods.graph : d.methods.graph,
      interThread: r.methods?.interThread === 'adjacent' ? 'adjacent' : d.methods.interThread,
      codeLens: r.methods?.codeLens === true,
    },
    testLens: { enabled: r.testLens?.enabled !== false },
    views: { minScore: num(r.views?.minScore, d.views.minScore, 0, 1) },
  };
}
