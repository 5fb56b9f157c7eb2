/**
 * A pattern's occurrence in one run, as trace events (issue 16: the Tracer highlights the pattern's
 * actual accesses in the run, not every event on the same source lines). An occurrence is one event
 * per access of the pattern, in the pattern's order, where accesses of the same thread role are by one
 * thread and accesses of different roles by different threads. Among the candidates the one that
 * completes first is taken, and of those the one that starts last (the tightest interleaving).
 * Pure, no DOM.
 */

export interface OccurrenceEvent {
  i: number;
  thread: number;
  kind: string;
  variable?: string;
  file?: string;
  line?: number;
}

export interface OccurrenceAccess {
  thread: number;
  type: string;
  variable: string;
  file: string;
  line: number;
}

function sameFile(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  if (a === b) return true;
  const na = a.replace(/\\/g, '/');
  const nb = b.replace(/\\/g, '/');
  const base = (s: string) => s.slice(s.lastIndexOf('/') + 1);
  return na.endsWith('/' + nb) || nb.endsWith('/' + na) || base(na) === base(nb);
}

export function matchesAccess(e: OccurrenceEvent, a: OccurrenceAccess): boolean {
  return e.kind === a.type && e.variable === a.variable && e.line === a.line && sameFile(e.file, a.file);
}

/**
 * `events` in index order (only the pattern's variables are needed). Returns the event index of each
 * access of the first occurrence starting after event `afterI`, or undefined when there is none.
 */
export function findOccurrence(events: readonly OccurrenceEvent[], accesses: readonly OccurrenceAccess[], afterI = -1, maxStarts = 5000): number[] | undefined {
  if (!accesses.length) return undefined;
  let best: number[] | undefined;
  let starts = 0;
  for (let s = 0; s < events.length && starts < maxStarts; s++) {
    const e0 = events[s];
    if (e0.i <= afterI || !matchesAccess(e0, accesses[0])) continue;
    // a later start cannot complete before the best one found
    if (best && e0.i > best[best.length - 1]) break;
    starts++;
    const threadOf = new Map<number, number>([[accesses[0].thread, e0.thread]]);
    const picked = [e0.i];
    let pos = s;
    for (let k = 1; k < accesses.length; k++) {
      const a = accesses[k];
      const bound = threadOf.get(a.thread);
      let found = -1;
      for (let j = pos + 1; j < events.length; j++) {
        const e = events[j];
        if (!matchesAccess(e, a)) continue;
        if (bound !== undefined ? e.thread !== bound : [...threadOf.values()].includes(e.thread)) continue;
        found = j;
        break;
      }
      if (found < 0) {
        picked.length = 0;
        break;
      }
      if (bound === undefined) threadOf.set(a.thread, events[found].thread);
      picked.push(events[found].i);
      pos = found;
    }
    if (picked.length !== accesses.length) continue;
    const end = picked[picked.length - 1];
    if (!best || end < best[best.length - 1] || (end === best[best.length - 1] && picked[0] > best[0])) best = picked.slice();
  }
  return best;
}
