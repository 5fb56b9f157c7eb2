/**
 * Which recordings ran the current code (issue 43, point 1). A recording is a trace folder; its
 * code stamp (codeStamp.ts, `sources.json`) holds the hash of every source file when it started.
 * After an analysis, the files its accesses point to are known (the accesses of the ranked
 * patterns of its runs, and where its failures were raised). A recording is **before the change**
 * when one of those files no longer has its stamped hash (edited or deleted): it is kept on disk,
 * listed apart, and left out of the analysis of the current code, so a recording of the fixed code
 * is never merged with one of the buggy code. A folder without a stamp (imported traces, traces
 * recorded outside the editor) counts as current.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { AnalysisResult } from '../engine/analysis';
import { CODE_STAMP, CodeStamp, contentHash, readCodeStamp } from './codeStamp';
import { readRecordingManifest } from '../recorder/runs/recordingManifest';

export interface OlderRecording {
  /** the trace folder */
  dir: string;
  /** its trace files (left out of the analysis) */
  files: string[];
  /** workspace-relative paths of the files that changed since it was recorded */
  changed: string[];
  /** its runs and failed runs, when an analysis included it */
  runs?: number;
  failed?: number;
  /** of the code version just before the change (justBefore): the "before" of Check the Fix */
  justBefore?: boolean;
}

const MAX_HASHED_BYTES = 64 << 20;

/** When a recording started: its manifest's startedAt, else the time its stamp was written (0: unknown). */
async function startedAt(dir: string): Promise<number> {
  const m = (await readRecordingManifest(dir)).manifest;
  const t = m?.startedAt ? Date.parse(m.startedAt) : NaN;
  if (Number.isFinite(t)) return t;
  try {
    return (await fs.stat(path.join(dir, CODE_STAMP))).mtimeMs;
  } catch {
    return 0;
  }
}

export class CodeVersions {
  private readonly stamps = new Map<string, CodeStamp | string | undefined>();
  /** trace folder → absolute paths of the source files its accesses point to */
  private readonly touched = new Map<string, Set<string>>();
  /** trace folder → its runs and failed runs in the last analysis that included it */
  private readonly counts = new Map<string, { runs: number; failed: number }>();
  private readonly hashes = new Map<string, { mtimeMs: number; size: number; hash: string | undefined }>();

  constructor(
    private readonly folders: () => readonly string[],
    private readonly warn: (m: string) => void = () => undefined,
  ) {}

  /** The hash of a file's content now (undefined: missing or unreadable); cached by size and time. */
  async currentHash(file: string): Promise<string | undefined> {
    let st;
    try {
      st = await fs.stat(file);
    } catch {
      this.hashes.delete(file);
      return undefined;
    }
    const known = this.hashes.get(file);
    if (known && known.mtimeMs === st.mtimeMs && known.size === st.size) return known.hash;
    let hash: string | undefined;
    try {
      hash = st.size <= MAX_HASHED_BYTES ? contentHash(await fs.readFile(file)) : undefined;
    } catch {
      hash = undefined;
    }
    this.hashes.set(file, { mtimeMs: st.mtimeMs, size: st.size, hash });
    return hash;
  }

  private async stamp(dir: string): Promise<CodeStamp | undefined> {
    if (!this.stamps.has(dir)) {
      const s = await readCodeStamp(dir);
      if (typeof s === 'string') this.warn(`Braid: ${s}; the recording counts as one of the current code`);
      this.stamps.set(dir, s);
    }
    const s = this.stamps.get(dir);
    return typeof s === 'object' ? s : undefined;
  }

