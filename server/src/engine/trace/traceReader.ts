/**
 * Streaming reader of one trace file (plain or gzip JSON Lines, format v1).
 * Memory does not grow with the trace: lines are scanned in place in the
 * stream's chunks and each event is handed to the visitor in one reused
 * object. Problems become Diagnostics naming the file and line.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import {
  Diagnostic,
  EventKind,
  LocDef,
  Outcome,
  TRACE_FORMAT_VERSION,
  TraceEvent,
  TraceHeader,
  UncaughtInfo,
} from './traceFormat';
import { TraceSymbols } from './traceSymbols';
import { EventLineError, decodeEventValue, parseEventLineFast } from './eventLineParser';

export interface TraceVisitor {
  /** Called once, after the header line was validated. */
  header?(header: TraceHeader, symbols: TraceSymbols): void;
  /** Called per event; `ev` is reused, copy what you keep. */
  event(ev: TraceEvent, symbols: TraceSymbols): void;
}

export interface ReadTraceResult {
  file: string;
  /** false when the file has to be skipped (an error diagnostic says why). */
  ok: boolean;
  header?: TraceHeader;
  outcome?: Outcome;
  outcomeReason?: string;
  outcomeDetail?: string;
  uncaught: UncaughtInfo[];
  /** index `i` of the first FAIL event (a failure point recorded by the agent) */
  firstFail?: number;
  /** the outcome line's `failAt`: index of the failure point the runner found */
  failAt?: number;
  /** events the recorder dropped (sum of the `{"dropped":N}` lines): its writer fell behind */
  droppedEvents: number;
  eventCount: number;
  lineCount: number;
  symbols: TraceSymbols;
  diagnostics: Diagnostic[];
}

export interface ReadTraceOptions {
  /** Chunk size of the file stream (bytes). */
  chunkSize?: number;
  /** Stops after this many events (for previews); the result is still ok. */
  maxEvents?: number;
  /** Checks symbol references (default true). */
  validateRefs?: boolean;
}

/** An error at a line of the file being read; skips the file. */
class TraceLineError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

class StopReading extends Error {}

export function isGzipPath(file: string): boolean {
  return file.endsWith('.gz');
}

export async function readTrace(file: string, visitor: TraceVisitor, options: ReadTraceOptions = {}): Promise<ReadTraceResult> {
  const source = createReadStream(file, { highWaterMark: options.chunkSize ?? 1 << 20 });
  const stream: Readable = isGzipPath(file) ? source.pipe(createGunzip({ chunkSize: options.chunkSize ?? 1 << 20 })) : source;
  if (isGzipPath(file)) source.on('error', (e) => stream.destroy(e));
  const reader = new TraceLineReader(file, visitor, options);
  try {
    await reader.consume(stream);
  } finally {
    source.destroy();
    stream.destroy();
  }
  return reader.result;
}

/** Reads a trace held in memory (tests, fuzzing, imports). */
export async function readTraceBuffer(file: string, data: Uint8Array, visitor: TraceVisitor, options: ReadTraceOptions = {}): Promise<ReadTraceResult> {
  const reader = new TraceLineReader(file, visitor, options);
  const source = Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  const stream = isGzipPath(file) ? source.pipe(createGunzip()) : source;
  try {
    await reader.consume(stream);
  } finally {
    stream.destroy();
  }
  return reader.result;
}

class TraceLineReader {
  readonly result: ReadTraceResult;
  private readonly ev: TraceEvent = { i: 0, t: 0, kind: EventKind.Read, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined };
  private readonly symbols = new TraceSymbols();
  private line = 0;
  private lastIndex = -1;
  private sawHeader = false;
  private warnedUnknownLine = false;
  private readonly validateRefs: boolean;
  private readonly maxEvents: number;
  /** Per-thread shadow stacks (synthetic stack ids) from ENTER/EXIT. */
  private readonly shadow = new Map<number, number[]>();
  private usesShadowStacks = false;

