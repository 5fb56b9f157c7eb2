/**
 * The recording manifest: `<trace folder>/recording.json`, written when a recording starts. It says
 * how the runs of the folder were made — the command and its working directory, noise or plan,
 * seed, include/exclude — so that later steps can run the same program again without asking
 * (`braid confirm` defaults to it; the Runs view groups runs by recording). Environment variables
 * are never written (they may hold secrets). Readers treat every field as untrusted text.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MAX_TIMEOUT_SECONDS, RecordOptions, sanitizeName } from './recordOptions';
import { includePatternProblem } from './includePattern';
import { outputPattern } from './outputPattern';
import { MAX_PCT_DEPTH } from './pctNoise';
import { FileReadError, readRegularTextFile } from '../../workspace/regularFile';
import { jsonErrorPlace } from '../../engine/noise/noisePlanFile';

export const RECORDING_MANIFEST = 'recording.json';

export interface RecordingManifest {
  format: 'braid-recording';
  version: 1;
  /** program and arguments */
  command: string[];
  /** absolute working directory of the command */
  cwd: string;
  name: string;
  runs: number;
  noise: number;
  /** where the uniform noise went (`--noise-at`), when not the default `accesses` */
  noiseAt?: 'sync' | 'all';
  seed: number;
  include: string[];
  exclude: string[];
  timeoutSeconds: number;
  /**
   * adaptive exposure (adaptiveExposure.ts): the noise of the runs from `fromRun` on, one entry per
   * level used, the first from run 0; `noise` and `noiseAt` above are then the last level's (and
   * `pct` below when the last level is PCT scheduling)
   */
  exposure?: ExposureLevel[];
  /** `--noise-mode pct` (docs/noise.md "PCT"): the runs were scheduled by the agent's PCT scheduler with this depth (`noise` is 0) */
  pct?: { depth: number };
  /** the noise (or forcing) plan of the runs */
  plan?: { name: string; file: string };
  failOnOutput?: string;
  /** steps run before the recording (the editor's compile step), rerun by a fix check */
  prepare?: { command: string[]; cwd: string }[];
  /** `--fresh-jvm`: one JVM (or Node.js process) per run; a confirmation of the recording runs the same way */
  freshJvm?: true;
  /** `--shared-libraries`: in-JVM repetitions kept the library jars shared; a confirmation of the recording does too */
  sharedLibraries?: true;
  startedAt: string;
}

/** How a recording's runs were launched, as its confirmations and fix checks run them again (RecordOptions / ConfirmOptions fields). */
export function launchOf(m: Pick<RecordingManifest, 'freshJvm' | 'sharedLibraries'> | undefined): { freshJvm?: true; sharedLibraries?: true } {
  return { ...(m?.freshJvm ? { freshJvm: true } : {}), ...(m?.sharedLibraries ? { sharedLibraries: true } : {}) };
}

/**
 * One level of adaptive exposure in the manifest: uniform noise `{fromRun, noise, noiseAt}`, or PCT
 * scheduling `{fromRun, noise: 0, pct: {depth}}` (the ladder's last level for the Java agent).
 */
export type ExposureLevel = { fromRun: number; noise: number; noiseAt: 'accesses' | 'sync' | 'all'; pct?: undefined } | { fromRun: number; noise: 0; noiseAt?: undefined; pct: { depth: number } };

export function manifestOf(o: RecordOptions, startedAt = new Date()): RecordingManifest {
  return {
    format: 'braid-recording',
    version: 1,
    command: [...o.command],
    cwd: path.resolve(o.cwd),
    name: o.name,
    runs: o.runs,
    noise: o.noise,
    ...(o.noiseAt && o.noiseAt !== 'accesses' ? { noiseAt: o.noiseAt } : {}),
    seed: o.seed,
    include: [...o.include],
    exclude: [...o.exclude],
    timeoutSeconds: o.timeoutSeconds,
    ...(o.pct ? { pct: { depth: o.pct.depth } } : {}),
    ...(o.plan ? { plan: { name: o.plan.plan.name, file: path.resolve(o.cwd, o.plan.file) } } : {}),
    ...(o.failOnOutput ? { failOnOutput: o.failOnOutput.source } : {}),
    ...(o.prepare?.length ? { prepare: o.prepare.map((s) => ({ command: [...s.command], cwd: path.resolve(s.cwd) })) } : {}),
    ...launchOf(o.freshJvm || o.sharedLibraries ? { freshJvm: o.freshJvm ? true : undefined, sharedLibraries: o.sharedLibraries ? true : undefined } : undefined),
    startedAt: startedAt.toISOString(),
  };
}

