/**
 * The workspace snapshot: a whole Analyzer (its pattern registry, its runs and the traces'
 * problems) in one binary file of the summary cache, so reopening a workspace loads the
 * analysis in one read instead of re-interning every run's summary, and then reads only the
 * traces that are new or changed.
 *
 *   <cache root>/<engine>-<options hash>/workspace-<name>.braid-snapshot   (<name>: keyed by this
 *   machine's key, cacheKey.ts: a snapshot that came with a cloned repository is never read)
 *
 * Layout: "BRAIDSNP", u32 header length, u32 CRC-32 of everything after these 16 bytes, the
 * header (JSON: format, version, engine, collection options, the manifest of traces it covers
 * with size, mtime and SHA-1, the runs' small fields, where each column is), then the columns,
 * each 8-byte aligned: typed arrays (the registry's columns, the runs' pattern ids) and two
 * JSON blobs (one string table, the first occurrences' values). No object per pattern is
 * parsed. A snapshot of another format version, engine version or collection options, or a
 * broken one, is refused with an Error saying why; the caller then reads every trace
 * (nothing is lost: the traces and per-run summaries are still there).
 */
import { checkedFailure } from '../runFailure';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../workspace/atomicWrite';
import * as zlib from 'node:zlib';
import { Analyzer, AnalysisOptions, RunResult } from '../analysis';
import type { Diagnostic } from '../trace/traceFormat';
import type { LocInfo, RegistryColumns } from '../unicorn/patternRegistry';
import { collectionOptions, ENGINE_VERSION, optionMismatch, CollectionOptions } from './summaryFile';
import { cacheName } from './cacheKey';
import { boundValue } from '../trace/boundedValue';

export const SNAPSHOT_FORMAT = 'braid-workspace-snapshot';
/** Bump when the layout changes (the engine version is checked too). */
export const SNAPSHOT_VERSION = 1;
const MAGIC = 'BRAIDSNP';
const PREFIX = 16;

/** A trace the snapshot covers, as it was when read. */
export interface SnapshotTrace {
  file: string;
  size: number;
  mtimeMs: number;
  /** SHA-1 of the trace's bytes, when known */
  hash?: string;
}

type ColumnType = 'i32' | 'u8' | 'json';
interface ColumnRef {
  type: ColumnType;
  /** byte offset from the start of the file */
  offset: number;
  /** entries (bytes for json) */
  length: number;
}

/** A run's fields other than its pattern ids (those are columns). */
type RunMeta = Omit<RunResult, 'patterns' | 'afterFailure' | 'occurrences' | 'overtaken'> & { diagnostics: Diagnostic[]; hash?: string };

interface Header {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  engine: string;
  options: CollectionOptions;
  traces: SnapshotTrace[];
  runs: RunMeta[];
  unreadable: { file: string; diagnostics: Diagnostic[] }[];
  columns: Record<string, ColumnRef>;
}

/** The snapshot file in a summary cache folder (SummaryCache.dir). */
/** The snapshot of a cache folder: its name is keyed by this machine's key (cacheKey.ts), so a planted one is never read. */
export function snapshotPath(cacheDir: string): string {
  return path.join(cacheDir, `workspace-${cacheName('snapshot')}.braid-snapshot`);
}