  /** The workspace-relative path of a file as a stamp names it, or undefined outside the folders. */
  private relative(file: string): string | undefined {
    for (const folder of this.folders()) {
      const rel = path.relative(folder, file);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
    return undefined;
  }

  /**
   * The files the recording of `dir` touched that changed since it was recorded ([] = current);
   * undefined while not known (no stamp, or no analysis included it yet).
   */
  async changedFiles(dir: string): Promise<string[] | undefined> {
    const touched = this.touched.get(dir);
    if (!touched) return undefined;
    const stamp = await this.stamp(dir);
    if (!stamp) return undefined;
    const changed: string[] = [];
    for (const file of touched) {
      const rel = this.relative(file);
      const then = rel !== undefined ? stamp.files.get(rel) : undefined;
      if (then === undefined) continue; // not stamped (outside the folder, past the budget): cannot tell
      if ((await this.currentHash(file)) !== then) changed.push(rel!);
    }
    return changed.sort();
  }

  /** True when some recording's accesses point to this file (an edit to it may make one older). */
  touches(file: string): boolean {
    for (const t of this.touched.values()) if (t.has(file)) return true;
    return false;
  }

  /** Whether a trace folder has a stamp (read once). */
  async hasStamp(dir: string): Promise<boolean> {
    return (await this.stamp(dir)) !== undefined;
  }

  /** Forgets a folder (deleted, or written again). */
  forget(dir: string): void {
    this.stamps.delete(dir);
    this.touched.delete(dir);
    this.counts.delete(dir);
  }

  /**
   * Learns, from an analysis, the source files each trace folder's runs touched and its counts.
   * `resolve` maps a trace's source path to the workspace file (undefined: not in the workspace).
   * Returns the folders learned for the first time.
   */
  learn(result: AnalysisResult, resolve: (file: string) => string | undefined): string[] {
    const filesOfPattern = new Map<number, string[]>();
    for (const p of result.patterns) {
      const fs = new Set<string>();
      for (const a of p.accesses) {
        const f = resolve(a.file);
        if (f) fs.add(f);
      }
      filesOfPattern.set(p.index, [...fs]);
    }
    const fresh: string[] = [];
    const seen = new Map<string, { touched: Set<string>; runs: number; failed: number }>();
    for (const r of result.runs) {
      const dir = path.dirname(path.resolve(r.file));
      let s = seen.get(dir);
      if (!s) seen.set(dir, (s = { touched: new Set(), runs: 0, failed: 0 }));
      s.runs++;
      if (r.outcome === 'fail') s.failed++;
      // a run holds many pattern ids, most of them not kept: looked up without allocating
      if (filesOfPattern.size)
        for (let i = 0; i < r.patterns.length; i++) {
          const files = filesOfPattern.get(r.patterns[i]);
          if (files) for (let j = 0; j < files.length; j++) s.touched.add(files[j]);
        }
      const loc = r.failure?.location?.file;
      const lf = loc ? resolve(loc) : undefined;
      if (lf) s.touched.add(lf);
    }
    for (const [dir, s] of seen) {
      if (!this.touched.has(dir)) fresh.push(dir);
      this.touched.set(dir, s.touched);
      this.counts.set(dir, { runs: s.runs, failed: s.failed });
    }
    return fresh;
  }

  /**
   * The recordings of the code version just before the change, out of the recordings of older code:
   * the newest one (its recording.json's start, else the time its stamp was written) and every other
   * that ran the same code as it — for each source file either of the two touched, the same hash in
   * both stamps (a file stamped in one and not in the other was added or deleted in between: another
   * version). Recordings of two edits ago, or of another branch of edits, are left out, so the analysis
   * "before the change" never mixes code versions. Newest first.
   */
  async justBefore(older: readonly OlderRecording[]): Promise<OlderRecording[]> {
    const known: { o: OlderRecording; stamp: CodeStamp; at: number }[] = [];
    for (const o of older) {
      const stamp = await this.stamp(o.dir);
      if (stamp) known.push({ o, stamp, at: await startedAt(o.dir) });
    }
    known.sort((a, b) => b.at - a.at || (a.o.dir < b.o.dir ? 1 : a.o.dir > b.o.dir ? -1 : 0));
    const newest = known[0];
    if (!newest) return [];
    return known.filter((k) => k === newest || this.sameCode(newest.o.dir, newest.stamp, k.o.dir, k.stamp)).map((k) => k.o);
  }

  /** Whether two recordings ran the same code: the files either touched have the same hash in both stamps. */
  private sameCode(a: string, sa: CodeStamp, b: string, sb: CodeStamp): boolean {
    for (const touched of [this.touched.get(a), this.touched.get(b)]) {
      for (const file of touched ?? []) {
        const rel = this.relative(file);
        if (rel !== undefined && sa.files.get(rel) !== sb.files.get(rel)) return false;
      }
    }
    return true;
  }

  /**
   * Splits trace files into those of recordings of the current code and those of older
   * recordings (with what changed), by trace folder.
   */
  async split<T extends { path: string }>(files: readonly T[]): Promise<{ current: T[]; older: OlderRecording[] }> {
    const byDir = new Map<string, T[]>();
    for (const f of files) {
      const dir = path.dirname(path.resolve(f.path));
      let l = byDir.get(dir);
      if (!l) byDir.set(dir, (l = []));
      l.push(f);
    }
    const current: T[] = [];
    const older: OlderRecording[] = [];
    for (const [dir, l] of byDir) {
      const changed = await this.changedFiles(dir);
      if (changed?.length) {
        const c = this.counts.get(dir);
        older.push({ dir, files: l.map((f) => f.path).sort(), changed, ...(c ? { runs: c.runs, failed: c.failed } : {}) });
      } else current.push(...l);
    }
    older.sort((a, b) => (a.dir < b.dir ? 1 : a.dir > b.dir ? -1 : 0));
    return { current, older };
  }
}
