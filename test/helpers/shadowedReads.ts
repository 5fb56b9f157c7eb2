/**
 * The Java agent's filter (agent option filter, docs/recorder.md "The filter"), applied to a whole
 * trace as a reference: a read is left out when its location's (var, obj, elem) last access in the
 * trace is the same thread's and that thread wrote the location since another thread last accessed
 * it. UNICORN's and FALCON's access windows ignore such a read (a read never replaces a write of the
 * thread of the latest slot), so the patterns of the trace must not change.
 */
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

export interface FilteredTrace {
  text: string;
  /** reads left out */
  dropped: number;
  /** R/W events kept */
  kept: number;
}

/** The R/W event of a trace line as [thread, kind, var, obj, elem], or undefined for any other line. */
export function accessOf(line: string): [number, 'R' | 'W', number, number, number] | undefined {
  if (!line.startsWith('[')) return undefined;
  const ev = JSON.parse(line) as unknown[];
  const kind = ev[2];
  if (kind !== 'R' && kind !== 'W') return undefined;
  const obj = typeof ev[6] === 'number' ? ev[6] : 0;
  const elem = typeof ev[7] === 'number' ? ev[7] : -1;
  return [ev[1] as number, kind, ev[3] as number, obj, elem];
}

/** The trace text without the reads the filter leaves out. */
export function withoutShadowedReads(text: string): FilteredTrace {
  const last = new Map<string, { thread: number; wrote: boolean }>();
  const out: string[] = [];
  let dropped = 0;
  let kept = 0;
  for (const line of text.split('\n')) {
    const a = accessOf(line);
    if (a === undefined) {
      out.push(line);
      continue;
    }
    const [t, kind, v, obj, elem] = a;
    const key = `${v},${obj},${elem}`;
    const s = last.get(key);
    if (kind === 'R' && s !== undefined && s.thread === t && s.wrote) {
      dropped++;
      continue;
    }
    if (s !== undefined && s.thread === t) s.wrote ||= kind === 'W';
    else last.set(key, { thread: t, wrote: kind === 'W' });
    kept++;
    out.push(line);
  }
  return { text: out.join('\n'), dropped, kept };
}

/** A trace file's text (gzip or plain). */
export function traceText(file: string): string {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
}
