/**
 * Paged, filtered access to one trace's events for the Tracer
 * (braid/traceEvents). A first pass over the file per filter records the
 * number of matching events and the byte offset of every CHECKPOINT-th
 * match; a page then seeks to the nearest checkpoint and decodes only
 * the lines up to the page's end. Plain files seek; gzip files are
 * decompressed from the start up to the page (slower for huge runs).
 */
import { createReadStream, promises as fs } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { EVENT_KIND_NAMES, EventKind, LocDef, TraceEvent } from './traceFormat';
import { decodeEventValue, parseEventLineFast } from './eventLineParser';
import { MAX_NESTING, nestingExceeds } from './traceReader';
import type { TraceEventDto, TraceEventsParams, TraceEventsResult } from '../../protocol/traceEvents';

const CHECKPOINT = 256;
const MAX_LIMIT = 5000;
const MAX_FILTERS_PER_FILE = 8;
const MAX_FILES = 4;

interface FilterIndex {
  total: number;
  /** byte offset of the line of match number k * CHECKPOINT */
  offsets: number[];
}

interface FileIndex {
  file: string;
  mtimeMs: number;
  size: number;
  gz: boolean;
  threads: Map<number, string>;
  vars: Map<number, string>;
  locs: Map<number, LocDef>;
  filters: Map<string, Promise<FilterIndex>>;
  /** filled by the first pass */
  defsDone: Promise<void>;
}

type Filter = (ev: TraceEvent) => boolean;

export class TraceEventPager {
  private readonly files = new Map<string, FileIndex>();

  constructor(private readonly uriOf: (file: string) => string | undefined) {}

  async page(file: string, run: string, params: TraceEventsParams): Promise<TraceEventsResult> {
    const idx = await this.fileIndex(file);
    const filterKey = JSON.stringify([params.threads ?? null, params.variable ?? '', params.search ?? '', !!params.accessesOnly]);
    let fi = idx.filters.get(filterKey);
    if (!fi) {
      fi = this.buildFilter(idx, filterKey === JSON.stringify([null, '', '', false]) ? () => true : undefined, params);
      idx.filters.set(filterKey, fi);
      if (idx.filters.size > MAX_FILTERS_PER_FILE) idx.filters.delete(idx.filters.keys().next().value!);
      fi.catch(() => idx.filters.delete(filterKey));
    }
    const f = await fi;
    const offset = Math.max(0, Math.floor(params.offset ?? 0));
    const limit = Math.max(0, Math.min(MAX_LIMIT, Math.floor(params.limit ?? 100)));
    const events: TraceEventDto[] = [];
    if (offset < f.total && limit > 0) {
      const cp = Math.floor(offset / CHECKPOINT);
      let match = cp * CHECKPOINT;
      const filter = this.makeFilter(idx, params);
      await scanLines(idx, f.offsets[cp], (buf, s, e, ev) => {
        if (!decodeLine(buf, s, e, ev, idx)) return true;
        if (!filter(ev)) return true;
        if (match >= offset) events.push(this.toDto(ev, idx));
        match++;
        return events.length < limit;
      });
    }
    return {
      run,
      total: f.total,
      offset,
      events,
      threads: [...idx.threads].map(([id, name]) => ({ id, name })).sort((a, b) => a.id - b.id),
    };
  }

  private async fileIndex(file: string): Promise<FileIndex> {
    const st = await fs.stat(file);
    let idx = this.files.get(file);
    if (idx && idx.mtimeMs === st.mtimeMs && idx.size === st.size) {
      await idx.defsDone;
      return idx;
    }
    const fresh: FileIndex = {
      file,
      mtimeMs: st.mtimeMs,
      size: st.size,
      gz: file.endsWith('.gz'),
      threads: new Map(),
      vars: new Map(),
      locs: new Map(),
      filters: new Map(),
      defsDone: Promise.resolve(),
    };
    this.files.delete(file);
    this.files.set(file, fresh);
    if (this.files.size > MAX_FILES) this.files.delete(this.files.keys().next().value!);
    // the unfiltered pass also collects all definitions
    const all = this.buildFilter(fresh, () => true, {} as TraceEventsParams);
    fresh.filters.set(JSON.stringify([null, '', '', false]), all);
    fresh.defsDone = all.then(() => undefined);
    all.catch(() => this.files.delete(file));
    await fresh.defsDone;
    return fresh;
  }

