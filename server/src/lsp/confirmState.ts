/**
 * The verdicts of forcing (braid/confirm) in the editor: per pattern key, kept in
 * `.braid/confirm/verdicts.json` so they survive a restart, and put on the PatternDto the views get
 * (PatternDto.confirmation). A verdict file is untrusted input: anything that is not a well-formed
 * verdict is dropped, and strings are escaped where they are shown (as every trace string).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { jsonErrorPlace } from '../engine/noise/noisePlanFile';
import { writeFileAtomic } from '../workspace/atomicWrite';
import { FileReadError, linkBelow, readRegularTextFile } from '../workspace/regularFile';
import type { PatternConfirmationDto, PatternDto } from './protocol';

export const VERDICTS_FILE = path.join('.braid', 'confirm', 'verdicts.json');
const VERDICTS = new Set(['confirmed', 'confirms the window', 'refuted', 'not forced']);
/** a verdict file larger than this is not read (1,000 verdicts of 4 KiB strings stay well below) */
const MAX_VERDICTS_BYTES = 16 * 2 ** 20;
/** most verdicts kept (the newest) */
const MAX_VERDICTS = 1000;

const count = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const group = (g: unknown, forced: boolean): boolean => {
  const o = g as Record<string, unknown> | undefined;
  return !!o && typeof o === 'object' && count(o.runs) && count(o.failed) && (!forced || count(o.forcedOk));
};

/** A verdict read from the file, or undefined when it is not one. */
export function checkedConfirmation(v: unknown): PatternConfirmationDto | undefined {
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== 'object' || !VERDICTS.has(o.verdict as string) || typeof o.reason !== 'string' || typeof o.pValue !== 'number') return undefined;
  if (!group(o.forced, true) || (o.opposite !== undefined && !group(o.opposite, true)) || (o.control !== undefined && !group(o.control, false))) return undefined;
  const str = (k: string) => (typeof o[k] === 'string' ? { [k]: (o[k] as string).slice(0, 4096) } : {});
  return {
    verdict: o.verdict as PatternConfirmationDto['verdict'],
    reason: o.reason.slice(0, 4096),
    pValue: o.pValue,
    forced: o.forced as PatternConfirmationDto['forced'],
    ...(o.opposite ? { opposite: o.opposite as PatternConfirmationDto['opposite'] } : {}),
    ...(o.control ? { control: o.control as PatternConfirmationDto['control'] } : {}),
    ...str('failingTrace'),
    ...str('plan'),
    ...str('at'),
  };
}

export class ConfirmationStore {
  private readonly verdicts = new Map<string, PatternConfirmationDto>();
  private loaded = false;

  constructor(private readonly folder: string | undefined) {}

  get size(): number {
    return this.verdicts.size;
  }

  get(key: string): PatternConfirmationDto | undefined {
    return this.verdicts.get(key);
  }

  /** Reads the verdict file once (a missing or broken file is an empty store; the problem is returned). */
  async load(): Promise<string | undefined> {
    if (this.loaded || !this.folder) return undefined;
    this.loaded = true;
    const file = path.join(this.folder, VERDICTS_FILE);
    let text: string;
    try {
      // only a regular file, not through a link, at most the cap; a problem names the file, never its content
      const link = await linkBelow(this.folder, file);
      if (link) return `${file}: ${link} is a symbolic link; the verdicts there are not read`;
      text = await readRegularTextFile(file, MAX_VERDICTS_BYTES);
    } catch (e) {
      return e instanceof FileReadError && e.code !== 'ENOENT' ? `${file}: ${e.message}; the verdicts there are not shown` : undefined;
    }
    try {
      const o = JSON.parse(text) as { verdicts?: Record<string, unknown> };
      for (const [key, v] of Object.entries(o?.verdicts ?? {})) {
        const c = checkedConfirmation(v);
        if (c && key.length < 4096) this.verdicts.set(key, c);
      }
      return undefined;
    } catch (e) {
      return `${file}: not JSON (${jsonErrorPlace(text, e as Error)}); the verdicts there are not shown`;
    }
  }

  async set(key: string, c: PatternConfirmationDto): Promise<void> {
    this.verdicts.delete(key);
    this.verdicts.set(key, c);
    while (this.verdicts.size > MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value as string);
    if (!this.folder) return;
    const file = path.join(this.folder, VERDICTS_FILE);
    // never through a link: `.braid` or `.braid/confirm` of a cloned repository may point anywhere
    const link = await linkBelow(this.folder, path.dirname(file));
    if (link) throw new Error(`cannot write ${file}: ${link} is a symbolic link`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, JSON.stringify({ format: 'braid-verdicts', version: 1, verdicts: Object.fromEntries(this.verdicts) }, null, 1) + '\n');
  }

  /** The forced failing runs' traces the verdicts keep (Reproduce), newest verdict first. */
  failingTraces(): string[] {
    return [...this.verdicts.values()].reverse().flatMap((c) => (c.failingTrace ? [c.failingTrace] : []));
  }

  /** Puts the verdicts on the patterns (in place: the views' lists are these objects). */
  decorate(patterns: PatternDto[]): void {
    for (const p of patterns) {
      const c = this.verdicts.get(p.key);
      if (c) p.confirmation = c;
      else delete p.confirmation;
      // forced runs that made the failure are evidence: a confirmed pattern is not folded as weak and has
      // its hover, heat and lens (the analysis makes the DTOs again, weak as the rule says, on each run)
      if (c?.verdict === 'confirmed') delete p.weak;
    }
  }
}
