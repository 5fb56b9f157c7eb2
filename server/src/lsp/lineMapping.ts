/**
 * Lines of an analyzed file through unsaved edits (issue 43, point 1): the analysis' positions are
 * those of the file on disk; while its editor holds other text, a line keeps its heat and hover
 * only when it is unchanged — in the unchanged lines before the first edit (same number) or after
 * the last one (shifted by the lines added or removed). Lines between the first and the last edit
 * are hidden: they may be code that changed, and a hover describing the old race there would be wrong.
 */
export interface LineMapping {
  /** the disk line (1-based) shown at this editor line, or undefined (changed) */
  toDisk(line: number): number | undefined;
  /** the editor line (1-based) of a disk line, or undefined (changed) */
  toEditor(line: number): number | undefined;
}

export const IDENTITY: LineMapping = { toDisk: (l) => l, toEditor: (l) => l };

function lines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** The mapping between the text on disk and the editor's text. */
export function lineMapping(disk: string, editor: string): LineMapping {
  if (disk === editor) return IDENTITY;
  const a = lines(disk);
  const b = lines(editor);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const shift = b.length - a.length;
  return {
    toDisk: (l) => (l <= prefix ? l : l > b.length - suffix && l <= b.length ? l - shift : undefined),
    toEditor: (l) => (l <= prefix ? l : l > a.length - suffix && l <= a.length ? l + shift : undefined),
  };
}