  private makeFilter(idx: FileIndex, p: TraceEventsParams): Filter {
    const threads = p.threads && p.threads.length ? new Set(p.threads) : undefined;
    const variable = p.variable ? p.variable.toLowerCase() : undefined;
    const search = p.search ? p.search.toLowerCase() : undefined;
    const accessesOnly = !!p.accessesOnly;
    const varMatch = new Map<number, boolean>();
    const searchMatch = new Map<string, boolean>();
    return (ev) => {
      const isAccess = ev.kind === EventKind.Read || ev.kind === EventKind.Write;
      if (accessesOnly && !isAccess) return false;
      if (threads && !threads.has(ev.t)) return false;
      if (variable !== undefined) {
        if (!isAccess) return false;
        let m = varMatch.get(ev.a);
        if (m === undefined) varMatch.set(ev.a, (m = (idx.vars.get(ev.a) ?? '').toLowerCase().includes(variable)));
        if (!m) return false;
      }
      if (search !== undefined) {
        const loc = ev.kind === EventKind.End ? -1 : ev.b;
        const v = isAccess ? ev.a : -1;
        const key = `${v}:${loc}:${ev.t}`;
        let m = searchMatch.get(key);
        if (m === undefined) {
          const l = idx.locs.get(loc);
          const hay = [v >= 0 ? idx.vars.get(v) : '', l?.file, l?.method, idx.threads.get(ev.t), EVENT_KIND_NAMES[ev.kind]].join('\n').toLowerCase();
          searchMatch.set(key, (m = hay.includes(search)));
        }
        if (!m) return false;
      }
      return true;
    };
  }

  private async buildFilter(idx: FileIndex, filter: Filter | undefined, params: TraceEventsParams): Promise<FilterIndex> {
    if (!filter) await idx.defsDone;
    const f = filter ?? this.makeFilter(idx, params);
    const result: FilterIndex = { total: 0, offsets: [] };
    await scanLines(
      idx,
      0,
      (buf, s, e, ev, lineOffset) => {
        if (!decodeLine(buf, s, e, ev, idx)) return true;
        if (f(ev)) {
          if (result.total % CHECKPOINT === 0) result.offsets.push(lineOffset);
          result.total++;
        }
        return true;
      },
    );
    return result;
  }

  private toDto(ev: TraceEvent, idx: FileIndex): TraceEventDto {
    const kind = EVENT_KIND_NAMES[ev.kind];
    const dto: TraceEventDto = { i: ev.i, thread: ev.t, threadName: idx.threads.get(ev.t) ?? `thread ${ev.t}`, kind };
    const locId = ev.kind === EventKind.End ? -1 : ev.b;
    const loc = locId >= 0 ? idx.locs.get(locId) : undefined;
    if (loc) {
      dto.file = loc.file;
      dto.line = loc.line;
      dto.method = loc.method;
      const uri = this.uriOf(loc.file);
      if (uri) dto.uri = uri;
    }
    if (ev.kind === EventKind.Read || ev.kind === EventKind.Write) {
      dto.variable = idx.vars.get(ev.a) ?? `var#${ev.a}`;
      if (ev.d) dto.target = ev.d;
      if (ev.e >= 0) dto.variable += `[${ev.e}]`;
      if (ev.value !== undefined) dto.value = ev.value;
    } else if (ev.kind === EventKind.Acquire || ev.kind === EventKind.Release || ev.kind === EventKind.Start || ev.kind === EventKind.Join || ev.kind === EventKind.Send || ev.kind === EventKind.Receive) {
      dto.target = ev.a;
    } else if ((ev.kind === EventKind.Fail || ev.kind === EventKind.Out) && ev.value !== undefined) {
      dto.value = ev.value;
    }
    return dto;
  }
}

