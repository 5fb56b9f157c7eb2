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
  ForcingReport,
  LocDef,
  parseForcingReport,
  Outcome,
  TRACE_FORMAT_VERSION,
  TraceEvent,
  TraceHeader,
  UncaughtInfo,
  VarDef,
} from './traceFormat';
import { MAX_STACK_DEPTH, TraceSymbols } from './traceSymbols';
import { EventLineError, decodeEventValue, excerpt, parseEventLineFast } from './eventLineParser';

export interface TraceVisitor {
  /** Called once, after the header line was validated. */
  header?(header: TraceHeader, symbols: TraceSymbols): void;
  /** Called per event; `ev` is reused, copy what you keep. `line`: the event's line in the file. */
  event(ev: TraceEvent, symbols: TraceSymbols, line: number): void;
}

export interface ReadTraceResult {
  file: string;
  /** false when the file has to be skipped (an error diagnostic says why). */
  ok: boolean;
  header?: TraceHeader;
  outcome?: Outcome;
  outcomeReason?: string;
  outcomeDetail?: string;
  /** the outcome line's `message` / `location`: the failure as the runner read it in the program's output (issue 30) */
  outcomeMessage?: string;
  outcomeLocation?: { file: string; line: number; method?: string };
  uncaught: UncaughtInfo[];
  /** index `i` of the first FAIL event (a failure point recorded by the agent) */
  firstFail?: number;
  /** the outcome line's `failAt`: index of the failure point the runner found */
  failAt?: number;
  /** events the recorder dropped (sum of the `{"dropped":N}` lines): its writer fell behind */
  droppedEvents: number;
  /** the agent's forcing report (a `{"forcing":…}` line; the last one when there are several) */
  forcing?: ForcingReport;
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
  /** Longest line accepted (bytes); longer is an error (default 16 MiB). */
  maxLineBytes?: number;
  /** Gzip traces may expand to at most this many times their size (default 200; at least 64 MiB are always allowed). */
  maxGzipRatio?: number;
  /** The tables to define the trace's symbols in (default: new ones; the reader thread passes tables that record each definition). */
  symbols?: TraceSymbols;
}

