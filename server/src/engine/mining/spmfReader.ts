/**
 * Byte-level reader of SPMF sequence files of single-item itemsets (what `braid mine` reads).
 *
 * One pass over the file's bytes: integers are parsed digit by digit straight into one growing
 * Int32Array of dense item ids (interned in order of first appearance, the same ids
 * `SequenceDb.add` would give), and every sequence is a `subarray` view of it — no string per
 * line or per token, no array per itemset. Only a malformed line is decoded to text, by the
 * string parser (`parseSpmf`), so error messages are the same in both readers.
 *
 * Accepted input is exactly what `parseSpmf` + `spmfToDb` accept: blank lines and lines whose
 * first non-blank character is `#`, `%` or `@` are skipped; every other line is one sequence of
 * integer items, `-1` after each item, `-2` at the end (a last item closed by `-2` alone is
 * tolerated, as SPMF does). The first bad line throws an `SpmfFormatError` naming file:line.
 */
import { parseSpmf, SequenceDb, spmfToDb, SpmfFormatError } from './sequenceDb';

/** Raw item values below this are interned through a direct-index table, larger ones through a Map. */
const DIRECT_LIMIT = 1 << 22;

const enum Ch {
  Tab = 9,
  Lf = 10,
  Vt = 11,
  Ff = 12,
  Cr = 13,
  Space = 32,
  Hash = 35,
  Percent = 37,
  Minus = 45,
  Zero = 48,
  Nine = 57,
  At = 64,
}

function isBlank(c: number): boolean {
  return c === Ch.Space || c === Ch.Tab || c === Ch.Cr || c === Ch.Vt || c === Ch.Ff;
}

/** Reads SPMF bytes into a SequenceDb of raw integer items (dense ids in order of first appearance). */
export function readSpmfDb(bytes: Uint8Array, file = '<input>'): SequenceDb<number> {
  const n = bytes.length;
  // upper bound on items: every item takes at least 2 bytes ("7 "), so the buffer never grows
  // past n/2; start smaller and double, then trim once at the end
  let ids = new Int32Array(Math.max(16, Math.min(Math.ceil(n / 4) + 16, 1 << 24)));
  let used = 0;
  const seqStart: number[] = [];
  const seqEnd: number[] = [];
  const items: number[] = [];
  let direct = new Int32Array(256).fill(-1);
  const large = new Map<number, number>();

  const intern = (v: number): number => {
    if (v < DIRECT_LIMIT) {
      if (v >= direct.length) {
        let len = direct.length;
        while (len <= v) len *= 2;
        const d = new Int32Array(Math.min(len, DIRECT_LIMIT)).fill(-1);
        d.set(direct);
        direct = d;
      }
      let id = direct[v];
      if (id < 0) {
        id = items.length;
        items.push(v);
        direct[v] = id;
      }
      return id;
    }
    let id = large.get(v);
    if (id === undefined) {
      id = items.length;
      items.push(v);
      large.set(v, id);
    }
    return id;
  };

  /**
   * Re-reads line `line` (bytes [from, to)) with the string parser: throws its exact error, or
   * returns the items when the line uses a separator only it knows (e.g. a Unicode space), or
   * null when it skips the line.
   */
  const slowLine = (from: number, to: number, line: number): number[] | null => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
    try {
      const parsed = parseSpmf(text, file);
      for (const s of parsed) s.line = line;
      const db = spmfToDb(parsed, file);
      return db.seqs.length ? Array.from(db.seqs[0], (id) => db.items[id]) : null;
    } catch (e) {
      if (e instanceof SpmfFormatError && e.line !== line) throw new SpmfFormatError(file, line, e.message.slice(`${file}:${e.line}: `.length));
      throw e;
    }
  };

  const push = (id: number): void => {
    if (used === ids.length) {
      const grown = new Int32Array(ids.length * 2);
      grown.set(ids);
      ids = grown;
    }
    ids[used++] = id;
  };

  let pos = 0;
  let line = 0;
  while (pos < n) {
    line++;
    const lineStart = pos;
    // skip leading blanks; blank lines and metadata lines are skipped whole
    while (pos < n && isBlank(bytes[pos])) pos++;
    if (pos >= n) break;
    let c = bytes[pos];
    if (c === Ch.Lf || c === Ch.Hash || c === Ch.Percent || c === Ch.At) {
      while (pos < n && bytes[pos] !== Ch.Lf) pos++;
      pos++;
      continue;
    }
    const first = used;
    let pending = false; // an item read and not yet closed by -1
    let ended = false;
    let bad = false;
    while (pos < n) {
      c = bytes[pos];
      if (c === Ch.Lf) break;
      if (isBlank(c)) {
        pos++;
        continue;
      }
      if (ended) {
        bad = true;
        break;
      }
      let neg = false;
      if (c === Ch.Minus) {
        neg = true;
        pos++;
      }
      let v = 0;
      let digits = 0;
      while (pos < n) {
        c = bytes[pos];
        if (c < Ch.Zero || c > Ch.Nine) break;
        v = v * 10 + (c - Ch.Zero);
        digits++;
        pos++;
      }
      if (digits === 0 || (pos < n && !isBlank(c) && c !== Ch.Lf)) {
        bad = true;
        break;
      }
      if (neg && v !== 0) {
        if (v === 1) {
          if (!pending) {
            bad = true; // empty itemset
            break;
          }
          pending = false;
        } else if (v === 2) {
          pending = false;
          ended = true;
        } else {
          bad = true;
          break;
        }
      } else {
        if (pending || !(v <= Number.MAX_SAFE_INTEGER)) {
          bad = true; // a second item in one itemset, or too large
          break;
        }
        push(intern(v));
        pending = true;
      }
    }
    if (bad || !ended) {
      let end = pos;
      while (end < n && bytes[end] !== Ch.Lf) end++;
      used = first;
      pos = end + 1;
      const slow = slowLine(lineStart, end, line);
      if (!slow) continue;
      for (const v of slow) push(intern(v));
      seqStart.push(first);
      seqEnd.push(used);
      continue;
    }
    seqStart.push(first);
    seqEnd.push(used);
    pos++; // past the newline
  }
  if (ids.length > used + (used >> 2) + 16) ids = ids.slice(0, used);
  const seqs: Int32Array[] = new Array(seqStart.length);
  for (let k = 0; k < seqStart.length; k++) seqs[k] = ids.subarray(seqStart[k], seqEnd[k]);
  return SequenceDb.fromInterned(seqs, items);
}
