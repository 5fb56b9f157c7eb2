/**
 * The real corpus' project tests (kind project-test, bench/real/README.md): truth.json names where
 * the project is fetched and built, and `bench/realEval.ts --live` runs them in a checkout outside
 * this repository, saying how to make it when it is missing or at another commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heldOutById, RealSubject, RealTruth, truthProblems } from '../../bench/realCorpus';
import { workFolder } from '../../bench/realEval';

const BUGGY = 'a'.repeat(40);

function truth(over: Partial<RealTruth> = {}): RealTruth {
  return {
    id: 'proj-x',
    language: 'java',
    subject: `github.com/o/p@${BUGGY}`,
    kind: 'project-test',
    repo: 'https://github.com/o/p',
    buggyCommit: BUGGY,
    fixCommit: 'b'.repeat(40),
    module: '.',
    test: 'pkg.SomeTest#m',
    heldOut: heldOutById('proj-x'),
    bugs: { b: { accesses: [{ file: 'pkg/A.java', line: 3 }], fixMethods: ['pkg.A.m'] } },
    ...over,
  };
}

test('a project test names its repository, both commits and its module', () => {
  assert.deepEqual(truthProblems(truth(), 'proj-x'), []);
  const p = truthProblems(truth({ repo: 'github.com/o/p', buggyCommit: 'abc123', fixCommit: undefined, module: '../elsewhere' }), 'proj-x');
  assert.equal(p.length, 4, p.join('\n'));
  assert.match(p.join('\n'), /repo, the project's GitHub URL/);
  assert.match(p.join('\n'), /buggyCommit, a full 40-digit commit id/);
  assert.match(p.join('\n'), /fixCommit, a full 40-digit commit id/);
  assert.match(p.join('\n'), /module, the Maven module's folder/);
  assert.deepEqual(truthProblems(truth({ kind: 'release-driver', repo: undefined, buggyCommit: undefined, fixCommit: undefined, module: undefined }), 'proj-x'), [], 'a release driver needs none of them');
});

test('--live finds a project test in <checkouts>/<id>/<module>, and says how to make a missing or different checkout', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-real-proj-'));
  try {
    const dir = path.join(tmp, 'bench', 'proj-x');
    mkdirSync(dir, { recursive: true });
    const s: RealSubject = { id: 'proj-x', language: 'java', dir, truth: truth({ module: 'core' }), run: { test: 'pkg.SomeTest#m' } };
    const checkouts = path.join(tmp, 'checkouts');
    const missing = workFolder(s, checkouts);
    assert.ok('error' in missing);
    assert.match(missing.error, /the project's checkout is missing: .*checkouts\/proj-x\. Make it: git clone https:\/\/github\.com\/o\/p .*checkouts\/proj-x && git -C .*checkouts\/proj-x checkout a{40}/);

    const root = path.join(checkouts, 'proj-x');
    mkdirSync(root, { recursive: true });
    const noModule = workFolder(s, checkouts);
    assert.ok('error' in noModule);
    assert.match(noModule.error, /no pom\.xml in .*proj-x\/core \(the module "core"/);

    mkdirSync(path.join(root, 'core'));
    writeFileSync(path.join(root, 'core', 'pom.xml'), '<project/>');
    assert.deepEqual(workFolder(s, checkouts), { dir: path.join(root, 'core') });

    // a git checkout at another commit than buggyCommit
    const git = (...a: string[]) => spawnSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { encoding: 'utf8' });
    assert.equal(git('init', '-q').status, 0);
    assert.equal(git('add', '.').status, 0);
    assert.equal(git('commit', '-q', '-m', 'x').status, 0);
    const head = git('rev-parse', 'HEAD').stdout.trim();
    const other = workFolder(s, checkouts);
    assert.ok('error' in other);
    assert.equal(other.error, `the checkout ${root} is at ${head}, not at the buggyCommit ${BUGGY}: git -C ${root} checkout ${BUGGY}`);
    assert.deepEqual(workFolder({ ...s, truth: truth({ module: 'core', buggyCommit: head }) }, checkouts), { dir: path.join(root, 'core') });

    // a release driver runs in its own folder
    writeFileSync(path.join(dir, 'pom.xml'), '<project/>');
    assert.deepEqual(workFolder({ ...s, truth: truth({ kind: 'release-driver' }) }, checkouts), { dir });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
