/**
 * Check the Fix's verdicts in the editor, kept beside the recording they judged (issue 43 follow-up):
 * `<recording folder>/fix-checks.json` holds, per pattern key of the code before the change, the
 * verdict with the runs behind it — the failure counts before and after the fix, the forced runs, the
 * command that ran, where the runs after the fix are and when — so that after a restart (or a reopened
 * folder) the Runs view says again "Bug 1 · lost update — fixed · failed 17/30 before, 0/20 after".
 *
 * A verdict is never shown without its runs: the file also holds the recording's fingerprint (its
 * trace files' names and sizes); when the recording has changed since (new runs, runs deleted) the
 * file is dropped. A verdict whose pattern is no longer in the analysis of that recording is dropped
 * too (prune). The file is untrusted input (a cloned repository can bring one): only a regular file
 * is read, never through a link, capped; a malformed file is an error naming the file (and where)
 * and is left alone, every other recording's verdicts still load; a malformed entry is left out with
 * a warning, the file's other entries load. Format: docs/confirm.md "Check the Fix's verdict file".
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { jsonErrorPlace } from '../engine/noise/noisePlanFile';
import { writeFileAtomic } from '../workspace/atomicWrite';
import { FileReadError, linkBelow, readRegularTextFile } from '../workspace/regularFile';
import type { BugFixDto } from './protocol';

export const FIX_CHECKS_FILE = 'fix-checks.json';
export const FIX_CHECKS_FORMAT = 'braid-fix-checks';
export const FIX_CHECKS_VERSION = 1;
/** a fix-check file larger than this is not read (a few hundred checks stay far below) */
const MAX_FIX_CHECKS_BYTES = 4 * 2 ** 20;
/** most checks kept per recording (the newest) */
const MAX_CHECKS = 200;
const MAX_TEXT = 4096;

/** One Check the Fix verdict with the runs behind it, as the file keeps it. */
export interface SavedFixCheck {
  verdict: 'fixed' | 'not fixed';
  /** the runs of the recording before the fix (the analysis the pattern came from) */
  before: { runs: number; failed: number };
  /** the noise runs after the fix */
  after: { runs: number; failed: number };
  /** the runs that forced the pattern's interleaving on the fixed build */
  forced: { runs: number; failed: number; forcedOk: number };
  /** one-sided Fisher p that the runs before failed more often than after */
  pValue: number;
  reason: string;
  /** the command that ran (the recording's) */
  command: string[];
  /** the folder of the runs after the fix (under .braid/confirm/) */
  runsFolder?: string;
  /** when the check ended (ISO 8601) */
  at: string;
}

/** The recording a check judged: its trace files (names and sizes), hashed. */
export interface RecordingFingerprint {
  traces: number;
  fingerprint: string;
}

const TRACE_FILE = /\.trace\.jsonl(\.gz)?$/;

/** The fingerprint of the trace files now in `dir` (names and sizes; a new or deleted run changes it). */
export async function recordingFingerprint(dir: string): Promise<RecordingFingerprint> {
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => TRACE_FILE.test(n)).sort();
  const h = createHash('sha256');
  let traces = 0;
  for (const n of names) {
    const st = await fs.lstat(path.join(dir, n)).catch(() => undefined);
    if (!st?.isFile()) continue;
    traces++;
    h.update(`${n}\t${st.size}\n`);
  }
  return { traces, fingerprint: h.digest('hex') };
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const counts = (v: unknown, extra?: string): boolean => {
  const o = v as Record<string, unknown> | null;
  return !!o && typeof o === 'object' && count(o.runs) && count(o.failed) && o.failed <= o.runs && (!extra || (count(o[extra]) && (o[extra] as number) <= o.runs));
};

