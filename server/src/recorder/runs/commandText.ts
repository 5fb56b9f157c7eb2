/** A command line (program and arguments) as one line of text, for messages and dialogs. */

/** Words with white space, quotes or backslashes in them (or empty) are JSON-quoted; the caller escapes the line for where it goes. */
export function commandText(words: readonly string[]): string {
  return words.map((w) => (w === '' || /[\s"'\\]/.test(w) ? JSON.stringify(w) : w)).join(' ');
}
