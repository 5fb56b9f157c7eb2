/**
 * braid/methods over stdio (issue 18): the call-graph method ranking of a workspace whose traces
 * carry ENTER/EXIT events — two clerks deposit; failing runs interleave the deposits, passing runs
 * do them one after the other — then the hover score and the method code lens.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, cleanup } from './lspHarness';
import type { MethodsResult } from '../../server/src/lsp/protocol';

const SRC = 'src/main/java/bank/Bank.java';
const SOURCE = [
  'package bank;', // 1
  '', // 2
  'public class Bank {', // 3
  '  static int balance;', // 4
  '', // 5
  '  static void deposit(int amount) {', // 6
  '    int current = balance;', // 7
  '    // lost update when two clerks interleave here', // 8
  '    balance = current + amount;', // 9
  '  }', // 10
  '', // 11
  '  static void clerk() {', // 12
  '    deposit(10);', // 13
  '  }', // 14
  '}', // 15
].join('\n');

function trace(execution: string, outcome: 'pass' | 'fail'): string {
  const head = [
    `{"braid":"trace","version":1,"execution":"${execution}","outcome":"${outcome}"}`,
    '{"def":"thread","id":1,"name":"clerk-1"}',
    '{"def":"thread","id":2,"name":"clerk-2"}',
    '{"def":"var","id":0,"name":"bank.Bank.balance"}',
    '{"def":"loc","id":1,"file":"bank/Bank.java","line":12,"method":"bank.Bank.clerk"}',
    '{"def":"loc","id":2,"file":"bank/Bank.java","line":6,"method":"bank.Bank.deposit"}',
    '{"def":"loc","id":3,"file":"bank/Bank.java","line":7,"method":"bank.Bank.deposit"}',
    '{"def":"loc","id":4,"file":"bank/Bank.java","line":9,"method":"bank.Bank.deposit"}',
  ];
  const serial = [
    [1, 'ENTER', 1],
    [1, 'ENTER', 2],
    [1, 'R', 0, 3],
    [1, 'W', 0, 4],
    [1, 'EXIT', 2],
    [2, 'ENTER', 1],
    [2, 'ENTER', 2],
    [2, 'R', 0, 3],
    [2, 'W', 0, 4],
    [2, 'EXIT', 2],
    [1, 'EXIT', 1],
    [2, 'EXIT', 1],
  ];
  const interleaved = [
    [1, 'ENTER', 1],
    [1, 'ENTER', 2],
    [1, 'R', 0, 3],
    [2, 'ENTER', 1],
    [2, 'ENTER', 2],
    [2, 'R', 0, 3],
    [1, 'W', 0, 4],
    [2, 'W', 0, 4],
    [1, 'EXIT', 2],
    [2, 'EXIT', 2],
    [1, 'EXIT', 1],
    [2, 'EXIT', 1],
  ];
  const events = (outcome === 'fail' ? interleaved : serial).map(([t, kind, ...rest], k) => JSON.stringify([k + 1, t, kind, ...rest]));
  return [...head, ...events].join('\n') + '\n';
}

describe('braid/methods: call-graph method ranking in the language server', () => {
  let ws: string;
  let s: LspSession;

  before(async () => {
    ws = mkdtempSync(path.join(tmpdir(), 'braid-lsp-methods-'));
    mkdirSync(path.join(ws, 'src/main/java/bank'), { recursive: true });
    writeFileSync(path.join(ws, SRC), SOURCE);
    const traces = path.join(ws, '.braid/traces');
    mkdirSync(traces, { recursive: true });
    ['pass', 'fail', 'pass', 'fail', 'pass'].forEach((o, k) => writeFileSync(path.join(traces, `run-${k}.trace.jsonl`), trace(`run-${k}`, o as 'pass' | 'fail')));
    // 5 runs, 2 failing: no pattern has evidence, so the default evidence clustering names no bug; the
    // comparison with GRIFFIN's suspicious methods runs on the thesis' clustering
    s = new LspSession(ws, { griffin: { clustering: 'thesis' } });
    await s.initialize();
    await s.analysisDone();
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('returns the ranked methods with edge, runs, lines of code from the source and URIs', async () => {
    const r: MethodsResult = await s.connection.sendRequest('braid/methods', {});
    assert.equal(r.state, 'done');
    assert.deepEqual(r.executions, { total: 5, failed: 2, passed: 3 });
    assert.equal(r.representation, 'inter');
    assert.deepEqual(
      r.methods.map((m) => [m.rank, m.method]),
      [
        [1, 'bank.Bank.deposit'],
        [2, 'bank.Bank.clerk'],
      ],
    );
    const d = r.methods[0];
    // deposit →it clerk only in the failing runs: InfoGain 1 with balanced classes
    assert.equal(d.score, 1);
    assert.equal(d.edge?.text, 'bank.Bank.deposit →it bank.Bank.clerk');
    assert.deepEqual([d.edge?.failedRuns, d.edge?.passedRuns], [2, 0]);
    assert.deepEqual(d.runs, { failed: 2, passed: 3 });
    assert.deepEqual([d.line, d.loc, d.locSource], [6, 4, 'source'], 'declaration line and LOC (comment line not counted) from the workspace source');
    assert.equal(d.uri, s.uri(SRC));
    assert.equal(r.methods[1].score, 0, 'clerk → deposit is in every run once');
    // the comparison: GRIFFIN's suspicious method of each thread of the lost-update bug, with its call-graph rank
    assert.deepEqual(
      r.griffin.map((g) => [g.bug, g.thread, g.method, g.line, g.callGraphRank, g.uri === s.uri(SRC)]),
      [
        [1, 1, 'bank.Bank.deposit', 7, 1, true],
        [1, 2, 'bank.Bank.deposit', 9, 1, true],
      ],
    );
    // the threads by name, as the Bugs tree names them (the comparison webview shows them)
    assert.deepEqual(r.griffin.map((g) => g.threadName).sort(), ['clerk-1', 'clerk-2']);
    const top: MethodsResult = await s.connection.sendRequest('braid/methods', { top: 1 });
    assert.deepEqual([top.methods.length, top.total], [1, 2]);
  });

  test('hover inside the method shows its call-graph score; the code lens sits on its declaration', async () => {
    const uri = await s.open(SRC, SOURCE);
    await s.connection.sendRequest('braid/methods', {});
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 8, character: 6 } });
    assert.ok(h, 'a hover on line 9');
    assert.match(h.contents.value, /call-graph method rank \*\*1\*\* of 2 · score \*\*1\.000\*\*/);
    assert.match(h.contents.value, /2\/2 failed, 3\/3 passed runs/);
    const brace: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 2 } });
    assert.match(brace?.contents.value ?? '', /call-graph method rank \*\*1\*\*/, 'up to the closing brace of deposit (from the source)');
    const outside = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 2, character: 6 } });
    assert.equal(outside, null);
    // off by default (issue 30, point 5): GRIFFIN's lenses name the bug's methods
    const none: any[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    assert.ok(!none.some((l) => /call-graph rank/.test(l.command?.title ?? '')), JSON.stringify(none));
    const before = s.settings;
    s.settings = { ...before, methods: { codeLens: true } };
    await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: {} });
    let lenses: any[] = [];
    for (let k = 0; k < 100 && !lenses.some((l) => /call-graph rank 1/.test(l.command?.title ?? '')); k++) {
      await new Promise((r) => setTimeout(r, 100));
      lenses = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    }
    s.settings = before;
    const lens = lenses.find((l) => /call-graph rank 1/.test(l.command?.title ?? ''));
    assert.ok(lens, JSON.stringify(lenses));
    assert.equal(lens.range.start.line, 5, 'on the declaration of deposit (line 6)');
    assert.deepEqual(lens.command.arguments, ['bank.Bank.deposit']);
  });

  test('the braid.methods.graph setting changes the representation (the plain call graph sees no difference)', async () => {
    // the server reads the settings back from the client (workspace/configuration) after the change: a client
    // that answers late (a loaded machine) must not get an answer of the old settings from a request it sends
    // right after the change (this flaked: the previous test's analysis ended meanwhile, its 'done' was taken for
    // this one's, and braid/methods ran before the settings were in)
    const answer = (p: { items: { section?: string }[] }) => p.items.map((i) => (i.section === 'braid' ? s.settings : null));
    s.connection.onRequest('workspace/configuration', async (p: { items: { section?: string }[] }) => {
      await new Promise((r) => setTimeout(r, 500));
      return answer(p);
    });
    try {
      s.settings = { methods: { graph: 'call' } };
      await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      const r: MethodsResult = await s.connection.sendRequest('braid/methods', {});
      assert.equal(r.representation, 'call');
      assert.ok(r.methods.every((m) => m.score === 0), 'clerk → deposit once in every run');
      assert.equal(r.methods[0].method, 'bank.Bank.deposit', 'ties: more lines of code first (4 vs 3)');
      s.settings = {};
      await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      const back: MethodsResult = await s.connection.sendRequest('braid/methods', {});
      assert.deepEqual([back.representation, back.methods[0].score], ['inter', 1]);
    } finally {
      s.connection.onRequest('workspace/configuration', answer);
    }
  });
});
