// Recorder overhead benchmark (issue 4): time of a CPU-bound concurrent Java sample with the
// agent (noise off / on) divided by the time without it, and trace bytes per event.
// Usage: node bench/recorder-bench.mjs [--repeat 5]   (needs dist/braid-agent.jar and a JDK)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jar = path.join(root, 'dist', 'braid-agent.jar');
const out = path.join(root, 'bench', 'out', 'recorder');
const k = process.argv.indexOf('--repeat');
const repeat = k >= 0 ? Number(process.argv[k + 1]) : 5;
if (!existsSync(jar)) {
  console.error('recorder-bench: dist/braid-agent.jar is missing; run `npm run build` first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'src', 'benchrec'), { recursive: true });

// Four threads update striped counters and a shared array: field and array accesses, monitors.
writeFileSync(path.join(out, 'src', 'benchrec', 'Work.java'), `package benchrec;
public class Work {
  static final int THREADS = 4, N = Integer.parseInt(System.getProperty("n", "200000"));
  final long[] cells = new long[64];
  long total;
  static final class Counter { long value; }
  public static void main(String[] a) throws Exception {
    Work w = new Work();
    Counter[] counters = new Counter[THREADS];
    Thread[] ts = new Thread[THREADS];
    for (int t = 0; t < THREADS; t++) {
      final int id = t;
      counters[t] = new Counter();
      ts[t] = new Thread(() -> w.run(id, counters[id]));
    }
    long start = System.nanoTime();
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    System.out.println("ms " + (System.nanoTime() - start) / 1e6 + " total " + w.total);
  }
  void run(int id, Counter c) {
    long local = 0;
    for (int i = 0; i < N; i++) {
      c.value += i;
      int k = (i * 31 + id) & 63;
      local += cells[k];
      if ((i & 1023) == 0) synchronized (this) { cells[id * 8] = local; total += c.value; }
    }
  }
}
`);
const classes = path.join(out, 'classes');
const javac = spawnSync('javac', ['-d', classes, path.join(out, 'src', 'benchrec', 'Work.java')], { encoding: 'utf8' });
if (javac.status !== 0) {
  console.error(`recorder-bench: javac failed:\n${javac.stderr}`);
  process.exit(1);
}

const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function runOnce(agentOptions) {
  const args = [];
  let trace;
  if (agentOptions !== undefined) {
    trace = path.join(out, `t-${Date.now()}-${Math.random().toString(36).slice(2)}.trace.jsonl`);
    args.push(`-javaagent:${jar}=out=${trace},include=benchrec,${agentOptions}`);
  }
  args.push('-cp', classes, 'benchrec.Work');
  const t0 = process.hrtime.bigint();
  // CPU time (user + system) is also measured, with /usr/bin/time when present: on a loaded
  // machine it is steadier than wall time.
  const r = timeTool
    ? spawnSync(timeTool, ['-f', 'BRAIDCPU %U %S', 'java', ...args], { encoding: 'utf8' })
    : spawnSync('java', args, { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`benchmark run failed: ${r.stderr}`);
  let cpuMs = NaN;
  const m = /BRAIDCPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (m) cpuMs = (Number(m[1]) + Number(m[2])) * 1000;
  let bytes = 0;
  let events = 0;
  if (trace && existsSync(trace)) {
    bytes = statSync(trace).size;
    const text = readFileSync(trace, 'utf8');
    for (let i = text.indexOf('\n['); i >= 0; i = text.indexOf('\n[', i + 2)) events++;
    rmSync(trace);
  }
  return { ms, cpuMs, bytes, events };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(label, agentOptions) {
  const rs = [];
  for (let i = 0; i < repeat; i++) rs.push(runOnce(agentOptions));
  return { label, ms: median(rs.map((r) => r.ms)), cpuMs: median(rs.map((r) => r.cpuMs)), bytes: median(rs.map((r) => r.bytes)), events: median(rs.map((r) => r.events)) };
}

runOnce(undefined); // warm the file cache
const base = measure('uninstrumented', undefined);
const rows = [base, measure('agent, noise 0', 'noise=0,seed=1'), measure('agent, noise 0.01', 'noise=0.01,seed=1')];
console.log(`Recorder overhead (median of ${repeat} runs; whole JVM wall time, 4 threads x 200000 iterations)`);
console.log('| configuration | time (ms) | overhead | CPU (ms) | CPU overhead | events | trace MB | bytes/event |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const over = (r.ms / base.ms).toFixed(2) + 'x';
  const cpu = Number.isNaN(r.cpuMs) ? '-' : r.cpuMs.toFixed(0);
  const cpuOver = Number.isNaN(r.cpuMs) ? '-' : (r.cpuMs / base.cpuMs).toFixed(2) + 'x';
  const bpe = r.events ? (r.bytes / r.events).toFixed(1) : '-';
  console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${over} | ${cpu} | ${cpuOver} | ${r.events || '-'} | ${r.bytes ? (r.bytes / 1e6).toFixed(1) : '-'} | ${bpe} |`);
}
