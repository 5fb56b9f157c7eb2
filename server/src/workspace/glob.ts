/**
 * A small glob matcher for trace globs (`braid.traceGlobs`), matched against
 * workspace-relative POSIX paths: `**` (any number of segments), `*` and `?`
 * (within a segment), `{a,b}` alternatives (an empty alternative allowed, as
 * in `*.trace.jsonl{,.gz}`) and `[...]` classes.
 */

export interface CompiledGlob {
  source: string;
  regex: RegExp;
  /** the leading segments without wildcards, e.g. ".braid/traces" ("" if none) */
  base: string;
}

export function compileGlob(glob: string): CompiledGlob {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  if (g.startsWith('/')) g = g.slice(1);
  const segments = g.split('/');
  const baseSegs: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (/[*?{[]/.test(s)) break;
    baseSegs.push(s);
  }
  return { source: glob, regex: new RegExp('^' + globToRegex(g) + '$'), base: baseSegs.join('/') };
}

function globToRegex(g: string): string {
  let out = '';
  let i = 0;
  let braceDepth = 0;
  while (i < g.length) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        // `**/` = zero or more directories; a trailing `**` = anything
        const atStart = i === 0 || g[i - 1] === '/';
        if (atStart && g[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 3;
          continue;
        }
        out += '.*';
        i += 2;
        continue;
      }
      out += '[^/]*';
      i++;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
      i++;
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
      i++;
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
      i++;
    } else if (c === '[') {
      const end = g.indexOf(']', i + 1);
      if (end < 0) {
        out += '\\[';
        i++;
      } else {
        let cls = g.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        out += `[${cls}]`;
        i = end + 1;
      }
    } else {
      out += c.replace(/[.+^$()|\\]/g, '\\$&');
      i++;
    }
  }
  return out;
}

export function matchesAny(globs: CompiledGlob[], relPath: string): boolean {
  const p = relPath.replace(/\\/g, '/');
  return globs.some((g) => g.regex.test(p));
}
