/**
 * Streamed JSON reports: the exact text of `JSON.stringify(value, null, 2)`,
 * written in chunks, never as one string. Long lists are `JsonRows` (a
 * length and a function giving element k), so a report of a million
 * patterns holds one pattern at a time; the writer waits for the output
 * stream to drain (backpressure), so memory stays bounded whatever the size.
 */
import { once } from 'node:events';

/** A list written element by element; element k is made when written. */
export class JsonRows<T = unknown> {
  constructor(
    readonly length: number,
    readonly get: (k: number) => T,
  ) {}

  toArray(): T[] {
    const out: T[] = [];
    for (let k = 0; k < this.length; k++) out.push(this.get(k));
    return out;
  }

  /** JSON.stringify of an object holding rows writes them as an array */
  toJSON(): T[] {
    return this.toArray();
  }
}

/** Where chunks go; a promise means "wait before writing more". */
export type ChunkSink = (chunk: string) => void | Promise<void>;

/** A sink writing to a Node stream, waiting for 'drain' when its buffer is full. */
export function streamSink(stream: NodeJS.WritableStream): ChunkSink {
  return (chunk) => {
    if (!stream.write(chunk)) return once(stream as unknown as NodeJS.EventEmitter, 'drain').then(() => undefined);
  };
}

/** Chunks are about this many characters (one string of this size at a time). */
const CHUNK = 1 << 16;
/** containers nested deeper than this are written with one JSON.stringify (they are small) */
const STREAM_DEPTH = 4;

class ChunkWriter {
  private parts: string[] = [];
  private size = 0;
  private waiting?: Promise<void>;
  private failed?: { error: unknown };
  constructor(private readonly sink: ChunkSink) {}

  /**
   * Buffers s; hands a full chunk to the sink. A promise (never rejected) when the sink asked to
   * wait; the sink's error is thrown by the next flush or settle.
   */
  write(s: string): void | Promise<void> {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= CHUNK) return this.flush();
  }

  flush(): void | Promise<void> {
    if (this.failed) throw this.failed.error;
    if (!this.size) return this.waiting;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    const wait = this.sink(chunk);
    if (!wait) return;
    this.waiting = wait.then(
      () => {
        this.waiting = undefined;
      },
      (error) => {
        this.failed = { error };
        this.waiting = undefined;
      },
    );
    return this.waiting;
  }

  /** Waits while the sink asks to; throws its error. */
  async settle(): Promise<void> {
    if (this.waiting) await this.waiting;
    if (this.failed) throw this.failed.error;
  }
}

function plainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function leaf(v: unknown, indent: string): string {
  if (!indent) return JSON.stringify(v, null, 2) ?? 'null';
  // v nested in arrays to the depth of `indent` (two spaces a level) is stringified with its lines
  // already indented: one pass, no replace over the text; the arrays' brackets are cut off
  const levels = indent.length >>> 1;
  if (indent.length % 2 !== 0 || indent.trim() !== '') return (JSON.stringify(v, null, 2) ?? 'null').replace(/\n/g, '\n' + indent);
  let wrapped: unknown = v;
  for (let k = 0; k < levels; k++) wrapped = [wrapped];
  const s = JSON.stringify(wrapped, null, 2);
  const cut = wrapCut(levels);
  return s.slice(cut.open, s.length - cut.close);
}

/** Lengths of the brackets around a value nested in `levels` arrays by JSON.stringify(…, null, 2). */
const wrapCuts: { open: number; close: number }[] = [];
function wrapCut(levels: number): { open: number; close: number } {
  let c = wrapCuts[levels];
  if (!c) {
    // "[\n  " per level before; "\n<indent>]" per level after
    let open = 0;
    let close = 0;
    for (let k = 0; k < levels; k++) {
      open += 2 + 2 * (k + 1);
      close += 2 + 2 * k;
    }
    wrapCuts[levels] = c = { open, close };
  }
  return c;
}

/** Writes `value` as `JSON.stringify(value, null, 2)` would, in chunks, waiting on the sink. */
export async function writeJson(value: unknown, sink: ChunkSink): Promise<void> {
  const w = new ChunkWriter(sink);
  await writeValue(w, value, '', 0);
  await w.flush();
  await w.settle();
}

async function writeValue(w: ChunkWriter, v: unknown, indent: string, depth: number): Promise<void> {
  const inner = indent + '  ';
  if (v instanceof JsonRows || (Array.isArray(v) && depth < STREAM_DEPTH)) {
    const rows = v instanceof JsonRows;
    const n = v.length;
    if (n === 0) return w.write('[]');
    w.write('[');
    for (let k = 0; k < n; k++) {
      const el = rows ? (v as JsonRows).get(k) : (v as unknown[])[k];
      const sep = `${k ? ',' : ''}\n${inner}`;
      // an element of a JsonRows list is one bounded item: one stringify
      if (rows || typeof el === 'function' || el === undefined) {
        const wait = w.write(sep + leaf(typeof el === 'function' ? undefined : el, inner));
        if (wait) await wait;
      } else {
        w.write(sep);
        await writeValue(w, el, inner, depth + 1);
        await w.settle();
      }
    }
    return w.write(`\n${indent}]`);
  }
  if (depth < STREAM_DEPTH && plainObject(v)) {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol');
    if (!entries.length) return w.write('{}');
    w.write('{');
    let first = true;
    for (const [key, x] of entries) {
      w.write(`${first ? '' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      await writeValue(w, x, inner, depth + 1);
    }
    return w.write(`\n${indent}}`);
  }
  return w.write(leaf(v, indent));
}

/** Replaces top-level JsonRows by arrays (the report as one object, for tests and small results). */
export function materialize<T extends Record<string, unknown>>(sections: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sections)) out[k] = v instanceof JsonRows ? v.toArray() : v;
  return out as T;
}

/** Writes lines (joined by "\n", plus a final "\n") in chunks, waiting on the sink. */
export async function writeLines(lines: Iterable<string>, sink: ChunkSink): Promise<void> {
  const w = new ChunkWriter(sink);
  for (const l of lines) {
    const wait = w.write(l + '\n');
    if (wait) await wait;
  }
  await w.flush();
  await w.settle();
}
