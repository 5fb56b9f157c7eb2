/**
 * Issue 31, N1: a workspace whose noise plan has a trigger with `"rank": 5, "together": 100000000`
 * on a source line; the language server (dist/server.js) is started under /usr/bin/time -v, the
 * line is hovered (the hover used to build a 100 M-entry list in otherRanks and the server died of
 * OOM at 2.27 GB), and the server is shut down. Used by hostile-memory-bench.mjs.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = 'class Inventory {\n  int stock;\n  void take() {\n    stock = stock - 1;\n  }\n}\n';

function workspace(together) {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-hostile-plan-'));
  mkdirSync(path.join(ws, 'src/main/java/shop'), { recursive: true });
  writeFileSync(path.join(ws, 'src/main/java/shop/Inventory.java'), SOURCE);
  mkdirSync(path.join(ws, '.braid/plans'), { recursive: true });
  const trigger = { rank: 5, together, id: 'shop/Inventory.take()V@5', file: 'Inventory.java', line: 4, method: 'shop.Inventory.take', failWith: 1, failWithout: 0.5, pValue: 1e-8, score: 9 };
  writeFileSync(
    path.join(ws, '.braid/plans/x.json'),
    // ranks 1–4 too, so that "together" is the count that is too large (rank 5 of 5 is fine)
    JSON.stringify({ format: 'braid-noise-plan', version: 1, name: 'x', noise: { kind: 'yield' }, points: [{ id: trigger.id, probability: 1 }], triggers: [1, 2, 3, 4].map((rank) => ({ ...trigger, rank })).concat(trigger) }),
  );
  return ws;
}

/** Runs the server on the N1 workspace; resolves with its peak RSS (MiB, from /usr/bin/time), the time, and what it answered. */
export function planHover({ root, timeBin, together = 100_000_000, timeoutMs = 120_000, server = [process.execPath, path.join(root, 'dist/server.js'), '--stdio'] }) {
  const ws = workspace(together);
  const proc = timeBin ? spawn(timeBin, ['-v', ...server], { cwd: root }) : spawn(server[0], server.slice(1), { cwd: root });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  let buf = Buffer.alloc(0);
  const waiting = new Map();
  proc.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
      buf = buf.subarray(head + 4 + len);
      if (msg.id !== undefined && !msg.method && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      } else if (msg.id !== undefined && msg.method) send({ jsonrpc: '2.0', id: msg.id, result: null }); // requests to the client
    }
  });
  const send = (m) => {
    const s = JSON.stringify(m);
    if (proc.stdin.writable) proc.stdin.write(`Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`);
  };
  let ids = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = ++ids;
      waiting.set(id, resolve);
      send({ jsonrpc: '2.0', id, method, params });
    });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const t0 = Date.now();
  const uri = pathToFileURL(path.join(ws, 'src/main/java/shop/Inventory.java')).href;
  const talk = (async () => {
    await request('initialize', { processId: process.pid, rootUri: pathToFileURL(ws).href, workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }], capabilities: {} });
    send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    const tp = await request('braid/triggerPoints');
    send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'java', version: 1, text: SOURCE } } });
    const hover = await request('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 4 } });
    await request('shutdown');
    send({ jsonrpc: '2.0', method: 'exit' });
    return { problems: tp.result?.problems ?? [], hover: hover.result?.contents?.value ?? null };
  })();
  const timer = new Promise((resolve) => setTimeout(() => resolve('timeout'), timeoutMs));
  return Promise.race([Promise.all([talk, exited]), exited.then((e) => [undefined, e]), timer]).then(async (r) => {
    if (r === 'timeout') proc.kill('SIGKILL');
    const [answer, exit] = r === 'timeout' ? [undefined, await exited] : r;
    await exited;
    rmSync(ws, { recursive: true, force: true });
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    return {
      peakMiB: rss ? Number(rss[1]) / 1024 : undefined,
      ms: Date.now() - t0,
      exit: r === 'timeout' ? 'timeout' : exit.signal ?? exit.code,
      answered: !!answer,
      problem: answer?.problems.map((p) => p.message).join('; ') ?? '',
      crashed: /out of memory|heap limit/i.test(stderr),
    };
  });
}
