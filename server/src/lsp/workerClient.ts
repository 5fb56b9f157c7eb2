/**
 * The main thread's side of the analysis worker: one request at a time,
 * progress callbacks, and a fresh worker when the old one died.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AnalyzeMessage, ExplainMessage, ExplanationsMessage, FromWorker, MethodsMessage, MethodsResultMessage, ResultMessage } from './workerProtocol';

/** Where the worker's code is: next to the bundle, or the TypeScript source under tsx. */
export function workerEntry(): { file: string; eval?: boolean } {
  const bundled = path.join(__dirname, 'analysisWorker.js');
  if (existsSync(bundled)) return { file: bundled };
  const src = path.resolve(__dirname, '../analysisWorker.ts');
  if (existsSync(src) && __filename.endsWith('.ts')) {
    // running from source under tsx (tests): register tsx's CommonJS hooks in the worker
    return { file: `require('tsx/cjs/api').register(); require(${JSON.stringify(src)});`, eval: true };
  }
  return { file: path.resolve(__dirname, '../../../dist/analysisWorker.js') };
}

export class AnalysisWorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private pending = new Map<number, { resolve(r: ResultMessage | ExplanationsMessage | MethodsResultMessage): void; reject(e: Error): void; progress?(done: number, total: number, file?: string): void }>();

  constructor(private readonly log: (msg: string) => void) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const entry = workerEntry();
    const w = new Worker(entry.file, { eval: entry.eval });
    w.on('message', (m: FromWorker) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') p.progress?.(m.done, m.total, m.file);
      else if (m.type === 'result' || m.type === 'explanations' || m.type === 'methodsResult') {
        this.pending.delete(m.id);
        p.resolve(m);
      } else if (m.type === 'error') {
        this.pending.delete(m.id);
        p.reject(new Error(m.message));
      }
    });
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    w.on('error', (err) => {
      this.log(`analysis worker failed: ${err?.stack ?? err}`);
      fail(err);
    });
    w.on('exit', (code) => {
      if (this.worker === w && code !== 0) this.log(`analysis worker exited with code ${code}; a new one starts with the next analysis`);
      fail(new Error(`analysis worker exited (${code})`));
    });
    w.unref();
    this.worker = w;
    return w;
  }

  analyze(msg: Omit<AnalyzeMessage, 'type' | 'id'>, progress?: (done: number, total: number, file?: string) => void): Promise<ResultMessage> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: ResultMessage | ExplanationsMessage) => void, reject, progress });
      w.postMessage({ type: 'analyze', id, ...msg } satisfies AnalyzeMessage);
    });
  }

  /** Mining explanations (seed 000) in the worker, queued after any running analysis. */
  explain(msg: Omit<ExplainMessage, 'type' | 'id'>): Promise<ExplanationsMessage> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: ResultMessage | ExplanationsMessage) => void, reject });
      w.postMessage({ type: 'explain', id, ...msg } satisfies ExplainMessage);
    });
  }

  /** Call-graph method ranking (seed 003) in the worker, queued after any running analysis. */
  methods(msg: Omit<MethodsMessage, 'type' | 'id'>): Promise<MethodsResultMessage> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: ResultMessage | ExplanationsMessage | MethodsResultMessage) => void, reject });
      w.postMessage({ type: 'methods', id, ...msg } satisfies MethodsMessage);
    });
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
