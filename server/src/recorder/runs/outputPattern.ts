/**
 * The `--fail-on-output` regular expression (and a recording manifest's `failOnOutput`), matched in
 * linear time (issue 39). A JavaScript RegExp backtracks: `(a+)+$` against a long line of `a`s runs
 * for hours, on the main loop of the CLI (Ctrl-C ignored) or of the language server, and the pattern
 * may come from a file in a cloned repository (recording.json). The pattern is compiled by re2js, a
 * port of RE2 whose matching time grows linearly with the text; what RE2 cannot match in linear
 * time (backreferences, lookahead, lookbehind) is refused with a clear error.
 *
 * `outputPattern` returns a RegExp whose `exec` (and so `test`, `match`, `matchAll`) runs RE2: the
 * callers keep their RegExp type; `source` is the pattern as written. Flags: multiline (`^`/`$` at
 * line ends), as `braid record` always used.
 */
import { RE2JS } from 're2js';

/** Longest pattern accepted (a manifest is untrusted text; RE2's compiled program grows with it). */
export const MAX_OUTPUT_PATTERN_LENGTH = 1000;

class LinearRegExp extends RegExp {
  readonly #re2: RE2JS;

  constructor(source: string | RegExp) {
    const text = typeof source === 'string' ? source : source.source;
    // RE2 first: its errors are the ones to report (the JavaScript RegExp is kept for `source` and `flags`, it never matches)
    const re2 = RE2JS.compile(text, RE2JS.MULTILINE);
    super(text, 'm');
    this.#re2 = re2;
  }

  override exec(s: string): RegExpExecArray | null {
    const text = String(s);
    const m = this.#re2.matcher(text);
    if (!m.find()) return null;
    const groups: (string | undefined)[] = [];
    for (let k = 0; k <= this.#re2.groupCount(); k++) groups.push(m.group(k) ?? undefined);
    const out = groups as unknown as RegExpExecArray;
    out.index = m.start();
    out.input = text;
    return out;
  }
}

/**
 * The pattern as a RegExp that matches in linear time, or an Error whose message says what is wrong
 * with it (unbalanced parenthesis, a backreference or lookaround, too long), for the caller to name
 * where the pattern came from.
 */
export function outputPattern(source: string): RegExp | Error {
  if (typeof source !== 'string' || source === '') return new Error('an empty pattern would match every run');
  if (source.length > MAX_OUTPUT_PATTERN_LENGTH) return new Error(`${source.length} characters, more than ${MAX_OUTPUT_PATTERN_LENGTH}`);
  try {
    return new LinearRegExp(source);
  } catch (e) {
    if (!(e instanceof SyntaxError)) {
      const why = (e as Error).message.replace(/^error parsing regexp: /, '');
      return new Error(`not a regular expression Braid can match in linear time (${why}; backreferences and lookaround are not supported)`);
    }
    // RE2 syntax that JavaScript does not take, e.g. `(?P<name>…)`
    return new Error(`not a JavaScript regular expression (${e.message})`);
  }
}

/** True for a pattern made by outputPattern (matching in linear time). */
export function isLinearPattern(re: RegExp): boolean {
  return re instanceof LinearRegExp;
}
