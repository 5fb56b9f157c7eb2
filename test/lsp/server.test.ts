/**
 * Acceptance tests of the language server (issue 5): the real server over
 * stdio, a copy of the fixture workspace, the protocol as an editor speaks it.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { FAIL, traceText } from './fixtureTraces';
import type { PatternsResult, RunsResult, TraceEventsResult, BugsResult, ExplanationsResult } from '../../server/src/lsp/protocol';

const SRC = 'src/main/java/shop/Inventory.java';
const LOG_ERROR = 1;
const LOG_WARNING = 2;

const THESIS = { clustering: 'thesis' };

describe('language server on the fixture workspace', () => {
  let ws: string;
  let s: LspSession;
  let uri: string;
  let text: string;

  before(async () => {
    ws = copyFixture();
    // 6 runs, 2 failing: no pattern has evidence (p = 1/15 ≥ 0.05), so the default evidence clustering names no
    // bug (griffinRecorded / evidenceClustering tests cover it); the bug features run on the thesis' clustering here
    s = new LspSession(ws, { griffin: THESIS });
    const init = await s.initialize();
    assert.equal(init.capabilities.hoverProvider, true);
    assert.ok(init.capabilities.codeLensProvider);
    await s.analysisDone();
    text = readFileSync(path.join(ws, SRC), 'utf8');
    uri = await s.open(SRC, text);
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('registers trace watchers dynamically and reports work-done progress', async () => {
    const reg = s.notes.find((n) => n.method === 'client/registerCapability' && n.params.registrations.some((r: any) => r.method === 'workspace/didChangeWatchedFiles'));
    assert.ok(reg, 'didChangeWatchedFiles registered');
    assert.ok(s.notes.some((n) => n.method === 'window/workDoneProgress/create'), 'work-done progress created');
  });

  test('braid/runs and braid/patterns return the documented shapes', async () => {
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.equal(runs.runs.length, 6);
    assert.deepEqual(
      runs.runs.map((r) => `${r.execution}:${r.outcome}`),
      ['run-001:pass', 'run-002:pass', 'run-003:fail', 'run-004:pass', 'run-005:pass', 'run-006:fail'],
    );
    // a passing run has one pair per variable; a failing run also has the P9 of the two pairs
    assert.deepEqual(
      runs.runs.map((r) => [path.basename(r.file), r.events, r.patterns]),
      [
        ['run-001.trace.jsonl', 4, 2],
        ['run-002.trace.jsonl', 4, 2],
        ['run-003.trace.jsonl', 4, 3],
        ['run-004.trace.jsonl', 4, 2],
        ['run-005.trace.jsonl', 4, 2],
        ['run-006.trace.jsonl', 4, 3],
      ],
    );
    const p: PatternsResult = await s.connection.sendRequest('braid/patterns', {});
    assert.equal(p.summary.state, 'done');
    assert.deepEqual(p.summary.executions, { total: 6, failed: 2, passed: 4 });
    assert.equal(p.summary.topScore, 1);
    assert.equal(p.total, 5);
    const top = p.patterns[0];
    assert.equal(top.rank, 1);
    assert.equal(top.score, 1);
    assert.equal(top.id, 'P9');
    assert.equal(top.kind, 'WWWW');
    assert.equal(top.category, 'multi-variable atomicity');
    assert.deepEqual([top.failed, top.passed], [2, 0]);
    assert.equal(typeof top.key, 'string');
    assert.deepEqual(
      top.accesses.map((a) => `${a.type}${a.thread} ${a.variable} ${a.line} ${a.method}`),
      ['W1 stock 10 shop.Inventory.take', 'W2 stock 16 shop.Inventory.restock', 'W2 sold 17 shop.Inventory.restock', 'W1 sold 11 shop.Inventory.take'],
    );
    for (const a of top.accesses) {
      assert.equal(a.file, 'shop/Inventory.java');
      assert.equal(a.uri, uri, 'trace path resolved through the source root src/main/java');
      assert.ok(Array.isArray(a.stack));
    }
    const paged: PatternsResult = await s.connection.sendRequest('braid/patterns', { offset: 1, limit: 2 });
    assert.equal(paged.total, 5);
    assert.deepEqual(paged.patterns.map((x) => x.key), p.patterns.slice(1, 3).map((x) => x.key));
    const onlyP9: PatternsResult = await s.connection.sendRequest('braid/patterns', { ids: ['P9'] });
    assert.equal(onlyP9.total, 1);
    assert.deepEqual(onlyP9.patterns.map((x) => x.id), ['P9']);
    // the file filter: every pattern touches Inventory.java (by URI or trace path); none another file
    const inFile: PatternsResult = await s.connection.sendRequest('braid/patterns', { file: uri });
    assert.equal(inFile.total, 5);
    const byPath: PatternsResult = await s.connection.sendRequest('braid/patterns', { file: 'shop/Inventory.java', ids: ['P3'] });
    assert.equal(byPath.total, 4);
    const other: PatternsResult = await s.connection.sendRequest('braid/patterns', { file: 'shop/Other.java' });
    assert.deepEqual([other.total, other.patterns], [0, []]);
  });

  test('hover on a bug line shows score, rank, kind, counts, the other accesses and command links', async () => {
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
    assert.ok(h, 'a hover on line 10');
    assert.equal(h.contents.kind, 'markdown');
    const v: string = h.contents.value;
    // first, in plain words, the bug this line belongs to (fixAdvice.ts headline; names as code spans); the ranks and codes follow
    assert.match(v.split('\n')[0], /^\*\*Braid · Bug 1:\*\* \S.*`stock`.* · \[Open bug graph\]\(command:braid\.openBugGraph\?/);
    assert.doesNotMatch(v.split('\n')[0], /suspiciousness|P\d+ `/, 'no jargon in the first line');
    // each pattern opens with what the threads did, in words (issue 30, point 6), then counts, rank and score
    const block = v.split('\n\n---\n\n')[1] ?? '';
    assert.equal(block.split('\n')[0], '**Braid:** Thread T1 wrote `stock`\\, then thread T2 wrote it and wrote `sold`\\, then T1 wrote it\\.', block);
    assert.doesNotMatch(block.split('\n')[0], /suspiciousness|jaccard|P\d+|tied|WWWW/, 'no jargon in the pattern\'s first line');
    assert.match(v, /in \*\*2\*\* of 2 failing runs and 0 of 4 passing runs · rank \*\*1\*\* of 5 · score \*\*1\.000\*\*/);
    // the thesis' names in the details
    assert.match(v, /_details:_ P9 `WWWW` \(multi-variable atomicity pattern\) · score = suspiciousness \(jaccard\)/);
    assert.match(v, /`stock`/);
    assert.match(v, /Inventory\\?\.java:16/, 'names the other thread\'s access'); // trace strings are Markdown-escaped (issue 15)
    assert.match(v, /command:braid\.revealPattern\?/);
    assert.match(v, /command:braid\.openTracer\?.*run-003/);
  });

  test('hover on a clean line returns nothing', async () => {
    for (const line of [20, 8, 0]) {
      const h = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 8 } });
      assert.equal(h, null, `line ${line + 1} is clean`);
    }
  });

  test('braid/explanations returns the ranked mining groups; the hover then names the explanation', async () => {
    const before: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
    assert.doesNotMatch(before.contents.value, /Explanation rank/, 'not computed before the first request');
    const r: ExplanationsResult = await s.connection.sendRequest('braid/explanations', {});
    assert.equal(r.state, 'done');
    assert.deepEqual([r.stats.failing, r.stats.passing], [2, 4]);
    assert.ok(r.groups.length >= 1 && r.total === r.groups.length);
    const g = r.groups[0];
    assert.equal(g.rank, 1);
    assert.equal(g.relSupport, 1);
    assert.equal(g.causal, true);
    for (const k of ['order', 'failingSupport', 'passingSupport']) assert.equal(typeof (g as any)[k], 'number', k);
    assert.ok(Array.isArray(g.dependencies) && Array.isArray(g.dependencyLines));
    // the bug: take's writes (lines 10, 11) interleaved with restock's (16, 17)
    assert.deepEqual(g.lines.map((l) => l.line).sort((x, y) => x - y), [10, 11, 16, 17]);
    for (const l of g.lines) assert.equal(l.uri, uri, 'trace path resolved like the patterns');
    const p = g.patterns[0];
    assert.deepEqual([p.failing, p.passing], [2, 0]);
    assert.deepEqual(
      p.macros.map((m) => `${m.thread}: ${m.events.map((e) => `${e.kind} ${e.target} ${e.line}`).join(', ')}`),
      ['T1: W stock 10', 'T2: W stock 16', 'T2: W sold 17', 'T1: W sold 11'],
    );
    assert.ok(p.macros.every((m) => m.events.every((e) => e.uri === uri && typeof e.label === 'string')));
    const top: ExplanationsResult = await s.connection.sendRequest('braid/explanations', { top: 0 });
    assert.deepEqual([top.groups.length, top.total], [0, r.total]);
    assert.ok(s.logs().filter((m) => /^Explanations: /.test(m)).length === 1, 'computed once, then cached');

    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 15, character: 8 } });
    assert.match(h.contents.value, /Explanation rank \*\*1\*\* \(rel\. support 1\.00\): `T1 W stock :10 → T2 W stock :16 → T2 W sold :17 → T1 W sold :11`/);
    assert.match(h.contents.value, /rank \*\*1\*\* of 5/, 'the pattern part of the hover is still there');
    const clean = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 20, character: 8 } });
    assert.equal(clean, null);
  });

  test('code lenses sit above the suspicious methods', async () => {
    const lenses: any[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    assert.ok(lenses.length >= 2, `lenses: ${JSON.stringify(lenses)}`);
    const bugLenses = lenses.filter((l) => l.command?.command === 'braid.openBugGraph');
    assert.ok(bugLenses.length >= 2, `lenses: ${JSON.stringify(lenses)}`);
    for (const l of lenses) {
      assert.ok(l.range && l.command, 'resolved lens');
      if (l.command.command === 'braid.confirmPattern') {
        // beside each suspicious method: confirm the bug's lead pattern by forcing it (issue 28)
        assert.equal(l.command.title, 'Confirm by forcing');
        assert.equal(typeof l.command.arguments[0], 'string');
        continue;
      }
      // GRIFFIN found bug 1 here, so the lenses are its suspicious methods (not the top-pattern fallback)
      assert.match(l.command.title, /^Braid: Bug 1 — suspicious method \S+ of thread \S+/);
      assert.equal(l.command.command, 'braid.openBugGraph');
      assert.deepEqual(l.command.arguments, [1]);
    }
    assert.equal(lenses.filter((l) => l.command.command === 'braid.confirmPattern').length, bugLenses.length);
    const lines = new Set(lenses.map((l) => l.range.start.line));
    assert.ok(lines.has(7), 'above `public void take()` (line 8)');
    assert.ok(lines.has(14), 'above `public void restock(int n)` (line 15)');
  });

  test('braid/lineScores carries heat for the pattern lines', async () => {
    const ls = await s.waitFor('braid/lineScores', (p) => p.files.length > 0);
    const f = ls.files.find((x: any) => x.uri === uri);
    assert.ok(f, `line scores for ${uri}: ${JSON.stringify(ls)}`);
    const byLine = new Map(f.lines.map((l: any) => [l.line, l]));
    for (const line of [10, 11, 16, 17]) assert.equal((byLine.get(line) as any)?.score, 1);
    assert.equal(byLine.has(21), false);
  });

  test('braid/traceEvents pages and filters a run', async () => {
    const all: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: 'run-003', offset: 0, limit: 3 });
    assert.equal(all.run, 'run-003');
    assert.equal(all.total, 4);
    assert.equal(all.events.length, 3);
    assert.deepEqual(all.threads, [
      { id: 1, name: 'T1' },
      { id: 2, name: 'T2' },
    ]);
    assert.deepEqual(
      all.events.map((e) => `${e.i} ${e.thread} ${e.kind} ${e.variable} ${e.line}`),
      ['1 1 W stock 10', '2 2 W stock 16', '3 2 W sold 17'],
    );
    assert.equal(all.events[0].uri, uri);
    assert.equal(all.events[0].method, 'shop.Inventory.take');
    const page2: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: 'run-003', offset: 3, limit: 3 });
    assert.deepEqual(page2.events.map((e) => e.i), [4]);
    const t2: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: 'run-003', offset: 0, limit: 10, threads: [2] });
    assert.deepEqual([t2.total, t2.events.map((e) => e.i)], [2, [2, 3]]);
    const sold: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: 'run-003', offset: 0, limit: 10, variable: 'SOLD' });
    assert.deepEqual(sold.events.map((e) => e.i), [3, 4]);
    const search: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: 'run-003', offset: 0, limit: 10, search: 'restock' });
    assert.equal(search.total, 2);
    await assert.rejects(s.connection.sendRequest('braid/traceEvents', { run: 'no-such-run', offset: 0, limit: 1 }), /no run "no-such-run"/);
  });

  test('braid/bugs, braid/bugGraph and braid/exportSarif', async () => {
    const bugs: BugsResult = await s.connection.sendRequest('braid/bugs');
    // one bug: the two failing runs, take (thread 1) against restock (thread 2)
    assert.equal(bugs.bugs.length, 1);
    const bug = bugs.bugs[0] as any;
    assert.equal(bug.id, 1);
    assert.deepEqual(bug.failingRuns, ['run-003', 'run-006']);
    assert.equal(bug.kind, 'multi-variable-atomicity-violation');
    assert.deepEqual(
      bug.suspiciousMethods.map((m: any) => [m.thread, m.method, m.line]),
      [
        [1, 'shop.Inventory.take', 10],
        [2, 'shop.Inventory.restock', 16],
      ],
    );
    const r: any = await s.connection.sendRequest('braid/bugGraph', { bug: 1 });
    assert.equal(r?.bug, 1);
    assert.equal(r.advice.kind, 'multi-variable-atomicity-violation');
    const g = r.graph;
    assert.ok(g, 'bug 1 has a graph');
    assert.deepEqual(g.lanes.map((l: any) => [l.thread, l.suspiciousMethod.method]), [
      [1, 'shop.Inventory.take'],
      [2, 'shop.Inventory.restock'],
    ]);
    // the P9 interleaving: take writes stock (10), restock writes stock and sold (16, 17), take writes sold (11)
    assert.deepEqual(
      g.nodes.map((n: any) => [n.thread, n.accesses.map((a: any) => `${a.type} ${a.variable} ${a.line}`)]),
      [
        [1, ['W stock 10']],
        [2, ['W stock 16', 'W sold 17']],
        [1, ['W sold 11']],
      ],
    );
    assert.equal(g.edges.length, 2);
    const graph = await s.connection.sendRequest('braid/bugGraph', { bug: 999 });
    assert.equal(graph, null);
    const sarifText: string = await s.connection.sendRequest('braid/exportSarif', {});
    const sarif = JSON.parse(sarifText);
    assert.equal(sarif.version, '2.1.0');
    const r0 = sarif.runs[0].results[0];
    assert.equal(r0.ruleId, 'P9');
    assert.equal(r0.locations[0].physicalLocation.artifactLocation.uri, SRC);
    assert.equal(r0.locations[0].physicalLocation.region.startLine, 10);
  });

  test('adding and removing a trace file updates the results (didChangeWatchedFiles)', async () => {
    const file = path.join(ws, '.braid/traces/run-007.trace.jsonl');
    writeFileSync(file, traceText({ execution: 'run-007', outcome: 'fail', events: FAIL }));
    let since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri('.braid/traces/run-007.trace.jsonl'), type: 1 }] });
    const st = await s.analysisDone(since, (x) => x.executions.total === 7);
    assert.deepEqual(st.executions, { total: 7, failed: 3, passed: 4 });
    const p: PatternsResult = await s.connection.sendRequest('braid/patterns', { limit: 1 });
    assert.deepEqual([p.patterns[0].id, p.patterns[0].failed], ['P9', 3]);
    assert.ok(s.logs().some((m) => /1 read, 6 cached/.test(m)), 'only the new trace was read');
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 10, character: 4 } });
    assert.match(h.contents.value, /in \*\*3\*\* of 3 failing runs/);

    unlinkSync(file);
    since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri('.braid/traces/run-007.trace.jsonl'), type: 3 }] });
    const st2 = await s.analysisDone(since, (x) => x.executions.total === 6);
    assert.equal(st2.executions.failed, 2);
  });

  test('braid/record rejects a request without a command', async () => {
    await assert.rejects(s.connection.sendRequest('braid/record', { command: [], runs: 3 }), /needs "command"/);
    await assert.rejects(s.connection.sendRequest('braid/record', { command: ['java'], runs: 0 }), /runs/);
  });

  test('braid/reanalyze re-reads everything and returns the summary', async () => {
    const r: any = await s.connection.sendRequest('braid/reanalyze');
    assert.equal(r.state, 'done');
    assert.equal(r.executions.total, 6);
    assert.ok(s.logs().some((m) => /6 read, 0 cached/.test(m)));
  });

  test('Information diagnostics are off by default and on by setting', async () => {
    assert.equal(
      s.notes.some((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri && n.params.diagnostics.length > 0),
      false,
    );
    s.settings = { diagnostics: { enabled: true, maxRank: 1 }, griffin: THESIS };
    const since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    const d = await s.waitFor('textDocument/publishDiagnostics', (p) => p.uri === uri && p.diagnostics.length > 0, since);
    assert.equal(d.diagnostics.length, 4);
    assert.ok(d.diagnostics.every((x: any) => x.severity === 3 && x.source === 'braid'));
    assert.deepEqual(d.diagnostics.map((x: any) => x.range.start.line).sort(), [10, 15, 16, 9].sort());
    s.settings = { griffin: THESIS };
    const since2 = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await s.waitFor('textDocument/publishDiagnostics', (p) => p.uri === uri && p.diagnostics.length === 0, since2);
  });
});