/** Decodes an event line into ev (true), or records a definition line (false). */
function decodeLine(buf: Buffer, s: number, e: number, ev: TraceEvent, idx: FileIndex): boolean {
  let p = s;
  while (p < e && (buf[p] === 0x20 || buf[p] === 0x09 || buf[p] === 0x0d)) p++;
  if (p >= e) return false;
  if (buf[p] === 0x5b) {
    if (parseEventLineFast(buf, p, e, ev)) return true;
    try {
      const text = buf.toString('utf8', p, e);
      if (nestingExceeds(text, MAX_NESTING)) return false; // the analysis rejects such a file (issue 15, finding 8)
      decodeEventValue(JSON.parse(text), ev);
      return true;
    } catch {
      return false; // malformed lines are reported by the analysis; skip here
    }
  }
  if (buf[p] === 0x7b && buf[p + 1] === 0x22 && buf[p + 2] === 0x64 /* {"d */) {
    try {
      const o = JSON.parse(buf.toString('utf8', p, e));
      if (o.def === 'thread') idx.threads.set(o.id, String(o.name));
      else if (o.def === 'var') idx.vars.set(o.id, String(o.name));
      else if (o.def === 'loc') idx.locs.set(o.id, { id: o.id, file: String(o.file), line: Number(o.line), method: String(o.method ?? '') });
    } catch {
      /* ignore */
    }
  }
  return false;
}

const scratch: TraceEvent = { i: 0, t: 0, kind: EventKind.Read, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined };

/**
 * Calls onLine for each line from byte `start` (uncompressed offset) until it
 * returns false. Yields to the event loop between chunks.
 */
async function scanLines(
  idx: FileIndex,
  start: number,
  onLine: (buf: Buffer, s: number, e: number, ev: TraceEvent, lineOffset: number) => boolean,
): Promise<void> {
  const source = createReadStream(idx.file, { highWaterMark: 1 << 20, start: idx.gz ? 0 : start });
  const stream: Readable = idx.gz ? source.pipe(createGunzip()) : source;
  if (idx.gz) source.on('error', (err) => stream.destroy(err));
  let pos = idx.gz ? 0 : start; // uncompressed offset of the chunk's first byte
  let carry: Buffer | null = null;
  let carryOffset = 0;
  try {
    for await (const raw of stream as AsyncIterable<Buffer>) {
      let chunk = raw;
      let chunkPos = pos;
      pos += raw.length;
      if (idx.gz && pos <= start) continue;
      if (idx.gz && chunkPos < start) {
        chunk = chunk.subarray(start - chunkPos);
        chunkPos = start;
      }
      let from = 0;
      if (carry) {
        const nl = chunk.indexOf(10);
        if (nl === -1) {
          carry = Buffer.concat([carry, chunk]);
          continue;
        }
        const joined = Buffer.concat([carry, chunk.subarray(0, nl)]);
        carry = null;
        if (!onLine(joined, 0, joined.length, scratch, carryOffset)) return;
        from = nl + 1;
      }
      let nl: number;
      while ((nl = chunk.indexOf(10, from)) !== -1) {
        if (!onLine(chunk, from, nl, scratch, chunkPos + from)) return;
        from = nl + 1;
      }
      if (from < chunk.length) {
        carry = Buffer.from(chunk.subarray(from));
        carryOffset = chunkPos + from;
      }
    }
    if (carry && carry.length) onLine(carry, 0, carry.length, scratch, carryOffset);
  } finally {
    source.destroy();
    stream.destroy();
  }
}
