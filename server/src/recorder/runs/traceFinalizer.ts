/**
 * Completes a trace after its process ended (docs/trace-format.md, "Writing rules"): truncates a
 * partial last line left by a killed process, writes a header-only trace when the agent wrote none,
 * reads the agent's `uncaught` lines, and appends the outcome line.
 */
import { createReadStream, promises as fs } from 'node:fs';
import { ForcingReport, mergeForcingReports, parseForcingReport } from '../../engine/trace/traceFormat';
import { mergePctReports, parsePctReport, PctReport } from './pctNoise';

export type OutcomeReason = 'exit-code' | 'timeout' | 'recorder-blocked' | 'output-match' | 'exception' | 'killed' | 'ok';

export interface TraceOutcome {
  outcome: 'pass' | 'fail';
  reason: OutcomeReason;
  detail?: string;
  /** index of the OUT event whose line matched --fail-on-output (docs/trace-format.md, outcome `failAt`) */
  failAt?: number;
  /** the failure as the program's output reports it (engine/runFailure.ts parseFailureOutput): outcome `message`, `location` */
  message?: string;
  location?: { file: string; line: number; method?: string };
}

export interface UncaughtLine {
  thread?: number;
  /** the thread's name (the Java agent since session 16) */
  name?: string;
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
 * undefined. Read as a stream (a trace may be larger than any buffer); lines that do not parse (a
 * killed process's partial line) and lines over 1 MiB are skipped.
 */
export async function findOutputMatch(file: string, re: RegExp): Promise<number | undefined> {
  const key = Buffer.from(',"OUT",');
  // no lastIndex state; a pattern of outputPattern.ts is kept as it is (it matches in linear time)
  const plain = re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re;
  let found: number | undefined;
  const check = (line: Buffer) => {
    if (found !== undefined || line[0] !== 0x5b /* [ */ || line.indexOf(key) < 0) return;
    try {
      const ev = JSON.parse(line.toString('utf8')) as unknown[];
      if (ev[2] === 'OUT' && typeof ev[0] === 'number' && typeof ev[4] === 'string' && plain.test(ev[4])) found = ev[0];
    } catch {
      // partial line
    }
  };
  try {
    await forEachLine(file, check);
  } catch {
    return undefined;
  }
  return found;
}

/** Calls `onLine` with each line (without its newline) of a file, streamed; lines over 1 MiB are skipped. */
async function forEachLine(file: string, onLine: (line: Buffer) => void): Promise<void> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, start)) !== -1) {
      if (pendingBytes || tooLong) {
        if (!tooLong && pendingBytes + nl - start <= MAX_UNCAUGHT_LINE) onLine(Buffer.concat([...pending, chunk.subarray(start, nl)]));
        pending = [];
        pendingBytes = 0;
        tooLong = false;
      } else onLine(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length && !tooLong) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_UNCAUGHT_LINE) {
        tooLong = true;
        pending = [];
      } else pending.push(Buffer.from(chunk.subarray(start)));
    }
  }
  if (pendingBytes && !tooLong) onLine(Buffer.concat(pending));
}

/** Longest `uncaught` or `forcing` line read (longer ones are skipped). */
const MAX_UNCAUGHT_LINE = 1 << 20;

/**
 * The agent's `{"uncaught":...}` lines of a trace, read as a stream in
 * chunks (a trace may be larger than any buffer: 2 GiB and more).
 */
export async function readUncaught(file: string): Promise<UncaughtLine[]> {
  return (await readAgentLines(file)).uncaught;
}

/** The agent's own report lines of a trace: `uncaught` lines and `forcing` reports (docs/trace-format.md). */
export interface AgentLines {
  uncaught: UncaughtLine[];
  /** the well-formed `forcing` reports, in file order (one per JVM) */
  forcing: ForcingReport[];
  /** the well-formed `pct` reports (--noise-mode pct), in file order (one per JVM) */
  pct: PctReport[];
}

/**
 * The agent's report lines of one run's trace files (the main trace and its threads' parts): every
 * uncaught line, and the forcing and pct reports each merged into one (a JVM run writes one of each;
 * a repetition, its segment's). An unreadable file adds nothing.
 */
export async function readRunReports(traces: readonly string[]): Promise<{ uncaught: UncaughtLine[]; forcing?: ForcingReport; pct?: PctReport }> {
  const uncaught: UncaughtLine[] = [];
  const forcings: ForcingReport[] = [];
  const pcts: PctReport[] = [];
  for (const t of traces) {
    const lines = await readAgentLines(t).catch((): AgentLines => ({ uncaught: [], forcing: [], pct: [] }));
    uncaught.push(...lines.uncaught);
    forcings.push(...lines.forcing);
    pcts.push(...lines.pct);
  }
  const forcing = mergeForcingReports(forcings);
  const pct = mergePctReports(pcts);
  return { uncaught, ...(forcing ? { forcing } : {}), ...(pct ? { pct } : {}) };
}