/** A saved check read from a file, or why it is not one. */
export function checkedFixCheck(v: unknown): SavedFixCheck | string {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return 'not an object';
  if (o.verdict !== 'fixed' && o.verdict !== 'not fixed') return '"verdict" must be "fixed" or "not fixed"';
  for (const k of ['before', 'after'] as const) if (!counts(o[k])) return `"${k}" must be {"runs": n, "failed": k} with k ≤ n`;
  if (!counts(o.forced, 'forcedOk')) return '"forced" must be {"runs": n, "failed": k, "forcedOk": m} with k, m ≤ n';
  if ((o.before as { runs: number }).runs === 0 || (o.after as { runs: number }).runs === 0) return 'a verdict needs runs before and after the fix';
  if (typeof o.pValue !== 'number' || !(o.pValue >= 0 && o.pValue <= 1)) return '"pValue" must be a number from 0 to 1';
  if (typeof o.reason !== 'string') return '"reason" must be a string';
  if (!Array.isArray(o.command) || !o.command.length || !o.command.every((x) => typeof x === 'string')) return '"command" must be the program and its arguments';
  if (typeof o.at !== 'string' || Number.isNaN(Date.parse(o.at))) return '"at" must be a date (ISO 8601)';
  if (o.runsFolder !== undefined && typeof o.runsFolder !== 'string') return '"runsFolder" must be a string';
  const c = (x: unknown) => ({ runs: (x as { runs: number }).runs, failed: (x as { failed: number }).failed });
  const forced = o.forced as SavedFixCheck['forced'];
  return {
    verdict: o.verdict,
    before: c(o.before),
    after: c(o.after),
    forced: { runs: forced.runs, failed: forced.failed, forcedOk: forced.forcedOk },
    pValue: o.pValue,
    reason: o.reason.slice(0, MAX_TEXT),
    command: (o.command as string[]).slice(0, 200).map((x) => x.slice(0, MAX_TEXT)),
    ...(typeof o.runsFolder === 'string' ? { runsFolder: o.runsFolder.slice(0, MAX_TEXT) } : {}),
    at: o.at,
  };
}

interface RecordingChecks {
  recording: RecordingFingerprint;
  checks: Map<string, SavedFixCheck>;
}

export class FixVerdictStore {
  /** recording folder → its checks, as on disk */
  private readonly byDir = new Map<string, RecordingChecks>();
  /** folders whose file was read (or found missing, or reported malformed) */
  private readonly read = new Set<string>();

  /**
   * `folders`: the workspace folders — a file is read and written only inside one, never through a
   * link below it. `log`: problems ('error': a file not read; 'warning': an entry left out; 'info': dropped).
   */
  constructor(
    private readonly folders: () => readonly string[],
    private readonly log: (level: 'error' | 'warning' | 'info', message: string) => void = () => undefined,
  ) {}

  private folderOf(dir: string): string | undefined {
    return this.folders().find((f) => {
      const rel = path.relative(path.resolve(f), path.resolve(dir));
      return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
    });
  }

  /** The newest check of the pattern `key` in these recording folders (all known ones when not given). */
  get(key: string, dirs?: readonly string[]): (SavedFixCheck & { dir: string }) | undefined {
    let best: (SavedFixCheck & { dir: string }) | undefined;
    for (const [dir, r] of this.byDir) {
      if (dirs && !dirs.includes(dir)) continue;
      const c = r.checks.get(key);
      if (c && (!best || Date.parse(c.at) > Date.parse(best.at))) best = { ...c, dir };
    }
    return best;
  }

  /** What the Runs view shows of a check (BugFixDto). */
  static view(c: SavedFixCheck): BugFixDto {
    return { verdict: c.verdict, before: { ...c.before }, after: { ...c.after } };
  }

  /**
   * Reads the files of these recording folders not read yet, and drops the files of recordings that
   * changed since their checks (their fingerprint). Folders no longer listed are forgotten (read again
   * when they come back).
   */
  async sync(dirs: readonly string[]): Promise<void> {
    const listed = new Set(dirs.map((d) => path.resolve(d)));
    for (const dir of [...this.read]) {
      if (!listed.has(dir)) {
        this.read.delete(dir);
        this.byDir.delete(dir);
      }
    }
    for (const dir of listed) {
      if (!this.read.has(dir)) {
        this.read.add(dir);
        const r = await this.load(dir);
        if (r) this.byDir.set(dir, r);
      }
      const r = this.byDir.get(dir);
      if (!r) continue;
      const now = await recordingFingerprint(dir);
      if (now.fingerprint !== r.recording.fingerprint) {
        this.byDir.delete(dir);
        const file = path.join(dir, FIX_CHECKS_FILE);
        await this.remove(dir);
        this.log('info', `Braid: ${file}: the recording changed since Check the Fix (${r.recording.traces} trace files then, ${now.traces} now); its ${r.checks.size} verdict${r.checks.size === 1 ? ' is' : 's are'} dropped`);
      }
    }
  }

  /** Drops the checks of `dir` whose pattern `exists` no longer says is there (the file is written again). */
  async prune(dir: string, exists: (key: string) => boolean): Promise<void> {
    const d = path.resolve(dir);
    const r = this.byDir.get(d);
    if (!r) return;
    const gone = [...r.checks.keys()].filter((k) => !exists(k));
    if (!gone.length) return;
    for (const k of gone) r.checks.delete(k);
    this.log('info', `Braid: ${path.join(d, FIX_CHECKS_FILE)}: ${gone.length} verdict${gone.length === 1 ? '' : 's'} of Check the Fix dropped: the pattern is no longer in the analysis of this recording`);
    if (r.checks.size) await this.write(d, r);
    else {
      this.byDir.delete(d);
      await this.remove(d);
    }
  }

