/**
 * Structure-aware trace mutation for the fuzz tests and `npm run fuzz`
 * (scripts/fuzz.ts): event lines built from the format's grammar with
 * hostile number spellings (leading zeros, -0, 2^53 + 1, 1e300, fractions),
 * odd whitespace, nesting and wrong types; definition, header and outcome
 * lines with wrong or missing fields; byte-level damage of real lines; and
 * whole-trace operations (delete, duplicate, swap, truncate, gzip damage).
 *
 * The oracles live here too, so the test and the campaign check the same:
 * - fastVsJson: the byte-level fast path and JSON.parse + decodeEventValue
 *   agree on accept/reject and on every decoded field;
 * - the reader's accepted lines validate against docs/trace-format.schema.json.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020';
import { EventLineError, decodeEventValue, parseEventLineFast } from '../../server/src/engine/trace/eventLineParser';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';

export type Rand = () => number;

const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, n: number) => Math.floor(r() * n);

export const KIND_NAMES = ['R', 'W', 'ACQ', 'REL', 'START', 'JOIN', 'END', 'ENTER', 'EXIT', 'SND', 'RCV', 'FAIL', 'OUT'];
const ODD_KINDS = ['X', 'r', '', 'R ', 'W\\u0000', 'RR', 'ENTE', 'é', 'R\\"', '\\u0052'];

/** A number token as it may be spelled in a line (valid JSON or not). */
export function numberToken(r: Rand): string {
  switch (int(r, 16)) {
    case 0:
      return '0';
    case 1:
      return String(int(r, 10));
    case 2:
      return String(int(r, 1000));
    case 3:
      return '-1';
    case 4:
      return pick(r, ['01', '00', '007', '-01', '-00']);
    case 5:
      return '-0';
    case 6:
      return pick(r, ['999999999999999', '1000000000000000', '9007199254740991', '9007199254740992', '9007199254740993', '12345678901234567890']);
    case 7:
      return pick(r, ['1e300', '1e400', '1E2', '1e+2', '2e-1', '-1e3']);
    case 8:
      return pick(r, ['1.0', '1.5', '-0.0', '0.5', '3.']);
    case 9:
      return pick(r, ['-', '+1', '0x10', 'Infinity', 'NaN', '.5']);
    case 10:
      return String(-int(r, 100));
    default:
      return String(int(r, 6));
  }
}

function valueToken(r: Rand, depth = 0): string {
  switch (int(r, 9)) {
    case 0:
      return 'null';
    case 1:
      return numberToken(r);
    case 2:
      return pick(r, ['true', 'false', 'nul', 'nulll', 'NULL']);
    case 3:
      return JSON.stringify(pick(r, ['a', 'R', '', 'é', 'a"b', '\\', '\u2028', 'x'.repeat(int(r, 40))]));
    case 4:
      if (depth > 3) return '[]';
      return '[' + Array.from({ length: int(r, 4) }, () => valueToken(r, depth + 1)).join(',') + ']';
    case 5:
      if (depth > 3) return '{}';
      return '{"k":' + valueToken(r, depth + 1) + '}';
    case 6:
      return '['.repeat(1 + int(r, 80)) + ']'.repeat(1 + int(r, 80));
    default:
      return String(int(r, 5));
  }
}

const SEPARATORS = [',', ',', ',', ', ', ' ,', ' , ', ',\t', '\t,', ',,'];

/** An event line from the grammar, with hostile tokens. */
export function eventLine(r: Rand): string {
  const kind = r() < 0.9 ? JSON.stringify(pick(r, KIND_NAMES)) : `"${pick(r, ODD_KINDS)}"`;
  const n = r() < 0.8 ? 3 + int(r, 7) : int(r, 12);
  const parts: string[] = [];
  for (let k = 0; k < n; k++) {
    if (k === 2) parts.push(r() < 0.95 ? kind : valueToken(r));
    else if (k === 8 || (r() < 0.08 && k > 2)) parts.push(valueToken(r));
    else if (r() < 0.15) parts.push('null');
    else parts.push(r() < 0.75 ? String(k === 0 ? 1 + int(r, 50) : int(r, 4)) : numberToken(r));
  }
  let body = parts.map((p, k) => (k === 0 ? p : (r() < 0.9 ? ',' : pick(r, SEPARATORS)) + p)).join('');
  if (r() < 0.1) body = body.replace(/,/g, () => pick(r, SEPARATORS));
  const open = r() < 0.97 ? '[' : pick(r, ['', '[[', '{', ' [']);
  const close = r() < 0.97 ? ']' : pick(r, ['', ']]', ',]', '}', '] x', ']\t']);
  const lead = r() < 0.9 ? '' : pick(r, [' ', '\t', '  ', '\r']);
  const trail = r() < 0.9 ? '' : pick(r, [' ', '\t', '\r', ' \r']);
  return lead + open + body + close + trail;
}

const ID_TOKENS = (r: Rand) => (r() < 0.8 ? String(int(r, 6)) : numberToken(r));

