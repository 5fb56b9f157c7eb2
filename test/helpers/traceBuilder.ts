/**
 * Builds trace files (format v1) from a compact notation for tests:
 *   'W1 TABLE S1'  = thread 1 writes TABLE at statement S1 (line 1)
 *   'R2 x S7 @obj=5' = thread 2 reads x of object 5 at line 7
 * Statement Sn maps to line n of Fixture.java; the method is `m<n>` unless given.
 * More access options: @file=F (source file), @harness (test code),
 * @call=java.util.HashMap.put (a library call), @value=V (the value read or written: null,
 * undefined — the Node.js recorder's "undefined" —, a JSON value, else a string), @from=File.java:LINE:method
 * (a caller frame: the stack is [caller, access]; several callers, bottom first, joined by `>`:
 * @from=D.java:5:p.D.main>D.java:9:p.D.lambda$main$0; a caller marked test code ends in `:H`).
 * `program` sets the header's program (the entry class; default `fixture`).
 * Synchronisation and failures: 'START1 2' (thread 1 starts 2), 'JOIN1 2',
 * 'SND1 7' / 'RCV2 7' (hand-off token 7), 'FAIL2' (failure point), 'OUT1 text'.
 * Locks: 'ACQ1 9 S3' (thread 1 acquires lock 9 at line 3), 'REL1 9 S4'.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface BuiltTrace {
  execution: string;
  outcome?: 'pass' | 'fail';
  events: string[];
  /** the header's `program` (default `fixture`) */
  program?: string;
  /** the header's `recorder.name` (default: none) */
  recorder?: string;
}

export function buildTraceText(t: BuiltTrace, file = 'Fixture.java'): string {
  const lines: string[] = [];
  const header: Record<string, unknown> = { braid: 'trace', version: 1, execution: t.execution, program: t.program ?? 'fixture' };
  if (t.outcome) header.outcome = t.outcome;
  if (t.recorder) header.recorder = { name: t.recorder, version: '0.1.0', options: {} };
  lines.push(JSON.stringify(header));
  const vars = new Map<string, number>();
  const locs = new Map<string, number>();
  const stacks = new Map<string, number>();
  const threads = new Set<number>();
  let i = 0;
  const thread = (t: number) => {
    if (!threads.has(t)) {
      threads.add(t);
      lines.push(JSON.stringify({ def: 'thread', id: t, name: `T${t}` }));
    }
  };
  const loc = (f: string, line: number, method: string, extra: Record<string, unknown> = {}) => {
    const key = `${f}:${line}:${method}:${JSON.stringify(extra)}`;
    if (!locs.has(key)) {
      locs.set(key, locs.size);
      lines.push(JSON.stringify({ def: 'loc', id: locs.get(key), file: f, line, method, ...extra }));
    }
    return locs.get(key)!;
  };
  for (const e of t.events) {
    const lock = /^(ACQ|REL)(\d+)\s+(\d+)\s+S(\d+)$/.exec(e.trim());
    if (lock) {
      const [, kind, th, id, s] = lock;
      thread(Number(th));
      lines.push(JSON.stringify([++i, Number(th), kind, Number(id), loc(file, Number(s), `Fixture.m${s}`), null]));
      continue;
    }
    // synchronisation and failure events: 'START1 2', 'JOIN1 2', 'SND1 7', 'RCV2 7', 'FAIL2', 'OUT1 some text'
    const sync = /^(START|JOIN|SND|RCV|FAIL|OUT)(\d+)(?:\s+(.*))?$/.exec(e.trim());
    if (sync) {
      const [, kind, th, arg] = sync;
      thread(Number(th));
      if (kind === 'FAIL') lines.push(JSON.stringify([++i, Number(th), 'FAIL', null, null, 'uncaught', arg ?? 'failure']));
      else if (kind === 'OUT') lines.push(JSON.stringify([++i, Number(th), 'OUT', 1, arg ?? '']));
      else lines.push(JSON.stringify([++i, Number(th), kind, Number(arg)]));
      continue;
    }
    // accesses: 'W1 TABLE S1 [@obj=N] [@elem=N] [@method=M] [@file=F] [@harness] [@call=C] [@from=File.java:LINE:method]'
    const m = /^([RW])(\d+)\s+(\S+)\s+S(\d+)((?:\s+@\S+)*)$/.exec(e.trim());
    if (!m) throw new Error(`bad event notation: ${e}`);
    const [, type, th, v, s, opts] = m;
    const o = new Map<string, string>();
    for (const x of opts.trim().split(/\s+/).filter(Boolean)) {
      const [k, ...rest] = x.slice(1).split('=');
      o.set(k, rest.join('='));
    }
    const t = Number(th);
    thread(t);
    if (!vars.has(v)) {
      vars.set(v, vars.size);
      lines.push(JSON.stringify({ def: 'var', id: vars.get(v), name: v }));
    }
    const line = Number(s);
    const extra: Record<string, unknown> = {};
    if (o.has('harness')) extra.harness = true;
    if (o.has('call')) extra.call = o.get('call');
    const l = loc(o.get('file') ?? file, line, o.get('method') ?? `Fixture.m${line}`, extra);
    let stack: number | null = null;
    if (o.has('from')) {
      const callers = o
        .get('from')!
        .split('>')
        .map((f) => {
          const [cf, cl, cm, mark] = f.split(':');
          return loc(cf, Number(cl), cm ?? 'Fixture.run', mark === 'H' ? { harness: true } : {});
        });
      const key = `${callers.join(',')},${l}`;
      if (!stacks.has(key)) {
        stacks.set(key, stacks.size);
        lines.push(JSON.stringify({ def: 'stack', id: stacks.get(key), frames: [...callers, l] }));
      }
      stack = stacks.get(key)!;
    }
    const ev: unknown[] = [++i, t, type, vars.get(v), l];
    const obj = o.get('obj');
    const elem = o.get('elem');
    if (o.has('value')) {
      // @value=null / @value=undefined (the Node.js recorder's "undefined") / a JSON value / else a string
      const raw = o.get('value')!;
      let value: unknown = raw === 'undefined' ? 'undefined' : raw;
      try {
        if (raw !== 'undefined') value = JSON.parse(raw);
      } catch {
        // a plain string
      }
      ev.push(stack, obj ? Number(obj) : 0, elem ? Number(elem) : -1, value);
    } else if (obj || elem || stack !== null) ev.push(stack, obj ? Number(obj) : 0, elem ? Number(elem) : null);
    lines.push(JSON.stringify(ev));
  }
  return lines.join('\n') + '\n';
}

export function tempDir(prefix = 'braid-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Writes the traces into a new temp folder; returns the folder. */
export function writeTraces(traces: BuiltTrace[], dir = tempDir()): string {
  for (const t of traces) writeFileSync(path.join(dir, `${t.execution}.trace.jsonl`), buildTraceText(t));
  return dir;
}
