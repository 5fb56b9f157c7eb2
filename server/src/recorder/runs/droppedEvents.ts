/**
 * Counts the events the agent dropped in a trace (`{"dropped":N}` lines, docs/trace-format.md):
 * the agent drops events only after its bounded back-pressure wait, when the trace writer fell
 * behind. The runner uses it to tell "recorder blocked" from an ordinary timeout.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export async function countDroppedEvents(file: string): Promise<number> {
  let dropped = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (!line.startsWith('{"dropped":')) continue;
      const n = Number(line.slice('{"dropped":'.length, line.length - 1));
      if (Number.isSafeInteger(n) && n > 0) dropped += n;
    }
  } catch {
    return dropped; // an unreadable trace is reported by the finalizer and the reader
  } finally {
    lines.close();
  }
  return dropped;
}