/** A definition, header, outcome or uncaught line with random (sometimes wrong) fields; sometimes two kinds merged. */
export function objectLine(r: Rand): string {
  if (r() < 0.05) {
    const a = oneObjectLine(r);
    const b = oneObjectLine(r);
    return a.length > 2 && b.length > 2 ? a.slice(0, -1) + ',' + b.slice(1) : a;
  }
  return oneObjectLine(r);
}

function oneObjectLine(r: Rand): string {
  const o: Record<string, string> = {};
  switch (int(r, 7)) {
    case 0:
      o.def = '"var"';
      o.id = ID_TOKENS(r);
      if (r() < 0.9) o.name = r() < 0.9 ? JSON.stringify(pick(r, ['x', 'a.B.c', ''])) : valueToken(r);
      if (r() < 0.2) o.class = r() < 0.7 ? '"a.B"' : valueToken(r);
      if (r() < 0.2) o.array = pick(r, ['true', 'false', '1', '"yes"']);
      break;
    case 1:
      o.def = '"loc"';
      o.id = ID_TOKENS(r);
      if (r() < 0.9) o.file = r() < 0.9 ? '"A.java"' : valueToken(r);
      if (r() < 0.9) o.line = r() < 0.8 ? String(int(r, 50)) : numberToken(r);
      if (r() < 0.7) o.method = r() < 0.9 ? '"A.m"' : valueToken(r);
      if (r() < 0.1) o.call = '"java.util.HashMap.put"';
      if (r() < 0.1) o.harness = pick(r, ['true', 'false', '1']);
      break;
    case 2:
      o.def = '"stack"';
      o.id = ID_TOKENS(r);
      if (r() < 0.4) o.frames = r() < 0.8 ? '[' + Array.from({ length: int(r, 4) }, () => ID_TOKENS(r)).join(',') + ']' : valueToken(r);
      if (r() < 0.7) o.frame = ID_TOKENS(r);
      if (r() < 0.5) o.parent = r() < 0.3 ? 'null' : ID_TOKENS(r);
      break;
    case 3:
      o.def = r() < 0.9 ? '"thread"' : pick(r, ['"lock"', '1', 'null']);
      o.id = ID_TOKENS(r);
      if (r() < 0.8) o.name = r() < 0.9 ? '"T"' : valueToken(r);
      break;
    case 4:
      o.outcome = r() < 0.85 ? pick(r, ['"pass"', '"fail"']) : valueToken(r);
      if (r() < 0.5) o.reason = r() < 0.8 ? '"exit-code"' : valueToken(r);
      if (r() < 0.3) o.detail = r() < 0.8 ? '"x"' : valueToken(r);
      if (r() < 0.1) o.failAt = ID_TOKENS(r);
      break;
    case 5:
      o.uncaught = r() < 0.8 ? '{"thread":' + ID_TOKENS(r) + ',"exception":"E","message":' + pick(r, ['"m"', 'null', '3']) + '}' : valueToken(r);
      break;
    default:
      o[pick(r, ['x', 'def', 'braid', 'outcome'])] = valueToken(r);
  }
  return '{' + Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',') + '}';
}

/** A header line with random (sometimes wrong) fields. */
export function headerLine(r: Rand): string {
  const o: Record<string, string> = { braid: r() < 0.95 ? '"trace"' : valueToken(r), version: r() < 0.9 ? '1' : numberToken(r) };
  if (r() < 0.9) o.execution = r() < 0.9 ? '"e"' : valueToken(r);
  if (r() < 0.5) o.outcome = r() < 0.9 ? pick(r, ['"pass"', '"fail"']) : valueToken(r);
  if (r() < 0.3) o.program = r() < 0.8 ? '"P"' : valueToken(r);
  if (r() < 0.2) o.test = r() < 0.8 ? '"T"' : valueToken(r);
  if (r() < 0.2) o.startedAt = r() < 0.8 ? '"2026-11-23T00:00:00Z"' : valueToken(r);
  if (r() < 0.2) o.recorder = r() < 0.7 ? '{"name":"braid-java-agent","options":{"noise":0.1,"seed":"7"}}' : valueToken(r);
  return '{' + Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',') + '}';
}

const DAMAGE_CHARS = ['0', '1', '-', '.', 'e', ',', ']', '[', '"', ' ', '\t', 'n', '\\', '{', '}', ':', '9'];

/** Byte-level damage of one line: insert, delete or replace a character. */
export function damageLine(line: string, r: Rand): string {
  const p = int(r, line.length + 1);
  const c = pick(r, DAMAGE_CHARS);
  switch (int(r, 3)) {
    case 0:
      return line.slice(0, p) + c + line.slice(p);
    case 1:
      return line.slice(0, p) + line.slice(p + 1);
    default:
      return line.slice(0, p) + c + line.slice(p + 1);
  }
}

