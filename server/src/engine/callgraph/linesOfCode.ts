/**
 * Lines of code of a method, the seed's tie-breaker (Sect. 2.3, after [24]): counted in the source
 * from the method's declaration to its closing brace, without blank lines and lines holding only
 * comments. The declaration is the nearest line at or above a line recorded inside the method that
 * names the method and opens a parameter list; the body ends where its braces balance (strings,
 * character literals and comments are skipped). Lambdas, static initialisers and methods whose
 * declaration is not found have no source figure; the ranking then uses the span of the recorded
 * lines (methodRanking.ts).
 */

export interface MethodExtent {
  /** 1-based declaration line */
  line: number;
  /** 1-based line of the closing brace */
  endLine: number;
  /** non-blank, non-comment lines from the declaration to the closing brace */
  loc: number;
}

/** The simple name a Java declaration of `method` ("pkg.Cls$Inner.name", "pkg.Cls.<init>") uses. */
export function declaredName(method: string): string | undefined {
  const parts = method.split('.');
  let simple = parts[parts.length - 1] ?? '';
  if (simple === '<init>') simple = (parts[parts.length - 2] ?? '').split('$').pop() ?? '';
  else if (simple.includes('$')) simple = simple.split('$').pop() ?? '';
  if (!simple || simple === '<clinit>' || simple.startsWith('lambda') || /^\d+$/.test(simple) || !/^[\w$]+$/.test(simple)) return undefined;
  return simple;
}

/** The extent of `method` in `text`, searching upwards from `lineInside` (1-based), or undefined. */
export function methodExtent(text: string, method: string, lineInside: number): MethodExtent | undefined {
  const name = declaredName(method);
  if (!name) return undefined;
  const lines = text.split(/\r?\n/);
  const re = new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\(`);
  let decl = -1;
  for (let l = Math.min(lineInside, lines.length) - 1; l >= 0 && l >= lineInside - 2000; l--) {
    const s = lines[l];
    if (!re.test(s)) continue;
    const head = s.trim();
    if (/^(return|if|while|for|switch|new|throw|else|case)\b/.test(head) || /;\s*$/.test(head)) continue;
    if (/=/.test(head.split('(')[0])) continue;
    decl = l;
    break;
  }
  if (decl < 0) return undefined;
  // from the declaration: find the body's braces
  let depth = 0;
  let opened = false;
  let inBlock = false;
  for (let l = decl; l < lines.length; l++) {
    const s = lines[l];
    for (let c = 0; c < s.length; c++) {
      const ch = s[c];
      if (inBlock) {
        if (ch === '*' && s[c + 1] === '/') {
          inBlock = false;
          c++;
        }
        continue;
      }
      if (ch === '/' && s[c + 1] === '/') break;
      if (ch === '/' && s[c + 1] === '*') {
        inBlock = true;
        c++;
        continue;
      }
      if (ch === '"' || ch === "'") {
        c++;
        while (c < s.length && s[c] !== ch) {
          if (s[c] === '\\') c++;
          c++;
        }
        continue;
      }
      if (ch === ';' && !opened) return undefined; // an abstract or interface method: no body
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') {
        depth--;
        if (opened && depth === 0) return { line: decl + 1, endLine: l + 1, loc: countCode(lines, decl, l) };
      }
    }
  }
  return undefined;
}

function countCode(lines: string[], from: number, to: number): number {
  let n = 0;
  let inBlock = false;
  for (let l = from; l <= to; l++) {
    let s = lines[l].trim();
    let code = false;
    while (s.length) {
      if (inBlock) {
        const end = s.indexOf('*/');
        if (end < 0) {
          s = '';
          break;
        }
        inBlock = false;
        s = s.slice(end + 2).trim();
        continue;
      }
      if (s.startsWith('//')) break;
      if (s.startsWith('/*')) {
        inBlock = true;
        s = s.slice(2);
        continue;
      }
      code = true;
      break;
    }
    if (code) n++;
  }
  return n;
}
