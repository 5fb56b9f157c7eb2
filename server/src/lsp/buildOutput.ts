/**
 * Build and test output as the editor shows it (issue 43, point 2): without ANSI colour and cursor
 * codes (`[␛[1;31mERROR␛[m] COMPILATION ERROR` reads `[ERROR] COMPILATION ERROR`; Node's own
 * util.stripVTControlCharacters knows the escape sequences), and the compiler's FIRST errors — javac and Maven
 * print the root error first and its consequences after it, so the head, not the tail, says what
 * to fix.
 */
import { stripVTControlCharacters } from 'node:util';

/** One line without ANSI escapes or other control characters (tabs kept). */
export function plainOutputLine(line: string): string {
  return stripVTControlCharacters(line).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

/** Output without ANSI escapes or other control characters (newlines and tabs kept). */
export function plainOutput(text: string): string {
  return text.split(/\r?\n/).map(plainOutputLine).join('\n');
}

/** a compiler error at a source line: javac `File.java:12: error: …`, Maven `[ERROR] /…/File.java:[12,5] …`, kotlinc `e: File.kt:3:1 …` */
const SOURCE_ERROR = /\.(?:java|kt|scala|groovy):(?:\d+: error:|\[\d+,\d+\]|\d+:\d+)|^error: /;
/** any other line that says something failed (Maven's `[ERROR] …`, Gradle's `FAILURE: …`) */
const ANY_ERROR = /^\[ERROR\]\s+\S|^FAILURE:|\bERROR\b|\berror\b/;

/**
 * The lines that say what failed, first errors first: from the first compiler error at a source line
 * on (with its source line and caret), else from the first error line, at most `max` lines; output
 * without any error line: its last `max` lines.
 */
export function firstErrors(text: string, max = 15): string {
  const lines = plainOutput(text).split('\n').filter((l) => l.trim() !== '');
  let k = lines.findIndex((l) => SOURCE_ERROR.test(l));
  if (k < 0) k = lines.findIndex((l) => ANY_ERROR.test(l));
  const from = k < 0 ? Math.max(0, lines.length - max) : k;
  return lines.slice(from, from + max).join('\n');
}