/**
 * Writes the manifest into the trace folder unless one is there (the shards of one recording share
 * the folder; the first one writes it). A failure to write it does not stop the recording.
 */
export async function writeRecordingManifest(o: RecordOptions): Promise<void> {
  try {
    await fs.writeFile(path.join(o.outDir, RECORDING_MANIFEST), JSON.stringify(manifestOf(o), null, 2) + '\n', { flag: 'wx' });
  } catch {
    // EEXIST (another shard wrote it) or an unwritable folder: the runs do not depend on it
  }
}

/**
 * Adaptive exposure widened the noise: the manifest's `noise` and `noiseAt` become the last level's
 * (a fix check records with them; `pct` when the last level is PCT scheduling, `noise` then 0; the
 * first level's, `keep`, when it stepped down because every run failed) and
 * `exposure` lists every level with the run it started from. Written to a temporary file and
 * renamed; a manifest that cannot be read or written is left alone.
 */
export async function recordExposureSteps(
  outDir: string,
  levels: readonly { fromRun: number; noise: number; noiseAt: 'accesses' | 'sync' | 'all'; pct?: { depth: number } }[],
  keep?: { noise: number; noiseAt: 'accesses' | 'sync' | 'all'; pct?: { depth: number } },
): Promise<void> {
  const file = path.join(outDir, RECORDING_MANIFEST);
  const m = parseRecordingManifest(JSON.parse(await fs.readFile(file, 'utf8')));
  if (typeof m === 'string' || levels.length === 0) return;
  // `keep`: the noise stepped down because every run failed; a fix check records with the level that made them fail
  const last = keep ?? levels[levels.length - 1];
  const { noiseAt: _old, pct: _pct, ...rest } = m;
  const next: RecordingManifest = {
    ...rest,
    noise: last.pct ? 0 : last.noise,
    ...(!last.pct && last.noiseAt !== 'accesses' ? { noiseAt: last.noiseAt } : {}),
    ...(last.pct ? { pct: { depth: last.pct.depth } } : {}),
    exposure: levels.map((l): ExposureLevel => (l.pct ? { fromRun: l.fromRun, noise: 0, pct: { depth: l.pct.depth } } : { fromRun: l.fromRun, noise: l.noise, noiseAt: l.noiseAt })),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(next, null, 2) + '\n');
  await fs.rename(tmp, file);
}

const UNSAFE_TEXT = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const MAX_WORDS = 1000;
const MAX_WORD = 10_000;

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Why a command (program and arguments) is not accepted, or undefined. */
function commandProblem(v: unknown): string | undefined {
  if (!strings(v) || v.length === 0) return 'must be a non-empty array of strings';
  if (v.length > MAX_WORDS) return `${v.length} words, more than ${MAX_WORDS}`;
  if (v[0] === '') return 'the program is empty';
  const k = v.findIndex((w) => w.length > MAX_WORD || w.includes('\0'));
  return k >= 0 ? `word ${k + 1} is longer than ${MAX_WORD} characters or holds a NUL` : undefined;
}

/** Why a folder is not accepted: it must be an absolute path without control characters. */
function folderProblem(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v) return 'must be a path';
  if (!path.isAbsolute(v)) return `must be an absolute path, got ${JSON.stringify(v)}`;
  if (UNSAFE_TEXT.test(v) || v.length > 4096) return 'holds control characters or is too long';
  return undefined;
}

/**
 * A manifest's JSON checked field by field (issue 39: a manifest in a cloned repository is data, not
 * instructions): the manifest, or a sentence naming the first bad field. The name is sanitised
 * (sanitizeName) as when recording; the fail-on-output pattern must compile for the linear-time
 * engine (outputPattern.ts); timeouts are within 0..MAX_TIMEOUT_SECONDS.
 */
