/**
 * Hand-made coverage-matrix rows for GRIFFIN's tests: a pattern from its accesses, each with a call
 * stack written as "File.java:line:method" frames, bottom first (the last frame is the access).
 */
import type { MatrixPattern } from '../../server/src/engine/griffin/coverageMatrix';

export type Acc = [thread: 1 | 2, type: 'R' | 'W', variable: string, stack: string[]];

export function pat(row: number, id: string, category: MatrixPattern['category'], accesses: Acc[]): MatrixPattern {
  return {
    row,
    id,
    kind: accesses.map((a) => a[1]).join(''),
    category,
    key: `${id}#${row}`,
    accesses: accesses.map(([thread, type, variable, stack]) => {
      const frames = stack.map((f) => {
        const [file, l, method] = f.split(':');
        return { file, line: Number(l), method };
      });
      const top = frames[frames.length - 1];
      return { thread, type, variable, file: top.file, line: top.line, method: top.method, stack: frames, key: `${type}:${variable}@${top.file}:${top.line}` };
    }),
  };
}
