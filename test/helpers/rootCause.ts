/**
 * Root-cause checks shared by the acceptance tests: the `// @bug` lines of a
 * subject's sources, and whether a ranked pattern is a root cause (all its
 * accesses on @bug lines — for library code, the user's call line that the
 * analysis shows it at).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AnalysisResult, RankedPattern } from '../../server/src/engine/analysis';

export interface BugLine {
  /** path relative to the source root, '/' separated */
  file: string;
  line: number;
}

/**
 * Every `// @bug` line of the source files under `root` (a `file=` suffix still names the user's
 * line): .java files, or the extensions given (`['.js', '.mjs', '.cjs', '.ts']` for Node subjects).
 */
export function bugLinesIn(root: string, extensions: readonly string[] = ['.java']): BugLine[] {
  const out: BugLine[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (extensions.some((e) => name.endsWith(e))) {
        readFileSync(p, 'utf8')
          .split('\n')
          .forEach((text, k) => {
            if (/\/\/\s*@bug\b/.test(text)) out.push({ file: path.relative(root, p).split(path.sep).join('/'), line: k + 1 });
          });
      }
    }
  };
  walk(root);
  return out;
}

function sameFile(traceFile: string, bugFile: string): boolean {
  const a = traceFile.replace(/\\/g, '/');
  return a === bugFile || a.endsWith('/' + bugFile) || bugFile.endsWith('/' + a);
}

export function isRootCause(p: RankedPattern, bugs: readonly BugLine[]): boolean {
  return p.accesses.every((a) => bugs.some((b) => b.line === a.line && sameFile(a.file, b.file)));
}

/** 1-based position of the first root-cause pattern in the list (0: none). */
export function firstRootPosition(r: AnalysisResult, bugs: readonly BugLine[]): number {
  const k = r.patterns.findIndex((p) => isRootCause(p, bugs));
  return k + 1;
}

/** The acceptance check: the first pattern is a root cause and no non-root cause pattern is tied with it. */
export function rootCauseFirst(r: AnalysisResult, bugs: readonly BugLine[]): { ok: boolean; why: string } {
  const first = r.patterns[0];
  if (!first) return { ok: false, why: 'no pattern' };
  const show = (p: RankedPattern) =>
    `#${p.rank} ${p.group} ${p.id} ${p.score.toFixed(3)} F${p.failed}/P${p.passed} ${p.accesses.map((a) => `${a.thread}${a.type} ${a.variable} ${a.file}:${a.line}`).join(' | ')}`;
  const listing = r.patterns.slice(0, 8).map(show).join('\n');
  if (!isRootCause(first, bugs)) return { ok: false, why: `the first pattern is not a root cause (@bug ${bugs.map((b) => `${b.file}:${b.line}`).join(', ')}):\n${listing}` };
  const tied = r.patterns.filter((p) => p.group === first.group && p.rank === first.rank && !isRootCause(p, bugs));
  if (tied.length) return { ok: false, why: `non-root patterns tied with the first:\n${tied.map(show).join('\n')}\n---\n${listing}` };
  return { ok: true, why: '' };
}
