/**
 * Trace globs (`braid.traceGlobs`), matched against workspace-relative POSIX paths: `**` (any
 * number of segments), `*` and `?` (within a segment), `{a,b}` alternatives (an empty alternative
 * allowed, as in `*.trace.jsonl{,.gz}`) and `[...]` classes, compiled by picomatch.
 *
 * The setting is not restricted (a cloned repository's .vscode/settings.json sets it in Restricted
 * Mode too), so a glob is checked before it is compiled (issue 39): no `..` (the walk stays in the
 * workspace folder; also picomatch's `{1..n}` ranges), no absolute path, only the characters of the
 * syntax above (no extglob or regex groups `(…|…)+`, which picomatch would pass into the RegExp), at
 * most two `*` runs in a segment and no nested braces — a RegExp from such a glob matches a path in
 * at most quadratic time per segment, never by catastrophic backtracking.
 */
import picomatch from 'picomatch';

export interface CompiledGlob {
  source: string;
  regex: RegExp;
  /** the leading segments without wildcards, e.g. ".braid/traces" ("" if none) */
  base: string;
}

/** A trace glob that is not accepted; the message names the glob and says why. */
export class GlobError extends Error {}

export const MAX_GLOB_LENGTH = 500;

/** Why a glob (already trimmed, `/`-separated) is not accepted, or undefined. */
function globProblem(g: string): string | undefined {
  if (g === '') return 'it is empty';
  if (g.length > MAX_GLOB_LENGTH) return `it has ${g.length} characters, more than ${MAX_GLOB_LENGTH}`;
  if (/^[A-Za-z]:/.test(g) || g.startsWith('~')) return 'it is an absolute path: trace globs are relative to the workspace folder';
  if (g.includes('..')) return '".." leaves the workspace folder (and "{a..b}" ranges are not supported)';
  if (/[()|]/.test(g)) return 'extglobs and groups such as +(a|b) are not supported';
  const bad = /[^A-Za-z0-9_\-.\/*?{},\[\]!^ #%=@+~]/.exec(g);
  if (bad) return `it contains ${JSON.stringify(bad[0])}: only letters, digits, "-_. #%=@+~" and the glob syntax * ** ? {a,b} [a-z] are accepted`;
  if (/[!^]/.test(g.replace(/\[[!^]/g, '['))) return '"!" and "^" are accepted only at the start of a [class]';
  let depth = 0;
  for (const c of g) {
    if (c === '{' && ++depth > 1) return 'nested braces {a,{b,c}} are not supported';
    if (c === '}') depth = Math.max(0, depth - 1);
  }
  if (depth !== 0 || (g.match(/\{/g) ?? []).length !== (g.match(/\}/g) ?? []).length) return 'its braces { } are not balanced';
  if ((g.match(/\{/g) ?? []).length > 4) return 'more than 4 {…} alternatives';
  for (const seg of g.split('/')) {
    if (seg === '**') continue;
    const stars = seg.match(/\*+/g) ?? [];
    if (stars.length > 2) return `the segment ${JSON.stringify(seg)} has more than two * wildcards`;
  }
  return undefined;
}

/** The glob compiled; throws GlobError when it is not accepted (globProblem). */
export function compileGlob(glob: string): CompiledGlob {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  while (g.startsWith('/')) g = g.slice(1);
  const why = globProblem(g);
  if (why) throw new GlobError(`braid.traceGlobs: ${JSON.stringify(glob)} is not used: ${why}`);
  const segments = g.split('/');
  const baseSegs: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (/[*?{[]/.test(s)) break;
    baseSegs.push(s);
  }
  // `[!x]` is a negated class as in the shell (picomatch reads it as the characters ! and x)
  const regex = picomatch.makeRe(g.replace(/\[!/g, '[^'), { dot: true, noextglob: true, nonegate: true, strictSlashes: true });
  return { source: glob, regex, base: baseSegs.join('/') };
}

export function matchesAny(globs: CompiledGlob[], relPath: string): boolean {
  const p = relPath.replace(/\\/g, '/');
  return globs.some((g) => g.regex.test(p));
}
