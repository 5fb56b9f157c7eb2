/**
 * Fitting text into the rows of the tree views at the default sidebar width (issue 30, point 4):
 * a row shows about 31 characters before VS Code cuts it, so the counts and the score come first,
 * names are shortened from the left only as far as needed, and sentences are wrapped over several
 * rows instead of being cut. The full text always goes in the tooltip. Pure, no vscode.
 */

/** Characters a top-level row shows at the default sidebar width (measured in code-server, ~300 px). */
export const ROW_CHARS = 31;
/** Characters lost per level of indentation. */
export const INDENT_CHARS = 2;

/**
 * Names (`MyVector.size, data`) in at most `max` characters: whole when they fit, else without
 * their class names (`size, data`), else cut from the left (`…ze, data`). Never shorter than 8.
 */
export function fitNames(names: string, max: number): string {
  const room = Math.max(8, max);
  if (names.length <= room) return names;
  const members = names
    .split(', ')
    .map((n) => {
      const dot = n.lastIndexOf('.');
      return dot < 0 ? n : n.slice(dot + 1);
    })
    .join(', ');
  if (members.length <= room) return members;
  return `…${members.slice(members.length - (room - 1))}`;
}

/** Text wrapped at word boundaries into lines of at most `width` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
