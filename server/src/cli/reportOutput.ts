/**
 * Writing an analysis report (`braid analyze`, `braid test`): the text report with GRIFFIN's bugs
 * after it, and a sink to a file or stdout that waits for the stream to drain.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { AnalysisResult } from '../engine/analysis';
import { Bug, bugsTextReport } from '../engine/griffin/griffin';
import { ChunkSink, streamSink } from '../engine/report/jsonStream';
import { openOutputFile } from './outputPath';

/**
 * `--format json` without `--top`: the first 1,000 patterns (and those tied with the first, up to TIE_CAP
 * more) — a hostile trace of 6 MB made 93,000 patterns and a 4 GB report (issue 31, N6); `--top all`
 * lists every one. `totalPatterns` says how many there are.
 */
export const JSON_DEFAULT_TOP = 1000;

export function* withBugs(lines: Iterable<string>, bugs: Bug[], result: AnalysisResult): Generator<string> {
  yield* lines;
  yield '';
  yield bugsTextReport(bugs, result);
}

/** Runs `write` with a sink to FILE (or stdout), waiting for the stream to drain; closes the file. */
export async function writeReport(output: string | undefined, write: (sink: ChunkSink) => Promise<void>): Promise<void> {
  if (!output) {
    await write(streamSink(process.stdout));
    return;
  }
  const fd = openOutputFile('--output', output);
  const stream = createWriteStream('', { fd });
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  await Promise.race([write(streamSink(stream)), failed]);
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}
