/**
 * A pool of worker threads that summarize traces in parallel (one trace per
 * worker at a time, the next file to the first idle worker). Per-run
 * summaries are small; the caller merges them in its own order.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AnalysisOptions } from '../analysis';
import type { TraceSummary } from './traceSummary';
import type { SummarizeRequest } from './summaryWorker';

/** Default pool size: the machine's cores. */
/**
 * The default is one (read in this thread): measured on 2 cores, merging a
 * run's summary costs more than reading its trace with the signature-level
 * engine (300 × 2,000-event runs: 11.3 s read+merge with 2 workers vs 2.1 s
 * in one thread; five committed subjects: 1.2–1.3 s vs 1.1 s, and twice the
 * memory), so the pool is opt-in (`--workers N`) until summaries are cheaper
 * to merge (docs/benchmarks.md).
 */
export function defaultWorkers(): number {
  return 1;
}

/** The worker's code: next to the bundle (dist/), or the TypeScript source under tsx. */
function workerEntry(): { file: string; eval?: boolean } {
  const bundled = path.join(__dirname, 'summaryWorker.js');
  if (existsSync(bundled)) return { file: bundled };
  const src = path.join(__dirname, 'summaryWorker.ts');
  if (existsSync(src) && __filename.endsWith('.ts')) return { file: `require('tsx/cjs/api').register(); require(${JSON.stringify(src)});`, eval: true };
  return { file: path.resolve(__dirname, '../../../../dist/summaryWorker.js') };
}

interface Slot {
  worker: Worker;
  busy?: { seq: number; resolve(r: TraceSummary): void; reject(e: Error): void };
}

export class SummaryPool {
  private readonly slots: Slot[] = [];
  private readonly queue: { req: SummarizeRequest; resolve(r: TraceSummary): void; reject(e: Error): void }[] = [];
  private seq = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`the number of workers must be an integer ≥ 1, got ${size}`);
  }

  summarize(file: string, options: Partial<AnalysisOptions>, storeDir?: string): Promise<TraceSummary> {
    if (this.closed) return Promise.reject(new Error('the summary pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ req: { seq: ++this.seq, file, options, ...(storeDir ? { storeDir } : {}) }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.start();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.busy = { seq: job.req.seq, resolve: job.resolve, reject: job.reject };
      slot.worker.postMessage(job.req);
    }
  }

  private start(): Slot {
    const entry = workerEntry();
    const slot: Slot = { worker: new Worker(entry.file, { eval: entry.eval }) };
    slot.worker.on('message', (m: { seq: number; result: TraceSummary }) => {
      const b = slot.busy;
      if (!b || b.seq !== m.seq) return;
      slot.busy = undefined;
      b.resolve(m.result);
      this.dispatch();
    });
    const lost = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const b = slot.busy;
      slot.busy = undefined;
      b?.reject(err);
      if (!this.closed) this.dispatch();
    };
    slot.worker.on('error', (err) => lost(err));
    slot.worker.on('exit', (code) => lost(new Error(`a summary worker exited (${code})`)));
    this.slots.push(slot);
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.reject(new Error('the summary pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
