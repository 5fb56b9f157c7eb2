/**
 * The npm workspace of a working folder (server/src/recorder/node/workspacePackages.ts) and what the
 * Node.js recorder's file rule makes of it (match.ts): a workspace package's files are project code
 * (not its own node_modules, not with include globs, not what an exclude glob names) and are named
 * from the workspace's root.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { npmWorkspace, workspaceGlobs } from '../../server/src/recorder/node/workspacePackages';
import { fileMatcher, relativeName } from '../../server/src/recorder/node/match';

function tree(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'braid-ws-')));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

test('workspaces as npm and yarn write them: an array of globs, or { packages }; anything else is none', () => {
  assert.deepEqual(workspaceGlobs({ workspaces: ['packages/*', 7, ''] }), ['packages/*']);
  assert.deepEqual(workspaceGlobs({ workspaces: { packages: ['apps/*'], nohoist: ['x'] } }), ['apps/*']);
  assert.equal(workspaceGlobs({ workspaces: 'packages/*' }), undefined);
  assert.equal(workspaceGlobs({ name: 'p' }), undefined);
  assert.equal(workspaceGlobs(null), undefined);
});

test('the workspace above a package: its packages by the root\'s globs (negations, nested globs), none for a folder outside any workspace', (t) => {
  const root = tree({
    'package.json': JSON.stringify({ workspaces: ['packages/*', 'apps/**', '!packages/skipped'] }),
    'packages/a/package.json': '{}',
    'packages/b/package.json': '{}',
    'packages/skipped/package.json': '{}',
    'packages/notapackage/readme.md': '',
    'apps/web/site/package.json': '{}',
    'packages/a/node_modules/dep/package.json': '{}',
    'other/package.json': '{}',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const w = npmWorkspace(path.join(root, 'packages', 'a'));
  assert.ok(w);
  assert.equal(w.root, root);
  assert.deepEqual(w.packages, [path.join(root, 'apps/web'), path.join(root, 'apps/web/site'), path.join(root, 'packages/a'), path.join(root, 'packages/b')].filter((d) => d !== path.join(root, 'apps/web')));
  assert.equal(npmWorkspace(root), undefined, 'the root itself: its packages are under the working folder anyway');
  const outside = tree({ 'package.json': '{}' });
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  assert.equal(npmWorkspace(outside), undefined);
});

test('the file rule: a workspace package\'s files are recorded and named from the workspace root; its node_modules, excluded files and include globs are not', () => {
  const root = '/m';
  const workspace = { root, packages: ['/m/packages/a', '/m/packages/b'] };
  const m = fileMatcher({ root: '/m/packages/a', include: [], exclude: ['**/*.generated.js'], workspace });
  assert.equal(m('/m/packages/a/src/x.js'), true);
  assert.equal(m('/m/packages/b/src/store.js'), true, 'the workspace dependency');
  assert.equal(m('/m/packages/bb/src/store.js'), false, 'a folder whose name only starts like a package');
  assert.equal(m('/m/packages/b/node_modules/lodash/index.js'), false, 'the package\'s own dependencies');
  assert.equal(m('/m/packages/b/src/x.generated.js'), false, 'excluded');
  assert.equal(m('/m/tools/build.js'), false, 'not a workspace package');
  assert.equal(fileMatcher({ root: '/m/packages/a', include: ['lib/**'], exclude: [], workspace })('/m/packages/b/src/store.js'), false, 'include globs decide alone');
  assert.equal(fileMatcher({ root: '/m/packages/a', include: [], exclude: [] })('/m/packages/b/src/store.js'), false, 'no workspace: outside the working folder');
  assert.equal(relativeName('/m/packages/a', '/m/packages/b/src/store.js', root), 'packages/b/src/store.js');
  assert.equal(relativeName('/m/packages/a', '/m/packages/a/src/x.js', root), 'src/x.js');
  assert.equal(relativeName('/m/packages/a', '/elsewhere/y.js', root), '/elsewhere/y.js');
  assert.equal(relativeName('/m/packages/a', '/m/packages/b/src/store.js'), '/m/packages/b/src/store.js');
});
