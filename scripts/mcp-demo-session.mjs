// A scripted agent session against `braid mcp` (issue 44, docs/agents.md): the official MCP SDK's client
// plays the agent on a copy of the demo program (test/fixtures/java/vectorcopy, `npm run demo`'s sample):
// find_root_cause → confirm pattern 1 → a wrong fix (volatile) → check_fix → the real fix → check_fix.
// Prints each call and its result as JSON lines (the transcript docs/agents.md quotes).
// Usage (after `npm run build`): node scripts/mcp-demo-session.mjs [--runs N] [--cli dist/braid.js] > transcript.jsonl
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 6;
const cliArg = process.argv.indexOf('--cli');
const cli = cliArg > 0 ? path.resolve(process.argv[cliArg + 1]) : path.join(root, 'dist/braid.js');
const project = mkdtempSync(path.join(tmpdir(), 'braid-mcp-demo-'));
mkdirSync(path.join(project, 'vectorcopy'));
const source = path.join(project, 'vectorcopy', 'VectorCopy.java');
cpSync(path.join(root, 'test/fixtures/java/vectorcopy/VectorCopy.java'), source);
const edit = (find, replace) => {
  const text = readFileSync(source, 'utf8');
  if (!text.includes(find)) throw new Error(`VectorCopy.java has no ${find}`);
  writeFileSync(source, text.replace(find, replace));
};

const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--root', project], stderr: 'inherit' });
const client = new Client({ name: 'scripted-agent', version: '1.0.0' });
await client.connect(transport);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
async function call(name, args) {
  const started = Date.now();
  let progress = 0;
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 1_800_000, resetTimeoutOnProgress: true, onprogress: () => progress++ });
  say({ call: name, arguments: args, seconds: Math.round((Date.now() - started) / 100) / 10, progressNotifications: progress, isError: r.isError ?? false, result: r.structuredContent ?? r.content?.[0]?.text });
  if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
  return r.structuredContent;
}

try {
  say({ project, tools: (await client.listTools()).tools.map((t) => t.name) });
  const found = await call('find_root_cause', {
    command: ['java', '-cp', 'classes', 'vectorcopy.VectorCopy'],
    build: ['javac', '-g', '-d', 'classes', 'vectorcopy/VectorCopy.java'],
    include: ['vectorcopy'],
    maxRuns: 100,
  });
  const recording = found.recording;
  await call('confirm', { recording, pattern: 1, runs });
  // the wrong fix an agent without runtime evidence proposes: make the fields volatile
  edit('    private int size;\n    private Object[] data;', '    private volatile int size;\n    private volatile Object[] data;');
  await call('check_fix', { recording, pattern: 1, runs });
  // the real fix: the copy reads size and data under the source's lock, and addAll holds it
  edit('      int n = other.size(); // (1) read other.size\n      Object[] copy = new Object[n];\n      for (int i = 0; i < n; i++) copy[i] = null; // clear the new slots\n      other.toArray(copy); // (2) read other.data',
    '      int n;\n      Object[] copy;\n      synchronized (other) {\n        n = other.size(); // (1) read other.size\n        copy = new Object[n];\n        other.toArray(copy); // (2) read other.data\n      }');
  edit('    void addAll(MyVector other) {', '    synchronized void addAll(MyVector other) {');
  await call('check_fix', { recording, pattern: 1, runs });
} finally {
  await client.close();
}
