/**
 * The folders `braid mcp` may work in: those given with `--root` on its command line, and nothing
 * else (issue 44, Safety). A tool that runs a program (find_root_cause, confirm, reproduce,
 * check_fix) runs it only in a root, and reads recordings only below one; a path given by the
 * agent is resolved against a root and refused, naming the argument, when it leads out of every
 * root — links followed (workspace/insideFolder.ts), so a link inside a root pointing out of it is
 * outside.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { isInsideFolder } from '../workspace/insideFolder';

/** A tool input the server refuses: the message names the argument and says what to give instead. */
export class ToolInputError extends Error {}

export const NO_ROOT_MESSAGE =
  'braid mcp was started without --root, so it runs no program and reads no recording: Braid runs programs only in workspace folders given on its command line. Restart it as `braid mcp --root <workspace folder>` (the editor\'s .vscode/mcp.json passes ${workspaceFolder}).';

export class McpRoots {
  readonly folders: readonly string[];

  constructor(folders: readonly string[]) {
    this.folders = folders.map((f) => path.resolve(f));
  }

  /** The root a tool works in: `given` (a root or a folder inside one), or the only root. */
  async folder(given: string | undefined, argument = 'root'): Promise<{ root: string; folder: string }> {
    if (!this.folders.length) throw new ToolInputError(NO_ROOT_MESSAGE);
    if (given === undefined || given === '') {
      if (this.folders.length === 1) return { root: this.folders[0], folder: this.folders[0] };
      throw new ToolInputError(`"${argument}" is needed: this server has ${this.folders.length} roots (${this.folders.join(', ')}); give one of them`);
    }
    // a relative path: against each root, the first where it exists
    const all = path.isAbsolute(given) ? [path.resolve(given)] : this.folders.map((r) => path.resolve(r, given));
    const existing = all.filter((abs) => statSync(abs, { throwIfNoEntry: false }));
    const candidates = existing.length ? existing : all;
    for (const abs of candidates) {
      for (const root of this.folders) {
        if (!isBelow(root, abs)) continue;
        const st = statSync(abs, { throwIfNoEntry: false });
        if (!st) throw new ToolInputError(`"${argument}": ${abs} does not exist`);
        if (!st.isDirectory()) throw new ToolInputError(`"${argument}": ${abs} is not a folder`);
        // links followed: a folder of the root that links out of it is outside
        if (!(await isInsideFolder(root, abs))) throw new ToolInputError(`"${argument}": ${abs} leads out of the root ${root} (a symbolic link); Braid works only inside the folders given with --root`);
        return { root, folder: abs };
      }
    }
    throw new ToolInputError(`"${argument}": ${given} is outside the folders this server may use (${this.folders.join(', ')}); Braid runs programs and reads recordings only inside the folders given with --root`);
  }

  /**
   * A recording folder: a recording's name (a folder of `<root>/.braid/traces`), or a folder path
   * relative to a root (or absolute) inside one.
   */
  async recording(handle: string, argument = 'recording'): Promise<{ root: string; folder: string }> {
    if (typeof handle !== 'string' || !handle.trim()) throw new ToolInputError(`"${argument}" must be a recording: its name from list_recordings, or a folder of traces inside a root`);
    if (!this.folders.length) throw new ToolInputError(NO_ROOT_MESSAGE);
    if (!/[\\/]/.test(handle) && handle !== '.' && handle !== '..') {
      for (const root of this.folders) {
        const dir = path.join(root, '.braid', 'traces', handle);
        if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return this.folder(dir, argument);
      }
    }
    return this.folder(handle, argument);
  }

  /** A short handle for a recording folder: its name when it is in `<root>/.braid/traces`, else its path relative to its root. */
  static handleOf(root: string, folder: string): string {
    const rel = path.relative(root, folder);
    const parts = rel.split(path.sep);
    return parts.length === 3 && parts[0] === '.braid' && parts[1] === 'traces' ? parts[2] : rel.split(path.sep).join('/') || '.';
  }
}

function isBelow(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
