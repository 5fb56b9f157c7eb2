/**
 * The agent loop without a model on a TypeScript sample (issue 44's acceptance: "the scripted loop
 * passes on a Java sample and a TS sample"): the SDK's Client over stdio against the real `braid mcp`
 * process plays the agent on a copy of test/fixtures/node/balancemap (withdraw() reads a balance
 * from a Map, awaits the audit, writes it back: two withdrawals at once lose one) in a temp folder
 * given as --root. find_root_cause on its node:test test (`jsTest`: the server finds the command,
 * `node --import tsx --test …`, and the Node.js recorder records it) → the wrong fix (fixes/wrong.ts:
 * the balance read again after the audit, an await still before the write) → check_fix is never
 * "fixed" → the right fix (fixes/right.ts: read, check and write in one turn of the event loop) →
 * check_fix = fixed. The copy's node_modules is a link to the repository's (tsx). The transcript goes
 * to test-output/mcp/agent-loop-node.jsonl. Needs dist/braid.js and dist/braid-node-hook.mjs.
 */
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers/traceBuilder';
import { connect, repoRoot, textOf } from './mcpClient';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'node', 'balancemap');
const transcript = path.join(repoRoot, 'test-output', 'mcp', 'agent-loop-node.jsonl');
let project: string;
let client: Client;

async function step(tool: string, args: Record<string, unknown>, onprogress?: (p: { progress: number; total?: number; message?: string }) => void): Promise<any> {
  const r = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 900_000, resetTimeoutOnProgress: true, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;
  appendFileSync(transcript, JSON.stringify({ tool, arguments: args, isError: r.isError ?? false, result: r.structuredContent ?? textOf(r) }) + '\n');
  assert.ok(!r.isError, `${tool}: ${textOf(r)}`);
  assert.ok(Buffer.byteLength(textOf(r)) <= 4096, `${tool}: ${Buffer.byteLength(textOf(r))} bytes`);
  return r.structuredContent;
}

/** The agent's edit: `fix` (a file of the fixture's fixes/) becomes src/accounts.ts. */
function applyFix(fix: string): void {
  cpSync(path.join(fixture, 'fixes', fix), path.join(project, 'src', 'accounts.ts'));
}

before(async () => {
  assert.ok(existsSync(path.join(repoRoot, 'dist', 'braid-node-hook.mjs')), 'dist/braid-node-hook.mjs is built (node scripts/build.mjs)');
  project = tempDir('braid-mcp-loop-node-');
  cpSync(fixture, project, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  mkdirSync(path.dirname(transcript), { recursive: true });
  rmSync(transcript, { force: true });
  client = await connect([project]);
  // the client checks each structured result against the tool's output schema once it has listed the tools
  await client.listTools();
});

after(async () => {
  await client?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

test('TS sample: find_root_cause on a node:test test → wrong fix not fixed → right fix fixed, on real Node.js runs', async () => {
  const progress: string[] = [];
  const found = await step('find_root_cause', { jsTest: { file: 'src/accounts.test.ts', titles: ['two withdrawals are both taken'] }, maxRuns: 30, noise: 0.5 }, (p) =>
    progress.push(`${p.progress}/${p.total}: ${p.message}`),
  );
  assert.ok(progress.some((p) => /runs, \d+ failed/.test(p)), progress.join('\n'));
  assert.equal(found.status, 'cause-found', JSON.stringify(found));
  assert.ok(found.runs.failed > 0 && found.runs.passed > 0, JSON.stringify(found.runs));
  assert.ok(found.runs.total >= 10 && found.runs.total <= 30, JSON.stringify(found.runs));
  assert.match(found.recorded.command, /^node --import tsx --test "--test-name-pattern=\^two withdrawals are both taken\$" src\/accounts\.test\.ts$/);
  // the lost withdrawal's accesses: the balance read and written in withdraw()
  assert.ok(
    found.causes[0].accesses.every((a: { where: string; method: string }) => /accounts\.ts:\d+$/.test(a.where) && /withdraw/.test(a.method)),
    JSON.stringify(found.causes[0]),
  );
  const recording = found.recording;
  assert.ok(readdirSync(path.join(project, '.braid', 'traces')).includes(recording));

  applyFix('wrong.ts');
  // 20 runs: the wrong fix fails about 4 in 10 noise runs (repetitions in one process, 11 of 30; one process per run 14 of 30; 12 of 30
  // on 2026-11-30), 0 of 6 came once in 2; 0 of 12 came once, in a fresh-clone CI at 6e46a4a4 (the e2e lm-tools test of the same sample
  // had 5 of 10 in that run): at 4 in 10, 0 of 20 is 4 in 100,000
  const wrong = await step('check_fix', { recording, pattern: 1, runs: 20 });
  assert.notEqual(wrong.verdict, 'fixed', JSON.stringify(wrong));
  assert.equal(wrong.verdict, 'not fixed', JSON.stringify(wrong));
  assert.ok(wrong.forced.runs > 0, JSON.stringify(wrong.forced));
  assert.ok(wrong.forced.failed > 0 || wrong.after.failed > 0, `a run of the wrong fix still fails: ${JSON.stringify(wrong)}`);

  applyFix('right.ts');
  const right = await step('check_fix', { recording, pattern: 1, runs: 6 });
  assert.equal(right.verdict, 'fixed', JSON.stringify(right));
  assert.equal(right.forced.failed, 0);
  assert.ok(right.after.runs > 0 && right.after.failed === 0, JSON.stringify(right.after));
});
