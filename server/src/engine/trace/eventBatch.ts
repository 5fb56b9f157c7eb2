/**
 * The batches a reader thread (traceReaderWorker.ts) hands to the collecting
 * thread (traceReaderThread.ts): the events the trace reader decoded, in
 * typed columns in shared memory, and, in order between them, what the
 * reader defined in the trace's symbol tables (threads, vars, locs, stacks,
 * the stack nodes ENTER events create). The collecting thread replays those
 * definitions into its own TraceSymbols — the same calls in the same order
 * give the same tables and stack node ids — so each event reaches the
 * collector with exactly the symbols the one-thread reader would show it.
 *
 * A batch slot holds BATCH_EVENTS events: per event STRIDE float64 fields
 * (i, t, kind, a, b, c, d, e, numeric value, line) and one value tag byte;
 * values other than numbers, null, true and false (strings, JSON values of
 * the general path) travel in the batch message's `values`, in order. At
 * most BATCHES_IN_FLIGHT slots are filled and not yet consumed: the reader
 * waits (Atomics.wait on the control word) for the collector to release the
 * oldest, so memory stays bounded whatever the trace's size.
 */
import type { LocDef, ThreadDef, TraceEvent, TraceHeader, VarDef } from './traceFormat';
import { TraceSymbols } from './traceSymbols';

export const STRIDE = 10;
export const BATCH_EVENTS = 1 << 15;
export const BATCHES_IN_FLIGHT = 4;

/** control words (Int32Array over a SharedArrayBuffer) */
export const CTRL_IN_FLIGHT = 0;
/** set by the collecting thread when it gives up (the reader stops at its next batch) */
export const CTRL_ABORT = 1;

const TAG_UNDEFINED = 0;
const TAG_NUMBER = 1;
const TAG_NULL = 2;
const TAG_TRUE = 3;
const TAG_FALSE = 4;
const TAG_OTHER = 5;

/** definition records: [event position in the batch, op, x, y, z] */
export const OP_FIELDS = 5;
const OP_HEADER = 0;
const OP_THREAD = 1;
const OP_VAR = 2;
const OP_LOC = 3;
const OP_STACK_FRAMES = 4;
const OP_STACK_NODE = 5;
const OP_NODE = 6;

export function slotBytes(): number {
  return BATCH_EVENTS * (STRIDE * 8 + 1);
}

/** One filled slot, as posted to the collecting thread. */
export interface BatchMessage {
  type: 'batch';
  slot: number;
  /** events in the slot */
  n: number;
  /** definition records, OP_FIELDS entries each, in the order they were made */
  ops: unknown[];
  /** the values tagged TAG_OTHER, in event order */
  values: unknown[];
}

type Log = (op: number, x: unknown, y: unknown, z: unknown) => void;

/** A Map that logs every `set` (the reader defines threads with `threads.set`). */
class LoggedThreads extends Map<number, ThreadDef> {
  constructor(private readonly log: Log) {
    super();
  }
  override set(id: number, def: ThreadDef): this {
    super.set(id, def);
    this.log?.(OP_THREAD, id, def, undefined);
    return this;
  }
}

/** The reader thread's symbol tables: each definition is also logged for the collecting thread. */
export class RecordingTraceSymbols extends TraceSymbols {
  /** stack nodes made so far (nodes are numbered in order of creation) */
  private nodes = 0;
  private defining = false;

  constructor(private readonly log: Log) {
    super();
    Object.defineProperty(this, 'threads', { value: new LoggedThreads(log) });
  }

  override defineVar(id: number, v: VarDef): void {
    super.defineVar(id, v);
    this.log(OP_VAR, id, v, undefined);
  }

  override defineLoc(id: number, l: LocDef): void {
    super.defineLoc(id, l);
    this.log(OP_LOC, id, l, undefined);
  }

  override defineStackFrames(id: number, frames: readonly number[]): number {
    this.defining = true;
    try {
      return super.defineStackFrames(id, frames);
    } finally {
      this.defining = false;
      this.log(OP_STACK_FRAMES, id, frames, undefined);
    }
  }

  override defineStackNode(id: number, parent: number, frame: number): number {
    this.defining = true;
    try {
      return super.defineStackNode(id, parent, frame);
    } finally {
      this.defining = false;
      this.log(OP_STACK_NODE, id, parent, frame);
    }
  }

  /** ENTER events push frames outside definitions: the nodes they create are logged (replayed by the same call). */
  override pushFrame(parentNode: number, frame: number): number {
    const node = super.pushFrame(parentNode, frame);
    if (node === this.nodes) {
      this.nodes++;
      if (!this.defining) this.log(OP_NODE, parentNode, frame, undefined);
    }
    return node;
  }
}

/** The reader thread's side: fills slots with events and definitions, posts them, waits for free slots. */
export class EventBatchWriter {
  private readonly floats: Float64Array[];
  private readonly tags: Uint8Array[];
  private ops: unknown[] = [];
  private values: unknown[] = [];
  private n = 0;
  private slot = 0;

  constructor(
    slots: SharedArrayBuffer[],
    private readonly control: Int32Array,
    private readonly post: (m: BatchMessage) => void,
  ) {
    this.floats = slots.map((s) => new Float64Array(s, 0, BATCH_EVENTS * STRIDE));
    this.tags = slots.map((s) => new Uint8Array(s, BATCH_EVENTS * STRIDE * 8, BATCH_EVENTS));
  }

  /** Logs a definition (it takes effect before the next event). */
  readonly define: Log = (op, x, y, z) => {
    this.ops.push(this.n, op, x, y, z);
  };