export function parseRecordingManifest(v: unknown): RecordingManifest | string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a Braid recording manifest (format "braid-recording", version 1)';
  const m = v as Record<string, unknown>;
  if (m.format !== 'braid-recording' || m.version !== 1) return 'not a Braid recording manifest (format "braid-recording", version 1)';
  const cmd = commandProblem(m.command);
  if (cmd) return `command: ${cmd}`;
  const cwd = folderProblem(m.cwd);
  if (cwd) return `cwd: ${cwd}`;
  if (m.name !== undefined && typeof m.name !== 'string') return 'name: must be a string';
  const count = (k: string, ok: (n: number) => boolean, what: string, d: number): number | string => {
    const x = m[k];
    if (x === undefined) return d;
    return typeof x === 'number' && Number.isFinite(x) && ok(x) ? x : `${k}: must be ${what}, got ${JSON.stringify(x)}`;
  };
  const runs = count('runs', (n) => Number.isInteger(n) && n >= 0 && n <= 1_000_000, 'a whole number from 0 to 1000000', 0);
  if (typeof runs === 'string') return runs;
  const noise = count('noise', (n) => n >= 0 && n <= 1, 'a probability from 0 to 1', 0);
  if (typeof noise === 'string') return noise;
  const seed = count('seed', (n) => Number.isSafeInteger(n), 'a whole number', 0);
  if (typeof seed === 'string') return seed;
  const timeoutSeconds = count('timeoutSeconds', (n) => n > 0 && n <= MAX_TIMEOUT_SECONDS, `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`, 60);
  if (typeof timeoutSeconds === 'string') return timeoutSeconds;
  if (m.noiseAt !== undefined && m.noiseAt !== 'accesses' && m.noiseAt !== 'sync' && m.noiseAt !== 'all') return `noiseAt: must be "accesses", "sync" or "all", got ${JSON.stringify(m.noiseAt)}`;
  for (const k of ['include', 'exclude'] as const) {
    const list = m[k];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `${k}: must be an array of packages, classes or file globs`;
    if (list.length > MAX_WORDS) return `${k}: ${list.length} entries, more than ${MAX_WORDS}`;
    for (let j = 0; j < list.length; j++) {
      const why = includePatternProblem(list[j]);
      if (why) return `${k}[${j}]: ${why}`;
    }
  }
  let exposure: RecordingManifest['exposure'];
  if (m.exposure !== undefined) {
    if (!Array.isArray(m.exposure) || m.exposure.length === 0 || m.exposure.length > 100) return 'exposure: must be an array of 1 to 100 levels {"fromRun": N, "noise": P, "noiseAt": "accesses"|"sync"|"all"} or {"fromRun": N, "noise": 0, "pct": {"depth": D}}';
    exposure = [];
    for (let j = 0; j < m.exposure.length; j++) {
      const l = m.exposure[j] as { fromRun?: unknown; noise?: unknown; noiseAt?: unknown; pct?: unknown } | null;
      if (!l || typeof l !== 'object') return `exposure[${j}]: must be {"fromRun": N, "noise": P, "noiseAt": "accesses"|"sync"|"all"} or {"fromRun": N, "noise": 0, "pct": {"depth": D}}`;
      if (typeof l.fromRun !== 'number' || !Number.isInteger(l.fromRun) || l.fromRun < 0 || l.fromRun > 1_000_000) return `exposure[${j}].fromRun: must be a whole number from 0 to 1000000, got ${JSON.stringify(l.fromRun)}`;
      if (j > 0 && l.fromRun < exposure[j - 1].fromRun) return `exposure[${j}].fromRun: must not be before exposure[${j - 1}].fromRun`;
      if (l.pct !== undefined) {
        // adaptive exposure's PCT level: no noise, the scheduler's depth
        const d = (l.pct as { depth?: unknown } | null)?.depth;
        if (!l.pct || typeof l.pct !== 'object' || typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_PCT_DEPTH) return `exposure[${j}].pct: must be {"depth": D} with D a whole number from 1 to ${MAX_PCT_DEPTH}`;
        if (l.noise !== 0) return `exposure[${j}].noise: must be 0 at a pct level, got ${JSON.stringify(l.noise)}`;
        if (l.noiseAt !== undefined) return `exposure[${j}].noiseAt: a pct level has no noiseAt, got ${JSON.stringify(l.noiseAt)}`;
        exposure.push({ fromRun: l.fromRun, noise: 0, pct: { depth: d } });
        continue;
      }
      if (typeof l.noise !== 'number' || !(l.noise >= 0 && l.noise <= 1)) return `exposure[${j}].noise: must be a probability from 0 to 1, got ${JSON.stringify(l.noise)}`;
      if (l.noiseAt !== 'accesses' && l.noiseAt !== 'sync' && l.noiseAt !== 'all') return `exposure[${j}].noiseAt: must be "accesses", "sync" or "all", got ${JSON.stringify(l.noiseAt)}`;
      exposure.push({ fromRun: l.fromRun, noise: l.noise, noiseAt: l.noiseAt });
    }
  }
  let pct: RecordingManifest['pct'];
  if (m.pct !== undefined) {
    const d = (m.pct as { depth?: unknown } | null)?.depth;
    if (!m.pct || typeof m.pct !== 'object' || typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_PCT_DEPTH) return `pct: must be {"depth": D} with D a whole number from 1 to ${MAX_PCT_DEPTH}`;
    pct = { depth: d };
  }
  let plan: RecordingManifest['plan'];
  if (m.plan !== undefined) {
    const p = m.plan as { name?: unknown; file?: unknown } | null;
    if (!p || typeof p !== 'object' || typeof p.name !== 'string' || p.name.length > 200) return 'plan: must be {"name": "…", "file": "/absolute/path"}';
    const f = folderProblem(p.file);
    if (f) return `plan.file: ${f}`;
    plan = { name: p.name, file: p.file as string };
  }
  if (m.failOnOutput !== undefined) {
    if (typeof m.failOnOutput !== 'string') return 'failOnOutput: must be a regular expression (a string)';
    const re = outputPattern(m.failOnOutput);
    if (re instanceof Error) return `failOnOutput: ${re.message}`;
  }
  let prepare: RecordingManifest['prepare'];
  if (m.prepare !== undefined) {
    if (!Array.isArray(m.prepare) || m.prepare.length > 20) return 'prepare: must be an array of at most 20 steps {"command": [...], "cwd": "/absolute/path"}';
    prepare = [];
    for (let j = 0; j < m.prepare.length; j++) {
      const s = m.prepare[j] as { command?: unknown; cwd?: unknown } | null;
      const why = !s || typeof s !== 'object' ? 'must be {"command": [...], "cwd": "/absolute/path"}' : commandProblem(s.command) ? `command: ${commandProblem(s.command)}` : folderProblem(s.cwd) ? `cwd: ${folderProblem(s.cwd)}` : undefined;
      if (why) return `prepare[${j}]: ${why}`;
      prepare.push({ command: s!.command as string[], cwd: s!.cwd as string });
    }
  }
  for (const k of ['freshJvm', 'sharedLibraries'] as const) if (m[k] !== undefined && typeof m[k] !== 'boolean') return `${k}: must be true or false, got ${JSON.stringify(m[k])}`;
  if (m.startedAt !== undefined && (typeof m.startedAt !== 'string' || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(m.startedAt))) return `startedAt: must be a time like "2026-11-27T10:15:00.000Z"`;
  return {
    format: 'braid-recording',
    version: 1,
    command: m.command as string[],
    cwd: m.cwd as string,
    name: typeof m.name === 'string' && m.name ? sanitizeName(m.name) : '',
    runs,
    noise,
    ...(m.noiseAt === 'sync' || m.noiseAt === 'all' ? { noiseAt: m.noiseAt } : {}),
    seed,
    include: (m.include as string[] | undefined) ?? [],
    exclude: (m.exclude as string[] | undefined) ?? [],
    timeoutSeconds,
    ...(exposure ? { exposure } : {}),
    ...(pct ? { pct } : {}),
    ...(plan ? { plan } : {}),
    ...(typeof m.failOnOutput === 'string' ? { failOnOutput: m.failOnOutput } : {}),
    ...(prepare?.length ? { prepare } : {}),
    ...launchOf({ freshJvm: m.freshJvm === true ? true : undefined, sharedLibraries: m.sharedLibraries === true ? true : undefined }),
    startedAt: typeof m.startedAt === 'string' ? m.startedAt : '',
  };
}

