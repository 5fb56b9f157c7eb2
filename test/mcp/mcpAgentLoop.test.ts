/**
 * The agent loop without a model (issue 44): a scripted MCP client (the SDK's Client over stdio,
 * against the real `braid mcp` process) plays the agent on a copy of the demo program (test/fixtures/java/vectorcopy: a copy constructor racing with
 * addAll; its unforced runs rarely fail, so a confirmation of 8 runs per group is clear even on a loaded machine) —
 * find_root_cause (records real JVM runs until the evidence is in, with progress) → confirm
 * pattern 1 (confirmed) → reproduce → applies the wrong fix (volatile) → check_fix = not fixed →
 * applies the real fix (one lock around the copy's two reads and addAll) → check_fix = fixed; then a cancelled find_root_cause stops its
 * runs. The transcript goes to test-output/mcp/agent-loop.jsonl (docs/agents.md quotes one).
 */
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers/traceBuilder';
import { FAST_JVM, fixturesDir, prepare, root } from '../recorder/recorderHarness';
import { connect, textOf } from './mcpClient';

const transcript = path.join(root, 'test-output', 'mcp', 'agent-loop.jsonl');
let project: string;
let client: Client;

function log(tool: string, args: unknown, r: CallToolResult): void {
  appendFileSync(transcript, JSON.stringify({ tool, arguments: args, isError: r.isError ?? false, result: r.structuredContent ?? textOf(r) }) + '\n');
}

async function step(tool: string, args: Record<string, unknown>, onprogress?: (p: { progress: number; total?: number; message?: string }) => void): Promise<any> {
  const r = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 900_000, resetTimeoutOnProgress: true, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;
  log(tool, args, r);
  assert.ok(!r.isError, `${tool}: ${textOf(r)}`);
  assert.ok(Buffer.byteLength(textOf(r)) <= 4096, `${tool}: ${Buffer.byteLength(textOf(r))} bytes`);
  return r.structuredContent;
}

function edit(find: string, replace: string): void {
  const file = path.join(project, 'vectorcopy', 'VectorCopy.java');
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(find), find);
  writeFileSync(file, text.replace(find, replace));
}

before(async () => {
  prepare();
  project = tempDir('braid-mcp-loop-');
  mkdirSync(path.join(project, 'vectorcopy'));
  cpSync(path.join(fixturesDir, 'vectorcopy', 'VectorCopy.java'), path.join(project, 'vectorcopy', 'VectorCopy.java'));
  mkdirSync(path.dirname(transcript), { recursive: true });
  rmSync(transcript, { force: true });
  client = await connect([project]);
  // the client checks each structured result against the tool's output schema once it has listed the tools
  await client.listTools();
});

after(async () => {
  await client?.close();
});