  header(h: TraceHeader): void {
    this.define(OP_HEADER, h, undefined, undefined);
  }

  event(ev: TraceEvent, line: number): void {
    if (this.n === BATCH_EVENTS) this.flush();
    const k = this.n++;
    const f = this.floats[this.slot];
    const p = k * STRIDE;
    f[p] = ev.i;
    f[p + 1] = ev.t;
    f[p + 2] = ev.kind;
    f[p + 3] = ev.a;
    f[p + 4] = ev.b;
    f[p + 5] = ev.c;
    f[p + 6] = ev.d;
    f[p + 7] = ev.e;
    f[p + 9] = line;
    const v = ev.value;
    let tag = TAG_OTHER;
    if (v === undefined) tag = TAG_UNDEFINED;
    else if (typeof v === 'number') {
      tag = TAG_NUMBER;
      f[p + 8] = v;
    } else if (v === null) tag = TAG_NULL;
    else if (v === true) tag = TAG_TRUE;
    else if (v === false) tag = TAG_FALSE;
    else this.values.push(v);
    this.tags[this.slot][k] = tag;
  }

  /** Posts the current slot (if it holds anything) and waits until the next one is free. */
  flush(): void {
    if (this.n === 0 && this.ops.length === 0) return;
    Atomics.add(this.control, CTRL_IN_FLIGHT, 1);
    this.post({ type: 'batch', slot: this.slot, n: this.n, ops: this.ops, values: this.values });
    this.ops = [];
    this.values = [];
    this.n = 0;
    this.slot = (this.slot + 1) % this.floats.length;
    for (;;) {
      if (Atomics.load(this.control, CTRL_ABORT) !== 0) throw new ReaderAborted();
      const inFlight = Atomics.load(this.control, CTRL_IN_FLIGHT);
      if (inFlight < this.floats.length) break;
      Atomics.wait(this.control, CTRL_IN_FLIGHT, inFlight);
    }
  }
}

/** Thrown in the reader thread when the collecting thread gave up. */
export class ReaderAborted extends Error {}

export interface BatchSink {
  header?(h: TraceHeader, symbols: TraceSymbols): void;
  event(ev: TraceEvent, symbols: TraceSymbols, line: number): void;
}

/** The collecting thread's side: replays a batch's definitions and events, in order, into `symbols` and `sink`. */
export class EventBatchReader {
  private readonly floats: Float64Array[];
  private readonly tags: Uint8Array[];
  /** the line of the event being handed to the sink (for error messages) */
  line = 0;
  header: TraceHeader | undefined;

  constructor(
    slots: SharedArrayBuffer[],
    private readonly control: Int32Array,
    readonly symbols: TraceSymbols,
    private readonly ev: TraceEvent,
  ) {
    this.floats = slots.map((s) => new Float64Array(s, 0, BATCH_EVENTS * STRIDE));
    this.tags = slots.map((s) => new Uint8Array(s, BATCH_EVENTS * STRIDE * 8, BATCH_EVENTS));
  }

  consume(m: BatchMessage, sink: BatchSink): void {
    const f = this.floats[m.slot];
    const tags = this.tags[m.slot];
    const ops = m.ops;
    const values = m.values;
    const ev = this.ev;
    const s = this.symbols;
    let o = 0;
    let v = 0;
    try {
      for (let k = 0; k < m.n; k++) {
        while (o < ops.length && ops[o] === k) {
          this.define(ops, o, sink);
          o += OP_FIELDS;
        }
        const p = k * STRIDE;
        ev.i = f[p];
        ev.t = f[p + 1];
        ev.kind = f[p + 2];
        ev.a = f[p + 3];
        ev.b = f[p + 4];
        ev.c = f[p + 5];
        ev.d = f[p + 6];
        ev.e = f[p + 7];
        const line = f[p + 9];
        this.line = line;
        switch (tags[k]) {
          case TAG_UNDEFINED:
            ev.value = undefined;
            break;
          case TAG_NUMBER:
            ev.value = f[p + 8];
            break;
          case TAG_NULL:
            ev.value = null;
            break;
          case TAG_TRUE:
            ev.value = true;
            break;
          case TAG_FALSE:
            ev.value = false;
            break;
          default:
            ev.value = values[v++];
        }
        sink.event(ev, s, line);
      }
      for (; o < ops.length; o += OP_FIELDS) this.define(ops, o, sink);
    } finally {
      Atomics.sub(this.control, CTRL_IN_FLIGHT, 1);
      Atomics.notify(this.control, CTRL_IN_FLIGHT);
    }
  }

  private define(ops: unknown[], o: number, sink: BatchSink): void {
    const s = this.symbols;
    const x = ops[o + 2];
    const y = ops[o + 3];
    const z = ops[o + 4];
    switch (ops[o + 1]) {
      case OP_HEADER:
        this.header = x as TraceHeader;
        sink.header?.(this.header, s);
        return;
      case OP_THREAD:
        s.threads.set(x as number, y as ThreadDef);
        return;
      case OP_VAR:
        s.defineVar(x as number, y as VarDef);
        return;
      case OP_LOC:
        s.defineLoc(x as number, y as LocDef);
        return;
      case OP_STACK_FRAMES:
        s.defineStackFrames(x as number, y as number[]);
        return;
      case OP_STACK_NODE:
        s.defineStackNode(x as number, y as number, z as number);
        return;
      case OP_NODE:
        s.pushFrame(x as number, y as number);
        return;
    }
  }
}
