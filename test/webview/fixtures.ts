/**
 * Fixture data for the webview tests: a Counter/Vector-style run with three
 * threads, UNICORN patterns, one GRIFFIN bug and its bug graph (after Figure 12
 * of the thesis). `evil()` swaps every name for markup that would run script
 * if it were ever parsed as HTML.
 */
import type { PatternDto, RunDto, TraceEventDto, AnalysisSummaryDto, ExplanationsResult, ExplainedEventDto, MethodsResult } from '../../server/src/lsp/protocol';

export interface Fixture {
  runs: RunDto[];
  /** events per run id (small runs only; the synthetic 10M run is generated in the page) */
  events: Record<string, TraceEventDto[]>;
  threads: Record<string, { id: number; name: string }[]>;
  patterns: PatternDto[];
  summary: AnalysisSummaryDto;
  bugs: unknown[];
  graphs: Record<number, unknown>;
  /** braid/explanations result */
  explanations?: ExplanationsResult;
  /** braid/methods result (call-graph ranking with the GRIFFIN comparison) */
  methods?: MethodsResult;
}

const VEC = 'src/main/java/java/util/Vector.java';
const MAIN = 'src/test/java/app/VectorTest.java';
const WORKER = 'src/test/java/app/Worker.java';

export function makeFixture(names: { v1: string; v2: string; file: string; method: string; thread: string } = {
  v1: 'elementCount',
  v2: 'elementData',
  file: VEC,
  method: 'java.util.Vector.addAll(Collection)',
  thread: 'worker-1',
}): Fixture {
  const threads = [
    { id: 1, name: 'main' },
    { id: 12, name: names.thread },
    { id: 13, name: 'worker-2' },
  ];
  const events: TraceEventDto[] = [];
  const n = 3000;
  for (let i = 0; i < n; i++) {
    const t = threads[i % 3];
    const k = i % 10;
    let e: TraceEventDto;
    if (k === 7) e = { i, thread: t.id, threadName: t.name, kind: 'ACQ', target: 3, file: names.file, line: 845, method: names.method };
    else if (k === 8) e = { i, thread: t.id, threadName: t.name, kind: 'REL', target: 3, file: names.file, line: 855, method: names.method };
    else if (k === 9 && i % 30 === 9) e = { i, thread: t.id, threadName: t.name, kind: 'ENTER', file: names.file, line: 849, method: names.method };
    else {
      const write = k % 3 === 1;
      const variable = k % 2 === 0 ? names.v1 : names.v2;
      e = {
        i,
        thread: t.id,
        threadName: t.name,
        kind: write ? 'W' : 'R',
        variable,
        file: k < 3 ? names.file : k < 6 ? MAIN : WORKER,
        line: k < 3 ? (write ? 851 : 271) : 20 + k,
        method: k < 3 ? names.method : k < 6 ? 'app.VectorTest.main(String[])' : 'app.Worker.run()',
        value: write ? i % 17 : undefined,
      };
      if (i === 1500) e = { i, thread: 12, threadName: names.thread, kind: 'W', variable: names.v1, file: names.file, line: 852, method: names.method, value: 42 };
      if (i === 1503) e = { i, thread: 1, threadName: 'main', kind: 'R', variable: names.v2, file: names.file, line: 681, method: 'java.util.Vector.<init>(Collection)', value: 'abc' };
      (e as TraceEventDto & { statement?: string }).statement = write ? `${variable} = ${variable} + 1;` : `int n = ${variable};`;
    }
    events.push(e);
  }
  const acc = (thread: 1 | 2, type: 'R' | 'W', variable: string, line: number, method: string, file = names.file) => ({
    thread,
    type,
    variable,
    file,
    line,
    method,
    stack: [
      { file: thread === 1 ? MAIN : WORKER, line: thread === 1 ? 12 : 8, method: thread === 1 ? 'app.VectorTest.main(String[])' : 'app.Worker.run()' },
      { file, line, method },
    ],
  });
  const init = 'java.util.Vector.<init>(Collection)';
  const patterns: PatternDto[] = [
    { rank: 1, score: 0.894, id: 'P9', kind: 'RWR', category: 'single-variable atomicity', failed: 8, passed: 0, key: 'k-rwr-1', accesses: [acc(1, 'R', names.v1, 271, init), acc(2, 'W', names.v1, 852, names.method), acc(1, 'R', names.v2, 681, init)] },
    { rank: 2, score: 0.816, id: 'P11', kind: 'RWW', category: 'multi-variable atomicity', failed: 7, passed: 1, key: 'k-rww-2', accesses: [acc(1, 'R', names.v2, 271, init), acc(2, 'W', names.v2, 851, names.method), acc(1, 'W', names.v1, 690, init)] },
    { rank: 3, score: 0.707, id: 'P2', kind: 'WR', category: 'order', failed: 5, passed: 1, key: 'k-wr-3', accesses: [acc(2, 'W', names.v1, 852, names.method), acc(1, 'R', names.v2, 681, init)] },
    { rank: 4, score: 0.5, id: 'P3', kind: 'RW', category: 'order', failed: 4, passed: 3, key: 'k-rw-4', accesses: [acc(1, 'R', 'modCount', 30, 'app.Worker.run()', WORKER), acc(2, 'W', 'modCount', 31, 'app.Worker.run()', WORKER)] },
    { rank: 5, score: 0.316, id: 'P1', kind: 'WW', category: 'order', failed: 2, passed: 4, key: 'k-ww-5', accesses: [acc(1, 'W', 'size', 22, 'app.VectorTest.main(String[])', MAIN), acc(2, 'W', 'size', 22, 'app.VectorTest.main(String[])', MAIN)] },
  ];
  const runs: RunDto[] = [
    { execution: 'run-003', file: '.braid/traces/run-003.trace', outcome: 'fail', reason: 'ArrayIndexOutOfBoundsException', events: n, patterns: 12, seed: '3' },
    { execution: 'run-001', file: '.braid/traces/run-001.trace', outcome: 'pass', events: n, patterns: 9, seed: '1' },
    { execution: 'big-10M', file: '.braid/traces/big.trace', outcome: 'fail', events: 10_000_000, patterns: 40 },
  ];
  const bugs = [
    {
      id: 1,
      category: 'atomicity violation',
      score: 0.894,
      failingRuns: ['run-003', 'run-007', 'run-011'],
      suspiciousMethods: [
        { thread: 1, role: 'main', method: init, file: names.file, line: 140 },
        { thread: 2, role: names.thread, method: names.method, file: names.file, line: 849 },
      ],
      advice: {
        shape: 'multi-variable',
        // the engine's headline: names as `code spans` (an evil name stays text inside its <code>)
        headline: `Thread \`main\` read \`${names.v1}\` = 3 at Vector.java:271; then thread \`${names.thread}\` wrote \`${names.v2}\` at line 851: thread \`main\` used \`${names.v1}\` and \`${names.v2}\` from two different states.`,
        summary: `Make ${init.replace(/\(.*$/, '()')} and ${names.method.replace(/\(.*$/, '()')} atomic with respect to each other: both read and write ${names.v1} and ${names.v2} — hold the Vector's lock across the copy.`,
      },
      patterns: ['k-rwr-1', 'k-rww-2', 'k-wr-3'],
      contexts: [
        { thread: 1, role: 'main', frames: [{ method: 'app.VectorTest.main(String[])', file: MAIN, line: 12 }, { method: init, file: names.file, line: 140 }] },
        { thread: 2, role: names.thread, frames: [{ method: 'app.Worker.run()', file: WORKER, line: 8 }, { method: names.method, file: names.file, line: 849 }] },
      ],
    },
    {
      id: 2,
      category: 'order violation',
      score: 0.5,
      failingRuns: ['run-005'],
      suspiciousMethods: [
        { thread: 1, role: 'worker-a', method: 'app.Worker.run()', file: WORKER, line: 30 },
        { thread: 2, role: 'worker-b', method: 'app.Worker.run()', file: WORKER, line: 31 },
      ],
      advice: ['Ensure the write of modCount happens before the read (join the writer or use a latch).'],
      patterns: ['k-rw-4'],
      contexts: [],
    },
  ];
  const graph1 = {
    bug: 1,
    lanes: [
      { id: 'main', label: 'Thread 1 · main' },
      { id: 'worker', label: `Thread 2 · ${names.thread}` },
    ],
    nodes: [
      {
        id: 'n1',
        lane: 'main',
        order: 0,
        frames: [{ method: 'app.VectorTest.main(String[])', file: MAIN, line: 12 }, { method: init, file: names.file, line: 140 }],
        accesses: [{ id: 'a1', type: 'R', variable: names.v1, file: names.file, line: 271 }],
      },
      {
        id: 'n2',
        lane: 'worker',
        order: 1,
        frames: [{ method: 'app.Worker.run()', file: WORKER, line: 8 }, { method: names.method, file: names.file, line: 849 }],
        accesses: [
          { id: 'a2', type: 'W', variable: names.v2, file: names.file, line: 851 },
          { id: 'a3', type: 'W', variable: names.v1, file: names.file, line: 852 },
        ],
      },
      {
        id: 'n3',
        lane: 'main',
        order: 2,
        frames: [{ method: 'app.VectorTest.main(String[])', file: MAIN, line: 12 }, { method: init, file: names.file, line: 140 }],
        accesses: [{ id: 'a4', type: 'R', variable: names.v2, file: names.file, line: 681 }],
      },
    ],
    edges: [
      { from: 'a1', to: 'a3', patterns: ['P9', 'P11'] },
      { from: 'a3', to: 'a4', patterns: ['P9', 'P2'] },
      { from: 'a2', to: 'a4', patterns: ['P11'] },
    ],
  };
  const graph2 = {
    bug: 2,
    lanes: [{ id: 'a', label: 'worker-a' }, { id: 'b', label: 'worker-b' }],
    nodes: [
      { id: 'm1', lane: 'b', order: 0, frames: [{ method: 'app.Worker.run()', file: WORKER, line: 31 }], accesses: [{ id: 'b1', type: 'W', variable: 'modCount', file: WORKER, line: 31 }] },
      { id: 'm2', lane: 'a', order: 1, frames: [{ method: 'app.Worker.run()', file: WORKER, line: 30 }], accesses: [{ id: 'b2', type: 'R', variable: 'modCount', file: WORKER, line: 30 }] },
    ],
    edges: [{ from: 'b1', to: 'b2', patterns: ['P3'] }],
  };
  // mining explanations (docs/mining.md): a causal group (R main / W worker / R main on v1) and a symptom group
  const xe = (thread: string, kind: string, target: string, line: number, method = init, file = names.file): ExplainedEventDto => ({
    thread,
    kind,
    target,
    file,
    line,
    method,
    label: `${kind} ${thread} ${target} ${file}:${line}`,
  });
  const r1 = xe('main', 'R', names.v1, 271);
  const w2 = xe(names.thread, 'W', names.v1, 852, names.method);
  const w2b = xe(names.thread, 'W', names.v2, 851, names.method);
  const r3 = xe('main', 'R', names.v2, 681);
  const deps1 = [
    { kind: 'anti' as const, from: r1, to: w2, variable: names.v1 },
    { kind: 'flow' as const, from: w2b, to: r3, variable: names.v2 },
  ];
  const explanations: ExplanationsResult = {
    state: 'done',
    total: 2,
    stats: { failing: 8, passing: 12, minSupport: 0.5, truncated: false, ms: 42 },
    groups: [
      {
        rank: 1,
        order: 0,
        relSupport: 1,
        failingSupport: 0.875,
        passingSupport: 0,
        causal: true,
        dependencies: deps1,
        patterns: [
          {
            macros: [
              { thread: 'main', events: [r1] },
              { thread: names.thread, events: [w2b, w2] },
              { thread: 'main', events: [r3] },
            ],
            failing: 7,
            passing: 0,
            relSupport: 1,
            dependencies: deps1,
          },
          {
            macros: [
              { thread: 'main', events: [r1] },
              { thread: names.thread, events: [w2] },
              { thread: 'worker-2', events: [xe('worker-2', 'R', 'modCount', 30, 'app.Worker.run()', WORKER)], context: true },
            ],
            failing: 6,
            passing: 0,
            relSupport: 1,
            dependencies: [deps1[0]],
          },
        ],
        lines: [{ file: names.file, line: 271 }, { file: names.file, line: 852 }],
        dependencyLines: [{ file: names.file, line: 271 }, { file: names.file, line: 852 }],
      },
      {
        rank: 2,
        order: 1,
        relSupport: 0.6,
        failingSupport: 0.5,
        passingSupport: 0.333,
        causal: false,
        dependencies: [],
        patterns: [
          {
            macros: [
              { thread: 'worker-2', events: [xe('worker-2', 'W', 'size', 22, 'app.VectorTest.main(String[])', MAIN)] },
              { thread: 'main', events: [xe('main', 'W', 'size', 22, 'app.VectorTest.main(String[])', MAIN)] },
            ],
            failing: 4,
            passing: 4,
            relSupport: 0.6,
            dependencies: [],
          },
        ],
        lines: [{ file: MAIN, line: 22 }],
        dependencyLines: [],
      },
    ],
  };
  // call-graph method ranking (docs/callgraph.md) and GRIFFIN's suspicious methods of the same runs
  const methods: MethodsResult = {
    state: 'done',
    total: 3,
    executions: { total: 20, failed: 8, passed: 12 },
    representation: 'inter',
    stats: { calls: 1234, edges: 56, ms: 12 },
    methods: [
      {
        rank: 1,
        score: 0.8,
        method: names.method,
        file: names.file,
        line: 850,
        loc: 12,
        locSource: 'source',
        runs: { failed: 8, passed: 12 },
        edge: { kind: 'inter', source: names.method, target: 'app.Worker.run()', text: `${names.method} →it app.Worker.run()`, failedRuns: 8, passedRuns: 2, meanFailed: 1, meanPassed: 0.17 },
      },
      {
        rank: 2,
        score: 0.3,
        method: 'app.VectorTest.main(String[])',
        file: MAIN,
        line: 20,
        loc: 30,
        locSource: 'source',
        runs: { failed: 8, passed: 12 },
        edge: { kind: 'call', source: 'app.VectorTest.main(String[])', target: 'java.util.Vector.size()', text: 'app.VectorTest.main(String[]) → java.util.Vector.size()', failedRuns: 8, passedRuns: 12, meanFailed: 2, meanPassed: 1 },
      },
      { rank: 3, score: 0, method: 'app.Worker.run()', file: WORKER, line: 28, loc: 5, locSource: 'span', runs: { failed: 8, passed: 12 } },
    ],
    griffin: [
      { bug: 1, thread: 12, method: names.method, file: names.file, line: 852, callGraphRank: 1, callGraphScore: 0.8 },
      { bug: 1, thread: 1, method: 'java.util.Vector.<init>(Collection)', file: names.file, line: 271 },
    ],
  };
  return {
    methods,
    explanations,
    runs,
    events: { 'run-003': events, 'run-001': events.slice(0, 1000) },
    threads: { 'run-003': threads, 'run-001': threads },
    patterns,
    summary: { state: 'done', executions: { total: 20, failed: 8, passed: 12 }, topScore: 0.894, patternCount: patterns.length, bugCount: 2 },
    bugs,
    graphs: { 1: graph1, 2: graph2 },
  };
}

export const EVIL_VAR = '<img src=x onerror="window.__xss=1">';
export const EVIL_FILE = 'src/</script><script>window.__xss=2</script>.java';
export const EVIL_METHOD = '<svg onload="window.__xss=3">.run()';
export const EVIL_THREAD = '"><img src=y onerror="window.__xss=4">';

export function evilFixture(): Fixture {
  return makeFixture({ v1: EVIL_VAR, v2: '</script><b>bold</b>', file: EVIL_FILE, method: EVIL_METHOD, thread: EVIL_THREAD });
}
