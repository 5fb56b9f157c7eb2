/**
 * GRIFFIN acceptance on the committed recordings (test/fixtures/recorded/, scripts/record-subjects.mjs):
 * every recorded single-bug subject (the bundled samples and the evaluation subjects) gives
 * exactly one bug (weak-evidence bugs aside), and each of its two suspicious methods holds a
 * `// @bug` line or calls the code that does (the thesis names the atomic region: Vector()).
 * The two-bug program is tested in griffin.test.ts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';

const root = path.resolve(__dirname, '../..');
const recorded = path.join(root, 'test/fixtures/recorded');
const javaDir = path.join(root, 'test/fixtures/java');
const manifest: Record<string, { main: string; runs: number; failed: number }> = JSON.parse(readFileSync(path.join(recorded, 'manifest.json'), 'utf8'));
const SAMPLES = Object.keys(manifest);

test('the recordings hold the bundled samples and the evaluation subjects', () => {
  for (const pkg of ['bank', 'airline', 'shop', 'tablelog', 'orderviolation', 'vectorcopy', 'unsafelist']) assert.ok(SAMPLES.includes(pkg), pkg);
  assert.ok(SAMPLES.length >= 17, `${SAMPLES.length} subjects`);
});

/** `// @bug` lines of a sample: file (relative to test/fixtures/java) → lines */
function bugLines(pkg: string): { file: string; line: number; inFile?: string }[] {
  const out: { file: string; line: number; inFile?: string }[] = [];
  for (const f of readdirSync(path.join(javaDir, pkg)).filter((f) => f.endsWith('.java')))
    readFileSync(path.join(javaDir, pkg, f), 'utf8')
      .split('\n')
      .forEach((text, k) => {
        const m = /\/\/ @bug \S+(?:\s+file=(\S+))?/.exec(text);
        if (m) out.push({ file: `${pkg}/${f}`, line: k + 1, inFile: m[1] });
      });
  return out;
}

for (const pkg of SAMPLES) {
  test(`GRIFFIN on the recorded ${pkg}: one bug, naming the @bug code on both threads`, async () => {
    assert.ok(manifest[pkg], `${pkg} is recorded (test/fixtures/recorded/manifest.json)`);
    const result = await analyzeTraceFiles([path.join(recorded, pkg)]);
    assert.ok(result.executions.failed > 0);
    const bugs = explainBugs(undefined, result).filter((b) => !b.evidence.weak);
    assert.equal(bugs.length, 1, bugs.map((b) => b.suspiciousMethods.map((m) => m.method).join(' | ')).join('; '));
    const tags = bugLines(pkg);
    // a tagged line itself, or (a bug inside a library class) any line of the tag's file=…
    const tagged = (file: string, line: number) => tags.some((t) => (file.endsWith(t.file.split('/').pop()!) && line === t.line) || (t.inFile !== undefined && file.endsWith(t.inFile)));
    const accesses = bugs[0].patterns.flatMap((i) => result.patterns[i].accesses);
    assert.equal(bugs[0].suspiciousMethods.length, 2);
    for (const sm of bugs[0].suspiciousMethods) {
      // the method holds a @bug line, or calls the code that does (the thesis names the atomic region: Vector())
      const holds = sm.lines.some((l) => tagged(sm.file, l)) || (tags.some((t) => t.inFile) && tagged(sm.file, 0));
      const calls = accesses.some((a) => tagged(a.file, a.line) && a.stack.some((f) => f.method === sm.method));
      assert.ok(holds || calls, `thread ${sm.thread}: ${sm.method} ${sm.file}:${sm.lines.join(',')} neither holds nor calls a @bug line (${tags.map((t) => `${t.file}:${t.line}`).join(', ')})`);
    }
  });
}
