/**
 * The runs of a batch get consecutive seeds (seed, seed + 1, …); each recorder's noise generator
 * must start them far apart. Before the seeds were mixed, the first draw of every run of a batch was
 * the same to two digits (xorshift keeps the high bits of seeds that differ in their low bits), so
 * every run made the same first noise decisions: a fresh-clone CI run recorded a Node race 30 times
 * without a failure, where other batches failed 5–8 of 10.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { xorshift } from '../../server/src/recorder/node/runtime';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { prepare, root, workDir } from './recorderHarness';

/** How many of `draws` fall below one half, and how many distinct values (two digits) they take. */
function spread(draws: number[]): { below: number; distinct: number } {
  return { below: draws.filter((d) => d < 0.5).length, distinct: new Set(draws.map((d) => d.toFixed(2))).size };
}

test('Node.js recorder: the first draws of consecutive seeds are spread', () => {
  for (const base of [671702351, 123456789, 5000, 0]) {
    const s = spread(Array.from({ length: 32 }, (_, k) => xorshift(base + k)()));
    assert.ok(s.below >= 6 && s.below <= 26, `seed ${base}: ${s.below} of 32 first draws below 0.5`);
    assert.ok(s.distinct >= 20, `seed ${base}: ${s.distinct} distinct first draws of 32`);
  }
});

test('Java agent: the first draws of consecutive seeds are spread (ThreadState, the same thread)', () => {
  prepare();
  const dir = path.join(workDir, `seeds-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const src = path.join(dir, 'FirstDraws.java');
  writeFileSync(
    src,
    `import java.lang.reflect.*;
public class FirstDraws {
  public static void main(String[] a) throws Exception {
    Class<?> c = Class.forName("dev.braid.agent.runtime.ThreadState");
    Constructor<?> k = c.getDeclaredConstructor(Thread.class);
    k.setAccessible(true);
    // a new state gets its seed from reseed (ThreadStates.seed), as the agent does
    Method r = c.getDeclaredMethod("reseed", long.class);
    r.setAccessible(true);
    Method d = c.getDeclaredMethod("nextDouble");
    d.setAccessible(true);
    long base = Long.parseLong(a[0]);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 32; i++) {
      Object st = k.newInstance(Thread.currentThread());
      r.invoke(st, base + i);
      b.append(d.invoke(st)).append('\\n');
    }
    System.out.print(b);
  }
}
`,
  );
  for (const base of ['1000', '671702351', '0']) {
    const r = spawnSync('java', ['-cp', path.join(root, 'dist', 'braid-agent.jar'), src, base], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const s = spread(r.stdout.trim().split('\n').map(Number));
    assert.ok(s.below >= 6 && s.below <= 26, `seed ${base}: ${s.below} of 32 first draws below 0.5`);
    assert.ok(s.distinct >= 20, `seed ${base}: ${s.distinct} distinct first draws of 32`);
  }
  rmSync(dir, { recursive: true, force: true });
});

test('Node.js recorder: one await whose delay decides the outcome fails in some runs of a batch, not all or none', async () => {
  const dir = path.join(workDir, `seeds-node-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // the only noise point: the await; delayed (p = 0.5), the continuation runs after the check
  writeFileSync(
    path.join(dir, 'one-await.mjs'),
    `let done = false;
setImmediate(() => { if (!done) { console.error('the continuation ran late'); process.exitCode = 1; } });
async function work() { await null; done = true; }
work();
`,
  );
  const outDir = path.join(dir, 'traces');
  const summary = await recordRuns(parseRecordArgs(['--runs', '16', '--noise', '0.5', '--seed', '1000', '--jobs', '2', '--out', outDir, '--', 'node', 'one-await.mjs'], dir));
  const logs = readdirSync(outDir).filter((f) => f.endsWith('.log')).map((f) => readFileSync(path.join(outDir, f), 'utf8'));
  assert.equal(summary.total, 16, JSON.stringify(summary).slice(0, 400));
  assert.ok(summary.failed > 0 && summary.failed < 16, `${summary.failed} of 16 runs failed: ${logs.slice(0, 2).join(' | ')}`);
  rmSync(dir, { recursive: true, force: true });
});
