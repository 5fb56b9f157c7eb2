/**
 * Builds trace files (format v1) from a compact notation for tests:
 *   'W1 TABLE S1'  = thread 1 writes TABLE at statement S1 (line 1)
 *   'R2 x S7 @obj=5' = thread 2 reads x of object 5 at line 7
 * Statement Sn maps to line n of Fixture.java; the method is `m<n>` unless given.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface BuiltTrace {
  execution: string;
  outcome?: 'pass' | 'fail';
  events: string[];
}

export function buildTraceText(t: BuiltTrace, file = 'Fixture.java'): string {
  const lines: string[] = [];
  const header: Record<string, unknown> = { braid: 'trace', version: 1, execution: t.execution, program: 'fixture' };
  if (t.outcome) header.outcome = t.outcome;
  lines.push(JSON.stringify(header));
  const vars = new Map<string, number>();
  const locs = new Map<number, number>();
  const threads = new Set<number>();
  let i = 0;
  for (const e of t.events) {
    const m = /^([RW])(\d+)\s+(\S+)\s+S(\d+)(?:\s+@obj=(\d+))?(?:\s+@elem=(\d+))?(?:\s+@method=(\S+))?$/.exec(e.trim());
    if (!m) throw new Error(`bad event notation: ${e}`);
    const [, type, th, v, s, obj, elem, method] = m;
    const t = Number(th);
    if (!threads.has(t)) {
      threads.add(t);
      lines.push(JSON.stringify({ def: 'thread', id: t, name: `T${t}` }));
    }
    if (!vars.has(v)) {
      vars.set(v, vars.size);
      lines.push(JSON.stringify({ def: 'var', id: vars.get(v), name: v }));
    }
    const line = Number(s);
    if (!locs.has(line)) {
      locs.set(line, locs.size);
      lines.push(JSON.stringify({ def: 'loc', id: locs.get(line), file, line, method: method ?? `Fixture.m${line}` }));
    }
    const ev: unknown[] = [++i, t, type, vars.get(v), locs.get(line)];
    if (obj || elem) ev.push(null, obj ? Number(obj) : 0, elem ? Number(elem) : null);
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
