/**
 * Sequence databases for the miner: items of any key type interned to dense ids, and
 * SPMF's sequence format (https://www.philippe-fournier-viger.com/spmf/ — one sequence per
 * line, integers, `-1` ends an itemset, `-2` ends the sequence; lines starting with `#`, `%`
 * or `@` are metadata).
 */
import { MinedPattern, MineOptions, MineResult, mineSequences } from './closedMiner';

export class SequenceDb<K = string> {
  readonly seqs: Int32Array[] = [];
  /** item key of each dense id */
  readonly items: K[] = [];
  private readonly ids = new Map<K, number>();

  idOf(key: K): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.items.length;
      this.items.push(key);
      this.ids.set(key, id);
    }
    return id;
  }

  /** A database of sequences already interned: `seqs` hold dense ids, `items[id]` is the key of id (distinct keys). */
  static fromInterned<K>(seqs: Int32Array[], items: K[]): SequenceDb<K> {
    const db = new SequenceDb<K>();
    for (const s of seqs) db.seqs.push(s);
    for (const k of items) db.idOf(k);
    return db;
  }

  /** Existing id of `key`, or -1. */
  lookup(key: K): number {
    return this.ids.get(key) ?? -1;
  }

  add(seq: Iterable<K>): number {
    const a: number[] = [];
    for (const k of seq) a.push(this.idOf(k));
    this.seqs.push(Int32Array.from(a));
    return this.seqs.length - 1;
  }

  /** Adds a sequence of dense ids already interned (e.g. from another pass). */
  addIds(ids: ArrayLike<number>): number {
    this.seqs.push(Int32Array.from(ids as ArrayLike<number>));
    return this.seqs.length - 1;
  }

  get size(): number {
    return this.seqs.length;
  }

  mine(options: MineOptions): MineResult {
    return mineSequences(this.seqs, this.items.length, options);
  }

  keys(p: MinedPattern): K[] {
    return p.items.map((i) => this.items[i]);
  }
}

/** One SPMF sequence: itemsets of integer items, with the 1-based line it came from. */
export interface SpmfSequence {
  line: number;
  itemsets: number[][];
}

export class SpmfFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
  }
}

/** Parses SPMF sequence-database text (general itemsets). Throws SpmfFormatError naming file:line. */
export function parseSpmf(text: string, file = '<input>'): SpmfSequence[] {
  const out: SpmfSequence[] = [];
  const lines = text.split(/\r?\n/);
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k].trim();
    if (!raw || raw[0] === '#' || raw[0] === '%' || raw[0] === '@') continue;
    const line = k + 1;
    const itemsets: number[][] = [];
    let cur: number[] = [];
    let ended = false;
    for (const tok of raw.split(/\s+/)) {
      if (ended) throw new SpmfFormatError(file, line, `"${tok}" after the end of the sequence (-2)`);
      if (!/^-?\d+$/.test(tok)) throw new SpmfFormatError(file, line, `"${tok}" is not an integer item, -1 or -2`);
      const v = Number(tok);
      if (v === -1) {
        if (!cur.length) throw new SpmfFormatError(file, line, 'empty itemset (-1 without items)');
        itemsets.push(cur);
        cur = [];
      } else if (v === -2) {
        if (cur.length) {
          // SPMF tolerates a last itemset closed by -2 alone
          itemsets.push(cur);
          cur = [];
        }
        ended = true;
      } else if (v < 0) {
        throw new SpmfFormatError(file, line, `negative item ${v} (only -1 and -2 are separators)`);
      } else {
        if (!Number.isSafeInteger(v)) throw new SpmfFormatError(file, line, `item ${tok} is too large`);
        cur.push(v);
      }
    }
    if (!ended) throw new SpmfFormatError(file, line, 'sequence does not end with -2');
    out.push({ line, itemsets });
  }
  return out;
}

/**
 * A SequenceDb of integer items from SPMF sequences whose itemsets hold one item each
 * (what traces are). An itemset of several items is rejected with its file:line.
 */
export function spmfToDb(seqs: SpmfSequence[], file = '<input>'): SequenceDb<number> {
  const db = new SequenceDb<number>();
  for (const s of seqs) {
    const items: number[] = [];
    for (const is of s.itemsets) {
      if (is.length !== 1)
        throw new SpmfFormatError(file, s.line, `itemset {${is.join(' ')}} has ${is.length} items; braid mine handles sequences of single items only`);
      items.push(is[0]);
    }
    db.add(items);
  }
  return db;
}

/** SPMF text of sequences of single items. */
export function formatSpmfDb(seqs: Iterable<ArrayLike<number>>): string {
  const lines: string[] = [];
  for (const s of seqs) {
    const parts: string[] = [];
    for (let i = 0; i < s.length; i++) parts.push(String(s[i]), '-1');
    parts.push('-2');
    lines.push(parts.join(' '));
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

/** One pattern line: `a b c #SUP: 4`, or SPMF's own `a -1 b -1 c -1 #SUP: 4` with `itemsetSeparators`. */
export function formatPatternLine(items: ArrayLike<string | number>, support: number, itemsetSeparators = false): string {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i++) {
    parts.push(String(items[i]));
    if (itemsetSeparators) parts.push('-1');
  }
  parts.push(`#SUP: ${support}`);
  return parts.join(' ');
}

/** Parses pattern lines (either form) back to `{items, support}` (for comparisons and tests). */
export function parsePatternLines(text: string): { items: number[]; support: number }[] {
  const out: { items: number[]; support: number }[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const m = /^(.*?)#SUP:\s*(\d+)/.exec(raw.trim());
    if (!m) continue;
    const items = m[1]
      .trim()
      .split(/\s+/)
      .filter((t) => t && t !== '-1' && t !== '-2')
      .map(Number);
    out.push({ items, support: Number(m[2]) });
  }
  return out;
}
