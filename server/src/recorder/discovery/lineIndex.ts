/**
 * Offsets of a text → 0-based (line, character): the line starts, searched by bisection. Shared by
 * the test discovery of Java and of JS/TS (code lens positions) and the Node.js transform (sites'
 * lines); it imports nothing, so the recorder's hook bundle can take it.
 */
export function lineIndex(text: string): (offset: number) => { line: number; character: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - starts[lo] };
  };
}
