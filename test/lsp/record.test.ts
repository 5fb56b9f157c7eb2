/**
 * braid/record through the language server (protocol.ts): a successful recording of a Java
 * fixture with braid/recordProgress notifications and the new runs analyzed (braid/patterns' fresh
 * waits for them); cancellation with
 * $/cancelRequest (finished traces kept); braid/traceEvents' accessesOnly filter on a recorded run.
 */
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CancellationTokenSource } from 'vscode-languageserver-protocol';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { classesDir, FAST_JVM, prepare } from '../recorder/recorderHarness';
import type { RunsResult, TraceEventsResult } from '../../server/src/lsp/protocol';

const outcome = (...args: string[]) => ['java', ...FAST_JVM, '-cp', classesDir, 'lifecycle.Outcome', ...args];
let ws: string;
let s: LspSession;

before(async () => {
  prepare();
  ws = copyFixture();
  s = new LspSession(ws);
  await s.initialize();
  await s.analysisDone();
});
after(async () => {
  await s?.close();
  cleanup(ws);
});

test('braid/record records the runs, reports progress and the analysis picks them up', async () => {
  const since = s.notes.length;
  const r: any = await s.connection.sendRequest('braid/record', { command: outcome('exit', '1'), runs: 2, include: ['lifecycle'], jobs: 1, noise: 0 });
  assert.deepEqual([r.runs, r.failed, r.passed, r.cancelled], [2, 2, 0, false]);
  assert.ok(path.resolve(r.outDir).startsWith(path.join(ws, '.braid', 'traces')), r.outDir);
  const traces = readdirSync(r.outDir).filter((n) => n.endsWith('.trace.jsonl'));
  assert.equal(traces.length, 2);
  const progress = s.notes.slice(since).filter((n) => n.method === 'braid/recordProgress').map((n) => n.params);
  assert.deepEqual([progress[0].done, progress[0].total], [0, 2], 'a first notification before any run');
  assert.deepEqual(
    progress.slice(1).map((p) => [p.done, p.total, p.failed, p.passed]),
    [
      [1, 2, 1, 0],
      [2, 2, 2, 0],
    ],
  );
  // the 6 fixture runs plus the 2 failing ones
  const st = await s.analysisDone(since, (x) => x.executions.total === 8);
  assert.deepEqual(st.executions, { total: 8, failed: 4, passed: 4 });
});

test('braid/patterns {fresh: true} right after braid/record answers from an analysis that has the new runs (what braid_findRootCause reads)', async () => {
  const before: any = await s.connection.sendRequest('braid/patterns', { limit: 0 });
  const total0 = before.summary.executions.total;
  const r: any = await s.connection.sendRequest('braid/record', { command: outcome('exit', '1'), runs: 1, include: ['lifecycle'], jobs: 1, noise: 0 });
  assert.equal(r.runs, 1);
  // no wait for a status notification: the request itself waits for the rescan the run scheduled
  const after: any = await s.connection.sendRequest('braid/patterns', { limit: 3, fresh: true });
  assert.deepEqual([after.summary.executions.total, after.summary.executions.failed - before.summary.executions.failed], [total0 + 1, 1]);
  assert.equal(after.summary.state, 'done');
});

test('braid/traceEvents accessesOnly keeps only reads and writes', async () => {
  const runs: RunsResult = await s.connection.sendRequest('braid/runs');
  const rec = runs.runs.find((x) => x.file.includes(path.join('.braid', 'traces', 'lifecycle.Outcome-')));
  assert.ok(rec, runs.runs.map((x) => x.file).join(', '));
  const all: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: rec.execution, offset: 0, limit: 10000 });
  const acc: TraceEventsResult = await s.connection.sendRequest('braid/traceEvents', { run: rec.execution, offset: 0, limit: 10000, accessesOnly: true });
  const kinds = (r: TraceEventsResult) => [...new Set(r.events.map((e) => e.kind))].sort();
  // Outcome starts and joins a thread and calls a synchronized method: not only accesses
  assert.ok(['ACQ', 'JOIN', 'START'].every((k) => kinds(all).includes(k as never)), String(kinds(all)));
  assert.deepEqual(kinds(acc), ['R', 'W']);
  assert.equal(acc.total, all.events.filter((e) => e.kind === 'R' || e.kind === 'W').length);
});

test('$/cancelRequest stops a recording; the finished runs are kept', async () => {
  const since = s.notes.length;
  const cts = new CancellationTokenSource();
  const req = s.connection.sendRequest('braid/record', { command: outcome('sleep', '1500'), runs: 20, include: ['lifecycle'], jobs: 1, noise: 0 }, cts.token);
  // cancel once one run has finished (hang guard: 120 s, generous for a busy machine)
  await s.waitFor('braid/recordProgress', (p) => p.done >= 1, since, 120_000);
  cts.cancel();
  const r: any = await req;
  assert.equal(r.cancelled, true);
  assert.ok(r.runs >= 1 && r.runs < 20, `runs ${r.runs}`);
  const traces = readdirSync(r.outDir).filter((n) => n.endsWith('.trace.jsonl'));
  assert.equal(traces.length, r.runs, 'one trace per finished run; the unfinished one is deleted');
});

test('braid/record with a number of runs climbs the noise ladder (adaptive, the default): a program that never fails gets noise at sync points after 20 runs, said in a progress notification and each run\'s header', async () => {
  const since = s.notes.length;
  const command = ['java', ...FAST_JVM, '-cp', classesDir, 'lifecycle.SafeCollections'];
  const r: any = await s.connection.sendRequest('braid/record', { command, runs: 22, include: ['lifecycle'], jobs: 1, noise: 0.1 });
  assert.deepEqual([r.runs, r.failed, r.cancelled], [22, 0, false]);
  const steps = s.notes.slice(since).filter((n) => n.method === 'braid/recordProgress' && n.params.exposure).map((n) => n.params.exposure);
  assert.deepEqual(steps, ['no failure in 20 runs: noise now at sync points, p 0.1 (from run 20)']);
  const traces = readdirSync(r.outDir).filter((n) => n.endsWith('.trace.jsonl')).sort();
  assert.equal(traces.length, 22);
  const noiseAt = traces.map((f) => JSON.parse(readFileSync(path.join(r.outDir, f), 'utf8').split('\n')[0]).recorder.options.noiseAt ?? 'accesses');
  assert.deepEqual(noiseAt, [...Array(20).fill('accesses'), 'sync', 'sync']);
  // no run failed: the levels tried, and more runs to widen further
  assert.match(r.tried, /^noise 0\.1 at accesses \(runs 0–19\), noise 0\.1 at sync points \(runs 20–21\)$/);
  assert.match(r.next, /record more runs, so the noise can widen further/);
});
