/**
 * `npm run fuzz`: the fuzz campaign of the trace reader and the analysis
 * (issue 15; not part of `npm test`). Structure-aware mutations of real
 * traces (test/helpers/traceMutator.ts) go through the reader with the
 * UNICORN collector; every event line is also checked fast path vs
 * JSON.parse, every line of an accepted trace against the JSON Schema, and
 * batches of accepted mutants through the whole analysis (ranking + GRIFFIN).
 * Every 4th case is a structured input instead (issues 31 and 39; scripts/fuzzTargets.ts), the
 * targets in turn: a mutated summary (shard), workspace snapshot (header mutated or bytes flipped,
 * checksum recomputed), noise plan, recording manifest (recording.json), verdict file, excluded-runs
 * file, forcing plan, Java test source, JS/TS test source or inline source map: it must be refused
 * with a message, or used without anything throwing (each target's oracle: analysis + GRIFFIN, the
 * plan's hover lines, the manifest's output pattern on hostile output, test discovery within its
 * linear step budget, the Node.js transform, …).
 *
 *   npm run fuzz                       # 100,000 cases, seed 1
 *   npm run fuzz -- --cases 500000 --seed 7
 *   npm run fuzz -- --seed 7 --case 1234   # re-run one case, print its input
 *   npm run fuzz -- --target jsTests --cases 20000   # one structured target only (every case)
 *   npm run fuzz -- --target manifest --seed 39 --case 12   # one case of test/unit/fuzzTargets.test.ts
 *
 * Each case's input is a pure function of (seed, case number). Cases run in a
 * worker thread; a case that blocks for more than 10 s is cut off and the
 * campaign continues after it. Prints inputs tried, crashes (an exception or
 * an "unexpected error"), hangs (> 2 s), divergences (fast path vs JSON.parse)
 * and schema disagreements, and writes each failing input to
 * test-output/fuzz/. Exit code 1 when any of them is non-zero.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTraceBuffer } from '../server/src/engine/trace/traceReader';
import { analyzeTraceFiles } from '../server/src/engine/analysis';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { PatternRegistry } from '../server/src/engine/unicorn/patternRegistry';
import { UnicornCollector } from '../server/src/engine/unicorn/unicornCollector';
import { rng } from '../test/helpers/seededRandom';
import { buildTraceText } from '../test/helpers/traceBuilder';
import { fastVsJson, mutateTrace, traceLineSchema } from '../test/helpers/traceMutator';
import { checkTarget, prepareTargets, TARGETS, targetInput, type Target } from './fuzzTargets';

const root = path.resolve(__dirname, '..');
const HANG_MS = 2000;
const STALL_MS = 10000;
const STARTUP_MS = 120000;

function bases(): string[] {
  const dir = path.join(root, 'test/fixtures/traces/tablelog');
  const out = readdirSync(dir)
    .sort()
    .map((f) => readFileSync(path.join(dir, f), 'utf8'));
  out.push(
    buildTraceText({
      execution: 'fuzz',
      outcome: 'fail',
      events: Array.from({ length: 40 }, (_, k) => `${k % 3 ? 'W' : 'R'}${(k % 4) + 1} v${k % 5} S${(k % 9) + 1}${k % 7 === 0 ? ' @obj=3 @elem=2' : ''}`),
    }),
  );
  // every kind of line: stacks (both forms), ENTER/EXIT, locks, threads, values, uncaught, outcome lines
  out.push(
    [
      '{"braid":"trace","version":1,"execution":"rich","program":"P","recorder":{"name":"braid-java-agent","version":"0.1.0","options":{"noise":0.1,"seed":"7"}}}',
      '{"def":"thread","id":1,"name":"main"}',
      '{"def":"thread","id":2,"name":"worker"}',
      '{"def":"var","id":0,"name":"p.A.x","class":"p.A","field":"x"}',
      '{"def":"var","id":1,"name":"p.A.items[]","array":true}',
      '{"def":"loc","id":0,"file":"p/A.java","line":10,"method":"p.A.run"}',
      '{"def":"loc","id":1,"file":"p/A.java","line":20,"method":"p.A.inc"}',
      '{"def":"loc","id":2,"file":"p/A.java","line":30,"method":"p.A.get"}',
      '{"def":"stack","id":0,"frame":0}',
      '{"def":"stack","id":1,"parent":0,"frame":1}',
      '{"def":"stack","id":2,"frames":[0,2]}',
      '[1,1,"START",2,0]',
      '[2,1,"ACQ",99,1,1]',
      '[3,1,"R",0,1,1,5,null,1]',
      '[4,1,"W",0,1,1,5,null,2]',
      '[5,1,"REL",99,1,1]',
      '[6,2,"ENTER",0]',
      '[7,2,"ENTER",2]',
      '[8,2,"R",1,2,null,6,3,"s"]',
      '[9,2,"W",1,2,null,6,3,{"v":[1,2]}]',
      '[10,2,"EXIT",2]',
      '[11,2,"W",0,0,null,5]',
      '[12,2,"EXIT"]',
      '[13,2,"END"]',
      '[14,1,"JOIN",2,0]',
      '[15,1,"R",0,2,2,5]',
      '{"uncaught":{"thread":2,"exception":"java.lang.IllegalStateException","message":"x","frames":["p.A.get(A.java:30)"]}}',
      '{"outcome":"pass","reason":"ok"}',
      '{"outcome":"fail","reason":"exception","detail":"IllegalStateException"}',
    ].join('\n') + '\n',
  );
  return out;
}

interface Counts {
  tried: number;
  gzip: number;
  accepted: number;
  rejected: number;
  eventLines: number;
  fastAccepted: number;
  fastRejected: number;
  fastDeferred: number;
  schemaLines: number;
  analyses: number;
  crashes: number;
  hangs: number;
  divergences: number;
  schema: number;
  slowestMs: number;
  slowestCase: number;
  /** structured inputs (every 4th case) tried, and how many were used */
  structured: number;
  structuredAccepted: number;
}

