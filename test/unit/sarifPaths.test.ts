/**
 * Issue 31, N11: SARIF locations stay inside the repository (the built CLI, run from the
 * repository's folder as CI does). `\\evil\share\x.java` used to become `//evil/share/x.java`
 * and `/etc/passwd` or `../../x` were kept: such a path is now dropped from its location (the
 * result keeps its message), with a warning on stderr saying how many; an absolute path inside the
 * repository becomes relative to it.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { sarifArtifactUri } from '../../server/src/engine/report/sarifReport';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'bin/braid.js');

before(() => assert.ok(existsSync(path.join(root, 'dist/braid.js')), 'dist/braid.js is missing: run `npm run build` first'));

const OUTSIDE = ['\\\\evil\\share\\x.java', '//evil/share/y.java', '/etc/passwd', '../../outside/X.java', 'src/../../Z.java', 'C:\\Windows\\w.java', 'file:///etc/shadow', 'https://evil.example/h.java'];
const INSIDE_ABS = path.join(root, 'src/shop/Shop.java');

function traces(): string {
  const dir = tempDir('braid-sarif-');
  // variable k: thread 1 at an outside path, thread 2 at a path inside the repository
  const files = OUTSIDE.map((f, k) => [f, k % 2 ? 'shop/Inside.java' : INSIDE_ABS]);
  const mk = (exec: string, outcome: string, order: number[]) => {
    const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: exec, outcome })];
    files.forEach(([a, b], k) => {
      lines.push(JSON.stringify({ def: 'var', id: k, name: `v${k}` }));
      lines.push(JSON.stringify({ def: 'loc', id: 2 * k, file: a, line: 3, method: 'A.m' }));
      lines.push(JSON.stringify({ def: 'loc', id: 2 * k + 1, file: b, line: 4, method: 'B.m' }));
    });
    let i = 0;
    files.forEach((_f, k) => {
      for (const t of order) lines.push(JSON.stringify([++i, t, 'W', k, 2 * k + (t - 1)]));
    });
    return lines.join('\n') + '\n';
  };
  for (let k = 0; k < 3; k++) {
    writeFileSync(path.join(dir, `f${k}.trace.jsonl`), mk(`f${k}`, 'fail', [1, 2, 1]));
    writeFileSync(path.join(dir, `p${k}.trace.jsonl`), mk(`p${k}`, 'pass', [1, 1, 2]));
  }
  return dir;
}

test('N11: analyze --format sarif keeps only repository-relative URIs, drops the others with a warning', () => {
  const out = path.join(tempDir(), 'braid.sarif');
  const r = spawnSync(process.execPath, [cli, 'analyze', traces(), '--format', 'sarif', '--top', '100', '-o', out], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 0, r.stderr);
  const sarif = JSON.parse(readFileSync(out, 'utf8'));
  const results = sarif.runs[0].results as any[];
  assert.ok(results.length >= OUTSIDE.length, `${results.length} results`);
  const uris: string[] = [];
  let related = 0;
  for (const res of results) {
    assert.ok(res.message.text.length > 0, 'every result keeps its message');
    for (const l of [...res.locations, ...res.relatedLocations]) {
      const u = l.physicalLocation?.artifactLocation?.uri;
      if (u !== undefined) uris.push(u);
    }
    related += res.relatedLocations.length;
    for (const l of res.relatedLocations) assert.ok(l.message.text, 'a related location keeps its message');
  }
  for (const u of uris) {
    assert.doesNotMatch(u, /^\/|^[A-Za-z][A-Za-z0-9+.-]*:|(^|\/)\.\.(\/|$)/, `a URI leaving the repository: ${u}`);
    assert.ok(!u.includes('evil') && !u.includes('etc') && !u.includes('Windows') && !u.includes('outside'), u);
  }
  assert.ok(uris.includes('src/shop/Shop.java'), `an absolute path inside the repository is made relative: ${uris.join(' ')}`);
  assert.ok(uris.includes('shop/Inside.java'));
  // one count per access whose location lost its path (the primary location is one of them)
  const dropped = results.reduce((n, x) => n + x.relatedLocations.filter((l: any) => !l.physicalLocation).length, 0);
  assert.ok(dropped > 0 && dropped < related);
  const m = /warning: (\d+) SARIF locations? dropped/.exec(r.stderr);
  assert.ok(m, `a warning on stderr: ${r.stderr}`);
  assert.equal(Number(m[1]), dropped, r.stderr);
});

test('N11: sarifArtifactUri', () => {
  const base = '/work/repo';
  assert.equal(sarifArtifactUri('src/A.java', base), 'src/A.java');
  assert.equal(sarifArtifactUri('src\\main\\A.java', base), 'src/main/A.java');
  assert.equal(sarifArtifactUri('/work/repo/src/A.java', base), 'src/A.java');
  assert.equal(sarifArtifactUri('./src/../A b#?.java', base), 'A%20b%23%3F.java');
  assert.equal(sarifArtifactUri('C:\\repo\\src\\A.java', 'C:\\repo'), 'src/A.java');
  assert.equal(sarifArtifactUri('c:/repo/src/A.java', 'C:\\repo'), 'src/A.java');
  for (const f of [...OUTSIDE, '/work/repo2/A.java', '/work/repo', '', '.', '..', 'C:x.java', 'D:\\repo\\A.java']) {
    assert.equal(sarifArtifactUri(f, f.startsWith('D:') ? 'C:\\repo' : base), undefined, f);
  }
});
