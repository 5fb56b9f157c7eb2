/**
 * Reading one trace with two threads: a worker thread parses the file
 * (traceReaderWorker.ts) while this thread collects (the visitor), so the
 * wall time of a big trace is about the larger of the two instead of their
 * sum. The visitor sees exactly what `readTrace` would show it — the same
 * events, in order, with the same symbol tables defined up to each event —
 * and the result (diagnostics with file and line, outcome, dropped events,
 * counts) is the one-thread reader's, which the worker runs unchanged.
 *
 * Used for one big trace when more than one worker is allowed (`--workers
 * N`, N ≥ 2; see summary/workspaceAnalysis.ts); docs/benchmarks.md has the
 * measurements.
 */
import { Worker } from 'node:worker_threads';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { EventKind, TraceEvent } from './traceFormat';
import { TraceSymbols } from './traceSymbols';
import { isGzipPath, ReadTraceOptions, ReadTraceResult, TraceVisitor } from './traceReader';
import { BATCHES_IN_FLIGHT, BatchMessage, CTRL_ABORT, CTRL_IN_FLIGHT, EventBatchReader, slotBytes } from './eventBatch';
import type { ReaderThreadRequest } from './traceReaderWorker';

/** The worker's code: next to the bundle (dist/), or the TypeScript source under tsx. */
function workerEntry(): { file: string; eval?: boolean } {
  const bundled = path.join(__dirname, 'traceReaderWorker.js');
  if (existsSync(bundled)) return { file: bundled };
  const src = path.join(__dirname, 'traceReaderWorker.ts');
  if (existsSync(src) && __filename.endsWith('.ts')) return { file: `require('tsx/cjs/api').register(); require(${JSON.stringify(src)});`, eval: true };
  return { file: path.resolve(__dirname, '../../../../dist/traceReaderWorker.js') };
}

/**
 * Traces smaller than this (bytes; gzip traces count 8× their size) are read in one thread: starting
 * the reader thread costs tens of ms, and at 10^6 events (24 MiB) two threads were sometimes faster,
 * sometimes slower; at 10^7 (247 MiB) always faster (docs/benchmarks.md).
 */
export const READER_THREAD_MIN_BYTES = 64 << 20;

/** True when `file` is big enough for a reader thread to pay off. */
export async function worthReaderThread(file: string): Promise<boolean> {
  try {
    const size = (await fs.stat(file)).size;
    return (isGzipPath(file) ? 8 * size : size) >= READER_THREAD_MIN_BYTES;
  } catch {
    return false; // the reader reports it
  }
}

type DoneMessage = { type: 'done'; seq: number; result: Omit<ReadTraceResult, 'symbols'>; truncatedStacks: boolean };
type ReaderMessage = BatchMessage | DoneMessage | { type: 'failed'; seq: number; message: string };

/** A reader thread and its batch slots (shared memory), reused by successive reads. */
interface ReaderThread {
  worker: Worker;
  slots: SharedArrayBuffer[];
  control: SharedArrayBuffer;
  ctrl: Int32Array;
  idleTimer?: NodeJS.Timeout;
}

/** A reader thread stays this long after a read, for the next trace (a folder of traces starts one thread, not one per trace). */
const IDLE_MS = 5000;
const MAX_IDLE = 2;
const idle: ReaderThread[] = [];
let seqs = 0;

function takeThread(): ReaderThread {
  const t = idle.pop();
  if (t) {
    clearTimeout(t.idleTimer);
    t.worker.ref();
    return t;
  }
  const entry = workerEntry();
  const control = new SharedArrayBuffer(8);
  const thread: ReaderThread = {
    worker: new Worker(entry.file, { eval: entry.eval }),
    slots: Array.from({ length: BATCHES_IN_FLIGHT }, () => new SharedArrayBuffer(slotBytes())),
    control,
    ctrl: new Int32Array(control),
  };
  thread.worker.on('exit', () => {
    const k = idle.indexOf(thread);
    if (k >= 0) idle.splice(k, 1);
  });
  return thread;
}

function releaseThread(t: ReaderThread, reusable: boolean): void {
  t.worker.removeAllListeners('message');
  t.worker.removeAllListeners('error');
  if (!reusable || idle.length >= MAX_IDLE) {
    Atomics.store(t.ctrl, CTRL_ABORT, 1);
    Atomics.notify(t.ctrl, CTRL_IN_FLIGHT);
    void t.worker.terminate();
    return;
  }
  t.worker.unref();
  t.idleTimer = setTimeout(() => {
    const k = idle.indexOf(t);
    if (k >= 0) idle.splice(k, 1);
    void t.worker.terminate();
  }, IDLE_MS);
  t.idleTimer.unref();
  idle.push(t);
}

/** `readTrace`, with the parsing in a worker thread. Rejects only when the worker itself fails. */
export function readTraceInThread(file: string, visitor: TraceVisitor, options: Omit<ReadTraceOptions, 'symbols'> = {}): Promise<ReadTraceResult> {
  const thread = takeThread();
  const { worker, slots, control, ctrl } = thread;
  Atomics.store(ctrl, CTRL_IN_FLIGHT, 0);
  Atomics.store(ctrl, CTRL_ABORT, 0);
  const symbols = new TraceSymbols();
  const ev: TraceEvent = { i: 0, t: 0, kind: EventKind.Read, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined };
  const batches = new EventBatchReader(slots, ctrl, symbols, ev);
  const seq = ++seqs;
  return new Promise<ReadTraceResult>((resolve, reject) => {
    let settled = false;
    const settle = (reusable: boolean, f: () => void) => {
      if (settled) return;
      settled = true;
      worker.off('exit', lost);
      releaseThread(thread, reusable);
      f();
    };
    const lost = (code: number) => settle(false, () => reject(new Error(`the trace reader thread exited (${code})`)));
    worker.on('message', (m: ReaderMessage) => {
      if (settled) return;
      if (m.type === 'batch') {
        try {
          batches.consume(m, visitor);
        } catch (err) {
          // as the one-thread reader does with an exception of its visitor: the file is skipped
          const line = batches.line;
          settle(false, () =>
            resolve({
              file,
              ok: false,
              header: batches.header,
              uncaught: [],
              droppedEvents: 0,
              eventCount: 0,
              lineCount: line,
              symbols,
              diagnostics: [{ severity: 'error', file, line, message: `unexpected error at line ${line}: ${(err as Error)?.stack ?? err}` }],
            }),
          );
        }
      } else if (m.seq !== seq) return;
      else if (m.type === 'done') {
        if (m.truncatedStacks) symbols.truncatedStacks = true;
        settle(true, () => resolve({ ...m.result, symbols }));
      } else settle(false, () => reject(new Error(`the trace reader thread failed: ${m.message}`)));
    });
    worker.on('error', (err) => settle(false, () => reject(err)));
    worker.on('exit', lost);
    const req: ReaderThreadRequest = { seq, file, options, slots, control };
    worker.postMessage(req);
  });
}