  constructor(
    private readonly file: string,
    private readonly visitor: TraceVisitor,
    options: ReadTraceOptions,
  ) {
    this.validateRefs = options.validateRefs ?? true;
    this.maxEvents = options.maxEvents ?? Infinity;
    this.result = {
      file,
      ok: true,
      uncaught: [],
      droppedEvents: 0,
      eventCount: 0,
      lineCount: 0,
      symbols: this.symbols,
      diagnostics: [],
    };
  }

  async consume(stream: Readable): Promise<void> {
    let carry: Buffer | null = null;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let start = 0;
        if (carry) {
          const nl = chunk.indexOf(10);
          if (nl === -1) {
            carry = Buffer.concat([carry, chunk]);
            if (carry.length > 256 << 20) throw new TraceLineError(this.line + 1, 'line longer than 256 MiB');
            continue;
          }
          const joined = Buffer.concat([carry, chunk.subarray(0, nl)]);
          carry = null;
          this.processLine(joined, 0, joined.length);
          start = nl + 1;
        }
        let nl: number;
        while ((nl = chunk.indexOf(10, start)) !== -1) {
          this.processLine(chunk, start, nl);
          start = nl + 1;
        }
        if (start < chunk.length) carry = Buffer.from(chunk.subarray(start));
      }
      if (carry && carry.length > 0) this.processLastLine(carry);
      this.finish();
    } catch (err) {
      if (err instanceof StopReading) {
        this.finish();
        return;
      }
      this.result.ok = false;
      if (err instanceof TraceLineError) {
        this.error(err.message, err.line);
      } else if (isZlibError(err)) {
        this.error(`gzip data is truncated or corrupt after line ${this.line} (${(err as Error).message}); the file is skipped`, this.line + 1);
      } else if (isFsError(err)) {
        this.error(`cannot read the file: ${(err as Error).message}`);
      } else {
        this.error(`unexpected error at line ${this.line}: ${(err as Error)?.stack ?? err}`, this.line);
      }
    } finally {
      this.result.lineCount = this.line;
    }
  }

  private error(message: string, line?: number): void {
    this.result.diagnostics.push({ severity: 'error', file: this.file, line, message });
  }

  private warn(message: string, line?: number): void {
    this.result.diagnostics.push({ severity: 'warning', file: this.file, line, message });
  }

  private processLastLine(buf: Buffer): void {
    const savedLine = this.line;
    try {
      this.processLine(buf, 0, buf.length);
    } catch (err) {
      if (err instanceof TraceLineError && this.sawHeader) {
        this.line = savedLine + 1;
        this.warn(`the last line is incomplete (the recording was probably cut off); kept the ${this.result.eventCount} events before it`, savedLine + 1);
        return;
      }
      throw err;
    }
  }

  private finish(): void {
    if (!this.sawHeader) {
      this.result.ok = false;
      this.error('empty trace: no header line', 1);
      return;
    }
    if (!this.result.outcome) {
      this.result.ok = false;
      this.error('the trace has no outcome: add "outcome":"pass"|"fail" to the header or an {"outcome":...} line at the end', Math.max(1, this.line));
    }
  }

  private processLine(buf: Buffer, start: number, end: number): void {
    this.line++;
    // trim
    while (start < end && (buf[start] === 0x20 || buf[start] === 0x09 || buf[start] === 0x0d)) start++;
    while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x09 || buf[end - 1] === 0x0d)) end--;
    if (this.line === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    if (start === end) return;
    const first = buf[start];
    if (!this.sawHeader) {
      this.processHeader(buf.toString('utf8', start, end));
      return;
    }
    if (first === 0x5b /* [ */) {
      const ev = this.ev;
      let fast = false;
      try {
        fast = parseEventLineFast(buf, start, end, ev);
        if (!fast) decodeEventValue(this.parseJson(buf.toString('utf8', start, end)), ev);
      } catch (err) {
        if (err instanceof EventLineError) throw new TraceLineError(this.line, err.message);
        throw err;
      }
      this.processEvent(ev);
    } else if (first === 0x7b /* { */) {
      this.processObject(this.parseJson(buf.toString('utf8', start, end)) as Record<string, unknown>);
    } else {
      throw new TraceLineError(this.line, `expected a JSON array (event) or object (definition/outcome), found ${JSON.stringify(buf.toString('utf8', start, Math.min(end, start + 20)))}`);
    }
  }

  private parseJson(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new TraceLineError(this.line, `invalid JSON: ${(err as Error).message}`);
    }
  }

  private processHeader(text: string): void {
    const h = this.parseJson(text) as Record<string, unknown>;
    if (typeof h !== 'object' || h === null || Array.isArray(h) || h.braid !== 'trace') {
      throw new TraceLineError(this.line, 'missing header: the first line must be {"braid":"trace","version":1,...}');
    }
    if (h.version !== TRACE_FORMAT_VERSION) {
      throw new TraceLineError(this.line, `unknown trace format version ${JSON.stringify(h.version)}; this Braid reads version ${TRACE_FORMAT_VERSION}`);
    }
    if (typeof h.execution !== 'string' || h.execution === '') {
      const fallback = this.file.replace(/^.*[\\/]/, '').replace(/\.trace\.jsonl(\.gz)?$/, '');
      this.warn(`header has no "execution" id; using "${fallback}"`, this.line);
      h.execution = fallback;
    }
    if (h.outcome !== undefined) {
      if (h.outcome !== 'pass' && h.outcome !== 'fail') throw new TraceLineError(this.line, `header "outcome" must be "pass" or "fail", got ${JSON.stringify(h.outcome)}`);
      this.result.outcome = h.outcome;
    }
    this.sawHeader = true;
    this.result.header = h as unknown as TraceHeader;
    this.visitor.header?.(this.result.header, this.symbols);
  }

  private processObject(o: Record<string, unknown>): void {
    if (o === null || Array.isArray(o)) throw new TraceLineError(this.line, 'expected an object');
    if (typeof o.def === 'string') return this.processDef(o);
    if (o.braid === 'trace') throw new TraceLineError(this.line, 'a second header line; one trace file holds one execution');
    if ('outcome' in o) {
      if (o.outcome !== 'pass' && o.outcome !== 'fail') throw new TraceLineError(this.line, `"outcome" must be "pass" or "fail", got ${JSON.stringify(o.outcome)}`);
      this.result.outcome = o.outcome;
      this.result.outcomeReason = typeof o.reason === 'string' ? o.reason : undefined;
      this.result.outcomeDetail = typeof o.detail === 'string' ? o.detail : undefined;
      if (o.failAt !== undefined && o.failAt !== null) this.result.failAt = this.id(o, 'failAt');
      return;
    }
    if (o.uncaught && typeof o.uncaught === 'object') {
      this.result.uncaught.push(o.uncaught as UncaughtInfo);
      return;
    }
    if ('dropped' in o) {
      this.result.droppedEvents += this.id(o, 'dropped');
      return;
    }
    if (!this.warnedUnknownLine) {
      this.warnedUnknownLine = true;
      this.warn(`ignored an object line of unknown kind (keys: ${Object.keys(o).slice(0, 5).join(', ')})`, this.line);
    }
  }

  private id(o: Record<string, unknown>, key: string): number {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new TraceLineError(this.line, `"${key}" must be a non-negative integer`);
    return v;
  }

  private str(o: Record<string, unknown>, key: string, required = true): string | undefined {
    const v = o[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string') throw new TraceLineError(this.line, `"${key}" must be a string`);
    return v;
  }

  private processDef(o: Record<string, unknown>): void {
    const id = this.id(o, 'id');
    const s = this.symbols;
    switch (o.def) {
      case 'thread':
        s.threads.set(id, { id, name: this.str(o, 'name', false) ?? `thread ${id}` });
        return;
      case 'var': {
        const name = this.str(o, 'name')!;
        s.vars.set(id, {
          id,
          name,
          class: this.str(o, 'class', false),
          field: this.str(o, 'field', false),
          array: o.array === true || undefined,
        });
        return;
      }
      case 'loc': {
        const file = this.str(o, 'file')!;
        const line = o.line;
        if (typeof line !== 'number' || !Number.isInteger(line) || line < 0) throw new TraceLineError(this.line, '"line" must be a non-negative integer');
        const loc: LocDef = { id, file, line, method: this.str(o, 'method', false) ?? '' };
        const call = this.str(o, 'call', false);
        if (call !== undefined) loc.call = call;
        if (o.harness !== undefined) {
          if (typeof o.harness !== 'boolean') throw new TraceLineError(this.line, '"harness" must be true or false');
          if (o.harness) loc.harness = true;
        }
        s.locs.set(id, loc);
        return;
      }
      case 'stack': {
        if (Array.isArray(o.frames)) {
          for (const f of o.frames) {
            if (typeof f !== 'number' || !Number.isInteger(f)) throw new TraceLineError(this.line, '"frames" must be an array of loc ids');
            if (this.validateRefs && !s.locs.has(f)) throw new TraceLineError(this.line, `stack ${id} uses loc ${f}, which is not defined`);
          }
          s.defineStackFrames(id, o.frames as number[]);
        } else {
          const frame = this.id(o, 'frame');
          const parent = o.parent === undefined || o.parent === null ? -1 : this.id(o, 'parent');
          if (this.validateRefs && !s.locs.has(frame)) throw new TraceLineError(this.line, `stack ${id} uses loc ${frame}, which is not defined`);
          if (this.validateRefs && parent >= 0 && !s.hasStack(parent)) throw new TraceLineError(this.line, `stack ${id} has parent stack ${parent}, which is not defined`);
          s.defineStackNode(id, parent, frame);
        }
        return;
      }
      default:
        throw new TraceLineError(this.line, `unknown definition kind ${JSON.stringify(o.def)} (expected thread, var, loc or stack)`);
    }
  }

  private processEvent(ev: TraceEvent): void {
    if (ev.i <= this.lastIndex) throw new TraceLineError(this.line, `global index ${ev.i} does not increase (previous event had ${this.lastIndex})`);
    this.lastIndex = ev.i;
    const s = this.symbols;
    switch (ev.kind) {
      case EventKind.Read:
      case EventKind.Write:
        if (this.validateRefs) {
          if (!s.vars.has(ev.a)) throw new TraceLineError(this.line, `var ${ev.a} is not defined (add {"def":"var","id":${ev.a},"name":...} before this line)`);
          if (!s.locs.has(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined (add {"def":"loc","id":${ev.b},...} before this line)`);
          if (ev.c >= 0 && !s.hasStack(ev.c)) throw new TraceLineError(this.line, `stack ${ev.c} is not defined`);
        }
        if (ev.c < 0 && this.usesShadowStacks) {
          const sh = this.shadow.get(ev.t);
          if (sh && sh.length) ev.c = sh[sh.length - 1];
        }
        break;
      case EventKind.Enter: {
        if (this.validateRefs && !s.locs.has(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        this.usesShadowStacks = true;
        let sh = this.shadow.get(ev.t);
        if (!sh) this.shadow.set(ev.t, (sh = []));
        sh.push(s.pushSynthetic(sh.length ? sh[sh.length - 1] : -1, ev.b));
        break;
      }
      case EventKind.Exit: {
        const sh = this.shadow.get(ev.t);
        if (sh && sh.length) sh.pop();
        break;
      }
      case EventKind.Acquire:
      case EventKind.Release:
      case EventKind.Start:
      case EventKind.Join:
      case EventKind.Send:
      case EventKind.Receive:
        if (this.validateRefs && ev.b >= 0 && !s.locs.has(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        break;
      case EventKind.Fail:
        if (this.validateRefs && ev.b >= 0 && !s.locs.has(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        if (this.validateRefs && ev.c >= 0 && !s.hasStack(ev.c)) throw new TraceLineError(this.line, `stack ${ev.c} is not defined`);
        if (this.result.firstFail === undefined) this.result.firstFail = ev.i;
        break;
      default:
        break;
    }
    this.result.eventCount++;
    this.visitor.event(ev, s);
    if (this.result.eventCount >= this.maxEvents) throw new StopReading();
  }
}

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return typeof code === 'string' && (code.startsWith('Z_') || code === 'ERR_ZLIB_INITIALIZATION_FAILED');
}

function isFsError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return ['ENOENT', 'EACCES', 'EISDIR', 'EMFILE', 'EIO'].includes(code);
}
