/**
 * Deterministic generator of synthetic traces for benchmarks: several
 * threads run bursts of accesses (a context switch every 1–40 accesses) over
 * a set of objects and fields with locality, with lock, method and thread
 * events mixed in, and — in failing runs — an injected multi-variable
 * atomicity bug (P9 on TABLE/LOG) every few thousand events.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rng } from '../test/helpers/seededRandom';

export interface GeneratorOptions {
  events: number;
  threads?: number;
  objects?: number;
  fields?: number;
  seed?: number;
  outcome?: 'pass' | 'fail';
  execution?: string;
}

export async function generateTrace(file: string, o: GeneratorOptions): Promise<number> {
  const threads = o.threads ?? 4;
  const objects = o.objects ?? 64;
  const fields = o.fields ?? 8;
  const r = rng(o.seed ?? 42);
  const out = createWriteStream(file, { highWaterMark: 1 << 22 });
  let buf = '';
  const flush = async () => {
    if (!out.write(buf)) await once(out, 'drain');
    buf = '';
  };
  buf += JSON.stringify({ braid: 'trace', version: 1, execution: o.execution ?? 'synthetic', outcome: o.outcome ?? 'fail', program: 'synthetic', recorder: { name: 'bench-generator', options: { seed: o.seed ?? 42 } } }) + '\n';
  for (let t = 1; t <= threads; t++) buf += JSON.stringify({ def: 'thread', id: t, name: `worker-${t}` }) + '\n';
  for (let f = 0; f < fields; f++) buf += JSON.stringify({ def: 'var', id: f, name: `bench.Shared.f${f}` }) + '\n';
  buf += JSON.stringify({ def: 'var', id: fields, name: 'bench.Db.TABLE' }) + '\n';
  buf += JSON.stringify({ def: 'var', id: fields + 1, name: 'bench.Db.LOG' }) + '\n';
  const LINES = 200;
  for (let l = 0; l < LINES; l++) buf += JSON.stringify({ def: 'loc', id: l, file: 'bench/Shared.java', line: 10 + l, method: `bench.Shared.m${l >> 4}` }) + '\n';
  buf += JSON.stringify({ def: 'loc', id: LINES, file: 'bench/Db.java', line: 11, method: 'bench.Db.insert' }) + '\n';
  buf += JSON.stringify({ def: 'loc', id: LINES + 1, file: 'bench/Db.java', line: 12, method: 'bench.Db.insert' }) + '\n';
  buf += JSON.stringify({ def: 'loc', id: LINES + 2, file: 'bench/Db.java', line: 21, method: 'bench.Db.remove' }) + '\n';
  buf += JSON.stringify({ def: 'loc', id: LINES + 3, file: 'bench/Db.java', line: 22, method: 'bench.Db.remove' }) + '\n';
  for (let s = 0; s < 16; s++) buf += JSON.stringify({ def: 'stack', id: s, frames: [s * 12 % LINES, (s * 7 + 3) % LINES] }) + '\n';
  const hot = Array.from({ length: 16 }, () => [Math.floor(r() * objects) + 1, Math.floor(r() * fields)]);
  let i = 0;
  let t = 1;
  let burst = 0;
  let n = 0;
  const bug = o.outcome !== 'pass';
  while (n < o.events) {
    if (burst === 0) {
      t = 1 + ((t + Math.floor(r() * (threads - 1))) % threads);
      burst = 1 + Math.floor(r() * 40);
    }
    burst--;
    const x = r();
    if (bug && n % 5000 === 4999 && n + 4 <= o.events) {
      // injected P9: W1(TABLE) W2(TABLE) W2(LOG) W1(LOG) on object 0
      buf += `[${++i},1,"W",${fields},${LINES},0,0]\n[${++i},2,"W",${fields},${LINES + 2},0,0]\n[${++i},2,"W",${fields + 1},${LINES + 3},0,0]\n[${++i},1,"W",${fields + 1},${LINES + 1},0,0]\n`;
      n += 4;
    } else if (x < 0.03) {
      buf += `[${++i},${t},"ACQ",${1000 + (t % 3)},${Math.floor(r() * LINES)}]\n[${++i},${t},"REL",${1000 + (t % 3)}]\n`;
      n += 2;
    } else {
      let obj: number, fld: number;
      if (r() < 0.7) [obj, fld] = hot[Math.floor(r() * hot.length)];
      else {
        obj = Math.floor(r() * objects) + 1;
        fld = Math.floor(r() * fields);
      }
      const w = r() < 0.3;
      // a field is accessed at a handful of statements (per type and thread group)
      const line = fld * 6 + (w ? 3 : 0) + (t % 3);
      buf += `[${++i},${t},"${w ? 'W' : 'R'}",${fld},${line},${(line + t) & 15},${obj}]\n`;
      n++;
    }
    if (buf.length > 1 << 20) await flush();
  }
  await flush();
  out.end();
  await once(out, 'finish');
  return n;
}

// CLI: node --import tsx bench/syntheticTraceGenerator.ts FILE EVENTS [pass|fail] [seed]
if (process.argv[1]?.endsWith('syntheticTraceGenerator.ts')) {
  const [file, events, outcome, seed] = process.argv.slice(2);
  generateTrace(file, { events: Number(events), outcome: (outcome as 'pass' | 'fail') ?? 'fail', seed: seed ? Number(seed) : 7 }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

export interface RandomWorkloadOptions {
  events: number;
  threads?: number;
  variables?: number;
  /** statements (locations) accesses are spread over */
  lines?: number;
  /** longest run of accesses by one thread before a context switch (1: every event switches at random) */
  burst?: number;
  seed?: number;
  outcome?: 'pass' | 'fail';
  execution?: string;
}