type Failure = { kind: 'crash' | 'hang' | 'divergence' | 'schema'; n: number; why: string };

/** The structured target of case n: every 4th case, the targets in turn; every case with --target. */
function structuredKind(n: number, only?: Target): Target | undefined {
  if (only) return only;
  return n % 4 === 3 ? TARGETS[Math.floor(n / 4) % TARGETS.length] : undefined;
}

async function caseInput(seed: number, n: number, baseTraces: string[], only?: Target): Promise<{ name: string; data: Buffer; kind?: Target }> {
  // with --target, the numbers of test/unit/fuzzTargets.test.ts (so its failures re-run here)
  const r = rng(only ? (seed * 1000003 + n * 7919 + TARGETS.indexOf(only)) >>> 0 : (seed * 1000003 + n * 7919) >>> 0);
  const kind = structuredKind(n, only);
  if (kind) return { kind, ...(await targetInput(kind, r)) };
  const base = baseTraces[Math.floor(r() * baseTraces.length)];
  return mutateTrace(base, r);
}

async function runCases(seed: number, from: number, to: number, post: (m: unknown) => void, only?: Target): Promise<{ counts: Counts; failures: Failure[]; byTarget: Record<string, number> }> {
  const byTarget: Record<string, number> = {};
  const baseTraces = bases();
  const validate = traceLineSchema();
  const counts: Counts = emptyCounts();
  const failures: Failure[] = [];
  const fail = (f: Failure) => {
    counts[f.kind === 'crash' ? 'crashes' : f.kind === 'hang' ? 'hangs' : f.kind === 'divergence' ? 'divergences' : 'schema']++;
    if (failures.length < 200) failures.push(f);
  };
  // the structured targets' bases first, so the time they take is not counted to case `from`
  await prepareTargets();
  post({ type: 'ready' });
  const reg = new PatternRegistry();
  const batchDir = path.join(tmpdir(), `braid-fuzz-${process.pid}`);
  let batch: { name: string; data: Buffer }[] = [];
  for (let n = from; n < to; n++) {
    post({ type: 'case', n });
    const { name, data, kind } = await caseInput(seed, n, baseTraces, only);
    const file = name.replace('f.', `case${n}.`);
    counts.tried++;
    const t0 = performance.now();
    if (kind) {
      counts.structured++;
      byTarget[kind] = (byTarget[kind] ?? 0) + 1;
      try {
        if ((await checkTarget(kind, { name: file, data }, path.join(batchDir, 'structured'))) === 'accepted') counts.structuredAccepted++;
      } catch (e) {
        fail({ kind: 'crash', n, why: `${kind}: ${(e as Error)?.stack ?? String(e)}` });
      }
      const ms = performance.now() - t0;
      if (ms > counts.slowestMs) {
        counts.slowestMs = ms;
        counts.slowestCase = n;
      }
      if (ms > HANG_MS) fail({ kind: 'hang', n, why: `${kind} took ${ms.toFixed(0)} ms` });
      continue;
    }
    try {
      const collector = new UnicornCollector(reg, 5, 100);
      const res = await readTraceBuffer(file, data, collector);
      if (res.ok) {
        collector.finish();
        counts.accepted++;
      } else counts.rejected++;
      for (const d of res.diagnostics) {
        if (d.file !== file || !(typeof d.line === 'number' && d.line >= 1) || /unexpected error/.test(d.message)) {
          fail({ kind: 'crash', n, why: `bad diagnostic: ${JSON.stringify(d)}` });
          break;
        }
      }
      if (!res.ok && !res.diagnostics.some((d) => d.severity === 'error')) fail({ kind: 'crash', n, why: 'skipped without an error' });
      if (name.endsWith('.gz')) counts.gzip++;
      else {
        const text = data.toString('utf8');
        const lines = text.split('\n');
        for (const line of lines) {
          const t = line.trim();
          if (t.startsWith('[')) {
            counts.eventLines++;
            const v = fastVsJson(line);
            if (!v.agree) fail({ kind: 'divergence', n, why: `${JSON.stringify(line)}: ${v.why}` });
            else if (v.fast === 'accept') counts.fastAccepted++;
            else if (v.fast === 'reject') counts.fastRejected++;
            else counts.fastDeferred++;
          }
        }
        if (res.ok && res.diagnostics.length === 0) {
          for (let k = 0; k < lines.length; k++) {
            const t = (k === 0 ? lines[k].replace(/^\uFEFF/, '') : lines[k]).replace(/^[ \t\r]+|[ \t\r]+$/g, '');
            if (!t) continue;
            counts.schemaLines++;
            let v: unknown;
            try {
              v = JSON.parse(t);
            } catch {
              fail({ kind: 'schema', n, why: `accepted line is not JSON: ${t.slice(0, 200)}` });
              continue;
            }
            if (!validate(v)) fail({ kind: 'schema', n, why: `accepted line fails the schema: ${t.slice(0, 200)}` });
          }
        }
        if (res.ok && batch.length < 40) batch.push({ name: file, data });
      }
    } catch (e) {
      fail({ kind: 'crash', n, why: (e as Error)?.stack ?? String(e) });
    }
    const ms = performance.now() - t0;
    if (ms > counts.slowestMs) {
      counts.slowestMs = ms;
      counts.slowestCase = n;
    }
    if (ms > HANG_MS) fail({ kind: 'hang', n, why: `took ${ms.toFixed(0)} ms` });
    // the whole analysis (ranking + GRIFFIN) on a folder of accepted mutants
    if (batch.length >= 40 || (n === to - 1 && batch.length)) {
      rmSync(batchDir, { recursive: true, force: true });
      mkdirSync(batchDir, { recursive: true });
      for (const b of batch) writeFileSync(path.join(batchDir, b.name), b.data);
      try {
        const t1 = performance.now();
        const result = await analyzeTraceFiles([batchDir]);
        explainBugs(undefined, result);
        JSON.stringify(result);
        counts.analyses++;
        const ms2 = performance.now() - t1;
        if (ms2 > HANG_MS * 5) fail({ kind: 'hang', n, why: `analysis of ${batch.length} accepted mutants took ${ms2.toFixed(0)} ms` });
      } catch (e) {
        fail({ kind: 'crash', n, why: `analysis of cases up to ${n}: ${(e as Error)?.stack ?? e}` });
      }
      batch = [];
    }
    if ((n - from) % 5000 === 4999) post({ type: 'progress', done: n - from + 1 });
  }
  rmSync(batchDir, { recursive: true, force: true });
  return { counts, failures, byTarget };
}

