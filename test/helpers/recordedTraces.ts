/** The committed recordings of a subject (test/fixtures/recorded/<subject>/*.trace.jsonl.gz), in name order. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const recordedDir = path.resolve(__dirname, '../fixtures/recorded');

export function recordedTraces(subject: string): string[] {
  return readdirSync(path.join(recordedDir, subject))
    .filter((f) => f.endsWith('.trace.jsonl.gz'))
    .sort()
    .map((f) => path.join(recordedDir, subject, f));
}