/** The manifest's fail-on-output pattern, compiled for linear-time matching (validated by parseRecordingManifest). */
export function manifestFailOnOutput(m: RecordingManifest): RegExp | undefined {
  if (m.failOnOutput === undefined) return undefined;
  const re = outputPattern(m.failOnOutput);
  if (re instanceof Error) throw new Error(`failOnOutput: ${re.message}`);
  return re;
}

/** a larger recording.json is not read (a manifest is a few hundred bytes) */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * The manifest of a trace folder, or of the folder holding a trace file; undefined when there is
 * none or it is not a valid manifest (`problem` then says why, naming the file).
 */
export async function readRecordingManifest(fileOrDir: string): Promise<{ manifest?: RecordingManifest; file: string; problem?: string }> {
  let dir = fileOrDir;
  try {
    if (!(await fs.stat(fileOrDir)).isDirectory()) dir = path.dirname(fileOrDir);
  } catch {
    dir = path.dirname(fileOrDir);
  }
  const file = path.join(dir, RECORDING_MANIFEST);
  let text: string;
  try {
    // only a regular file, not through a link, at most MAX_MANIFEST_BYTES; a problem quotes nothing of it (issue 39)
    text = await readRegularTextFile(file, MAX_MANIFEST_BYTES);
  } catch (e) {
    return e instanceof FileReadError && e.code !== 'ENOENT' ? { file, problem: `${file}: ${e.message}` } : { file };
  }
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (e) {
    return { file, problem: `${file}: not JSON (${jsonErrorPlace(text, e as Error)})` };
  }
  const parsed = parseRecordingManifest(m);
  return typeof parsed === 'string' ? { file, problem: `${file}: ${parsed}` } : { file, manifest: parsed };
}
