/**
 * Writes a report object as `JSON.stringify(value, null, 2)` would, piece by
 * piece: each element of a top-level array is stringified on its own, so the
 * output is never one string (a report of many patterns with call stacks can
 * exceed the largest string V8 makes, and would double the peak memory).
 */
export function writeJsonPretty(value: Record<string, unknown>, write: (s: string) => void): void {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function');
  write('{');
  entries.forEach(([key, v], k) => {
    write(`${k ? ',' : ''}\n  ${JSON.stringify(key)}: `);
    if (Array.isArray(v) && v.length > 0) {
      write('[');
      v.forEach((el, j) => write(`${j ? ',' : ''}\n    ${(JSON.stringify(el, null, 2) ?? 'null').replace(/\n/g, '\n    ')}`));
      write('\n  ]');
    } else write((JSON.stringify(v, null, 2) ?? 'null').replace(/\n/g, '\n  '));
  });
  write(entries.length ? '\n}' : '}');
}
