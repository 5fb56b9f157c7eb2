/**
 * What an include/exclude entry may be (issue 39): a Java package or class (`com.example.bank`,
 * `bank.*`) or, for the Node.js recorder, a glob naming JS/TS files (`src/**\/*.js`). The entries go
 * into the agents' options: the Java agent's command-line form splits at `,` and its include list
 * at `;` and `:` (path-list separators), so an entry holding one of them, `=`, white space or a
 * control character would smuggle in another option (`out=…`) or another pattern. Such entries
 * come from a recording manifest in a cloned repository as easily as from a command line, and are
 * refused wherever they are read.
 */

export const MAX_INCLUDE_PATTERN_LENGTH = 300;

/** Why an include/exclude entry is not accepted (a phrase), or undefined when it is fine. */
export function includePatternProblem(p: unknown): string | undefined {
  if (typeof p !== 'string') return 'not a string';
  if (p === '') return 'empty';
  if (p.length > MAX_INCLUDE_PATTERN_LENGTH) return `${p.length} characters, more than ${MAX_INCLUDE_PATTERN_LENGTH}`;
  const bad = /[\s,;:=\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.exec(p);
  if (bad) return `contains ${JSON.stringify(bad[0])} (a package, class or file glob has no separators, white space or control characters)`;
  if (p.startsWith('-') || p.startsWith('@')) return `starts with "${p[0]}"`;
  return undefined;
}