  /** Keeps a check of the pattern `key` made on the recording in `dir`, and writes its file. */
  async set(dir: string, key: string, check: SavedFixCheck): Promise<void> {
    const d = path.resolve(dir);
    const recording = await recordingFingerprint(d);
    let r = this.byDir.get(d);
    // checks of an earlier state of the recording are not kept beside this one
    if (!r || r.recording.fingerprint !== recording.fingerprint) r = { recording, checks: new Map() };
    r.checks.delete(key);
    r.checks.set(key, check);
    while (r.checks.size > MAX_CHECKS) r.checks.delete(r.checks.keys().next().value as string);
    this.byDir.set(d, r);
    this.read.add(d);
    await this.write(d, r);
  }

  private async write(dir: string, r: RecordingChecks): Promise<void> {
    const file = path.join(dir, FIX_CHECKS_FILE);
    const folder = this.folderOf(dir);
    if (!folder) throw new Error(`cannot write ${file}: the recording is outside the workspace folders`);
    // never through a link: a folder of a cloned repository may point anywhere
    const link = await linkBelow(folder, file);
    if (link) throw new Error(`cannot write ${file}: ${link} is a symbolic link`);
    const text = JSON.stringify({ format: FIX_CHECKS_FORMAT, version: FIX_CHECKS_VERSION, recording: r.recording, checks: Object.fromEntries(r.checks) }, null, 1) + '\n';
    await writeFileAtomic(file, text);
  }

  private async remove(dir: string): Promise<void> {
    const file = path.join(dir, FIX_CHECKS_FILE);
    const folder = this.folderOf(dir);
    if (!folder || (await linkBelow(folder, path.dirname(file)))) return;
    await fs.rm(file, { force: true }).catch((e) => this.log('warning', `Braid: ${file} could not be deleted: ${(e as Error).message}`));
  }

  /** The checks of one recording folder's file, or undefined (none, or not read: the problem is logged). */
  private async load(dir: string): Promise<RecordingChecks | undefined> {
    const file = path.join(dir, FIX_CHECKS_FILE);
    const folder = this.folderOf(dir);
    if (!folder) return undefined;
    let text: string;
    try {
      const link = await linkBelow(folder, file);
      if (link) {
        this.log('error', `Braid: ${file}: ${link} is a symbolic link; the verdicts of Check the Fix there are not read`);
        return undefined;
      }
      text = await readRegularTextFile(file, MAX_FIX_CHECKS_BYTES);
    } catch (e) {
      if (!(e instanceof FileReadError) || e.code !== 'ENOENT') this.log('error', `Braid: ${file}: ${(e as Error).message}; the verdicts of Check the Fix there are not shown`);
      return undefined;
    }
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      this.log('error', `Braid: ${file}: not JSON (${jsonErrorPlace(text, e as Error)}); the verdicts of Check the Fix there are not shown (the file is left as it is)`);
      return undefined;
    }
    const bad = (why: string) => {
      this.log('error', `Braid: ${file}: ${why}; the verdicts of Check the Fix there are not shown (the file is left as it is)`);
      return undefined;
    };
    if (!o || typeof o !== 'object' || Array.isArray(o) || o.format !== FIX_CHECKS_FORMAT) return bad(`not a Braid fix-check file (format "${FIX_CHECKS_FORMAT}")`);
    if (o.version !== FIX_CHECKS_VERSION) return bad(`version ${JSON.stringify(o.version)?.slice(0, 20)} is not known (this Braid reads version ${FIX_CHECKS_VERSION})`);
    const rec = o.recording as Record<string, unknown> | null;
    if (!rec || typeof rec !== 'object' || !count(rec.traces) || typeof rec.fingerprint !== 'string' || !/^[0-9a-f]{64}$/.test(rec.fingerprint)) return bad('"recording" must be {"traces": n, "fingerprint": "<sha-256 hex>"}');
    const raw = o.checks as Record<string, unknown> | null;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return bad('"checks" must be an object of pattern key → check');
    const checks = new Map<string, SavedFixCheck>();
    let k = 0;
    for (const [key, v] of Object.entries(raw)) {
      k++;
      const c = key.length <= MAX_TEXT ? checkedFixCheck(v) : 'the pattern key is too long';
      if (typeof c === 'string') this.log('warning', `Braid: ${file}: check ${k} left out: ${c}`);
      else checks.set(key, c);
    }
    return { recording: { traces: rec.traces, fingerprint: rec.fingerprint }, checks };
  }
}
