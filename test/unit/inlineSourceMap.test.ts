/**
 * Issue 39, LOW: "slow source-map lookup for large minified files with inline maps (38 s per
 * start)". The Node.js recorder's transform maps each instrumented site's line through the module's
 * inline source map; it scanned every segment of the site's generated line for each site (a minified
 * file is one line: sites × segments). Now the map is indexed once (server/src/recorder/node/
 * inlineSourceMap.ts) and a lookup is a binary search.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';
import { instrument } from '../../server/src/recorder/node/transform';
import { InlineSourceMap } from '../../server/src/recorder/node/inlineSourceMap';
import { rng } from '../helpers/seededRandom';

const withMap = (code: string, lines: SourceMapSegment[][], sources = ['src/app.ts']) =>
  `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify({ version: 3, sources, names: [], mappings: encode(lines) })).toString('base64')}\n`;

test('inline source map lookups: the same answers as a scan of the line (the last segment at or before the column, else the first), sorted or not', () => {
  const rnd = rng(39);
  for (let round = 0; round < 200; round++) {
    const lines: SourceMapSegment[][] = [];
    const nLines = 1 + Math.floor(rnd() * 4);
    for (let l = 0; l < nLines; l++) {
      const segs: SourceMapSegment[] = [];
      const n = Math.floor(rnd() * 12);
      for (let k = 0; k < n; k++) segs.push(rnd() < 0.1 ? [Math.floor(rnd() * 80)] : [Math.floor(rnd() * 80), Math.floor(rnd() * 2), Math.floor(rnd() * 50), 0]);
      if (round % 2 === 0) segs.sort((a, b) => a[0] - b[0]);
      lines.push(segs);
    }
    const m = new InlineSourceMap(withMap('x', lines, ['a.ts', 'b.ts']));
    for (let l = 1; l <= nLines + 1; l++) {
      const segs = (lines[l - 1] ?? []).filter((s) => s.length >= 4).sort((a, b) => a[0] - b[0]);
      for (let col = 0; col < 90; col += 7) {
        let best = segs[0];
        for (const s of segs) if (s[0] <= col) best = s;
        const want = best ? { line: best[2]! + 1, source: ['a.ts', 'b.ts'][best[1]!] } : { line: l };
        const got = m.map(l, col);
        assert.equal(got.line, want.line, `round ${round}, line ${l}, column ${col}`);
        if (best) assert.equal(got.source, want.source);
      }
    }
  }
});

test('a map whose deltas go below line 0 is broken and not used: no site gets a negative line (fuzzer, seed 7, sourceMap cases 929 and 977)', () => {
  // line 1: a segment at source line 2; line 2: a delta of -6 source lines (to line -4)
  const m = new InlineSourceMap('let a = 1;\nlet b = 2;\n//# sourceMappingURL=data:application/json;base64,' + Buffer.from(JSON.stringify({ version: 3, sources: ['a.ts'], mappings: 'AAEA;AANA' })).toString('base64'));
  assert.equal(m.active, false);
  assert.equal(m.map(2, 0).line, 2, 'the generated line is kept');
  const { code } = instrument('let a = 1;\nlet b = a + 1;\n//# sourceMappingURL=data:application/json;base64,' + Buffer.from(JSON.stringify({ version: 3, sources: ['a.ts'], mappings: 'AAEA;AANA' })).toString('base64'), { file: 'x.js', module: false });
  assert.doesNotMatch(code, /,-\d+,/);
});

test('slow source-map lookup for large minified files with inline maps (38 s per start): a one-line file whose map has 1,000,000 segments is instrumented with a binary search per site, not a scan of the segments', { timeout: 120_000 }, () => {
  let code = 'var o={x:0};';
  for (let i = 0; i < 2000; i++) code += `o.x=o.x+${i};`;
  const segs: SourceMapSegment[] = [];
  for (let k = 0; k < 1_000_000; k++) segs.push([k, 0, k % 1000, 0]);
  const mapped = withMap(code, [segs]);
  const plain = instrument(`${code}\n`, { file: 'dist/app.js', module: false });
  const r = instrument(mapped, { file: 'dist/app.js', module: false });
  assert.equal(r.sites, plain.sites);
  assert.match(r.code, /sourceMappingURL=data:application\/json;base64,/, 'the composed map is kept');
  // the work per lookup, counted (not timed): reads of the segments' columns, one lookup per site
  const m = new InlineSourceMap(mapped);
  const cols = (m as unknown as { cols: Int32Array }).cols;
  let reads = 0;
  (m as unknown as { cols: unknown }).cols = new Proxy(cols, {
    get(target, key) {
      if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads++;
      return Reflect.get(target, key);
    },
  });
  for (let site = 0; site < plain.sites; site++) assert.equal(m.map(1, site * 13).line, ((site * 13) % 1000) + 1);
  assert.ok(reads >= plain.sites, `the lookups read the columns (${reads} reads)`);
  assert.ok(reads <= plain.sites * 25, `${reads} reads of the segments' columns for ${plain.sites} lookups in 1,000,000 segments: a lookup is a binary search (about 21 reads), not a scan`);
});
