// Recorder benchmark (issues 4, 12). Prints, median of --repeat runs:
//   - ns per recorded event on the application thread: the loop's thread CPU time with the agent
//     minus without it, divided by that thread's events (4 threads; CPU time, so machine load
//     matters little);
//   - end-to-end overhead: whole JVM wall and CPU time with the agent (noise 0 and 0.01) / without;
//   - bytes per event on disk (trace file size / events), plain and gzip (agent option gzip);
//   - per-run fixed cost: wall time of a tiny program (a few events) with the agent minus without.
// Usage: node bench/recorder-bench.mjs [--repeat 5] [--n 200000] [--jar other-agent.jar]   (needs dist/braid-agent.jar and a JDK)
//        node bench/recorder-bench.mjs --paired before.jar [--repeat 5]: paired, alternating rounds (plain,
//        before.jar, this jar with filter=off, this jar): per round one run of each, in that order, so that
//        the machine's load hits all alike; prints medians. ns per access divides by the accesses the
//        program makes (the events of before.jar's run), not by the events written, which the filter lessens.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jarArg = process.argv.indexOf('--jar');
// --jar: another agent build (e.g. an older one, for a before/after comparison in one session)
const jar = jarArg >= 0 ? path.resolve(process.argv[jarArg + 1]) : path.join(root, 'dist', 'braid-agent.jar');
const out = path.join(root, 'bench', 'out', 'recorder');
const arg = (name, fallback) => {
  const k = process.argv.indexOf(name);
  return k >= 0 ? Number(process.argv[k + 1]) : fallback;
};
const repeat = arg('--repeat', 5);
const n = arg('--n', 200000);
if (!existsSync(jar)) {
  console.error('recorder-bench: dist/braid-agent.jar is missing; run `npm run build` first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'src', 'benchrec'), { recursive: true });

// Four threads update striped counters and a shared array: field and array accesses, monitors.
// Each thread prints the CPU time of its loop.
writeFileSync(path.join(out, 'src', 'benchrec', 'Work.java'), `package benchrec;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
public class Work {
  static final int THREADS = 4, N = Integer.parseInt(System.getProperty("n", "200000"));
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  final long[] cells = new long[64];
  long total;
  static final class Counter { long value; }
  public static void main(String[] a) throws Exception {
    Work w = new Work();
    Counter[] counters = new Counter[THREADS];
    Thread[] ts = new Thread[THREADS];
    long[] cpu = new long[THREADS];
    for (int t = 0; t < THREADS; t++) {
      final int id = t;
      counters[t] = new Counter();
      ts[t] = new Thread(() -> {
        long c0 = MX.getCurrentThreadCpuTime();
        w.run(id, counters[id]);
        cpu[id] = MX.getCurrentThreadCpuTime() - c0;
      });
    }
    long start = System.nanoTime();
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    StringBuilder b = new StringBuilder("loopcpu");
    for (long c : cpu) b.append(' ').append(c);
    System.out.println(b);
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
// A tiny program: the per-run fixed cost (JVM start-up with the agent, instrumentation, writer).
writeFileSync(path.join(out, 'src', 'benchrec', 'Tiny.java'), `package benchrec;
public class Tiny {
  static int x;
  public static void main(String[] a) throws Exception {
    Thread t = new Thread(() -> { for (int i = 0; i < 10; i++) x++; });
    t.start();
    for (int i = 0; i < 10; i++) x++;
    t.join();
    System.out.println(x > 0 ? "ok" : "?");
  }
}
`);
const classes = path.join(out, 'classes');
const javac = spawnSync('javac', ['-d', classes, path.join(out, 'src', 'benchrec', 'Work.java'), path.join(out, 'src', 'benchrec', 'Tiny.java')], { encoding: 'utf8' });
if (javac.status !== 0) {
  console.error(`recorder-bench: javac failed:\n${javac.stderr}`);
  process.exit(1);
}

let jarInUse = jar;
const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function runOnce(main, agentOptions, jvm = []) {
  const args = [...jvm, `-Dn=${n}`];
  let trace;
  if (agentOptions !== undefined) {
    trace = path.join(out, `t-${Date.now()}-${Math.random().toString(36).slice(2)}.trace.jsonl`);
    args.push(`-javaagent:${jarInUse}=out=${trace},include=benchrec${agentOptions ? ',' + agentOptions : ''}`);
  }
  args.push('-cp', classes, main);
  const t0 = process.hrtime.bigint();
  // CPU time (user + system) of the whole JVM, with /usr/bin/time when present.
  const r = timeTool
    ? spawnSync(timeTool, ['-f', 'BRAIDCPU %U %S', 'java', ...args], { encoding: 'utf8' })
    : spawnSync('java', args, { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`benchmark run failed: ${r.stderr}`);
  let cpuMs = NaN;
  const m = /BRAIDCPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (m) cpuMs = (Number(m[1]) + Number(m[2])) * 1000;
  const lc = /loopcpu ([\d ]+)/.exec(r.stdout ?? '');
  const loopCpu = lc ? lc[1].trim().split(' ').map(Number) : [];
  let bytes = 0;
  let events = 0;
  for (const f of trace ? [trace, `${trace}.gz`] : []) {
    if (!existsSync(f)) continue;
    bytes = statSync(f).size;
    const raw = readFileSync(f);
    // counted in the bytes: a trace over 512 MB (--n 1000000) is longer than a string may be
    const data = f.endsWith('.gz') ? gunzipSync(raw) : raw;
    for (let i = data.indexOf('\n['); i >= 0; i = data.indexOf('\n[', i + 2)) events++;
    rmSync(f);
  }
  return { ms, cpuMs, bytes, events, loopCpu };
}

/** Runs with another agent jar (runOnce takes the module's jar). */
function runWith(agentJar, main, agentOptions) {
  const saved = jarInUse;
  jarInUse = agentJar;
  try {
    return runOnce(main, agentOptions);
  } finally {
    jarInUse = saved;
  }
}

function paired(before) {
  const configs = [
    { label: 'plain java', jar: undefined, options: undefined },
    { label: `before (${path.basename(before)}), noise 0`, jar: before, options: 'noise=0,seed=1' },
    { label: 'this agent, filter=off, noise 0', jar, options: 'noise=0,seed=1,filter=off' },
    { label: 'this agent (filter on), noise 0', jar, options: 'noise=0,seed=1' },
  ];
  runOnce('benchrec.Work', undefined); // warm the file cache
  const rows = configs.map(() => []);
  for (let round = 0; round < repeat; round++) {
    configs.forEach((c, k) => rows[k].push(c.jar ? runWith(c.jar, 'benchrec.Work', c.options) : runOnce('benchrec.Work', undefined)));
  }
  const m = rows.map((rs) => ({
    ms: median(rs.map((r) => r.ms)),
    cpuMs: median(rs.map((r) => r.cpuMs)),
    bytes: median(rs.map((r) => r.bytes)),
    events: median(rs.map((r) => r.events)),
    loopCpu: median(rs.flatMap((r) => r.loopCpu)),
  }));
  // every access the program makes: the most events any configuration wrote (filter=off writes every
  // access; the older jar may already have the filter)
  const accesses = Math.max(...m.slice(1).map((r) => r.events));
  console.log(`Paired, alternating runs (${repeat} rounds; 4 threads x ${n} iterations; medians)`);
  console.log('| configuration | wall (ms) | end to end | CPU (ms) | events written | bytes/access | app-thread ns/access |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  configs.forEach((c, k) => {
    const r = m[k];
    const e2e = (r.ms / m[0].ms).toFixed(2) + 'x';
    const ns = k === 0 ? '-' : ((r.loopCpu - m[0].loopCpu) / (accesses / 4)).toFixed(1);
    const bpa = k === 0 ? '-' : (r.bytes / accesses).toFixed(1);
    console.log(`| ${c.label} | ${r.ms.toFixed(0)} | ${e2e} | ${Number.isNaN(r.cpuMs) ? '-' : r.cpuMs.toFixed(0)} | ${r.events || '-'} | ${bpa} | ${ns} |`);
  });
}

function median(xs) {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

function measure(label, main, agentOptions, jvm) {
  const rs = [];
  for (let i = 0; i < repeat; i++) rs.push(runOnce(main, agentOptions, jvm));
  return {
    label,
    ms: median(rs.map((r) => r.ms)),
    cpuMs: median(rs.map((r) => r.cpuMs)),
    bytes: median(rs.map((r) => r.bytes)),
    events: median(rs.map((r) => r.events)),
    loopCpu: median(rs.flatMap((r) => r.loopCpu)),
  };
}

const pairedArg = process.argv.indexOf('--paired');
if (pairedArg >= 0) {
  const before = path.resolve(process.argv[pairedArg + 1]);
  if (!existsSync(before)) {
    console.error(`recorder-bench: --paired ${before}: no such agent jar`);
    process.exit(1);
  }
  paired(before);
  process.exit(0);
}

runOnce('benchrec.Work', undefined); // warm the file cache
const base = measure('uninstrumented', 'benchrec.Work', undefined);
const quiet = measure('agent, noise 0', 'benchrec.Work', 'noise=0,seed=1');
const noisy = measure('agent, noise 0.01', 'benchrec.Work', 'noise=0.01,seed=1');
const noValues = measure('agent, noise 0, values=false', 'benchrec.Work', 'noise=0,seed=1,values=false');
const gz = measure('agent, noise 0, gzip', 'benchrec.Work', 'noise=0,seed=1,gzip=true');
const rows = [base, quiet, noisy, noValues, gz];
console.log(`Recorder overhead (median of ${repeat} runs; 4 threads x ${n} iterations; whole JVM wall and CPU time)`);
console.log('| configuration | time (ms) | overhead | CPU (ms) | CPU overhead | events | trace MB | bytes/event | app-thread ns/event |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const over = (r.ms / base.ms).toFixed(2) + 'x';
  const cpu = Number.isNaN(r.cpuMs) ? '-' : r.cpuMs.toFixed(0);
  const cpuOver = Number.isNaN(r.cpuMs) ? '-' : (r.cpuMs / base.cpuMs).toFixed(2) + 'x';
  const bpe = r.events ? (r.bytes / r.events).toFixed(1) : '-';
  // events of one loop thread: the trace's events / 4 (main's few events are negligible)
  const nsPerEvent = r.events ? ((r.loopCpu - base.loopCpu) / (r.events / 4)).toFixed(1) : '-';
  console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${over} | ${cpu} | ${cpuOver} | ${r.events || '-'} | ${r.bytes ? (r.bytes / 1e6).toFixed(1) : '-'} | ${bpe} | ${nsPerEvent} |`);
}

const tinyBase = measure('plain java', 'benchrec.Tiny', undefined);
const tinyAgent = measure('with the agent', 'benchrec.Tiny', 'noise=0,seed=1');
console.log(`\nPer-run fixed cost (tiny program, 2 threads x 10 events; median of ${repeat} runs)`);
console.log('| configuration | wall (ms) | CPU (ms) |');
console.log('|---|---:|---:|');
for (const r of [tinyBase, tinyAgent]) console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${r.cpuMs.toFixed(0)} |`);
console.log(`fixed cost: +${(tinyAgent.ms - tinyBase.ms).toFixed(0)} ms wall, +${(tinyAgent.cpuMs - tinyBase.cpuMs).toFixed(0)} ms CPU per run`);
console.log(`\nSummary: app-thread ${((quiet.loopCpu - base.loopCpu) / (quiet.events / 4)).toFixed(1)} ns/event (target ≤ 40); ` +
  `end-to-end ${(quiet.ms / base.ms).toFixed(2)}x without noise, ${(noisy.ms / base.ms).toFixed(2)}x with noise 0.01 (target ≤ 5x without); ` +
  `${(quiet.bytes / quiet.events).toFixed(1)} bytes/event plain, ${(gz.bytes / gz.events).toFixed(1)} gzip (target ≤ 12); ` +
  `fixed cost +${(tinyAgent.ms - tinyBase.ms).toFixed(0)} ms per run (target ≤ 100)`);