describe('language server with bad input', () => {
  test('a malformed trace yields a logged error while the other traces still load', async () => {
    const ws = copyFixture();
    writeFileSync(path.join(ws, '.braid/traces/bad.trace.jsonl'), '{"braid":"trace","version":1,"execution":"bad","outcome":"fail"}\nthis is not json\n');
    const s = new LspSession(ws);
    try {
      await s.initialize();
      const st = await s.analysisDone();
      assert.equal(st.executions.total, 6, 'the six good traces were analyzed');
      const errors = s.logs(LOG_ERROR);
      assert.ok(errors.some((m) => m.includes('bad.trace.jsonl:2')), `error log names the file and line: ${errors.join('\n')}`);
      const shown = s.shown();
      assert.ok(shown.some((m) => /problem.* reading trace files/.test(m)), `user told: ${shown.join('\n')}`);
      const diag = s.notes.find((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri.endsWith('bad.trace.jsonl'));
      assert.ok(diag, 'the bad trace gets a diagnostic');
      assert.equal(diag!.params.diagnostics[0].severity, 1);
      assert.equal(diag!.params.diagnostics[0].range.start.line, 1);
      // the run of the bad trace stays in the Runs view, with its error
      const runs: RunsResult = await s.connection.sendRequest('braid/runs');
      assert.equal(runs.runs.length, 6);
      assert.equal(runs.unreadable?.length, 1);
      assert.ok(runs.unreadable![0].file.endsWith('bad.trace.jsonl'));
      assert.equal(runs.unreadable![0].line, 2);
      assert.ok(runs.unreadable![0].uri.startsWith('file:'));
    } finally {
      await s.close();
      cleanup(ws);
    }
  });

  test('an unresolvable source path is reported once, clearly', async () => {
    const ws = copyFixture();
    const text = traceText({ execution: 'run-x', outcome: 'fail', events: FAIL }).replaceAll('shop/Inventory.java', 'nowhere/Missing.java');
    writeFileSync(path.join(ws, '.braid/traces/run-x.trace.jsonl'), text);
    const s = new LspSession(ws);
    try {
      await s.initialize();
      await s.analysisDone();
      await s.connection.sendRequest('braid/reanalyze');
      const warnings = s.logs(LOG_WARNING).filter((m) => m.includes('nowhere/Missing.java'));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /braid\.sourceRoots/);
      const shown = s.shown().filter((m) => m.includes('nowhere/Missing.java'));
      assert.equal(shown.length, 1);
    } finally {
      await s.close();
      cleanup(ws);
    }
  });

  test('an empty workspace analyzes to an idle-free done state with no patterns', async () => {
    const ws = copyFixture();
    for (const f of ['001', '002', '003', '004', '005', '006']) unlinkSync(path.join(ws, `.braid/traces/run-${f}.trace.jsonl`));
    const s = new LspSession(ws);
    try {
      await s.initialize();
      const st = await s.analysisDone();
      assert.equal(st.executions.total, 0);
      const p: PatternsResult = await s.connection.sendRequest('braid/patterns', {});
      assert.equal(p.total, 0);
      const h = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri: s.uri(SRC) }, position: { line: 9, character: 0 } });
      assert.equal(h, null);
    } finally {
      await s.close();
      cleanup(ws);
    }
  });
});