/** One mutated trace from `base` (its text), as file name and bytes. */
export function mutateTrace(base: string, r: Rand): { name: string; data: Buffer } {
  let lines = base.split('\n');
  const ops = 1 + int(r, 3);
  for (let k = 0; k < ops; k++) {
    const at = int(r, lines.length);
    switch (int(r, 11)) {
      case 0:
        lines.splice(at, 1);
        break;
      case 1:
        lines.splice(at, 0, lines[int(r, lines.length)]);
        break;
      case 2: {
        const b = int(r, lines.length);
        [lines[at], lines[b]] = [lines[b], lines[at]];
        break;
      }
      case 3:
        lines = lines.slice(0, Math.max(1, at));
        break;
      case 4:
        lines[at] = (lines[at] ?? '').slice(0, int(r, (lines[at]?.length ?? 0) + 1));
        break;
      case 5:
      case 6:
        lines.splice(Math.max(1, at), 0, eventLine(r));
        break;
      case 7:
        lines.splice(Math.max(1, at), 0, objectLine(r));
        break;
      case 8:
        lines[0] = headerLine(r);
        break;
      default:
        lines[at] = damageLine(lines[at] ?? '', r);
    }
  }
  let data = Buffer.from(lines.join('\n'));
  if (r() < 0.03) {
    data = Buffer.from(data);
    for (let k = 0; k < 3; k++) data[int(r, data.length)] = int(r, 256);
  }
  if (r() < 0.08) {
    let gz = gzipSync(data);
    if (r() < 0.5) gz = gz.subarray(0, int(r, gz.length));
    else if (r() < 0.5) {
      gz = Buffer.from(gz);
      gz[10 + int(r, Math.max(1, gz.length - 10))] ^= 0xff;
    }
    return { name: 'f.trace.jsonl.gz', data: gz };
  }
  return { name: 'f.trace.jsonl', data };
}

function fresh(): TraceEvent {
  return { i: NaN, t: NaN, kind: 0, a: NaN, b: NaN, c: NaN, d: NaN, e: NaN, value: undefined };
}

export type FastJsonVerdict = { agree: true; fast: 'accept' | 'reject' | 'defer' } | { agree: false; why: string };

/**
 * Runs one event line through the fast path (inside a buffer, with a newline
 * and more bytes after it, as in a stream chunk) and through JSON.parse +
 * decodeEventValue. They must agree: what the fast path accepts, the JSON
 * path accepts with the same fields; what it rejects, the JSON path rejects.
 */
export function fastVsJson(line: string, after = '\n[9,9,"W",0,0]'): FastJsonVerdict {
  const trimmed = line.replace(/^[ \t\r]+|[ \t\r]+$/g, '');
  const buf = Buffer.from('xx' + trimmed + after);
  const start = 2;
  const end = start + Buffer.byteLength(trimmed);
  const a = fresh();
  let fast: 'accept' | 'reject' | 'defer';
  let fastErr = '';
  try {
    fast = parseEventLineFast(buf, start, end, a) ? 'accept' : 'defer';
  } catch (e) {
    if (!(e instanceof EventLineError)) return { agree: false, why: `fast path threw ${(e as Error).stack}` };
    fast = 'reject';
    fastErr = e.message;
  }
  const b = fresh();
  let json: 'accept' | 'reject';
  let jsonErr = '';
  try {
    decodeEventValue(JSON.parse(trimmed), b);
    json = 'accept';
  } catch (e) {
    if (!(e instanceof EventLineError) && !(e instanceof SyntaxError)) return { agree: false, why: `JSON path threw ${(e as Error).stack}` };
    json = 'reject';
    jsonErr = (e as Error).message;
  }
  if (fast === 'defer') return { agree: true, fast };
  if (fast !== json) return { agree: false, why: `fast ${fast}${fastErr ? ` (${fastErr})` : ''}, JSON ${json}${jsonErr ? ` (${jsonErr})` : ''}` };
  if (fast === 'accept') {
    for (const k of ['i', 't', 'kind', 'a', 'b', 'c', 'd', 'e'] as const) {
      if (!Object.is(a[k], b[k]) && !(a[k] === 0 && b[k] === 0)) return { agree: false, why: `field ${k}: fast ${a[k]}, JSON ${b[k]}` };
    }
    if (JSON.stringify(a.value) !== JSON.stringify(b.value)) return { agree: false, why: `value: fast ${JSON.stringify(a.value)}, JSON ${JSON.stringify(b.value)}` };
  }
  return { agree: true, fast };
}

let schemaValidator: ((v: unknown) => boolean) & { errors?: unknown } | undefined;
/** docs/trace-format.schema.json, compiled once. */
export function traceLineSchema(): ((v: unknown) => boolean) & { errors?: unknown } {
  if (!schemaValidator) {
    const schema = JSON.parse(readFileSync(path.resolve(__dirname, '../../docs/trace-format.schema.json'), 'utf8'));
    schemaValidator = new Ajv2020({ strict: false }).compile(schema) as never;
  }
  return schemaValidator!;
}
