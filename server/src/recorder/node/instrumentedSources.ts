/**
 * The instrumented source of a file kept across the repetitions of one process (issue 42 item 5;
 * docs/recorder-node.md "Repetitions in one process"). Each repetition is a worker thread with its own
 * module graph, so the test file and the code under test were parsed and instrumented again in every
 * repetition although their source had not changed. The driver's main thread (nodeRepeatDriver.ts)
 * keeps what its workers instrumented and hands it to the next worker; the hook's CommonJS compile
 * (hook.ts) looks a file up before instrumenting it. The key is the file's name in the trace, the
 * format Node gives and a SHA-256 of the source it is given (tsx's output for a TypeScript file), so a
 * file edited between two repetitions is a new key and is instrumented afresh — never a stale entry.
 * `instrument` is a function of exactly these (transform.ts keeps no state between files).
 */
import { createHash } from 'node:crypto';

/** The key of one instrumented source: the file as the trace names it, Node's format, the source's hash. */
export function instrumentedKey(file: string, format: unknown, source: string): string {
  return `${file}\0${typeof format === 'string' ? format : ''}\0${createHash('sha256').update(source).digest('base64')}`;
}

/** The cache a repetition's hook sees (globalThis.__braidInstrumented in a repetition's worker). */
export interface InstrumentedSources {
  get(key: string): string | undefined;
  /** keeps `code` for this repetition and the next ones of the process */
  set(key: string, code: string): void;
}

/** A message from a repetition's worker to the driver: one newly instrumented source. */
export interface InstrumentedMessage {
  braidInstrumented: [key: string, code: string];
}

export function isInstrumentedMessage(m: unknown): m is InstrumentedMessage {
  const v = (m as { braidInstrumented?: unknown } | null)?.braidInstrumented;
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';
}
