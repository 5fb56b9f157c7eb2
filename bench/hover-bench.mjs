// Hover latency of Braid's language server once analysis is done (issue 5:
// "the hover appears within 20 ms"). Builds a synthetic workspace (RUNS traces
// of EVENTS accesses over a 400-line Java file), starts dist/server.js over
// stdio, waits for the analysis, then times hovers on pattern lines and on
// clean lines, and the re-analysis after one more trace. Prints figures; never asserts.
//   node scripts/build.mjs --no-agent && node bench/hover-bench.mjs [RUNS] [EVENTS] [HOVERS]
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hoverTraceGenerator, LINES } from './hoverWorkspaceTraces.mjs';

const require = createRequire(import.meta.url);
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.argv[2] ?? 300);
const EVENTS = Number(process.argv[3] ?? 2000);
const HOVERS = Number(process.argv[4] ?? 2000);

const server = path.join(root, 'dist/server.js');
if (!existsSync(server)) {
  console.error('build first: node scripts/build.mjs --no-agent');
  process.exit(1);
}

const ws = mkdtempSync(path.join(tmpdir(), 'braid-hover-bench-'));
const srcDir = path.join(ws, 'src/main/java/bench');
const traceDir = path.join(ws, '.braid/traces');
mkdirSync(srcDir, { recursive: true });
mkdirSync(traceDir, { recursive: true });
writeFileSync(path.join(srcDir, 'Big.java'), ['package bench;', 'public class Big {', ...Array.from({ length: LINES - 3 }, (_, k) => `    int f${k} = ${k};`), '}'].join('\n') + '\n');

const trace = hoverTraceGenerator(EVENTS);
let t0 = performance.now();
for (let n = 0; n < RUNS; n++) writeFileSync(path.join(traceDir, `r${n}.trace.jsonl`), trace(n));
console.log(`workspace ${ws}: ${RUNS} traces × ${EVENTS} events written in ${(performance.now() - t0).toFixed(0)} ms`);

const proc = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
const c = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
const waiters = [];
c.onNotification((method, params) => {
  if (process.env.BENCH_DEBUG) console.error('note', method, JSON.stringify(params).slice(0, 200));
  for (const w of [...waiters]) if (w.method === method && w.pred(params)) {
    waiters.splice(waiters.indexOf(w), 1);
    w.resolve(params);
  }
});
c.onRequest('workspace/configuration', (p) => p.items.map(() => ({})));
c.onRequest('client/registerCapability', () => null);
c.onRequest('window/workDoneProgress/create', () => null);
c.onRequest('window/showMessageRequest', () => null);
c.listen();
const waitFor = (method, pred = () => true) => new Promise((resolve) => waiters.push({ method, pred, resolve }));

t0 = performance.now();
await c.sendRequest('initialize', {
  processId: process.pid,
  rootUri: pathToFileURL(ws).href,
  workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'bench' }],
  capabilities: { workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true } }, window: { workDoneProgress: true } },
});
const done = waitFor('braid/status', (s) => s.state === 'done');
await c.sendNotification('initialized', {});
const status = await done;
console.log(`initial analysis: ${(performance.now() - t0).toFixed(0)} ms for ${status.executions.total} runs (${status.executions.failed} failed), ${status.patternCount} patterns, top score ${status.topScore.toFixed(3)}`);

const uri = pathToFileURL(path.join(srcDir, 'Big.java')).href;
const heat = await c.sendRequest('braid/patterns', { limit: 1 });
const hotLine = heat.patterns[0]?.accesses[0]?.line ?? 10;
function stats(xs) {
  xs.sort((a, b) => a - b);
  const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  return `n=${xs.length} mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3)} ms, p50 ${q(0.5).toFixed(3)}, p95 ${q(0.95).toFixed(3)}, p99 ${q(0.99).toFixed(3)}, max ${xs[xs.length - 1].toFixed(3)} ms`;
}
async function timeHovers(lines) {
  const xs = [];
  let nonNull = 0;
  for (let k = 0; k < HOVERS; k++) {
    const line = lines[k % lines.length];
    const s = performance.now();
    const h = await c.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: line - 1, character: 4 } });
    xs.push(performance.now() - s);
    if (h) nonNull++;
  }
  return { xs, nonNull };
}
// warm-up
await timeHovers([hotLine]);
const pattern = await timeHovers(Array.from({ length: LINES - 4 }, (_, k) => k + 3));
console.log(`hover on pattern lines (round trip over stdio): ${stats(pattern.xs)}; ${pattern.nonNull}/${HOVERS} had a hover`);
const hot = await timeHovers([hotLine]);
console.log(`hover on the top pattern's line ${hotLine}: ${stats(hot.xs)}`);
const clean = await timeHovers([1, 2, LINES]);
console.log(`hover on clean lines: ${stats(clean.xs)}; ${clean.nonNull} had a hover`);

// one more trace: only it is read
writeFileSync(path.join(traceDir, `r${RUNS}.trace.jsonl`), trace(RUNS));
t0 = performance.now();
const again = waitFor('braid/status', (s) => s.state === 'done' && s.executions.total === RUNS + 1);
await c.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(path.join(traceDir, `r${RUNS}.trace.jsonl`)).href, type: 1 }] });
await again;
console.log(`re-analysis after one new trace (incl. 200 ms debounce): ${(performance.now() - t0).toFixed(0)} ms`);
const during = await timeHovers([hotLine]);
console.log(`hover after re-analysis: ${stats(during.xs)}`);

await c.sendRequest('shutdown');
await c.sendNotification('exit');
await new Promise((r) => proc.once('exit', r));
c.dispose();
if (!process.env.BENCH_KEEP) rmSync(ws, { recursive: true, force: true });
