/**
 * Issue 39, "`recording.json` beside the traces steers Confirm": `braid confirm TRACES` and `braid
 * analyze --confirm` print every field they take from the manifest (escaped for the terminal) before
 * running its command, never run it in a folder outside the traces' workspace, and a bad field is
 * a clear error that does not lose the report. Runs the built CLI (dist/braid.js).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runBraid, repoRoot } from '../helpers/braidCli';
import { tempDir } from '../helpers/traceBuilder';

const shop = path.join(repoRoot, 'test/fixtures/recorded/shop');

/** A workspace with six committed shop traces (two failing) in .braid/traces/shop and the given manifest beside them. */
function workspace(manifest: (ws: string) => Record<string, unknown>): { ws: string; traces: string } {
  const ws = tempDir();
  const traces = path.join(ws, '.braid', 'traces', 'shop');
  mkdirSync(traces, { recursive: true });
  for (const f of readdirSync(shop).filter((n) => /-00(0[0-3]|09|13)\.trace/.test(n))) copyFileSync(path.join(shop, f), path.join(traces, f));
  writeFileSync(
    path.join(traces, 'recording.json'),
    JSON.stringify({ format: 'braid-recording', version: 1, name: 'shop', include: ['shop'], exclude: [], timeoutSeconds: 20, startedAt: '2026-11-27T10:15:00.000Z', ...manifest(ws) }),
  );
  return { ws, traces };
}

test('braid confirm TRACES: "a committed folder ran `sh -c \'id > …\'` in `/`" — a manifest whose cwd is outside the traces\' workspace is not run', async () => {
  const outside = tempDir();
  const { ws, traces } = workspace(() => ({ command: ['sh', '-c', 'id > pwned'], cwd: outside }));
  const r = await runBraid(['confirm', traces, '--runs', '2', '--calls', 'off'], ws);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /the recording ran in .*, outside the traces' workspace/);
  assert.ok(!existsSync(path.join(outside, 'pwned')) && !existsSync(path.join(ws, 'pwned')), 'the command ran');
  const root = workspace(() => ({ command: ['sh', '-c', 'id > pwned'], cwd: '/' }));
  const q = await runBraid(['confirm', root.traces, '--runs', '2', '--calls', 'off'], root.ws);
  assert.equal(q.code, 2, q.err);
  assert.match(q.err, /the recording ran in \/, outside the traces' workspace/);
});

test('braid confirm TRACES: "runs the manifest\'s command … without printing it" — every field taken is printed first, escaped for the terminal', async () => {
  const { ws, traces } = workspace((w) => ({ command: ['sh', '-c', 'echo ran >> marker # \u001b]8;;https://evil.example\u0007x\u202e'], cwd: w, failOnOutput: 'FAILED' }));
  const r = await runBraid(['confirm', traces, '--runs', '2', '--calls', 'off'], ws);
  assert.ok(existsSync(path.join(ws, 'marker')), 'the command did not run');
  assert.match(r.err, /braid confirm: from .*recording\.json:/);
  assert.match(r.err, /braid confirm:   command: sh -c "echo ran >> marker # \\u001b\]8;;https:\/\/evil\.example\\u0007x\\u202e"/);
  assert.match(r.err, new RegExp(`braid confirm:   in: ${ws.replace(/[/\\.]/g, '\\$&')}`));
  assert.match(r.err, /braid confirm:   include: shop/);
  assert.match(r.err, /braid confirm:   timeout: 20 s per run/);
  assert.match(r.err, /braid confirm:   fail on output: \/FAILED\//);
  assert.ok(!/[\u001b\u0007\u202e]/.test(r.err), 'raw control or bidirectional characters on stderr');
  assert.ok(r.err.indexOf('command: sh') >= 0);
});

test('braid analyze --confirm: "failOnOutput: \\"(\\" loses the whole report" — the report is printed, the confirmation skipped with the reason', async () => {
  const { ws, traces } = workspace((w) => ({ command: ['sh', '-c', 'echo ran >> marker'], cwd: w, failOnOutput: '(' }));
  const r = await runBraid(['analyze', traces, '--confirm', '1', '--confirm-runs', '2', '--no-bugs'], ws);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Confirmation skipped: .*recording\.json: failOnOutput: .*missing closing \)/);
  assert.match(r.out, /P1/);
  assert.ok(!existsSync(path.join(ws, 'marker')), 'ran a command of a bad manifest');
});

test('braid confirm TRACES: "a backtracking regex hangs the CLI" — a manifest\'s failOnOutput matches the runs\' output in linear time', async () => {
  const { ws, traces } = workspace((w) => ({ command: ['sh', '-c', `printf '${'a'.repeat(26)}b\\n'`], cwd: w, failOnOutput: '^(a+)+$' }));
  const started = Date.now();
  const r = await runBraid(['confirm', traces, '--runs', '2', '--calls', 'off'], ws);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
  assert.match(r.err, /fail on output: \/\^\(a\+\)\+\$\//);
  assert.ok(r.out.includes('braid confirm:'), r.err);
  assert.ok(!readFileSync(path.join(traces, 'recording.json'), 'utf8').includes('\u0000'));
});