function add(a: Counts, b: Counts): Counts {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof Counts)[]) {
    if (k === 'slowestMs' || k === 'slowestCase') continue;
    out[k] += b[k];
  }
  if (b.slowestMs > a.slowestMs) {
    out.slowestMs = b.slowestMs;
    out.slowestCase = b.slowestCase;
  }
  return out;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string, dflt: number) => {
    const k = argv.indexOf(name);
    return k >= 0 ? Number(argv[k + 1]) : dflt;
  };
  const cases = opt('--cases', 100000);
  const seed = opt('--seed', 1);
  const one = opt('--case', -1);
  const t = argv.indexOf('--target');
  const only = t >= 0 ? (argv[t + 1] as Target) : undefined;
  if (only !== undefined && !TARGETS.includes(only)) {
    console.error(`fuzz: --target must be one of ${TARGETS.join(', ')} (got ${JSON.stringify(argv[t + 1] ?? '')})`);
    process.exitCode = 2;
    return;
  }
  const failDir = path.join(root, 'test-output', 'fuzz');
  if (one >= 0) {
    const { name, data } = await caseInput(seed, one, bases(), only);
    process.stdout.write(`case ${one} (${name}, ${data.length} bytes):\n${name.endsWith('.gz') || name.endsWith('snapshot') ? data.toString('base64') : data.toString('utf8')}\n`);
    const r = await runCases(seed, one, one + 1, () => {}, only);
    console.log(JSON.stringify(r, null, 2));
    return;
  }
  const started = Date.now();
  let total: Counts | undefined;
  const byTarget: Record<string, number> = {};
  const failures: Failure[] = [];
  let next = 0;
  console.log(
    only
      ? `fuzz: ${cases.toLocaleString('en')} mutated inputs of ${only}, seed ${seed}`
      : `fuzz: ${cases.toLocaleString('en')} mutated inputs, seed ${seed} (traces: reader + UNICORN per case; fast path vs JSON.parse per event line; schema per accepted line; ranking + GRIFFIN per 40 accepted; every 4th case a structured input: ${TARGETS.join(', ')} in turn)`,
  );
  while (next < cases) {
    const from = next;
    let current = from;
    const result = await new Promise<{ counts: Counts; failures: Failure[]; byTarget: Record<string, number> } | undefined>((resolve, reject) => {
      // the worker loads this file through tsx's CommonJS hook
      const w = new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true, workerData: { seed, from, to: cases, only } });
      // until the worker is ready (tsx, the targets' bases), a start-up allowance instead of STALL_MS
      let last = Date.now();
      let ready = false;
      const timer = setInterval(() => {
        if (Date.now() - last > (ready ? STALL_MS : STARTUP_MS)) {
          clearInterval(timer);
          void w.terminate();
          resolve(undefined);
        }
      }, 500);
      w.on('message', (m: { type: string; n?: number; done?: number; result?: { counts: Counts; failures: Failure[]; byTarget: Record<string, number> } }) => {
        last = Date.now();
        if (m.type === 'ready') ready = true;
        else if (m.type === 'case') current = m.n!;
        else if (m.type === 'progress') process.stderr.write(`  … ${(from + m.done!).toLocaleString('en')} cases\n`);
        else if (m.type === 'done') {
          clearInterval(timer);
          resolve(m.result);
        }
      });
      w.on('error', (e) => {
        clearInterval(timer);
        reject(e);
      });
    });
    if (!result) {
      // the case blocked the worker: a hang; go on after it
      failures.push({ kind: 'hang', n: current, why: `blocked for more than ${STALL_MS / 1000} s` });
      total = add(total ?? emptyCounts(), { ...emptyCounts(), tried: current - from + 1, hangs: 1 });
      next = current + 1;
      continue;
    }
    total = add(total ?? emptyCounts(), result.counts);
    for (const [k, v] of Object.entries(result.byTarget)) byTarget[k] = (byTarget[k] ?? 0) + v;
    failures.push(...result.failures);
    next = cases;
  }
  const c = total!;
  const secs = (Date.now() - started) / 1000;
  if (failures.length) {
    mkdirSync(failDir, { recursive: true });
    const baseTraces = bases();
    for (const f of failures.slice(0, 50)) {
      const { name, data, kind } = await caseInput(seed, f.n, baseTraces, only);
      writeFileSync(path.join(failDir, `${f.kind}-seed${seed}-case${f.n}.${kind ? `${kind}.${path.basename(name).replace(/^f\./, '')}` : name.endsWith('.gz') ? 'trace.jsonl.gz' : 'trace.jsonl'}`), data);
      console.log(`  ${f.kind} case ${f.n}: ${f.why.split('\n')[0].slice(0, 300)}`);
    }
    console.log(`  failing inputs written to ${path.relative(process.cwd(), failDir)}/ (re-run one: npm run fuzz -- --seed ${seed} --case N)`);
  }
  console.log(
    [
      `inputs tried         ${c.tried.toLocaleString('en')} (${c.gzip.toLocaleString('en')} gzip; accepted ${c.accepted.toLocaleString('en')}, rejected with file:line errors ${c.rejected.toLocaleString('en')})`,
      `event lines checked  ${c.eventLines.toLocaleString('en')} fast path vs JSON.parse (fast path accepted ${c.fastAccepted.toLocaleString('en')}, rejected ${c.fastRejected.toLocaleString('en')}, deferred to JSON ${c.fastDeferred.toLocaleString('en')})`,
      `schema checks        ${c.schemaLines.toLocaleString('en')} lines of accepted traces`,
      `whole analyses       ${c.analyses.toLocaleString('en')} (ranking + GRIFFIN on 40 accepted mutants each)`,
      `structured inputs    ${c.structured.toLocaleString('en')} (${TARGETS.filter((k) => byTarget[k]).map((k) => `${k} ${byTarget[k].toLocaleString('en')}`).join(', ') || 'none'}); ${c.structuredAccepted.toLocaleString('en')} used, the rest refused with a message`,
      `crashes              ${c.crashes}`,
      `hangs (> ${HANG_MS / 1000} s)        ${c.hangs}`,
      `divergences          ${c.divergences}`,
      `schema disagreements ${c.schema}`,
      `slowest case         ${c.slowestMs.toFixed(0)} ms (case ${c.slowestCase})`,
      `time                 ${secs.toFixed(0)} s`,
    ].join('\n'),
  );
  process.exitCode = c.crashes + c.hangs + c.divergences + c.schema > 0 ? 1 : 0;
}

function emptyCounts(): Counts {
  return { tried: 0, gzip: 0, accepted: 0, rejected: 0, eventLines: 0, fastAccepted: 0, fastRejected: 0, fastDeferred: 0, schemaLines: 0, analyses: 0, crashes: 0, hangs: 0, divergences: 0, schema: 0, slowestMs: 0, slowestCase: -1, structured: 0, structuredAccepted: 0 };
}

if (isMainThread) {
  void main();
} else {
  const { seed, from, to, only } = workerData as { seed: number; from: number; to: number; only?: Target };
  void runCases(seed, from, to, (m) => parentPort!.postMessage(m), only).then((result) => parentPort!.postMessage({ type: 'done', result }));
}
