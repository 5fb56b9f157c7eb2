/**
 * The recording manifest: `<trace folder>/recording.json`, written when a recording starts. It says
 * how the runs of the folder were made — the command and its working directory, noise or plan,
 * seed, include/exclude — so that later steps can run the same program again without asking
 * (`braid confirm` defaults to it; the Runs view groups runs by recording). Environment variables
 * are never written (they may hold secrets). Readers treat every field as untrusted text.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RecordOptions } from './recordOptions';

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
  /** the noise (or forcing) plan of the runs */
  plan?: { name: string; file: string };
  failOnOutput?: string;
  /** steps run before the recording (the editor's compile step), rerun by a fix check */
  prepare?: { command: string[]; cwd: string }[];
  startedAt: string;
}

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
    ...(o.plan ? { plan: { name: o.plan.plan.name, file: path.resolve(o.cwd, o.plan.file) } } : {}),
    ...(o.failOnOutput ? { failOnOutput: o.failOnOutput.source } : {}),
    ...(o.prepare?.length ? { prepare: o.prepare.map((s) => ({ command: [...s.command], cwd: path.resolve(s.cwd) })) } : {}),
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

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

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
    text = await fs.readFile(file, 'utf8');
  } catch {
    return { file };
  }
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text);
  } catch (e) {
    return { file, problem: `${file}: not JSON (${(e as Error).message})` };
  }
  if (!m || typeof m !== 'object' || m.format !== 'braid-recording' || m.version !== 1) return { file, problem: `${file}: not a Braid recording manifest (format "braid-recording", version 1)` };
  if (!strings(m.command) || m.command.length === 0) return { file, problem: `${file}: command: must be a non-empty array of strings` };
  if (typeof m.cwd !== 'string' || !m.cwd) return { file, problem: `${file}: cwd: must be a path` };
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  const plan = m.plan as { name?: unknown; file?: unknown } | undefined;
  return {
    file,
    manifest: {
      format: 'braid-recording',
      version: 1,
      command: m.command,
      cwd: m.cwd,
      name: typeof m.name === 'string' ? m.name : '',
      runs: num(m.runs, 0),
      noise: num(m.noise, 0),
      ...(m.noiseAt === 'sync' || m.noiseAt === 'all' ? { noiseAt: m.noiseAt } : {}),
      seed: num(m.seed, 0),
      include: strings(m.include) ? m.include : [],
      exclude: strings(m.exclude) ? m.exclude : [],
      timeoutSeconds: num(m.timeoutSeconds, 60),
      ...(plan && typeof plan.name === 'string' && typeof plan.file === 'string' ? { plan: { name: plan.name, file: plan.file } } : {}),
      ...(typeof m.failOnOutput === 'string' ? { failOnOutput: m.failOnOutput } : {}),
      ...(Array.isArray(m.prepare) && m.prepare.every((s) => s && strings((s as { command?: unknown }).command) && typeof (s as { cwd?: unknown }).cwd === 'string')
        ? { prepare: (m.prepare as { command: string[]; cwd: string }[]).map((s) => ({ command: s.command, cwd: s.cwd })) }
        : {}),
      startedAt: typeof m.startedAt === 'string' ? m.startedAt : '',
    },
  };
}
