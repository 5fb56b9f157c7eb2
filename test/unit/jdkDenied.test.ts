/**
 * The JDK deny list the CLI warns about (server/src/recorder/java/jdkDenied.ts) is the Java agent's
 * (ClassFilter.JDK_DENY). Since issue 38 the agent tells the JDK's classes by class loader, so
 * `braid record --include com.sun.jersey` (a library: jersey-cowhashmap) gets no note, while an
 * include naming the JDK's own classes under the list (com.sun.net.httpserver, sun.misc,
 * java.util.concurrent.atomic) does. The JDK's packages under com.sun. are the list's
 * JDK_COM_SUN_ROOTS (checked against the JDK the tests run on).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { deniedBy, deniedIncludeNotes, JDK_COM_SUN_ROOTS, JDK_DENIED } from '../../server/src/recorder/java/jdkDenied';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';

const classFilter = path.resolve(__dirname, '../../server/java-agent/src/dev/braid/agent/ClassFilter.java');

test("the deny list is the agent's ClassFilter.JDK_DENY", () => {
  const src = readFileSync(classFilter, 'utf8');
  const m = /JDK_DENY\s*=\s*\{([^}]*)\}/.exec(src);
  assert.ok(m, 'ClassFilter.JDK_DENY not found');
  const agent = [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
  assert.deepEqual([...JDK_DENIED].sort(), agent.sort());
});

test("an include naming the JDK's classes under a denied package or class is named; libraries and others are not", () => {
  assert.equal(deniedBy('com.sun'), 'com.sun');
  assert.equal(deniedBy('com.sun.net.httpserver.HttpServer'), 'com.sun');
  assert.equal(deniedBy('com.sun.tools.javac'), 'com.sun');
  assert.equal(deniedBy('com.sun.xml'), 'com.sun', 'the JDK has com.sun.xml.internal');
  assert.equal(deniedBy('sun.misc.Unsafe'), 'sun');
  assert.equal(deniedBy('jdk.internal.misc'), 'jdk');
  assert.equal(deniedBy('java.util.concurrent.atomic.AtomicLong'), 'java.util.concurrent.atomic');
  assert.equal(deniedBy('java.util.concurrent.ConcurrentHashMap$Node'), 'java.util.concurrent.ConcurrentHashMap');
  for (const ok of ['com.sun.jersey', 'com.sun.jersey.client.impl.CopyOnWriteHashMap', 'com.sun.xml.bind', 'com.sun.mail', 'com.sun.tools.xjc', 'com.sunrise', 'com', 'java.util.ArrayList', 'java.util.concurrent.ConcurrentHashMapX', 'javax.servlet', 'bank', 'sunshine.App'])
    assert.equal(deniedBy(ok), undefined, ok);
  assert.deepEqual(deniedIncludeNotes(['bank', 'java.util.HashMap', 'com.sun.jersey']), []);
});

test('braid record --include com.sun.jersey: no note (a library, recorded); the JDK\'s com.sun.net.httpserver and java.io get one; the Node.js recorder none', () => {
  assert.equal(parseRecordArgs(['--include', 'com.sun.jersey,bank', '--', 'java', '-cp', 'x', 'bank.Main'], '/tmp').notes, undefined);
  const o = parseRecordArgs(['--include', 'com.sun.net.httpserver,java.io,bank', '--', 'java', '-cp', 'x', 'bank.Main'], '/tmp');
  assert.equal(o.notes?.length, 2);
  assert.match(o.notes![0], /^--include com\.sun\.net\.httpserver: the JDK's own classes under com\.sun\.\* are never recorded — the Java agent uses them itself; a library of the class path there is recorded/);
  assert.match(o.notes![1], /^--include java\.io: the JDK's classes under java\.io\.\* are never recorded/);
  assert.equal(parseRecordArgs(['--', 'java', '-cp', 'x', 'bank.Main'], '/tmp').notes, undefined);
  assert.equal(parseRecordArgs(['--include', 'src/**/*.js', '--', 'node', 'app.js'], '/tmp').notes, undefined);
});

test("JDK_COM_SUN_ROOTS covers every package of the running JDK under com.sun.", { timeout: 120_000 }, (t) => {
  const dir = path.join(os.tmpdir(), `braid-jdkpackages-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const src = path.join(dir, 'Packages.java');
  writeFileSync(
    src,
    'public class Packages { public static void main(String[] a) { for (java.lang.module.ModuleReference r : java.lang.module.ModuleFinder.ofSystem().findAll()) for (String p : r.descriptor().packages()) System.out.println(p); } }\n',
  );
  const r = spawnSync('java', [src], { encoding: 'utf8', timeout: 100_000 });
  if (r.error) {
    t.skip(`no java: ${r.error.message}`);
    return;
  }
  assert.equal(r.status, 0, r.stderr);
  const comSun = r.stdout.split('\n').filter((p) => p.startsWith('com.sun.'));
  assert.ok(comSun.length > 50, `${comSun.length} packages under com.sun.`);
  const missing = comSun.filter((p) => !JDK_COM_SUN_ROOTS.some((root) => p === root || p.startsWith(root + '.')));
  assert.deepEqual(missing, [], 'JDK packages under com.sun. that JDK_COM_SUN_ROOTS lacks');
});
