/**
 * The JDK deny list the CLI warns about (server/src/recorder/java/jdkDenied.ts) is the Java agent's
 * (ClassFilter.JDK_DENY), and `braid record --include com.sun.jersey` says that nothing of it is
 * recorded (a real subject, jersey-cowhashmap: 200 runs, none failed, nothing said).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deniedBy, deniedIncludeNotes, JDK_DENIED } from '../../server/src/recorder/java/jdkDenied';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';

const classFilter = path.resolve(__dirname, '../../server/java-agent/src/dev/braid/agent/ClassFilter.java');

test("the deny list is the agent's ClassFilter.JDK_DENY", () => {
  const src = readFileSync(classFilter, 'utf8');
  const m = /JDK_DENY\s*=\s*\{([^}]*)\}/.exec(src);
  assert.ok(m, 'ClassFilter.JDK_DENY not found');
  const agent = [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
  assert.deepEqual([...JDK_DENIED].sort(), agent.sort());
});

test('an include under a denied package or class is named; others are not', () => {
  assert.equal(deniedBy('com.sun.jersey'), 'com.sun');
  assert.equal(deniedBy('com.sun.jersey.client.impl.CopyOnWriteHashMap'), 'com.sun');
  assert.equal(deniedBy('java.util.concurrent.atomic.AtomicLong'), 'java.util.concurrent.atomic');
  assert.equal(deniedBy('java.util.concurrent.ConcurrentHashMap$Node'), 'java.util.concurrent.ConcurrentHashMap');
  for (const ok of ['com.sunrise', 'com', 'java.util.ArrayList', 'java.util.concurrent.ConcurrentHashMapX', 'javax.servlet', 'bank', 'sunshine.App']) assert.equal(deniedBy(ok), undefined, ok);
  assert.deepEqual(deniedIncludeNotes(['bank', 'java.util.HashMap']), []);
});

test('braid record --include com.sun.jersey: a note says nothing of it is recorded; the Node.js recorder gets no such note', () => {
  const o = parseRecordArgs(['--include', 'com.sun.jersey,bank', '--', 'java', '-cp', 'x', 'bank.Main'], '/tmp');
  assert.equal(o.notes?.length, 1);
  assert.match(o.notes![0], /^--include com\.sun\.jersey: classes under com\.sun\.\* are never recorded — the Java agent treats them as the JDK's own/);
  assert.equal(parseRecordArgs(['--', 'java', '-cp', 'x', 'bank.Main'], '/tmp').notes, undefined);
  assert.equal(parseRecordArgs(['--include', 'src/**/*.js', '--', 'node', 'app.js'], '/tmp').notes, undefined);
});