// CRC-32 (IEEE): node's zlib.crc32 when it has one (Node ≥ 20.15), else a table
let crcTable: Int32Array | undefined;
function crc32(data: Uint8Array, prev: number): number {
  // (node's crc32 answers 0 for an empty view of an empty ArrayBuffer, whatever `prev`)
  if (data.length === 0) return prev;
  const native = (zlib as unknown as { crc32?: (d: Uint8Array, v: number) => number }).crc32;
  if (native) return native(data, prev);
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = ~prev;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function bytes(a: Uint8Array | Int32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** The snapshot of `analyzer` covering `traces`, as the buffers to write one after the other. */
export function encodeWorkspaceSnapshot(analyzer: Analyzer, traces: SnapshotTrace[]): Buffer[] {
  const state = analyzer.exportState();
  const reg = state.registry;
  // one string table: variables, thread names, the locs' files, methods and calls
  const strings: string[] = [];
  const stringIds = new Map<string, number>();
  const str = (s: string) => {
    let k = stringIds.get(s);
    if (k === undefined) {
      stringIds.set(s, (k = strings.length));
      strings.push(s);
    }
    return k;
  };
  const varIds = Int32Array.from(reg.variables, str);
  const nameIds = Int32Array.from(reg.threadNames, str);
  const n = reg.locs.length;
  const locFile = new Int32Array(n);
  const locLine = new Int32Array(n);
  const locMethod = new Int32Array(n);
  const locCall = new Int32Array(n);
  const locHarness = new Uint8Array(n);
  reg.locs.forEach((l, k) => {
    locFile[k] = str(l.file);
    locLine[k] = l.line;
    locMethod[k] = str(l.method);
    locCall[k] = l.call === undefined ? -1 : str(l.call);
    // bit 0: harness; bit 1: mixedCalls (snapshots written before it have 0/1)
    locHarness[k] = (l.harness ? 1 : 0) | (l.mixedCalls ? 2 : 0);
  });
  // the runs' pattern ids, one after the other
  let total = 0;
  let totalAfter = 0;
  for (const { run } of state.runs) {
    total += run.patterns.length;
    totalAfter += run.afterFailure?.length ?? 0;
  }
  const runPatternCounts = new Int32Array(state.runs.length);
  const runPatterns = new Int32Array(total);
  // per entry of runPatterns: its occurrences in the run (1 where the run kept none)
  const runOccurrences = new Int32Array(total).fill(1);
  // per entry of runPatterns: its occurrences overtaken (evidence by start order; 0 where the run counted none)
  const runOvertaken = new Int32Array(total);
  const runAfterCounts = new Int32Array(state.runs.length);
  const runAfter = new Int32Array(totalAfter);
  const runs: RunMeta[] = [];
  const hashes = new Map<string, string>();
  for (const { run, hash } of state.runs) if (hash) hashes.set(run.file, hash);
  let at = 0;
  let atAfter = 0;
  state.runs.forEach(({ run, diagnostics, hash }, k) => {
    const { patterns, afterFailure, occurrences, overtaken, ...rest } = run;
    runs.push({ ...rest, diagnostics, ...(hash ? { hash } : {}) });
    runPatternCounts[k] = patterns.length;
    runPatterns.set(patterns, at);
    if (occurrences) runOccurrences.set(occurrences, at);
    if (overtaken) runOvertaken.set(overtaken, at);
    at += patterns.length;
    runAfterCounts[k] = afterFailure ? afterFailure.length : -1;
    if (afterFailure) {
      runAfter.set(afterFailure, atAfter);
      atAfter += afterFailure.length;
    }
  });
  const cols: [string, Uint8Array | Int32Array | string][] = [
    ['strings', JSON.stringify(strings)],
    ['values', JSON.stringify(reg.values)],
    ['variables', varIds],
    ['threadNames', nameIds],
    ['locFile', locFile],
    ['locLine', locLine],
    ['locMethod', locMethod],
    ['locCall', locCall],
    ['locHarness', locHarness],
    ['stackParents', reg.stackParents],
    ['stackLocs', reg.stackLocs],
    ['accessWrite', reg.accessWrite],
    ['accessVariable', reg.accessVariable],
    ['accessLoc', reg.accessLoc],
    ['pairFirst', reg.pairFirst],
    ['pairSecond', reg.pairSecond],
    ['pairPatterns', reg.pairPatterns],
    ['patternN', reg.patternN],
    ['patternAcc', reg.patternAcc],
    ['patternStack', reg.patternStack],
    ['patternName', reg.patternName],
    ['runPatternCounts', runPatternCounts],
    ['runPatterns', runPatterns],
    ['runOccurrences', runOccurrences],
    ['runOvertaken', runOvertaken],
    ['runAfterCounts', runAfterCounts],
    ['runAfter', runAfter],
  ];
  const bodies = cols.map(([, v]) => (typeof v === 'string' ? Buffer.from(v, 'utf8') : bytes(v)));
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    engine: ENGINE_VERSION,
    options: collectionOptions(analyzer.options),
    traces: traces.map((t) => (t.hash || !hashes.has(t.file) ? t : { ...t, hash: hashes.get(t.file) })),
    runs,
    unreadable: state.unreadable,
    columns: {},
  };
  // offsets depend on the header's length, which depends on the offsets: lay out with a fixed-width header
  const place = (headerBytes: number) => {
    let off = align(PREFIX + headerBytes);
    cols.forEach(([name, v], k) => {
      header.columns[name] = { type: typeof v === 'string' ? 'json' : v instanceof Int32Array ? 'i32' : 'u8', offset: off, length: typeof v === 'string' ? bodies[k].length : v.length };
      off = align(off + bodies[k].length);
    });
  };
  place(0);
  let json = Buffer.from(JSON.stringify(header), 'utf8');
  // offsets are at most 16 digits: reserve room once, then pad the header with spaces
  const room = json.length + cols.length * 40;
  place(room);
  json = Buffer.from(JSON.stringify(header), 'utf8');
  if (json.length > room) throw new Error('workspace snapshot: the header outgrew its room');
  const headerBuf = Buffer.alloc(room, 0x20);
  json.copy(headerBuf);
  const out: Buffer[] = [headerBuf];
  let pos = PREFIX + room;
  cols.forEach(([name], k) => {
    const pad = header.columns[name].offset - pos;
    if (pad > 0) out.push(Buffer.alloc(pad));
    out.push(bodies[k]);
    pos = header.columns[name].offset + bodies[k].length;
  });
  let crc = 0;
  for (const b of out) crc = crc32(b, crc);
  const prefix = Buffer.alloc(PREFIX);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(room, 8);
  prefix.writeUInt32LE(crc >>> 0, 12);
  return [prefix, ...out];
}

function align(n: number): number {
  return (n + 7) & ~7;
}

/**
 * Writes the snapshot (to a temporary name, then renamed: a reader never sees half a file).
 * Throws when it cannot be written.
 */
export async function writeWorkspaceSnapshot(file: string, analyzer: Analyzer, traces: SnapshotTrace[]): Promise<void> {
  const chunks = encodeWorkspaceSnapshot(analyzer, traces);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, chunks);
}

