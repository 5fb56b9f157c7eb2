// Pure helpers of bench/real-tests-bench.mjs (no I/O): the JUnit console launcher's summary, the
// trace's event count over chunks, medians and the paired rounds' order and factors.

/** Median of the numbers that are not NaN (the lower middle for an even count); NaN when none. */
export function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

/**
 * The configurations' order in a round: round r starts at configuration r mod n, so that over
 * the rounds each one runs first, second, … equally often (no configuration always follows a
 * warm file cache or another's garbage).
 */
export function roundOrder(round: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => (round + k) % n);
}

/**
 * Median of the per-round ratios recorded/plain (paired: the two runs of a round share the
 * machine's load of that moment). Rounds where either figure is missing are left out.
 */
export function pairedFactor(plain: number[], recorded: number[]): number {
  if (plain.length !== recorded.length) throw new Error(`pairedFactor: ${plain.length} plain figures but ${recorded.length} recorded ones`);
  return median(plain.map((p, k) => (p > 0 ? recorded[k] / p : NaN)));
}

/**
 * The counts of the JUnit console launcher's summary (`--details=summary` or more):
 * `[  511 tests successful  ]`. Undefined when the output holds no summary (the launcher did
 * not finish: a crash, a JVM that did not start, a time-out).
 */
export interface LauncherSummary {
  found: number;
  successful: number;
  failed: number;
  aborted: number;
  skipped: number;
}

export function launcherSummary(output: string): LauncherSummary | undefined {
  const count = (what: string): number | undefined => {
    const m = new RegExp(String.raw`\[\s*(\d+) tests ${what}\s*\]`).exec(output);
    return m ? Number(m[1]) : undefined;
  };
  const found = count('found');
  const successful = count('successful');
  const failed = count('failed');
  if (found === undefined || successful === undefined || failed === undefined) return undefined;
  return { found, successful, failed, aborted: count('aborted') ?? 0, skipped: count('skipped') ?? 0 };
}

/**
 * Events in one chunk of a trace file: a trace's events are the lines that start with `[`
 * (header and definitions start with `{`). `prev` is the last byte of the previous chunk
 * (0x0a at the start of the file: the first line is the header, but a line start all the same).
 * Returns the count and this chunk's last byte, to pass on with the next chunk.
 */
export function countEventLines(chunk: Uint8Array, prev = 0x0a): { events: number; last: number } {
  let n = 0;
  let last = prev;
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i];
    if (b === 0x5b && last === 0x0a) n++;
    last = b;
  }
  return { events: n, last };
}

/** /usr/bin/time -f 'BRAIDCPU %U %S %M' on stderr: CPU ms (user + system) and peak RSS in KiB (the last such line). */
export function timeToolFigures(stderr: string): { cpuMs: number; rssKiB: number } {
  const all = [...stderr.matchAll(/BRAIDCPU ([\d.]+) ([\d.]+) (\d+)/g)];
  if (!all.length) return { cpuMs: NaN, rssKiB: NaN };
  const m = all[all.length - 1];
  return { cpuMs: (Number(m[1]) + Number(m[2])) * 1000, rssKiB: Number(m[3]) };
}