/**
 * The issue-14 "random workload": every event is a read or write of a
 * uniformly random variable at a uniformly random statement by a random
 * thread (running bursts of 1–`burst` accesses) — no locality, so almost
 * every access pair is a new pattern (about one distinct pattern per event
 * with 8 threads and 2,000 variables).
 * It stresses ranking, describing, reporting and GRIFFIN, not the hot path.
 */
export async function generateRandomTrace(file: string, o: RandomWorkloadOptions): Promise<number> {
  const threads = o.threads ?? 8;
  const variables = o.variables ?? 2000;
  const lines = o.lines ?? 400;
  const r = rng(o.seed ?? 42);
  const out = createWriteStream(file, { highWaterMark: 1 << 22 });
  let buf = '';
  const flush = async () => {
    if (!out.write(buf)) await once(out, 'drain');
    buf = '';
  };
  buf += JSON.stringify({ braid: 'trace', version: 1, execution: o.execution ?? 'random', outcome: o.outcome ?? 'fail', program: 'random', recorder: { name: 'bench-generator', options: { seed: o.seed ?? 42 } } }) + '\n';
  for (let t = 1; t <= threads; t++) buf += JSON.stringify({ def: 'thread', id: t, name: `worker-${t}` }) + '\n';
  for (let v = 0; v < variables; v++) buf += JSON.stringify({ def: 'var', id: v, name: `bench.Random.v${v}` }) + '\n';
  for (let l = 0; l < lines; l++) buf += JSON.stringify({ def: 'loc', id: l, file: 'bench/Random.java', line: 10 + l, method: `bench.Random.m${l >> 4}` }) + '\n';
  const maxBurst = o.burst ?? 40;
  let t = 1;
  let burst = 0;
  for (let i = 1; i <= o.events; i++) {
    if (burst === 0) {
      t = 1 + Math.floor(r() * threads);
      burst = 1 + Math.floor(r() * maxBurst);
    }
    burst--;
    const v = Math.floor(r() * variables);
    buf += `[${i},${t},"${r() < 0.5 ? 'W' : 'R'}",${v},${Math.floor(r() * lines)}]\n`;
    if (buf.length > 1 << 20) await flush();
  }
  await flush();
  out.end();
  await once(out, 'finish');
  return o.events;
}
