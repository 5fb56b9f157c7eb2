/**
 * The byte-level event parser's value field (issue 12: agent traces carry values): plain ASCII
 * strings and true/false take the fast path, and every line decodes exactly as JSON.parse +
 * decodeEventValue does (or the fast path declines and the general path decides).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeEventValue, parseEventLineFast } from '../../server/src/engine/trace/eventLineParser';
import { EventKind, TraceEvent } from '../../server/src/engine/trace/traceFormat';

const fresh = (): TraceEvent => ({ i: 0, t: 0, kind: EventKind.Read, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined });

function general(line: string): TraceEvent | 'error' {
  const ev = fresh();
  try {
    decodeEventValue(JSON.parse(line), ev);
    return ev;
  } catch {
    return 'error';
  }
}

const TAKEN = [
  ['[5,1,"R",2,4,3,0,-1,"hello"]', 'hello'],
  ['[5,1,"W",2,4,3,0,-1,"java.lang.Object@1721931908"]', 'java.lang.Object@1721931908'],
  ['[5,1,"W",2,4,3,0,-1,""]', ''],
  ['[5,1,"R",2,4,3,0,-1,true]', true],
  ['[5,1,"R",2,4,3,0,-1,false]', false],
  ['[5,1,"R",2,4,3,0,-1,7]', 7],
  ['[5,1,"R",2,4,3,0,-1,null]', null],
] as const;

test('string and boolean values take the fast path and equal JSON.parse', () => {
  for (const [line, value] of TAKEN) {
    const buf = Buffer.from(line);
    const ev = fresh();
    assert.equal(parseEventLineFast(buf, 0, buf.length, ev), true, line);
    assert.deepEqual(ev, general(line), line);
    assert.equal(ev.value, value, line);
  }
});

test('anything else is declined by the fast path (the general path decides)', () => {
  const declined = [
    '[5,1,"R",2,4,3,0,-1,"a\\"b"]', // escape
    '[5,1,"R",2,4,3,0,-1,"caf\u00e9"]', // non-ASCII
    '[5,1,"R",2,4,3,0,-1,"aaa\u2026"]', // a cut string
    '[5,1,"R",2,4,3,0,-1,"tab\there"]', // control character: JSON.parse rejects it
    '[5,1,"R",2,4,3,0,-1,tru]',
    '[5,1,"R",2,4,3,0,-1,falsy]',
    '[5,1,"R",2,4,3,0,-1,"open]',
    '[5,1,"R",2,4,3,0,-1,2.5]',
    '[5,1,"R",2,4,3,0,"x",1]', // a string outside the value position
  ];
  for (const line of declined) {
    const buf = Buffer.from(line);
    assert.equal(parseEventLineFast(buf, 0, buf.length, fresh()), false, line);
  }
  assert.equal(general('[5,1,"R",2,4,3,0,-1,"tab\there"]'), 'error');
  assert.equal((general('[5,1,"R",2,4,3,0,-1,"caf\u00e9"]') as TraceEvent).value, 'caf\u00e9');
});