/**
 * The agent's `{"uncaught":...}` and `{"forcing":...}` lines of a trace, in one pass, read as a
 * stream in chunks (a trace may be larger than any buffer: 2 GiB and more); other lines are skipped
 * after their first bytes.
 */
export async function readAgentLines(file: string): Promise<AgentLines> {
  const out: AgentLines = { uncaught: [], forcing: [], pct: [] };
  const keys = [Buffer.from('{"uncaught":'), Buffer.from('{"forcing":'), Buffer.from('{"pct":')];
  const shortest = Math.min(...keys.map((k) => k.length));
  // the bytes of the current line kept so far: only a prefix, unless it may be an agent line
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let keep = true; // the current line may still be an agent line
  const endLine = () => {
    if (keep && pendingBytes >= shortest) {
      const line = Buffer.concat(pending, pendingBytes);
      const key = keys.find((k) => line.subarray(0, k.length).equals(k));
      if (key) {
        try {
          const v = JSON.parse(line.toString('utf8')) as { uncaught?: UncaughtLine; forcing?: unknown; pct?: unknown };
          if (key === keys[0]) out.uncaught.push(v.uncaught as UncaughtLine);
          else if (key === keys[2]) {
            const report = parsePctReport(v.pct);
            if (report) out.pct.push(report);
          } else {
            const report = parseForcingReport(v.forcing);
            if (report) out.forcing.push(report);
          }
        } catch {
          // a partial line of a killed process: ignored
        }
      }
    }
    pending = [];
    pendingBytes = 0;
    keep = true;
  };
  const take = (part: Buffer) => {
    if (!keep) return;
    const longest = Math.max(...keys.map((k) => k.length));
    if (pendingBytes < longest) {
      const head = Buffer.concat([...pending, part.subarray(0, longest)]);
      if (!keys.some((k) => head.subarray(0, Math.min(head.length, k.length)).equals(k.subarray(0, Math.min(head.length, k.length))))) {
        keep = false;
        return;
      }
    }
    if (pendingBytes + part.length > MAX_UNCAUGHT_LINE) {
      keep = false;
      return;
    }
    pending.push(Buffer.from(part));
    pendingBytes += part.length;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, start)) !== -1) {
      take(chunk.subarray(start, nl));
      endLine();
      start = nl + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start));
  }
  endLine();
  return out;
}

export interface HeaderInfo {
  execution: string;
  program?: string;
  noise: number;
  /** where the uniform noise went, when not at accesses (as the agent writes it) */
  noiseAt?: 'sync' | 'all';
  /** the run was scheduled by the agent's PCT scheduler (`--noise-mode pct` or adaptive exposure's last level; noise 0) */
  noiseMode?: 'pct';
  seed: string;
  include: string[];
  exclude: string[];
  startedAt: string;
  /** the noise plan of the run (`braid record --plan`), as the agent writes it in its header */
  plan?: { name: string; file: string };
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
      options: { noise: h.noise, ...(h.noiseAt ? { noiseAt: h.noiseAt } : {}), ...(h.noiseMode ? { noiseMode: h.noiseMode } : {}), seed: h.seed, include: h.include, exclude: h.exclude, ...(h.plan ? { plan: h.plan } : {}), note: 'no events recorded' },
    },
    startedAt: h.startedAt,
  });
}

/** An error completing a trace file, naming the file (e.g. a full disk). */
export class TraceWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    const code = (cause as NodeJS.ErrnoException)?.code;
    const why = code === 'ENOSPC' ? 'no space left on device' : code === 'EFBIG' ? 'file too large' : code === 'EDQUOT' ? 'disk quota exceeded' : ((cause as Error)?.message ?? String(cause));
    super(`cannot complete the trace ${file}: ${why}`, { cause });
  }
}

/**
 * Makes the trace complete: header (if the file is missing or empty) and the
 * outcome line. The outcome line is written whole or not at all: a failed
 * write (disk full) is cut back to the previous end and reported as a
 * TraceWriteError naming the file.
 */
export async function finalizeTrace(file: string, outcome: TraceOutcome, header: HeaderInfo): Promise<void> {
  let size = -1;
  try {
    size = await truncatePartialLine(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new TraceWriteError(file, e);
  }
  const line: Record<string, unknown> = { outcome: outcome.outcome, reason: outcome.reason };
  if (outcome.detail) line.detail = outcome.detail;
  if (outcome.failAt !== undefined) line.failAt = outcome.failAt;
  if (outcome.message) line.message = outcome.message;
  if (outcome.location) line.location = outcome.location;
  const text = (size <= 0 ? headerLine(header) + '\n' : '') + JSON.stringify(line) + '\n';
  const data = Buffer.from(text);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, size <= 0 ? 'w' : 'r+');
    const at = Math.max(0, size);
    let written = 0;
    try {
      while (written < data.length) written += (await handle.write(data, written, data.length - written, at + written)).bytesWritten;
    } catch (e) {
      await handle.truncate(at).catch(() => {});
      throw e;
    }
  } catch (e) {
    throw new TraceWriteError(file, e);
  } finally {
    await handle?.close().catch(() => {});
  }
}