/** Deepest nesting of arrays/objects in one line (an event's value, a header). */
export const MAX_NESTING = 64;
const DEFAULT_MAX_LINE_BYTES = 16 << 20;
const DEFAULT_MAX_GZIP_RATIO = 200;
const GZIP_FLOOR_BYTES = 64 << 20;

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
  if (isGzipPath(file)) source.on('data', (chunk) => (reader.compressedBytes += chunk.length));
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
  reader.compressedBytes = data.byteLength;
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
  private readonly symbols: TraceSymbols;
  private line = 0;
  private lastIndex = -1;
  private sawHeader = false;
  private warnedUnknownLine = false;
  private readonly validateRefs: boolean;
  private readonly maxEvents: number;
  private readonly maxLineBytes: number;
  private readonly maxGzipRatio: number;
  private readonly gzip: boolean;
  /** bytes of the gzip file read so far (for the expansion cap) */
  compressedBytes = 0;
  private warnedTruncatedStack = false;
  private readonly strings = new Map<string, string>();
  /** Per-thread shadow stacks (stack nodes) from ENTER/EXIT. */
  private readonly shadow = new Map<number, number[]>();
  private usesShadowStacks = false;

  constructor(
    private readonly file: string,
    private readonly visitor: TraceVisitor,
    options: ReadTraceOptions,
  ) {
    this.symbols = options.symbols ?? new TraceSymbols();
    this.validateRefs = options.validateRefs ?? true;
    this.maxEvents = options.maxEvents ?? Infinity;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxGzipRatio = options.maxGzipRatio ?? DEFAULT_MAX_GZIP_RATIO;
    this.gzip = isGzipPath(file);
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
    // The start of a line that spans chunks: its pieces, joined once when the
    // line ends (linear in the line's length), and never more than maxLineBytes.
    const carry: Buffer[] = [];
    let carryBytes = 0;
    let bytes = 0;
    const tooLong = () => new TraceLineError(this.line + 1, `line ${this.line + 1} is longer than ${formatBytes(this.maxLineBytes)}; the file is skipped`);
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (this.gzip && bytes > Math.max(GZIP_FLOOR_BYTES, this.maxGzipRatio * this.compressedBytes)) {
          throw new TraceLineError(this.line + 1, `the gzip data expands to more than ${formatBytes(bytes)} from ${formatBytes(this.compressedBytes)} (over ${this.maxGzipRatio}×; a gzip bomb?); the file is skipped`);
        }
        let start = 0;
        if (carry.length) {
          const nl = chunk.indexOf(10);
          if (nl === -1) {
            carryBytes += chunk.length;
            if (carryBytes > this.maxLineBytes) throw tooLong();
            carry.push(chunk);
            continue;
          }
          if (carryBytes + nl > this.maxLineBytes) throw tooLong();
          carry.push(chunk.subarray(0, nl));
          const joined = Buffer.concat(carry, carryBytes + nl);
          carry.length = 0;
          carryBytes = 0;
          this.processLine(joined, 0, joined.length);
          start = nl + 1;
        }
        let nl: number;
        while ((nl = chunk.indexOf(10, start)) !== -1) {
          if (nl - start > this.maxLineBytes) throw tooLong();
          this.processLine(chunk, start, nl);
          start = nl + 1;
        }
        if (start < chunk.length) {
          if (chunk.length - start > this.maxLineBytes) throw tooLong();
          carry.push(Buffer.from(chunk.subarray(start)));
          carryBytes = chunk.length - start;
        }
      }
      if (carryBytes > 0) this.processLastLine(Buffer.concat(carry, carryBytes));
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
        this.error(
          `gzip data is truncated or corrupt ${this.line === 0 ? 'from the start: nothing could be read' : `after line ${this.line}`} (${(err as Error).message}); the file is skipped`,
          this.line + 1,
        );
      } else if (isFsError(err)) {
        this.error(`cannot read the file: ${fsErrorText(err)}`, 1);
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
      const head = buf.toString('utf8', start, Math.min(end, start + 20));
      throw new TraceLineError(this.line, `expected a JSON array (event) or object (definition/outcome), found ${excerpt(JSON.stringify(head))}${binaryHint(head)}`);
    }
  }

  private parseJson(text: string): unknown {
    if (nestingExceeds(text, MAX_NESTING)) throw new TraceLineError(this.line, `arrays and objects are nested more than ${MAX_NESTING} levels deep`);
    try {
      return JSON.parse(text);
    } catch (err) {
      // V8 quotes the start of the text in its message: keep only the short, escaped reason
      const reason = String((err as Error).message).replace(/,? "[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
      throw new TraceLineError(this.line, `invalid JSON: ${excerpt(reason, 100)}${binaryHint(text)}`);
    }
  }

  private processHeader(text: string): void {
    const h = this.parseJson(text) as Record<string, unknown>;
    if (typeof h !== 'object' || h === null || Array.isArray(h) || h.braid !== 'trace') {
      throw new TraceLineError(this.line, 'missing header: the first line must be {"braid":"trace","version":1,...}');
    }
    if (h.version !== TRACE_FORMAT_VERSION) {
      throw new TraceLineError(this.line, `unknown trace format version ${excerpt(JSON.stringify(h.version))}; this Braid reads version ${TRACE_FORMAT_VERSION}`);
    }
    if (typeof h.execution !== 'string' || h.execution === '') {
      const fallback = this.file.replace(/^.*[\\/]/, '').replace(/\.trace\.jsonl(\.gz)?$/, '');
      this.warn(`header has no "execution" id; using "${fallback}"`, this.line);
      h.execution = fallback;
    }
    if (h.outcome !== undefined) {
      if (h.outcome !== 'pass' && h.outcome !== 'fail') throw new TraceLineError(this.line, `header "outcome" must be "pass" or "fail", got ${excerpt(JSON.stringify(h.outcome))}`);
      this.result.outcome = h.outcome;
    }
    // optional fields of the wrong type are dropped with a warning (docs/trace-format.schema.json)
    const wrong: string[] = [];
    for (const key of ['program', 'test', 'startedAt']) if (h[key] !== undefined && typeof h[key] !== 'string') wrong.push(key);
    if (h.recorder !== undefined && !validRecorder(h.recorder)) wrong.push('recorder');
    if (wrong.length) {
      for (const key of wrong) delete h[key];
      this.warn(`header ${wrong.map((k) => `"${k}"`).join(', ')} ${wrong.length > 1 ? 'have' : 'has'} the wrong type (see docs/trace-format.md); ignored`, this.line);
    }
    this.sawHeader = true;
    this.result.header = h as unknown as TraceHeader;
    this.visitor.header?.(this.result.header, this.symbols);
  }

  private processObject(o: Record<string, unknown>): void {
    if (o === null || Array.isArray(o)) throw new TraceLineError(this.line, 'expected an object');
    const kinds = ['def', 'outcome', 'uncaught', 'forcing'].filter((k) => k in o);
    if (kinds.length > 1) throw new TraceLineError(this.line, `a line is a definition, an outcome or an uncaught report, not several (has ${kinds.map((k) => `"${k}"`).join(' and ')})`);
    if (typeof o.def === 'string') return this.processDef(o);
    if ('braid' in o) throw new TraceLineError(this.line, 'a second header line; one trace file holds one execution');
    if ('outcome' in o) {
      if (o.outcome !== 'pass' && o.outcome !== 'fail') throw new TraceLineError(this.line, `"outcome" must be "pass" or "fail", got ${excerpt(JSON.stringify(o.outcome))}`);
      this.result.outcome = o.outcome;
      this.result.outcomeReason = typeof o.reason === 'string' ? o.reason : undefined;
      this.result.outcomeDetail = typeof o.detail === 'string' ? o.detail : undefined;
      this.result.outcomeMessage = typeof o.message === 'string' ? o.message : undefined;
      const l = o.location as Record<string, unknown> | undefined;
      const goodLocation = l && typeof l === 'object' && typeof l.file === 'string' && Number.isSafeInteger(l.line) && (l.method === undefined || typeof l.method === 'string');
      this.result.outcomeLocation = goodLocation ? { file: l.file as string, line: l.line as number, ...(typeof l.method === 'string' ? { method: l.method } : {}) } : undefined;
      const wrong = ['reason', 'detail', 'message'].filter((k) => o[k] !== undefined && typeof o[k] !== 'string');
      if (l !== undefined && !goodLocation) wrong.push('location');
      if (wrong.length) this.warn(`outcome ${wrong.map((k) => `"${k}"`).join(' and ')} ${wrong.includes('location') ? 'has the wrong type' : 'must be text'}; ignored`, this.line);
      if (o.failAt !== undefined && o.failAt !== null) this.result.failAt = this.id(o, 'failAt');
      return;
    }
    if ('uncaught' in o) {
      if (validUncaught(o.uncaught)) this.result.uncaught.push(o.uncaught as UncaughtInfo);
      else this.warn('an "uncaught" line must be {"thread":int,"exception":text,"message":text|null,"frames":[text]}; ignored', this.line);
      return;
    }
    if ('dropped' in o) {
      this.result.droppedEvents += this.id(o, 'dropped');
      return;
    }
    if ('forcing' in o) {
      const report = parseForcingReport(o.forcing);
      if (report) this.result.forcing = report;
      else this.warn('a "forcing" line must be {"ok":true|false,"order"?:"pattern"|"opposite","reason"?:text,"waits":[{"at","for","met","timedOut","lock","skipped": integers ≥ 0}]}; ignored', this.line);
      return;
    }
    // the agent's schedule report (--noise-mode pct, docs/trace-format.md): read by the runner (traceFinalizer.ts), not by the analysis
    if ('pct' in o) return;
    if (!this.warnedUnknownLine) {
      this.warnedUnknownLine = true;
      this.warn(`ignored an object line of unknown kind (keys: ${excerpt(Object.keys(o).slice(0, 5).join(', '), 80)})`, this.line);
    }
  }

  private id(o: Record<string, unknown>, key: string): number {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TraceLineError(this.line, `"${key}" must be a non-negative integer (up to 2^53 − 1)`);
    return v;
  }

  /** One copy of each file and method name (many locs share them). */
  private intern(x: string): string {
    const known = this.strings.get(x);
    if (known !== undefined) return known;
    this.strings.set(x, x);
    return x;
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
      case 'thread': {
        const name = this.str(o, 'name', false) ?? `thread ${id}`;
        const before = s.threads.get(id);
        if (before && before.name !== name) throw this.redefined('thread', id, JSON.stringify(before.name), JSON.stringify(name));
        s.threads.set(id, { id, name });
        return;
      }
      case 'var': {
        // only the fields present: a VarDef without optional fields is a small object
        const v: VarDef = { id, name: this.str(o, 'name')! };
        const cls = this.str(o, 'class', false);
        const field = this.str(o, 'field', false);
        if (cls !== undefined) v.class = cls;
        if (field !== undefined) v.field = field;
        if (o.array === true) v.array = true;
        else if (o.array !== undefined && o.array !== false) this.warn('"array" must be true or false; ignored', this.line);
        const before = s.hasVar(id) ? s.vars.get(id) : undefined;
        if (before && !sameDef(before, v)) throw this.redefined('var', id, describeVar(before), describeVar(v));
        s.defineVar(id, v);
        return;
      }
      case 'loc': {
        const file = this.str(o, 'file')!;
        const line = o.line;
        if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0) throw new TraceLineError(this.line, '"line" must be a non-negative integer');
        const loc: LocDef = { id, file: this.intern(file), line, method: this.intern(this.str(o, 'method', false) ?? '') };
        const call = this.str(o, 'call', false);
        if (call !== undefined) loc.call = call;
        if (o.harness !== undefined) {
          if (typeof o.harness !== 'boolean') throw new TraceLineError(this.line, '"harness" must be true or false');
          if (o.harness) loc.harness = true;
        }
        const before = s.hasLoc(id) ? s.locs.get(id) : undefined;
        if (before && !sameDef(before, loc)) throw this.redefined('loc', id, describeLoc(before), describeLoc(loc));
        s.defineLoc(id, loc);
        return;
      }
      case 'stack': {
        // A stack id is defined once and only on top of defined stacks, so
        // stacks form a tree (no cycles); see TraceSymbols for the depth cap.
        if (s.hasStack(id)) throw new TraceLineError(this.line, `stack ${id} is defined twice`);
        if (Array.isArray(o.frames)) {
          if (o.frame !== undefined || (o.parent !== undefined && o.parent !== null)) throw new TraceLineError(this.line, 'a stack has either "frames" or "frame" (with "parent"), not both');
          for (const f of o.frames) {
            if (typeof f !== 'number' || !Number.isSafeInteger(f) || f < 0) throw new TraceLineError(this.line, '"frames" must be an array of loc ids');
            if (this.validateRefs && !s.hasLoc(f)) throw new TraceLineError(this.line, `stack ${id} uses loc ${f}, which is not defined`);
          }
          s.defineStackFrames(id, o.frames as number[]);
        } else {
          if (o.frames !== undefined) throw new TraceLineError(this.line, '"frames" must be an array of loc ids');
          const frame = this.id(o, 'frame');
          const parent = o.parent === undefined || o.parent === null ? -1 : this.id(o, 'parent');
          if (this.validateRefs && !s.hasLoc(frame)) throw new TraceLineError(this.line, `stack ${id} uses loc ${frame}, which is not defined`);
          if (parent >= 0 && !s.hasStack(parent)) throw new TraceLineError(this.line, `stack ${id} has parent stack ${parent}, which is not defined`);
          s.defineStackNode(id, parent, frame);
        }
        this.warnTruncatedStack();
        return;
      }
      default:
        throw new TraceLineError(this.line, `unknown definition kind ${excerpt(JSON.stringify(o.def))} (expected thread, var, loc or stack)`);
    }
  }

  /** A second definition of an id that differs from the first: every event of the id would silently change meaning. */
  private redefined(kind: string, id: number, before: string, now: string): TraceLineError {
    return new TraceLineError(this.line, `${kind} ${id} is defined twice, differently (first ${excerpt(before)}, now ${excerpt(now)}); give each ${kind} its own id`);
  }

  private warnTruncatedStack(): void {
    if (this.warnedTruncatedStack || !this.symbols.truncatedStacks) return;
    this.warnedTruncatedStack = true;
    this.warn(`a call stack is deeper than ${MAX_STACK_DEPTH} frames (runaway recursion, or ENTER without EXIT?); frames above ${MAX_STACK_DEPTH} are dropped from this trace's stacks`, this.line);
  }

  private processEvent(ev: TraceEvent): void {
    if (ev.i <= this.lastIndex) throw new TraceLineError(this.line, `global index ${ev.i} does not increase (previous event had ${this.lastIndex})`);
    this.lastIndex = ev.i;
    const s = this.symbols;
    switch (ev.kind) {
      case EventKind.Read:
      case EventKind.Write:
        if (this.validateRefs) {
          if (!s.hasVar(ev.a)) throw new TraceLineError(this.line, `var ${ev.a} is not defined (add {"def":"var","id":${ev.a},"name":...} before this line)`);
          if (!s.hasLoc(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined (add {"def":"loc","id":${ev.b},...} before this line)`);
          if (ev.c >= 0 && !s.hasStack(ev.c)) throw new TraceLineError(this.line, `stack ${ev.c} is not defined`);
        }
        if (ev.c >= 0) ev.c = s.stackNode(ev.c);
        if (ev.c < 0 && this.usesShadowStacks) {
          const sh = this.shadow.get(ev.t);
          if (sh && sh.length) ev.c = sh[sh.length - 1];
        }
        break;
      case EventKind.Enter: {
        if (this.validateRefs && !s.hasLoc(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        this.usesShadowStacks = true;
        let sh = this.shadow.get(ev.t);
        if (!sh) this.shadow.set(ev.t, (sh = []));
        sh.push(s.pushFrame(sh.length ? sh[sh.length - 1] : -1, ev.b));
        this.warnTruncatedStack();
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
        if (ev.a < 0 && ev.kind !== EventKind.Acquire && ev.kind !== EventKind.Release) throw new TraceLineError(this.line, `element 4 (${ev.kind === EventKind.Start || ev.kind === EventKind.Join ? 'child thread id' : 'sync token'}) must be a non-negative integer`);
        if (this.validateRefs && ev.b >= 0 && !s.hasLoc(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        if ((ev.kind === EventKind.Acquire || ev.kind === EventKind.Release) && ev.c >= 0) {
          if (this.validateRefs && !s.hasStack(ev.c)) throw new TraceLineError(this.line, `stack ${ev.c} is not defined`);
          ev.c = s.stackNode(ev.c);
        }
        break;
      case EventKind.Fail:
        if (this.validateRefs && ev.b >= 0 && !s.hasLoc(ev.b)) throw new TraceLineError(this.line, `loc ${ev.b} is not defined`);
        if (this.validateRefs && ev.c >= 0 && !s.hasStack(ev.c)) throw new TraceLineError(this.line, `stack ${ev.c} is not defined`);
        if (ev.c >= 0) ev.c = s.stackNode(ev.c);
        if (this.result.firstFail === undefined) this.result.firstFail = ev.i;
        break;
      default:
        break;
    }
    this.result.eventCount++;
    this.visitor.event(ev, s, this.line);
    if (this.result.eventCount >= this.maxEvents) throw new StopReading();
  }
}

/** True when `text` (JSON) nests arrays/objects deeper than `limit`; strings are skipped. */
export function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (inString) {
      if (c === 0x5c) k++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function validRecorder(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if ((r.name !== undefined && typeof r.name !== 'string') || (r.version !== undefined && typeof r.version !== 'string')) return false;
  if (r.options === undefined) return true;
  if (typeof r.options !== 'object' || r.options === null || Array.isArray(r.options)) return false;
  const o = r.options as Record<string, unknown>;
  if (o.seed !== undefined && typeof o.seed !== 'string' && !Number.isInteger(o.seed)) return false;
  return o.noise === undefined || typeof o.noise === 'number';
}

function validUncaught(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const u = v as Record<string, unknown>;
  if (u.thread !== undefined && !Number.isInteger(u.thread)) return false;
  if (u.name !== undefined && typeof u.name !== 'string') return false;
  if (u.exception !== undefined && typeof u.exception !== 'string') return false;
  if (u.message !== undefined && u.message !== null && typeof u.message !== 'string') return false;
  return u.frames === undefined || (Array.isArray(u.frames) && u.frames.every((f) => typeof f === 'string'));
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${Math.round(n / (1 << 20))} MiB` : `${Math.round(n / 1024)} KiB`;
}

function fsErrorText(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder';
  return excerpt((err as Error).message, 120);
}

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return typeof code === 'string' && (code.startsWith('Z_') || code === 'ERR_ZLIB_INITIALIZATION_FAILED');
}

function isFsError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return ['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'EMFILE', 'ENFILE', 'EIO', 'ELOOP', 'ENAMETOOLONG', 'ENOTDIR', 'ENXIO'].includes(code);
}

/** Two var or loc definitions with the same fields (a repeated identical definition is accepted). */
function sameDef(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k]);
}

function describeVar(v: VarDef): string {
  return JSON.stringify(v.name) + (v.class !== undefined || v.field !== undefined ? ` (${v.class ?? ''}.${v.field ?? ''})` : '') + (v.array ? ' (array)' : '');
}

function describeLoc(l: LocDef): string {
  return `${l.file}:${l.line}${l.method ? ` ${l.method}` : ''}${l.call !== undefined ? ` call ${l.call}` : ''}${l.harness ? ' (harness)' : ''}`;
}

/** A note for text that is not UTF-8 text at all (NUL bytes or bytes that are not UTF-8). */
function binaryHint(text: string): string {
  return /[\u0000\ufffd]/.test(text) ? ' (the file looks binary, not a JSON-lines trace: is it compressed without the .gz suffix, or not a trace?)' : '';
}
