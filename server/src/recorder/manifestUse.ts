/**
 * Where a recording manifest's command may run, and how it is shown (issue 39: a manifest beside
 * committed traces is data, not instructions). `braid confirm` and `braid analyze --confirm` run a
 * manifest's command only in a folder inside the traces' workspace, and print it (and every other
 * field they take from the manifest) before the first run; the editor shows the same in its dialog.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * The workspace of a trace folder: the folder holding the nearest `.braid` folder above it (Braid
 * records into `<workspace>/.braid/traces/<recording>`), or else the folder holding the trace folder
 * (`braid record --out DIR` from the folder above DIR).
 */
export function tracesWorkspace(traceDir: string): string {
  const dir = path.resolve(traceDir);
  for (let d = dir; ; ) {
    if (path.basename(d) === '.braid') return path.dirname(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  return path.dirname(dir);
}

async function real(p: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/** True when `dir` is `root` or below it, after following symbolic links (a link out of the workspace is outside). */
export async function isInsideFolder(root: string, dir: string): Promise<boolean> {
  const rel = path.relative(await real(root), await real(dir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A command line as one line of text: words with white space, quotes or nothing in them are JSON-quoted. */
export function commandText(words: readonly string[]): string {
  return words.map((w) => (w === '' || /[\s"'\\]/.test(w) ? JSON.stringify(w) : w)).join(' ');
}
