/**
 * Makes the checkouts of the real corpus' project tests (kind project-test, bench/real/README.md)
 * where `bench/realEval.ts --live` looks for them, from local bare mirrors of the projects'
 * repositories (when GitHub itself cannot be reached by git):
 *
 *   node --import tsx bench/realCheckouts.ts [id...] [--mirrors DIR] [--checkouts DIR]
 *
 *   --mirrors DIR     where the mirrors are: DIR/<owner>+<name>/repo (a bare git directory) or
 *       DIR/<owner>+<name> (default $BRAID_REAL_MIRRORS, else /work/.mirror)
 *   --checkouts DIR   as realEval.ts (default $BRAID_REAL_CHECKOUTS, else ~/.cache/braid-real)
 *
 * For each subject: `git clone <mirror> <checkouts>/<id>`, `git checkout <buggyCommit>` (detached),
 * and the clone's origin set to the truth's `repo` URL; when the truth has `mavenConfig`, those
 * lines are written into the checkout's `.mvn/maven.config` (added to the project's own, if it has
 * one). A checkout already at the buggyCommit is only given missing `mavenConfig` lines. Nothing is built here (realEval builds the module once, online) and nothing of the
 * project is ever written into this repository.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { realSubjects } from './realCorpus';
import { defaultCheckouts } from './realEval';

function git(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  return { ok: r.status === 0, out: ((r.stdout ?? '') + (r.stderr ?? '')).trim() };
}

/** The local mirror of a GitHub URL, or undefined. */
export function mirrorOf(repo: string, mirrors: string): string | undefined {
  const m = /github\.com\/([^/]+)\/([^/.]+)/.exec(repo);
  if (!m) return undefined;
  const base = path.join(mirrors, `${m[1]}+${m[2]}`);
  for (const d of [path.join(base, 'repo'), base]) if (existsSync(path.join(d, 'HEAD')) || existsSync(path.join(d, '.git'))) return d;
  return undefined;
}

/** Adds the truth's mavenConfig lines the checkout's .mvn/maven.config lacks; what was added. */
export function writeMavenConfig(dir: string, lines: readonly string[] | undefined): string[] {
  if (!lines?.length) return [];
  const file = path.join(dir, '.mvn', 'maven.config');
  const had = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const present = new Set(had.split(/\s+/).filter(Boolean));
  const add = lines.filter((l) => !present.has(l));
  if (!add.length) return [];
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, (had && !had.endsWith('\n') ? had + '\n' : had) + add.join('\n') + '\n');
  return add;
}

export function main(argv: string[]): number {
  const value = (f: string, d: string) => {
    const k = argv.indexOf(f);
    return k >= 0 && argv[k + 1] !== undefined ? argv[k + 1] : d;
  };
  const ids = argv.filter((a, k) => !a.startsWith('--') && !['--mirrors', '--checkouts'].includes(argv[k - 1]));
  const mirrors = path.resolve(value('--mirrors', process.env.BRAID_REAL_MIRRORS || '/work/.mirror'));
  const checkouts = path.resolve(value('--checkouts', defaultCheckouts()));
  mkdirSync(checkouts, { recursive: true });
  let failed = 0;
  for (const s of realSubjects(ids).filter((x) => x.truth.kind === 'project-test')) {
    const { repo, buggyCommit, mavenConfig } = s.truth;
    const dir = path.join(checkouts, s.id);
    const say = (m: string) => console.log(`${s.id}: ${m}`);
    if (!repo || !buggyCommit) {
      say('truth.json has no repo or buggyCommit');
      failed++;
      continue;
    }
    if (existsSync(dir)) {
      const head = git(['-C', dir, 'rev-parse', 'HEAD']);
      const co = head.ok && head.out === buggyCommit ? { ok: true, out: '' } : git(['-C', dir, 'checkout', '-q', buggyCommit]);
      if (!co.ok) {
        say(`the existing ${dir} cannot check out ${buggyCommit}: ${co.out}`);
        failed++;
        continue;
      }
      const added = writeMavenConfig(dir, mavenConfig);
      say(`${head.out === buggyCommit ? 'already at' : 'checked out'} ${buggyCommit.slice(0, 10)} (${dir})${added.length ? `; .mvn/maven.config + ${added.join(' ')}` : ''}`);
      continue;
    }
    const mirror = mirrorOf(repo, mirrors);
    if (!mirror) {
      say(`no mirror of ${repo} under ${mirrors}: git clone ${repo} ${dir} && git -C ${dir} checkout ${buggyCommit}`);
      failed++;
      continue;
    }
    const steps: string[][] = [
      ['clone', '-q', '--no-checkout', mirror, dir],
      ['-C', dir, 'checkout', '-q', buggyCommit],
      ['-C', dir, 'remote', 'set-url', 'origin', repo],
    ];
    const bad = steps.map((a) => ({ a, r: git(a) })).find((x) => !x.r.ok);
    if (bad) {
      say(`git ${bad.a.join(' ')} failed: ${bad.r.out}`);
      failed++;
    } else {
      const added = writeMavenConfig(dir, mavenConfig);
      say(`cloned from ${mirror}, at ${buggyCommit.slice(0, 10)} (${dir})${added.length ? `; .mvn/maven.config + ${added.join(' ')}` : ''}`);
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && /realCheckouts\.[tj]s$/.test(process.argv[1])) process.exitCode = main(process.argv.slice(2));