test('find_root_cause → confirm → reproduce → wrong fix not fixed → real fix fixed, on real JVM runs', async () => {
  const progress: string[] = [];
  const found = await step(
    'find_root_cause',
    { command: ['java', ...FAST_JVM, '-cp', 'classes', 'vectorcopy.VectorCopy'], build: ['javac', '-g', '-d', 'classes', 'vectorcopy/VectorCopy.java'], include: ['vectorcopy'], maxRuns: 60, noise: 0.1 },
    (p) => progress.push(`${p.progress}/${p.total}: ${p.message}`),
  );
  assert.ok(progress.length >= 3 && progress.some((p) => /runs, \d+ failed/.test(p)), progress.join('\n'));
  assert.ok(progress.some((p) => /^\d+\.5\/60: \d+ runs, \d+ failed, (lead p = |no cause with evidence yet)/.test(p)), `a line per round: ${progress.join('\n')}`);
  assert.equal(found.status, 'cause-found', JSON.stringify(found));
  assert.ok(found.runs.failed > 0 && found.runs.passed > 0);
  assert.ok(found.runs.total >= 20 && found.runs.total <= 60);
  assert.match(found.recorded.command, /^java .* vectorcopy\.VectorCopy$/);
  // the race's lines (// @bug copy-vs-addAll: 33, 37, 46, 47)
  const bugLines = ['VectorCopy.java:33', 'VectorCopy.java:37', 'VectorCopy.java:46', 'VectorCopy.java:47'];
  assert.ok(found.causes[0].accesses.every((a: { where: string }) => bugLines.includes(a.where)), JSON.stringify(found.causes[0]));
  const recording = found.recording;
  assert.ok(readdirSync(path.join(project, '.braid', 'traces')).includes(recording));
  const listed = await step('list_recordings', {});
  assert.deepEqual(
    listed.recordings.map((r: { recording: string; canRun: boolean; traces: number }) => [r.recording, r.canRun, r.traces]),
    [[recording, true, found.runs.total]],
  );

  const confirmed = await step('confirm', { recording, pattern: 1, runs: 8 });
  assert.equal(confirmed.verdict, 'confirmed', JSON.stringify(confirmed));
  assert.ok(confirmed.forced.failed > confirmed.opposite.failed);

  const reproduced = await step('reproduce', { recording, pattern: 1, runs: 3 });
  assert.equal(reproduced.reproduced, true, JSON.stringify(reproduced));
  assert.ok(reproduced.failure, JSON.stringify(reproduced));
  // the forced pattern's write: the race has two (size at line 46, data at line 47), and either may rank first
  assert.ok(reproduced.interleaving.some((e: string) => / W vectorcopy\.VectorCopy\$MyVector\.(size|data) = .* @ VectorCopy\.java:4[67] /.test(e)), reproduced.interleaving.join('\n'));

  edit('    private int size;\n    private Object[] data;', '    private volatile int size;\n    private volatile Object[] data;');
  const wrong = await step('check_fix', { recording, pattern: 1, runs: 6 });
  assert.equal(wrong.verdict, 'not fixed', JSON.stringify(wrong));
  assert.match(wrong.built, /^javac /);
  assert.ok(wrong.forced.failed > 0);

  edit(
    '      int n = other.size(); // (1) read other.size\n      Object[] copy = new Object[n];\n      for (int i = 0; i < n; i++) copy[i] = null; // clear the new slots\n      other.toArray(copy); // (2) read other.data',
    '      int n;\n      Object[] copy;\n      synchronized (other) {\n        n = other.size(); // (1) read other.size\n        copy = new Object[n];\n        other.toArray(copy); // (2) read other.data\n      }',
  );
  edit('    void addAll(MyVector other) {', '    synchronized void addAll(MyVector other) {');
  const right = await step('check_fix', { recording, pattern: 1, runs: 6 });
  assert.equal(right.verdict, 'fixed', JSON.stringify(right));
  assert.equal(right.forced.failed, 0);
  assert.equal(right.after.failed, 0);

  // a broken build: no verdict, the compiler's words
  edit('    synchronized void addAll(MyVector other) {', '    synchronized void addAll(MyVector other) {{');
  const broken = await step('check_fix', { recording, pattern: 1, runs: 2 });
  assert.equal(broken.verdict, 'could not check');
  assert.match(broken.why, /^the build failed \(javac .*exit 1\): .*error/);
});

test('cancelling find_root_cause stops its runs', async () => {
  const abort = new AbortController();
  const started = Date.now();
  let first = 0;
  const pending = client.callTool(
    { name: 'find_root_cause', arguments: { command: ['java', ...FAST_JVM, '-cp', 'classes', 'vectorcopy.VectorCopy'], include: ['vectorcopy'], maxRuns: 200, noise: 0.1 } },
    undefined,
    {
      timeout: 600_000,
      signal: abort.signal,
      onprogress: (p) => {
        if (p.progress >= 2 && !first) {
          first = p.progress;
          abort.abort();
        }
      },
    },
  );
  await assert.rejects(pending, /abort/i);
  // the server stopped the runs: the newest recording gets no new trace after a short grace
  const traces = path.join(project, '.braid', 'traces');
  const newest = readdirSync(traces)
    .map((n) => path.join(traces, n))
    .sort()
    .at(-1)!;
  const count = () => readdirSync(newest).filter((f) => f.endsWith('.trace.jsonl') || f.endsWith('.trace.jsonl.part')).length;
  await new Promise((r) => setTimeout(r, 3000));
  const settled = count();
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal(count(), settled, 'no run starts after the cancellation');
  assert.ok(settled < 20, `${settled} traces: stopped long before the budget of 200 runs`);
  assert.ok(Date.now() - started < 120_000);
});
