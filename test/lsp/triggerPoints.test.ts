/**
 * Trigger points in the language server (issue 17 item 4): the noise plans of `.braid/plans`
 * (their `triggers`) become braid/triggerPoints lines and a hover line next to the pattern hover;
 * a changed plan file is read again (braid/triggerPointsChanged); bad plan files and triggers are
 * reported and skipped; a run recorded with a plan names it in braid/runs; braid/pinpoint is
 * refused in an untrusted workspace until the client says it is trusted; one small real search
 * (test/fixtures/java/noiseplan: noise before the write loses an increment) with work-done
 * progress, its plan's trigger point decorated and hovered, and a cancelled search.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, WorkDoneProgress } from 'vscode-languageserver-protocol';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { classesDir, FAST_JVM, fixturesDir, prepare } from '../recorder/recorderHarness';
import type { PinpointResultDto, RunsResult, TriggerPointsResult } from '../../server/src/lsp/protocol';
import { planText, RESTOCK_TRIGGER, TAKE_TRIGGER } from '../helpers/noisePlanText';

const SRC = 'src/main/java/shop/Inventory.java';

const plan = planText;
const take = TAKE_TRIGGER;
const restock = RESTOCK_TRIGGER;

describe('trigger points of the workspace noise plans', () => {
  let ws: string;
  let s: LspSession;
  let uri: string;

  before(async () => {
    ws = copyFixture();
    mkdirSync(path.join(ws, '.braid/plans'), { recursive: true });
    writeFileSync(path.join(ws, '.braid/plans/checkout.json'), plan('checkout', [
        take,
        { ...restock, line: 0 },
        { ...restock, rank: 3, id: 'nowhere/Missing.run()V@1', file: 'Missing.java', method: 'nowhere.Missing.run' },
        // a per-thread trigger (braid pinpoint --per-thread), and one whose thread is not a name
        { ...restock, rank: 4, thread: 'restocker-1' },
        { ...take, rank: 5, thread: 7 },
      ]));
    writeFileSync(path.join(ws, '.braid/plans/broken.json'), '{"format": "braid-noise-plan", ');
    // run-003 again, recorded with the plan (header.recorder.options.plan)
    const failing = readFileSync(path.join(ws, '.braid/traces/run-003.trace.jsonl'), 'utf8').split('\n');
    const header = JSON.parse(failing[0]);
    header.execution = 'run-007';
    header.recorder = { name: 'braid', options: { seed: 7, plan: { name: 'checkout', file: '.braid/plans/checkout.json' } } };
    writeFileSync(path.join(ws, '.braid/traces/run-007.trace.jsonl'), [JSON.stringify(header), ...failing.slice(1)].join('\n'));
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
    uri = await s.open(SRC, readFileSync(path.join(ws, SRC), 'utf8'));
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('braid/triggerPoints: the plan, its good trigger on its source line, and the problems with file and index', async () => {
    const r: TriggerPointsResult = await s.connection.sendRequest('braid/triggerPoints');
    const planFile = path.join(ws, '.braid/plans/checkout.json');
    assert.deepEqual(
      r.plans.map((p) => [p.name, p.file, p.triggers, p.runs, p.command?.join(' ')]),
      [['checkout', planFile, 3, 212, 'java -cp out shop.Inventory']],
    );
    assert.deepEqual(r.files, [
      {
        uri: pathToFileURL(path.join(ws, SRC)).href,
        lines: [
          { line: 10, rank: 1, failWith: 0.61, failWithout: 0.02, pValue: 3e-9, method: 'shop.Inventory.take', plan: 'checkout', planFile },
          { line: 16, rank: 4, failWith: 0.4, failWithout: 0.05, pValue: 2e-4, method: 'shop.Inventory.restock', thread: 'restocker-1', plan: 'checkout', planFile },
        ],
      },
    ]);
    assert.deepEqual(
      r.problems.map((p) => [path.basename(p.file), p.message.replace(/:.*$/s, '')]),
      [
        ['broken.json', 'not valid JSON'],
        ['checkout.json', 'triggers[1]'],
        ['checkout.json', 'triggers[4]'],
      ],
    );
    assert.match(r.problems[1].message, /"line" must be an integer ≥ 1; ignored/);
    assert.match(r.problems[2].message, /"thread" must be a thread name; ignored/);
    assert.ok(s.logs().some((m) => m.includes('broken.json') && m.includes('not valid JSON')), 'the bad plan file is named in the output');
    // a trigger point whose source is not in the workspace: said once, with its plan, file and rank
    assert.deepEqual(
      s.logs().filter((m) => m.includes('Missing.java')),
      [`Noise plan ${planFile}: the source file "Missing.java" of trigger point #3 is not in the workspace (see braid.sourceRoots); no decoration or hover for it.`],
    );
  });

  test('hover on a trigger line: the failure rates with and without noise, p, runs and plan, then the pattern hover', async () => {
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
    const v: string = h.contents.value;
    assert.ok(
      v.startsWith('**Braid** · trigger point **#1**: noise here raises the failure rate from **2%** to **61%** (p = 3.0e-9, 212 runs) — plan `checkout.json` · [Reproduce](command:braid.reproduceWithPlan?'),
      v,
    );
    assert.equal(decodeURIComponent(/command:braid\.reproduceWithPlan\?([^)]*)\)/.exec(v)![1]), JSON.stringify([path.join(ws, '.braid/plans/checkout.json')]));
    assert.match(v, /\n\n---\n\n\*\*Braid:\*\* Thread T1 wrote `stock`/, "the pattern hover follows");
    // line 17 (restock's `sold = 0`): a pattern line without trigger point
    const h17: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 16, character: 10 } });
    assert.doesNotMatch(h17.contents.value, /trigger point/);
    // line 16: the per-thread trigger names its thread
    const h16: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 15, character: 6 } });
    assert.match(h16.contents.value, /^\*\*Braid\*\* · trigger point \*\*#4\*\*: noise here in thread `restocker-1` raises the failure rate from \*\*5%\*\* to \*\*40%\*\* \(p = 2\.0e-4, 212 runs\)/);
  });

  test('a changed plan file is read again: braid/triggerPointsChanged with the new points', async () => {
    const since = s.notes.length;
    const file = path.join(ws, '.braid/plans/checkout.json');
    writeFileSync(file, plan('checkout', [take, restock], 300));
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(file).href, type: 2 }] });
    const r: TriggerPointsResult = await s.waitFor('braid/triggerPointsChanged', (p) => p.plans[0]?.runs === 300, since);
    assert.deepEqual(
      r.files[0].lines.map((l) => [l.line, l.rank]),
      [
        [10, 1],
        [16, 2],
      ],
    );
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 15, character: 10 } });
    assert.match(h.contents.value, /^\*\*Braid\*\* · trigger point \*\*#2\*\*: noise here raises the failure rate from \*\*5%\*\* to \*\*40%\*\* \(p = 2\.0e-4, 300 runs\)/);
  });

  test('a configuration of two trigger points (noise only together elicits the failure): each line and hover names the other; a bad "together" is a problem', async () => {
    const since = s.notes.length;
    const file = path.join(ws, '.braid/plans/checkout.json');
    const pair = { failWith: 1, failWithout: 0.5, pValue: 3e-8, together: 2 };
    writeFileSync(file, plan('checkout', [{ ...take, ...pair }, { ...restock, ...pair, thread: 'restocker-1' }, { ...take, rank: 3, together: 1 }], 310));
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(file).href, type: 2 }] });
    const r: TriggerPointsResult = await s.waitFor('braid/triggerPointsChanged', (p) => p.plans[0]?.runs === 310, since);
    assert.deepEqual(
      r.files[0].lines.map((l) => [l.line, l.rank, l.together]),
      [
        [10, 1, 2],
        [16, 2, 2],
      ],
    );
    const mine = r.problems.filter((p) => path.basename(p.file) === 'checkout.json');
    assert.deepEqual(mine.map((p) => p.message.replace(/:.*$/s, '')), ['triggers[2]']);
    assert.match(mine[0].message, /"together" must be an integer ≥ 2/);
    const h10: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
    assert.match(h10.contents.value, /^\*\*Braid\*\* · trigger point \*\*#1\*\*: noise here and at trigger point #2, together, raises the failure rate from \*\*50%\*\* to \*\*100%\*\* \(p = 3\.0e-8, 310 runs\)/);
    const h16: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 15, character: 6 } });
    assert.match(h16.contents.value, /^\*\*Braid\*\* · trigger point \*\*#2\*\*: noise here in thread `restocker-1` and at trigger point #1, together, raises/);
  });

  test('braid/runs names the noise plan of a run recorded with one', async () => {
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.deepEqual(
      runs.runs.filter((r) => r.plan).map((r) => [r.execution, r.plan]),
      [['run-007', { name: 'checkout', file: '.braid/plans/checkout.json' }]],
    );
  });
});

describe('braid/pinpoint and workspace trust', () => {
  let ws: string;
  let s: LspSession;
  before(async () => {
    ws = copyFixture();
    s = new LspSession(ws);
    await s.initialize({ trusted: false });
    await s.analysisDone();
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('braid/pinpoint and braid/record refused in an untrusted workspace; after braid/workspaceTrust the request is checked (a missing command is named)', async () => {
    await assert.rejects(s.connection.sendRequest('braid/pinpoint', { command: ['java', '-cp', 'out', 'shop.Inventory'] }), /needs a trusted workspace/);
    await assert.rejects(s.connection.sendRequest('braid/record', { command: ['java', '-cp', 'out', 'shop.Inventory'], runs: 2 }), /recording runs your program, so it needs a trusted workspace/);
    assert.deepEqual(
      s.notes.filter((n) => n.method === '$/progress'),
      [],
      'nothing started',
    );
    await s.connection.sendNotification('braid/workspaceTrust', { trusted: true });
    await assert.rejects(s.connection.sendRequest('braid/pinpoint', { command: [] }), /braid\/pinpoint needs "command"/);
    await assert.rejects(s.connection.sendRequest('braid/pinpoint', { command: ['java'], candidates: 'some' }), /"candidates" must be "all" or "patterns"/);
    await assert.rejects(s.connection.sendRequest('braid/pinpoint', { command: ['java'], cwd: '../elsewhere' }), /outside the workspace folder/);
  });

  test('braid/triggerPoints without plans is empty', async () => {
    assert.deepEqual(await s.connection.sendRequest('braid/triggerPoints'), { plans: [], files: [], problems: [] });
  });
});

describe('braid/pinpoint: a real search', () => {
  let ws: string;
  let s: LspSession;
  const SOURCE = 'src/noiseplan/LostIncrement.java';
  const command = ['java', ...FAST_JVM, '-cp', classesDir, 'noiseplan.LostIncrement'];
  before(async () => {
    prepare();
    ws = copyFixture();
    mkdirSync(path.join(ws, 'src/noiseplan'), { recursive: true });
    copyFileSync(path.join(fixturesDir, 'noiseplan/LostIncrement.java'), path.join(ws, SOURCE));
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('finds the write before which noise loses an increment; progress on the token; the plan is decorated and hovered', async () => {
    const progress: { kind: string; message?: string; percentage?: number }[] = [];
    const sub = s.connection.onProgress(WorkDoneProgress.type, 'pin-1', (v) => void progress.push(v));
    const since = s.notes.length;
    const r: PinpointResultDto = await s.connection.sendRequest('braid/pinpoint', {
      command,
      name: 'lost',
      budget: 40,
      candidates: 'all',
      include: ['noiseplan'],
      jobs: 1,
      seed: 1,
      workDoneToken: 'pin-1',
    });
    sub.dispose();
    const text = readFileSync(path.join(ws, SOURCE), 'utf8').split('\n');
    const writeLine = text.findIndex((l) => l.includes('// @point write')) + 1;
    const plan = path.join(ws, '.braid/plans/lost.json');
    assert.equal(r.plan, plan);
    assert.ok(existsSync(plan));
    assert.ok(r.runs <= 40, `runs ${r.runs}`);
    assert.equal(r.points[0]?.line, writeLine, JSON.stringify(r.points));
    assert.equal(progress[0].kind, 'begin');
    assert.ok(progress.some((p) => p.kind === 'report' && /^\d+\/40 runs · round \d+/.test(p.message ?? '')), JSON.stringify(progress.slice(0, 5)));
    assert.equal(progress.at(-1)!.kind, 'end');
    const tp: TriggerPointsResult = await s.waitFor('braid/triggerPointsChanged', (p) => p.plans.some((x: { name: string }) => x.name === 'lost'), since);
    const uri = pathToFileURL(path.join(ws, SOURCE)).href;
    assert.deepEqual(
      tp.files.find((f) => f.uri === uri)?.lines.filter((l) => l.rank === 1).map((l) => l.line),
      [writeLine],
    );
    await s.open(SOURCE, text.join('\n'));
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: writeLine - 1, character: 6 } });
    assert.match(h.contents.value, /^\*\*Braid\*\* · trigger point \*\*#1\*\*: noise here raises the failure rate from \*\*\d+%\*\* to \*\*\d+%\*\* \(p = [^,]+, \d+ runs\) — plan `lost\.json`/);
  });

  test('Reproduce: braid/record with the plan; the runs name it and most of them fail', async () => {
    const since = s.notes.length;
    const r: any = await s.connection.sendRequest('braid/record', { command, runs: 6, include: ['noiseplan'], jobs: 1, plan: '.braid/plans/lost.json' });
    assert.equal(r.runs, 6);
    await s.analysisDone(since, (x) => x.executions.total === 12);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    const withPlan = runs.runs.filter((x) => x.plan);
    assert.equal(withPlan.length, 6);
    assert.deepEqual(withPlan[0].plan, { name: 'lost', file: path.join(ws, '.braid/plans/lost.json') });
    // noise before the write: almost every run loses an increment (the search measured about 90%; under 2 of 6 would mean the plan was not applied)
    assert.ok(withPlan.filter((x) => x.outcome === 'fail').length >= 2, withPlan.map((x) => x.outcome).join(' '));
  });

  test('$/cancelRequest stops the search: stopped "cancelled"', async () => {
    const cts = new CancellationTokenSource();
    let reports = 0;
    const sub = s.connection.onProgress(WorkDoneProgress.type, 'pin-2', (v) => {
      if (v.kind === 'report' && ++reports === 2) cts.cancel();
    });
    const r: PinpointResultDto = await s.connection.sendRequest('braid/pinpoint', { command, name: 'stopped', budget: 400, candidates: 'all', include: ['noiseplan'], seed: 2, workDoneToken: 'pin-2' }, cts.token);
    sub.dispose();
    assert.equal(r.stopped, 'cancelled');
    assert.ok(r.runs < 40, `runs ${r.runs}`);
  });
});
