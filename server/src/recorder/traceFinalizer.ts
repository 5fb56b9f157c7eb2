/**
 * Completes a trace after its process ended (docs/trace-format.md, "Writing rules"): truncates a
 * partial last line left by a killed process, writes a header-only trace when the agent wrote none,
 * reads the agent's `uncaught` lines, and appends the outcome line.
 */
import { promises as fs } from 'node:fs';

export type OutcomeReason = 'exit-code' | 'timeout' | 'recorder-blocked' | 'output-match' | 'exception' | 'killed' | 'ok';

export interface TraceOutcome {
  outcome: 'pass' | 'fail';
  reason: OutcomeReason;
  detail?: string;
  /** index of the OUT event whose line matched --fail-on-output (docs/trace-format.md, outcome `failAt`) */
  failAt?: number;
}

export interface UncaughtLine {
  thread?: number;
  exception?: string;
  message?: string;
  frames?: string[];
}

/** Truncates the file after its last '\n' when it does not end with one. Returns the new size. */
export async function truncatePartialLine(file: string): Promise<number> {
  const handle = await fs.open(file, 'r+');
  try {
    const { size } = await handle.stat();
    if (size === 0) return 0;
    const chunk = Buffer.alloc(Math.min(size, 1 << 16));
    let end = size;
    // Scan backwards for the last newline.
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = end - start;
      await handle.read(chunk, 0, n, start);
      if (end === size && chunk[n - 1] === 0x0a) return size;
      const k = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (k >= 0) {
        const newSize = start + k + 1;
        await handle.truncate(newSize);
        return newSize;
      }
      end = start;
    }
    await handle.truncate(0);
    return 0;
  } finally {
    await handle.close();
  }
}

/**
 * Index of the first OUT event of a trace (`[i,t,"OUT",stream,text]`) whose text matches `re`, or
 * undefined. Lines that do not parse (a killed process's partial line) are skipped.
 */
export async function findOutputMatch(file: string, re: RegExp): Promise<number | undefined> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch {
    return undefined;
  }
  const key = Buffer.from(',"OUT",');
  const plain = new RegExp(re.source, re.flags.replace(/[gy]/g, ''));
  let at = buf.indexOf(key);
  while (at >= 0) {
    const start = buf.lastIndexOf(0x0a, at) + 1;
    const end = buf.indexOf(0x0a, at);
    if (buf[start] === 0x5b /* [ */) {
      try {
        const ev = JSON.parse(buf.subarray(start, end < 0 ? buf.length : end).toString('utf8')) as unknown[];
        if (ev[2] === 'OUT' && typeof ev[0] === 'number' && typeof ev[4] === 'string' && plain.test(ev[4])) return ev[0];
      } catch {
        // partial line
      }
    }
    if (end < 0) break;
    at = buf.indexOf(key, end);
  }
  return undefined;
}

/** The agent's `{"uncaught":...}` lines of a trace. */
export async function readUncaught(file: string): Promise<UncaughtLine[]> {
  const buf = await fs.readFile(file);
  const out: UncaughtLine[] = [];
  const key = Buffer.from('{"uncaught":');
  let at = buf.indexOf(key);
  while (at >= 0) {
    if (at === 0 || buf[at - 1] === 0x0a) {
      const end = buf.indexOf(0x0a, at);
      const line = buf.subarray(at, end < 0 ? buf.length : end).toString('utf8');
      try {
        out.push((JSON.parse(line) as { uncaught: UncaughtLine }).uncaught);
      } catch {
        // a partial line of a killed process: ignored
      }
    }
    at = buf.indexOf(key, at + key.length);
  }
  return out;
}

export interface HeaderInfo {
  execution: string;
  program?: string;
  noise: number;
  seed: string;
  include: string[];
  exclude: string[];
  startedAt: string;
}

export function headerLine(h: HeaderInfo): string {
  return JSON.stringify({
    braid: 'trace',
    version: 1,
    execution: h.execution,
    ...(h.program ? { program: h.program } : {}),
    recorder: {
      name: 'braid-java-agent',
      version: '0.1.0',
      options: { noise: h.noise, seed: h.seed, include: h.include, exclude: h.exclude, note: 'no events recorded' },
    },
    startedAt: h.startedAt,
  });
}

/** Makes the trace complete: header (if the file is missing or empty) and the outcome line. */
export async function finalizeTrace(file: string, outcome: TraceOutcome, header: HeaderInfo): Promise<void> {
  let size = -1;
  try {
    size = await truncatePartialLine(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (size <= 0) await fs.writeFile(file, headerLine(header) + '\n');
  const line: Record<string, unknown> = { outcome: outcome.outcome, reason: outcome.reason };
  if (outcome.detail) line.detail = outcome.detail;
  if (outcome.failAt !== undefined) line.failAt = outcome.failAt;
  await fs.appendFile(file, JSON.stringify(line) + '\n');
}
