// Recorder cost of call sites and library calls (issue 11): a call-heavy program (15 M calls of
// small application methods, 1.5 M calls of ArrayList methods) run without the agent, with the
// agent and libraryCalls=false (call-site hooks only), and with the default agent (library calls
// recorded as accesses). Prints median in-program time and trace events of each.
// Usage: node bench/recorder-calls-bench.mjs [--repeat 5]   (needs dist/braid-agent.jar and a JDK)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jar = path.join(root, 'dist', 'braid-agent.jar');
const out = path.join(root, 'bench', 'out', 'recorder-calls');
const k = process.argv.indexOf('--repeat');
const repeat = k >= 0 ? Number(process.argv[k + 1]) : 5;
if (!existsSync(jar)) {
  console.error('recorder-calls-bench: dist/braid-agent.jar is missing; run `npm run build` first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'src', 'benchcalls'), { recursive: true });
writeFileSync(path.join(out, 'src', 'benchcalls', 'Calls.java'), `package benchcalls;
import java.util.ArrayList;
import java.util.List;
public class Calls {
  static int shared;
  static int leaf(int x) { return (x * 31) ^ (x >>> 3); }
  static int mid(int x) { return leaf(x) + leaf(x + 1); }
  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]);
    long t0 = System.nanoTime();
    int acc = 0;
    for (int i = 0; i < n; i++) {
      acc += mid(i);
      if (i % 1000 == 0) shared += acc;
    }
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < n / 10; i++) list.add(i);
    long sum = 0;
    for (int i = 0; i < list.size(); i++) sum += list.get(i);
    System.out.println("ms " + (System.nanoTime() - t0) / 1e6 + " " + acc + " " + sum);
  }
}
`);
const classes = path.join(out, 'classes');
const javac = spawnSync('javac', ['-d', classes, path.join(out, 'src', 'benchcalls', 'Calls.java')], { encoding: 'utf8' });
if (javac.status !== 0) {
  console.error(`recorder-calls-bench: javac failed:\n${javac.stderr}`);
  process.exit(1);
}
const N = 5_000_000;
function runOnce(agentOptions) {
  const args = [];
  const trace = path.join(out, 't.trace.jsonl');
  rmSync(trace, { force: true });
  if (agentOptions !== undefined) args.push(`-javaagent:${jar}=out=${trace},noise=0${agentOptions ? ',' + agentOptions : ''}`);
  args.push('-cp', classes, 'benchcalls.Calls', String(N));
  const r = spawnSync('java', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`benchmark run failed: ${r.stderr}`);
  const ms = Number(/ms ([\d.]+)/.exec(r.stdout)[1]);
  const events = agentOptions === undefined ? 0 : readFileSync(trace, 'utf8').split('\n').filter((l) => l.startsWith('[')).length;
  return { ms, events };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [
  ['no agent', undefined],
  ['agent, libraryCalls=false (call-site hooks)', 'libraryCalls=false'],
  ['agent, default (library calls recorded)', ''],
];
const results = [];
for (const [label, opts] of rows) {
  const runs = [];
  for (let r = 0; r < repeat; r++) runs.push(runOnce(opts));
  results.push({ label, ms: median(runs.map((x) => x.ms)), events: runs[0].events });
}
console.log(`recorder call-site cost: ${N / 1e6 * 3} M application calls, ${N / 1e7 * 3} M ArrayList calls, median of ${repeat}`);
for (const r of results) console.log(`  ${r.label.padEnd(48)} ${r.ms.toFixed(0).padStart(6)} ms  ${String(r.events).padStart(9)} events`);
const [, hooks, lib] = results;
console.log(`  library-call events: ${((lib.ms - hooks.ms) * 1e6 / Math.max(1, lib.events - hooks.events)).toFixed(0)} ns each (in-program time)`);
