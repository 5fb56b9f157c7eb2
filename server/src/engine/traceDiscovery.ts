/**
 * Finds trace files (*.trace.jsonl, *.trace.jsonl.gz) under files and folders.
 * Inside a folder, a symbolic link is followed only when it leads to a file
 * inside that folder (a link to a secrets file is skipped with a warning); a
 * link loop is a plain error. Files named on the command line are read as given.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Diagnostic } from './trace/traceFormat';

export const TRACE_FILE_PATTERN = /\.trace\.jsonl(\.gz)?$/;

/**
 * `alsoAccepts`: other files the caller reads from the same folders (e.g. summaries): a folder
 * holding only those is not "a folder without traces". A folder given next to inputs that do hold
 * traces but holding none itself gets a warning (given alone, the caller's "no trace files found"
 * error says it).
 */
export async function findTraceFiles(inputs: string[], alsoAccepts?: RegExp): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  let others = 0;
  const emptyFolders: string[] = [];
  async function walk(dir: string, root: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      diagnostics.push({ severity: 'error', file: dir, message: `cannot read the folder: ${(err as Error).message}` });
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.git')) await walk(p, root);
      } else if (e.isSymbolicLink() && TRACE_FILE_PATTERN.test(e.name)) {
        let real: string;
        try {
          real = await fs.realpath(p);
        } catch (err) {
          const code = (err as { code?: string }).code;
          diagnostics.push({ severity: 'error', file: p, message: code === 'ELOOP' ? 'symbolic link loop (too many levels of symbolic links); the file is skipped' : 'broken symbolic link; the file is skipped' });
          continue;
        }
        const rel = path.relative(root, real);
        if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
          diagnostics.push({ severity: 'warning', file: p, message: `skipped: a symbolic link to a file outside ${dir === root ? 'this folder' : root}` });
          continue;
        }
        add(p);
      } else if (TRACE_FILE_PATTERN.test(e.name)) add(p);
      else if (alsoAccepts?.test(e.name)) others++;
    }
  }
  function add(p: string): void {
    const abs = path.resolve(p);
    if (!seen.has(abs)) {
      seen.add(abs);
      files.push(p);
    }
  }
  for (const input of inputs) {
    let st;
    try {
      st = await fs.stat(input);
    } catch (err) {
      const code = (err as { code?: string }).code;
      diagnostics.push({ severity: 'error', file: input, message: code === 'ELOOP' ? 'symbolic link loop (too many levels of symbolic links)' : code === 'EACCES' ? 'permission denied' : 'no such file or folder' });
      continue;
    }
    if (st.isDirectory()) {
      const before = files.length;
      const othersBefore = others;
      await walk(input, await fs.realpath(input));
      if (files.length === before && others === othersBefore) emptyFolders.push(input);
    } else add(input);
  }
  if (files.length > 0)
    for (const dir of emptyFolders) diagnostics.push({ severity: 'warning', file: dir, message: 'no trace files (*.trace.jsonl, *.trace.jsonl.gz) in this folder' });
  return { files, diagnostics };
}
