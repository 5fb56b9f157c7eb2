/**
 * A ranked pattern in plain words (issue 30, point 6; server/src/engine/report/patternSentence.ts):
 * one clause per thread's turn, "it" for the variable just named, values in parentheses, the
 * thesis' names nowhere; hostile names cannot break out of their code spans.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { patternSentence, type SentenceAccess } from '../../server/src/engine/report/patternSentence';
import { mdHeadline, plainHeadline } from '../../server/src/engine/outputEscaping';

const V = 'vectorcopy.VectorCopy$MyVector';
const a = (thread: 1 | 2, type: 'R' | 'W', variable: string, value?: unknown, threadName?: string, call?: string): SentenceAccess => ({
  thread,
  type,
  variable,
  ...(value !== undefined ? { value } : {}),
  ...(threadName ? { threadName } : {}),
  ...(call ? { call } : {}),
});

test('order patterns (P1–P3): the first thread, then the other', () => {
  assert.equal(patternSentence([a(1, 'R', 'shop.Stats.counts', null, 'A'), a(2, 'W', 'shop.Stats.counts', 'java.util.HashMap@1b6d3586', 'B')]), 'Thread `A` read `counts` (null), then thread `B` wrote it (a `HashMap`).');
  assert.equal(patternSentence([a(1, 'W', `${V}.data`, undefined, 'adder'), a(2, 'R', `${V}.data`, undefined, 'copier')]), 'Thread `adder` wrote `data`, then thread `copier` read it.');
});

test('single-variable atomicity (RWR, RWW, WWR): the issue\'s example reads as written', () => {
  const x = 'bank.Stats.counts';
  assert.equal(patternSentence([a(1, 'R', x, null, 'A'), a(2, 'W', x, undefined, 'B'), a(1, 'W', x, undefined, 'A')]), 'Thread `A` read `counts` (null), then thread `B` wrote it, then `A` wrote it.');
  assert.equal(patternSentence([a(1, 'R', 'bank.Account.balance', 0, 'clerk-1'), a(2, 'W', 'bank.Account.balance', 10, 'clerk-2'), a(1, 'R', 'bank.Account.balance', 10, 'clerk-1')]), 'Thread `clerk-1` read `balance` (0), then thread `clerk-2` wrote it (10), then `clerk-1` read it (10).');
  assert.equal(patternSentence([a(1, 'W', x, 1), a(2, 'W', x, 2), a(1, 'R', x, 2)]), 'Thread T1 wrote `counts` (1), then thread T2 wrote it (2), then T1 read it (2).', 'no thread names: the roles');
});

test('multi-variable atomicity: one clause per thread\'s turn, the variable named when it changes', () => {
  const s = patternSentence([a(1, 'R', `${V}.size`, 3, 'copier'), a(2, 'W', `${V}.size`, 4, 'adder'), a(2, 'W', `${V}.data`, undefined, 'adder'), a(1, 'R', `${V}.data`, undefined, 'copier')]);
  assert.equal(s, 'Thread `copier` read `size` (3), then thread `adder` wrote it (4) and wrote `data`, then `copier` read it.');
  // two variables with one field name: Class.field
  assert.equal(patternSentence([a(1, 'W', 'p.A.n', 1, 'x'), a(2, 'W', 'p.B.n', 2, 'y'), a(2, 'W', 'p.A.n', 3, 'y'), a(1, 'W', 'p.B.n', 4, 'x')]), 'Thread `x` wrote `A.n` (1), then thread `y` wrote `B.n` (2) and wrote `A.n` (3), then `x` wrote `B.n` (4).');
});

test('library calls, strings, long values, two threads with one name', () => {
  assert.equal(
    patternSentence([a(1, 'R', 'java.util.HashMap', undefined, 'main', 'java.util.HashMap.get'), a(2, 'W', 'java.util.HashMap', undefined, 'worker', 'java.util.HashMap.put')]),
    'Thread `main` called `HashMap.get`, then thread `worker` called `HashMap.put`.',
  );
  const long = 'x'.repeat(60);
  assert.equal(patternSentence([a(1, 'W', 'p.C.s', long, 'w'), a(2, 'R', 'p.C.s', 'hi', 'w')]), `Thread T1 wrote \`s\` ("${'x'.repeat(40)}…"), then thread T2 read it ("hi").`);
});

test('hostile names stay inside their code spans: no link, markup or line break survives in Markdown or a label', () => {
  const evil = 'p.C.`](command:x) [a](http://e)\n# h';
  const s = patternSentence([a(1, 'W', evil, '`<img src=x onerror=1>`', 'ev`il]('), a(2, 'R', evil, undefined, 'b')]);
  assert.equal((s.match(/`/g) ?? []).length % 2, 0, 'backticks pair up: every one delimits a span');
  assert.doesNotMatch(s, /\n/);
  const md = mdHeadline(s);
  // every code span of the Markdown is one of the sentence's; outside the spans nothing is a link
  const outside = md.split(/`[^`]*`/).join('');
  assert.doesNotMatch(outside, /[^\\]\]\(|[^\\]<img|^#/m, md);
  assert.doesNotMatch(plainHeadline(s), /`/);
});