class SnapshotError extends Error {}

/**
 * A new Analyzer (with `options`) holding the snapshot in `buf`, and the traces it covers.
 * Throws an Error saying why a snapshot cannot be used (another version, engine or collection
 * options; truncated, corrupt or inconsistent).
 */
export function decodeWorkspaceSnapshot(buf: Buffer, options: Partial<AnalysisOptions>): { analyzer: Analyzer; traces: SnapshotTrace[] } {
  const fail = (what: string): never => {
    throw new SnapshotError(what);
  };
  if (buf.length < PREFIX || buf.toString('latin1', 0, 8) !== MAGIC) fail('not a Braid workspace snapshot');
  const headerBytes = buf.readUInt32LE(8);
  if (PREFIX + headerBytes > buf.length) fail('truncated (header)');
  let header: Header;
  try {
    header = JSON.parse(buf.toString('utf8', PREFIX, PREFIX + headerBytes)) as Header;
  } catch {
    fail('broken header');
  }
  header = header!;
  if (header.format !== SNAPSHOT_FORMAT) fail('not a Braid workspace snapshot');
  if (header.version !== SNAPSHOT_VERSION) fail(`snapshot format version ${header.version} (this Braid reads version ${SNAPSHOT_VERSION})`);
  if (header.engine !== ENGINE_VERSION) fail(`made by engine version "${header.engine}", this Braid has "${ENGINE_VERSION}"`);
  const analyzer = new Analyzer(options);
  const diff = optionMismatch(header.options, analyzer.options);
  if (diff) fail(`made with other analysis options: ${diff}`);
  const cols = header.columns;
  let end = PREFIX + headerBytes;
  for (const c of Object.values(cols)) end = Math.max(end, c.offset + c.length * (c.type === 'i32' ? 4 : 1));
  if (end > buf.length) fail(`truncated (${buf.length} bytes, ${end} expected)`);
  if (crc32(buf.subarray(PREFIX), 0) >>> 0 !== buf.readUInt32LE(12)) fail('corrupt (checksum mismatch)');
  const col = (name: string, type: ColumnType) => {
    const c = cols[name];
    if (!c || c.type !== type || !Number.isInteger(c.offset) || !Number.isInteger(c.length) || c.offset < PREFIX || c.length < 0) fail(`column ${name} missing`);
    return c;
  };
  const i32 = (name: string): Int32Array => {
    const c = col(name, 'i32');
    const at = buf.byteOffset + c.offset;
    return at % 4 === 0 ? new Int32Array(buf.buffer, at, c.length) : new Int32Array(buf.buffer.slice(at, at + c.length * 4));
  };
  const u8 = (name: string): Uint8Array => {
    const c = col(name, 'u8');
    return new Uint8Array(buf.buffer, buf.byteOffset + c.offset, c.length);
  };
  const json = (name: string): unknown => {
    const c = col(name, 'json');
    try {
      return JSON.parse(buf.toString('utf8', c.offset, c.offset + c.length));
    } catch {
      return fail(`column ${name} broken`);
    }
  };
  const strings = json('strings');
  if (!Array.isArray(strings) || strings.some((s) => typeof s !== 'string')) fail('string table broken');
  const S = strings as string[];
  const string = (k: number, what: string) => (k >= 0 && k < S.length ? S[k] : fail(`${what}: string ${k} out of range`));
  const values = json('values');
  if (!Array.isArray(values) || values.some((v) => !Array.isArray(v) || v.length !== 3)) fail('values broken');
  // values as the reader keeps them (boundedValue.ts): a snapshot written before the bound holds them whole
  for (const v of values as unknown[][]) v[2] = boundValue(v[2]);
  const locFile = i32('locFile');
  const locLine = i32('locLine');
  const locMethod = i32('locMethod');
  const locCall = i32('locCall');
  const locHarness = u8('locHarness');
  const locs: LocInfo[] = [];
  for (let k = 0; k < locFile.length; k++) {
    const l: LocInfo = { file: string(locFile[k], `loc ${k}`), line: locLine[k], method: string(locMethod[k], `loc ${k}`) };
    if (locCall[k] >= 0) l.call = string(locCall[k], `loc ${k}`);
    if (locHarness[k] & 1) l.harness = true;
    if (locHarness[k] & 2) l.mixedCalls = true;
    locs.push(l);
  }
  const registry: RegistryColumns = {
    variables: Array.from(i32('variables'), (k) => string(k, 'variable')),
    threadNames: Array.from(i32('threadNames'), (k) => string(k, 'thread name')),
    locs,
    stackParents: i32('stackParents'),
    stackLocs: i32('stackLocs'),
    accessWrite: u8('accessWrite'),
    accessVariable: i32('accessVariable'),
    accessLoc: i32('accessLoc'),
    pairFirst: i32('pairFirst'),
    pairSecond: i32('pairSecond'),
    pairPatterns: i32('pairPatterns'),
    patternN: u8('patternN'),
    patternAcc: i32('patternAcc'),
    patternStack: i32('patternStack'),
    patternName: i32('patternName'),
    values: values as [number, number, unknown][],
  };
  if (!Array.isArray(header.runs) || !Array.isArray(header.traces) || !Array.isArray(header.unreadable)) fail('header broken');
  header.traces.forEach((t, k) => {
    const x = t as unknown as Record<string, unknown>;
    if (!x || typeof x !== 'object' || typeof x.file !== 'string' || typeof x.size !== 'number' || typeof x.mtimeMs !== 'number' || (x.hash !== undefined && typeof x.hash !== 'string'))
      fail(`traces[${k}] must be {file, size, mtimeMs, hash?}`);
  });
  header.unreadable.forEach((u, k) => {
    const x = u as unknown as Record<string, unknown>;
    if (!x || typeof x !== 'object' || typeof x.file !== 'string' || !Array.isArray(x.diagnostics) || !x.diagnostics.every(isDiagnostic)) fail(`unreadable[${k}] must be {file, diagnostics}`);
  });
  const counts = i32('runPatternCounts');
  const ids = i32('runPatterns');
  const occurrences = i32('runOccurrences');
  if (occurrences.length !== ids.length) fail('runOccurrences and runPatterns differ in length');
  for (let k = 0; k < occurrences.length; k++) if (occurrences[k] < 1) fail(`runOccurrences[${k}] must be at least 1, got ${occurrences[k]}`);
  const overtaken = i32('runOvertaken');
  if (overtaken.length !== ids.length) fail('runOvertaken and runPatterns differ in length');
  for (let k = 0; k < overtaken.length; k++)
    if (overtaken[k] < 0 || overtaken[k] > occurrences[k]) fail(`runOvertaken[${k}] must be from 0 to its occurrences (${occurrences[k]}), got ${overtaken[k]}`);
  const afterCounts = i32('runAfterCounts');
  const after = i32('runAfter');
  if (counts.length !== header.runs.length || afterCounts.length !== header.runs.length) fail('runs and their pattern lists differ in number');
  let at = 0;
  let atAfter = 0;
  const runs = header.runs.map((meta, k) => {
    const problem = runMetaProblem(meta);
    if (problem) fail(`run ${k}: ${problem}`);
    const { diagnostics, hash, ...rest } = meta;
    const c = counts[k];
    const a = afterCounts[k];
    if (c < 0 || at + c > ids.length || a < -1 || atAfter + Math.max(a, 0) > after.length) fail(`run ${k}: pattern list out of range`);
    // the optional fields a run read from its trace always has (undefined when the trace has none; JSON drops them)
    const run: RunResult = {
      outcomeReason: undefined,
      outcomeDetail: undefined,
      program: undefined,
      test: undefined,
      seed: undefined,
      failPoint: undefined,
      ...rest,
      patterns: ids.slice(at, at + c),
      occurrences: occurrences.slice(at, at + c),
      overtaken: overtaken.slice(at, at + c),
      afterFailure: a >= 0 ? Array.from(after.subarray(atAfter, atAfter + a)) : undefined,
    };
    // bounded like a trace's (checked above)
    const failure = checkedFailure(run.failure);
    if (failure && failure !== 'bad') run.failure = failure;
    else delete run.failure;
    at += c;
    atAfter += Math.max(a, 0);
    return { run, diagnostics: Array.isArray(diagnostics) ? diagnostics : [], hash };
  });
  try {
    analyzer.importState({ registry, runs, unreadable: header.unreadable });
  } catch (e) {
    fail((e as Error).message);
  }
  return { analyzer, traces: header.traces };
}

