/** Finds trace files (*.trace.jsonl, *.trace.jsonl.gz) under files and folders. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Diagnostic } from './trace/traceFormat';

export const TRACE_FILE_PATTERN = /\.trace\.jsonl(\.gz)?$/;

export async function findTraceFiles(inputs: string[]): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  async function walk(dir: string): Promise<void> {
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
        if (e.name !== 'node_modules' && !e.name.startsWith('.git')) await walk(p);
      } else if (TRACE_FILE_PATTERN.test(e.name)) add(p);
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
    } catch {
      diagnostics.push({ severity: 'error', file: input, message: 'no such file or folder' });
      continue;
    }
    if (st.isDirectory()) await walk(input);
    else add(input);
  }
  return { files, diagnostics };
}
