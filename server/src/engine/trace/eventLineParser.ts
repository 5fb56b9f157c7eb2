/**
 * Decodes one event line (a JSON array, docs/trace-format.md) into the
 * reader's reusable TraceEvent. The fast path scans the bytes directly — no
 * string, no JSON.parse — for the common shape (integers, null, a kind
 * string, an optional integer, true/false or plain ASCII string value); anything else goes through JSON.parse
 * and the same validation, so both paths accept exactly the same lines.
 */
import { EventKind, FAIL_KINDS, TraceEvent, eventKindFromName } from './traceFormat';
import { boundValue, MAX_VALUE_CHARS } from './boundedValue';

const MAX_FIELDS = 9;
const NULL = Number.NaN;

/** Numeric fields after the kind, NaN = null/absent. Reused. */
const nums = new Float64Array(MAX_FIELDS);

export class EventLineError extends Error {}

/** A short, printable excerpt of untrusted text for error messages. */
export function excerpt(text: string | undefined, max = 40): string {
  if (text === undefined) return 'undefined';
  const cut = text.length > max ? text.slice(0, max) + '…' : text;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Tries the byte-level fast path. Returns true when the line was decoded
 * into `ev`; false when the line must take the general path
 * (decodeEventValue on its JSON.parse result).
 */
export function parseEventLineFast(buf: Uint8Array, start: number, end: number, ev: TraceEvent): boolean {
  let p = start;
  while (p < end && (buf[p] === 0x20 || buf[p] === 0x09)) p++;
  if (buf[p] !== 0x5b /* [ */) return false;
  p++;
  // index
  let n = 0;
  let count = 0;
  let kind: EventKind | -1 = -1;
  let value: unknown = undefined;
  let special: string | boolean | undefined = undefined;
  for (;;) {
    while (buf[p] === 0x20) p++;
    if (p >= end) return false;
    const c = buf[p];
    if (count === 8 && (c === 0x22 || c === 0x74 || c === 0x66)) {
      // the value (recorded by the agent): a string of printable ASCII without escapes, true or false
      if (c === 0x22) {
        const s = p + 1;
        let q = s;
        while (q < end && buf[q] !== 0x22) {
          if (buf[q] === 0x5c || buf[q] < 0x20 || buf[q] > 0x7e) return false;
          q++;
        }
        if (q >= end) return false;
        // kept bounded (boundValue): the first MAX_VALUE_CHARS characters, then '…'
        const cut = q - s > MAX_VALUE_CHARS ? s + MAX_VALUE_CHARS : q;
        let str = '';
        for (let k = s; k < cut; k++) str += String.fromCharCode(buf[k]);
        special = cut < q ? str + '…' : str;
        p = q + 1;
      } else if (c === 0x74 && buf[p + 1] === 0x72 && buf[p + 2] === 0x75 && buf[p + 3] === 0x65) {
        special = true;
        p += 4;
      } else if (c === 0x66 && buf[p + 1] === 0x61 && buf[p + 2] === 0x6c && buf[p + 3] === 0x73 && buf[p + 4] === 0x65) {
        special = false;
        p += 5;
      } else return false;
      nums[8] = NULL;
    } else if (count === 2) {
      // kind string
      if (c !== 0x22) return false;
      const s = p + 1;
      let q = s;
      while (q < end && buf[q] !== 0x22) {
        if (buf[q] === 0x5c) return false;
        q++;
      }
      if (q >= end) return false;
      kind = kindFromBytes(buf, s, q);
      if (kind === -1) return false; // let the general path report it
      p = q + 1;
      nums[2] = NULL;
    } else if (c === 0x6e /* n */) {
      if (buf[p + 1] !== 0x75 || buf[p + 2] !== 0x6c || buf[p + 3] !== 0x6c) return false;
      if (count >= MAX_FIELDS) return false;
      nums[count] = NULL;
      p += 4;
    } else {
      let neg = false;
      if (c === 0x2d) {
        neg = true;
        p++;
      }
      const s = p;
      n = 0;
      while (p < end) {
        const d = buf[p] - 0x30;
        if (d < 0 || d > 9) break;
        n = n * 10 + d;
        p++;
      }
      if (p === s || p - s > 15) return false;
      if (buf[s] === 0x30 && p - s > 1) return false; // leading zero: not JSON, the general path rejects it
      const b = buf[p];
      if (b === 0x2e || b === 0x65 || b === 0x45) return false; // fraction/exponent
      if (count >= MAX_FIELDS) return false;
      nums[count] = neg ? -n : n;
    }
    count++;
    while (buf[p] === 0x20) p++;
    if (buf[p] === 0x2c /* , */) {
      p++;
      continue;
    }
    if (buf[p] === 0x5d /* ] */) {
      p++;
      break;
    }
    return false;
  }
  while (p < end && (buf[p] === 0x20 || buf[p] === 0x09 || buf[p] === 0x0d)) p++;
  if (p !== end) return false;
  if (kind === -1) return false;
  // FAIL's kind/detail and OUT's text are strings: the general path checks them
  if ((kind === EventKind.Fail && count > 5) || (kind === EventKind.Out && count > 4)) return false;
  if (count === MAX_FIELDS) {
    const v = nums[8];
    value = special !== undefined ? special : Number.isNaN(v) ? null : v;
  }
  assignEvent(kind, count, value, ev);
  return true;
}

function kindFromBytes(buf: Uint8Array, s: number, e: number): EventKind | -1 {
  const len = e - s;
  const c0 = buf[s];
  if (len === 1) {
    if (c0 === 0x52) return EventKind.Read;
    if (c0 === 0x57) return EventKind.Write;
    return -1;
  }
  let str = '';
  for (let k = s; k < e; k++) str += String.fromCharCode(buf[k]);
  return eventKindFromName(str);
}

/** The general path: validates a JSON.parse'd array and fills `ev`. */
export function decodeEventValue(arr: unknown, ev: TraceEvent): void {
  if (!Array.isArray(arr)) throw new EventLineError('an event line must be a JSON array');
  if (arr.length < 3) throw new EventLineError(`an event needs at least [index, thread, kind], got ${arr.length} element(s)`);
  if (arr.length > MAX_FIELDS) throw new EventLineError(`an event has at most ${MAX_FIELDS} elements, got ${arr.length}`);
  const kindName = arr[2];
  if (typeof kindName !== 'string') throw new EventLineError('element 3 (kind) must be a string such as "R" or "W"');
  const kind = eventKindFromName(kindName);
  if (kind === -1) throw new EventLineError(`unknown event kind ${excerpt(JSON.stringify(kindName))} (expected R, W, ACQ, REL, START, JOIN, END, ENTER, EXIT, SND, RCV, FAIL or OUT)`);
  let value: unknown = undefined;
  for (let k = 0; k < arr.length; k++) {
    if (k === 2) {
      nums[2] = NULL;
      continue;
    }
    const x = arr[k];
    if ((kind === EventKind.Fail && k >= 5) || (kind === EventKind.Out && k === 4)) {
      // text elements: FAIL's kind (5) and detail (6), OUT's text (4)
      if (x !== null && typeof x !== 'string') throw new EventLineError(`element ${k + 1} must be a string or null, got ${JSON.stringify(x)}`);
      if (kind === EventKind.Fail && k === 5) {
        const fk = x === null ? -1 : FAIL_KINDS.indexOf(x as (typeof FAIL_KINDS)[number]);
        if (x !== null && fk === -1) throw new EventLineError(`element 6 (failure kind) must be one of ${FAIL_KINDS.join(', ')}, got ${JSON.stringify(x)}`);
        nums[k] = fk === -1 ? NULL : fk;
      } else {
        value = x ?? undefined;
        nums[k] = NULL;
      }
      continue;
    }
    if (k === 8) {
      // kept as it can be shown: a long string cut, a large array or object summarized (docs/trace-format.md)
      value = boundValue(x);
      nums[8] = NULL;
      continue;
    }
    if (x === null) nums[k] = NULL;
    else if (typeof x === 'number' && Number.isSafeInteger(x)) nums[k] = x;
    else if (typeof x === 'number' && Number.isInteger(x)) throw new EventLineError(`element ${k + 1} is out of range: ${x} (ids and indexes are integers up to 2^53 − 1)`);
    else throw new EventLineError(`element ${k + 1} must be an integer or null, got ${excerpt(JSON.stringify(x))}`);
  }
  assignEvent(kind, arr.length, value, ev);
}

const REQUIRED: Record<EventKind, number> = {
  [EventKind.Read]: 5,
  [EventKind.Write]: 5,
  [EventKind.Acquire]: 4,
  [EventKind.Release]: 4,
  [EventKind.Start]: 4,
  [EventKind.Join]: 4,
  [EventKind.End]: 2,
  [EventKind.Enter]: 4,
  [EventKind.Exit]: 3,
  [EventKind.Send]: 4,
  [EventKind.Receive]: 4,
  [EventKind.Fail]: 3,
  [EventKind.Out]: 4,
};
const MAX_BY_KIND: Record<EventKind, number> = {
  [EventKind.Read]: 9,
  [EventKind.Write]: 9,
  [EventKind.Acquire]: 6,
  [EventKind.Release]: 6,
  [EventKind.Start]: 5,
  [EventKind.Join]: 5,
  [EventKind.End]: 3,
  [EventKind.Enter]: 4,
  [EventKind.Exit]: 4,
  [EventKind.Send]: 5,
  [EventKind.Receive]: 5,
  [EventKind.Fail]: 7,
  [EventKind.Out]: 5,
};
const LAYOUT: Record<EventKind, string> = {
  [EventKind.Read]: '[i,t,"R",var,loc,stack,obj,elem,value]',
  [EventKind.Write]: '[i,t,"W",var,loc,stack,obj,elem,value]',
  [EventKind.Acquire]: '[i,t,"ACQ",lock,loc,stack]',
  [EventKind.Release]: '[i,t,"REL",lock,loc,stack]',
  [EventKind.Start]: '[i,t,"START",child,loc]',
  [EventKind.Join]: '[i,t,"JOIN",child,loc]',
  [EventKind.End]: '[i,t,"END"]',
  [EventKind.Enter]: '[i,t,"ENTER",loc]',
  [EventKind.Exit]: '[i,t,"EXIT",loc]',
  [EventKind.Send]: '[i,t,"SND",sync,loc]',
  [EventKind.Receive]: '[i,t,"RCV",sync,loc]',
  [EventKind.Fail]: '[i,t,"FAIL",loc,stack,kind,detail]',
  [EventKind.Out]: '[i,t,"OUT",stream,text]',
};

function at(k: number, count: number): number {
  return k < count ? nums[k] : NULL;
}

function assignEvent(kind: EventKind, count: number, value: unknown, ev: TraceEvent): void {
  if (count > MAX_BY_KIND[kind]) throw new EventLineError(`too many elements for ${LAYOUT[kind]}`);
  const i = nums[0];
  const t = nums[1];
  if (Number.isNaN(i) || i < 0) throw new EventLineError('element 1 (global index) must be a non-negative integer');
  if (Number.isNaN(t) || t < 0) throw new EventLineError('element 2 (thread id) must be a non-negative integer');
  for (let k = 3; k < REQUIRED[kind]; k++) {
    if (k >= count || Number.isNaN(nums[k])) throw new EventLineError(`missing element ${k + 1}; layout is ${LAYOUT[kind]}`);
  }
  ev.i = i;
  ev.t = t;
  ev.kind = kind;
  ev.value = value;
  switch (kind) {
    case EventKind.Read:
    case EventKind.Write: {
      ev.a = nums[3];
      ev.b = nums[4];
      const st = at(5, count);
      const obj = at(6, count);
      const elem = at(7, count);
      ev.c = Number.isNaN(st) ? -1 : st;
      ev.d = Number.isNaN(obj) ? 0 : obj;
      ev.e = Number.isNaN(elem) || elem < 0 ? -1 : elem;
      break;
    }
    case EventKind.Acquire:
    case EventKind.Release: {
      ev.a = nums[3];
      const l = at(4, count);
      const st = at(5, count);
      ev.b = Number.isNaN(l) ? -1 : l;
      ev.c = Number.isNaN(st) ? -1 : st;
      ev.d = 0;
      ev.e = -1;
      break;
    }
    case EventKind.Start:
    case EventKind.Join: {
      ev.a = nums[3];
      const l = at(4, count);
      ev.b = Number.isNaN(l) ? -1 : l;
      ev.c = -1;
      break;
    }
    case EventKind.End:
      ev.a = -1;
      ev.b = -1;
      ev.c = -1;
      break;
    case EventKind.Enter:
    case EventKind.Exit: {
      const l = at(3, count);
      ev.a = -1;
      ev.b = Number.isNaN(l) ? -1 : l;
      ev.c = -1;
      break;
    }    case EventKind.Send:
    case EventKind.Receive: {
      ev.a = nums[3];
      const l = at(4, count);
      ev.b = Number.isNaN(l) ? -1 : l;
      ev.c = -1;
      break;
    }
    case EventKind.Fail: {
      const l = at(3, count);
      const st = at(4, count);
      const fk = at(5, count);
      ev.a = Number.isNaN(fk) ? -1 : fk;
      ev.b = Number.isNaN(l) ? -1 : l;
      ev.c = Number.isNaN(st) ? -1 : st;
      break;
    }
    case EventKind.Out:
      if (nums[3] !== 1 && nums[3] !== 2) throw new EventLineError(`element 4 (stream) must be 1 (System.out) or 2 (System.err), got ${nums[3]}`);
      ev.a = nums[3];
      ev.b = -1;
      ev.c = -1;
      break;
  }
}
