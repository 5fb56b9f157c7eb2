/**
 * Common call stack (thesis §5.3.3): the common part of a group of call
 * stacks from the bottom of the stacks. Frames are the same when they are the
 * same method (file + method name); the line a frame was at differs between
 * accesses (Figure 9: Vector() at lines 150 and 151 is one common frame), so
 * a common frame keeps every line seen, lowest first.
 */
import type { Frame } from './coverageMatrix';

export interface CommonFrame {
  file: string;
  method: string;
  /** the lowest line of this frame among the stacks */
  line: number;
  /** every line of this frame among the stacks, ascending */
  lines: number[];
}

export function sameMethod(a: { file: string; method: string }, b: { file: string; method: string }): boolean {
  return a.method === b.method && a.file === b.file;
}

/** Longest common prefix (from the bottom) of the stacks, compared by method. */
export function commonCallStack(stacks: readonly (readonly Frame[])[]): CommonFrame[] {
  if (stacks.length === 0) return [];
  let n = Math.min(...stacks.map((s) => s.length));
  const first = stacks[0];
  for (const s of stacks) {
    let k = 0;
    while (k < n && sameMethod(s[k], first[k])) k++;
    n = k;
    if (n === 0) return [];
  }
  const out: CommonFrame[] = [];
  for (let k = 0; k < n; k++) {
    const lines = [...new Set(stacks.map((s) => s[k].line))].sort((a, b) => a - b);
    out.push({ file: first[k].file, method: first[k].method, line: lines[0], lines });
  }
  return out;
}

/** Same common call stack: same methods, bottom to top (lines are ignored). */
export function sameCallStack(a: readonly { file: string; method: string }[], b: readonly { file: string; method: string }[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (!sameMethod(a[k], b[k])) return false;
  return true;
}

/** "main > Vector.<init> > Vector.size" */
export function stackText(frames: readonly { method: string }[]): string {
  return frames.map((f) => f.method).join(' > ');
}