/** A diagnostic as the analysis keeps them: {severity: error|warning|info, file, line?, message}. */
function isDiagnostic(d: unknown): boolean {
  const x = d as Record<string, unknown>;
  return !!x && typeof x === 'object' && ['error', 'warning', 'info'].includes(x.severity as string) && typeof x.file === 'string' && typeof x.message === 'string' && (x.line === undefined || (typeof x.line === 'number' && Number.isInteger(x.line)));
}

/**
 * What is wrong with a run's small fields in a snapshot header, or undefined: each field has the type
 * the analysis relies on (an `execution` that is not a string broke the run ordering, issue 31 N4).
 */
function runMetaProblem(meta: unknown): string | undefined {
  if (!meta || typeof meta !== 'object') return 'not an object';
  const r = meta as Record<string, unknown>;
  const str = (k: string) => typeof r[k] === 'string';
  const optStr = (k: string) => r[k] === undefined || r[k] === null || typeof r[k] === 'string';
  const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  if (!str('file') || !str('execution')) return '"file" and "execution" must be strings';
  if (r.outcome !== 'pass' && r.outcome !== 'fail') return '"outcome" must be "pass" or "fail"';
  for (const k of ['outcomeReason', 'outcomeDetail', 'program', 'test', 'seed', 'hash']) if (!optStr(k)) return `"${k}" must be a string`;
  if (!count(r.events) || !count(r.droppedEvents ?? 0)) return '"events" and "droppedEvents" must be counts';
  if (r.failPoint !== undefined && r.failPoint !== null && !count(r.failPoint)) return '"failPoint" must be a count';
  const st = r.stats as Record<string, unknown> | undefined;
  if (!st || typeof st !== 'object' || !count(st.accesses) || !count(st.locations) || !count(st.pairs) || !count(st.latePairs)) return '"stats" broken';
  if (!Array.isArray(r.uncaught ?? [])) return '"uncaught" must be a list';
  if (r.diagnostics !== undefined && (!Array.isArray(r.diagnostics) || !r.diagnostics.every(isDiagnostic))) return '"diagnostics" must be a list of {severity, file, line?, message}';
  const ft = r.failingThread as Record<string, unknown> | undefined;
  if (ft !== undefined && ft !== null && (typeof ft !== 'object' || !count(ft.id) || typeof ft.name !== 'string')) return '"failingThread" broken';
  const plan = r.plan as Record<string, unknown> | undefined;
  if (plan !== undefined && plan !== null && (typeof plan !== 'object' || typeof plan.name !== 'string' || (plan.file !== undefined && typeof plan.file !== 'string'))) return '"plan" broken';
  if (checkedFailure(r.failure) === 'bad') return '"failure" broken';
  return undefined;
}

/**
 * Reads the snapshot `file` (decodeWorkspaceSnapshot). Throws an Error whose message says why
 * it cannot be used; a missing file throws with code ENOENT.
 */
export async function readWorkspaceSnapshot(file: string, options: Partial<AnalysisOptions>): Promise<{ analyzer: Analyzer; traces: SnapshotTrace[] }> {
  const buf = await fs.readFile(file);
  try {
    return decodeWorkspaceSnapshot(buf, options);
  } catch (e) {
    // any doubt (a broken or unexpected field included): the traces are read instead
    throw new Error(`workspace snapshot ${file} not used: ${(e as Error).message}; every trace is read again`);
  }
}
