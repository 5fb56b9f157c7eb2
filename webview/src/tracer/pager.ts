/**
 * Page cache for the Tracer: fixed-size pages of one (run, filters) query,
 * fetched on demand from the host, least-recently-used eviction, a bounded
 * number of requests in flight, and stale responses dropped when the query
 * changes. Independent of the DOM so it is unit-testable.
 */
import type { TraceEventDto, TraceEventsParams, TraceEventsResult } from '../../../server/src/lsp/protocol';

export interface PagerQuery {
  run: string;
  threads?: number[];
  variable?: string;
  search?: string;
  accessesOnly?: boolean;
}

export type FetchFn = (params: TraceEventsParams) => Promise<TraceEventsResult>;

export interface PagerOptions {
  pageSize?: number;
  maxPages?: number;
  maxInFlight?: number;
}

export function queryKey(q: PagerQuery): string {
  return JSON.stringify([q.run, q.threads ?? [], q.variable ?? '', q.search ?? '', !!q.accessesOnly]);
}

export class Pager {
  readonly pageSize: number;
  private readonly maxPages: number;
  private readonly maxInFlight: number;
  private pages = new Map<number, TraceEventDto[]>();
  private inFlight = new Set<number>();
  /** pages whose fetch failed: not retried until the query changes or retry() */
  private failed = new Set<number>();
  private wanted: number[] = [];
  private generation = 0;
  private key = '';
  private query: PagerQuery | undefined;
  /** total events matching the query; undefined until the first page arrives */
  total: number | undefined;
  threads: { id: number; name: string }[] = [];
  error: string | undefined;
  /** called after any page arrives or fails */
  onUpdate: () => void = () => undefined;
  /** per-page fetch durations in ms (for diagnostics/benchmarks) */
  readonly fetchTimes: number[] = [];

  constructor(private readonly fetch: FetchFn, o: PagerOptions = {}) {
    this.pageSize = o.pageSize ?? 200;
    this.maxPages = o.maxPages ?? 500;
    this.maxInFlight = o.maxInFlight ?? 4;
  }

  setQuery(q: PagerQuery): boolean {
    const k = queryKey(q);
    if (k === this.key) return false;
    this.key = k;
    this.query = { ...q };
    this.generation++;
    this.pages.clear();
    this.inFlight.clear();
    this.failed.clear();
    this.wanted = [];
    this.total = undefined;
    this.error = undefined;
    return true;
  }

  get currentQuery(): PagerQuery | undefined {
    return this.query;
  }

  retry(): void {
    this.failed.clear();
    this.error = undefined;
  }

  /** the event at a position of the filtered list, if its page is cached */
  get(index: number): TraceEventDto | undefined {
    const p = Math.floor(index / this.pageSize);
    const page = this.pages.get(p);
    if (!page) return undefined;
    // LRU touch
    this.pages.delete(p);
    this.pages.set(p, page);
    return page[index - p * this.pageSize];
  }

  hasPage(p: number): boolean {
    return this.pages.has(p);
  }

  get cachedPages(): number {
    return this.pages.size;
  }

  /** Declares the rows on screen [first, last]; fetches their pages (and one ahead) if missing. */
  want(first: number, last: number): void {
    if (!this.query) return;
    const ps = this.pageSize;
    const lo = Math.max(0, Math.floor(first / ps));
    let hi = Math.floor(Math.max(first, last) / ps);
    if (this.total !== undefined) hi = Math.min(hi, Math.max(0, Math.ceil(this.total / ps) - 1));
    const list: number[] = [];
    for (let p = lo; p <= hi; p++) list.push(p);
    // prefetch neighbours after the visible ones
    const next = hi + 1;
    if (this.total === undefined || next * ps < this.total) list.push(next);
    if (lo > 0) list.push(lo - 1);
    this.wanted = list.filter((p) => !this.pages.has(p) && !this.failed.has(p));
    this.pump();
  }

  private pump(): void {
    while (this.inFlight.size < this.maxInFlight && this.wanted.length) {
      const p = this.wanted.shift()!;
      if (this.pages.has(p) || this.inFlight.has(p)) continue;
      this.load(p);
    }
  }

  private load(p: number): void {
    const q = this.query!;
    const gen = this.generation;
    this.inFlight.add(p);
    const params: TraceEventsParams = { run: q.run, offset: p * this.pageSize, limit: this.pageSize };
    if (q.threads && q.threads.length) params.threads = q.threads;
    if (q.variable) params.variable = q.variable;
    if (q.search) params.search = q.search;
    if (q.accessesOnly) params.accessesOnly = true;
    const t0 = performance.now();
    this.fetch(params).then(
      (r) => {
        if (gen !== this.generation) return;
        this.inFlight.delete(p);
        this.fetchTimes.push(performance.now() - t0);
        if (this.fetchTimes.length > 1000) this.fetchTimes.splice(0, 500);
        this.total = typeof r.total === 'number' && r.total >= 0 ? r.total : 0;
        if (Array.isArray(r.threads)) this.threads = r.threads;
        this.pages.set(p, Array.isArray(r.events) ? r.events : []);
        while (this.pages.size > this.maxPages) {
          const oldest = this.pages.keys().next().value as number;
          this.pages.delete(oldest);
        }
        this.error = undefined;
        this.pump();
        this.onUpdate();
      },
      (e: unknown) => {
        if (gen !== this.generation) return;
        this.inFlight.delete(p);
        this.failed.add(p);
        this.error = e instanceof Error ? e.message : String(e);
        this.onUpdate();
      },
    );
  }
}
