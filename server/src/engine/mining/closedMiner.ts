/**
 * Sequential pattern mining over sequences of single items (seed 002 §3.2, seed 000 Algorithm 1).
 *
 * - `closed: true` — BIDE+ (Wang & Han, ICDE 2004): depth-first prefix growth on a
 *   pseudo-projected database, closure checking by forward extension (an item in every
 *   projected suffix) and backward extension (an item in every i-th maximum period), and
 *   BackScan pruning (an item in every i-th semi-maximum period). No candidate set is kept.
 * - `closed: false` — PrefixSpan: every frequent sequential pattern.
 *
 * Memory: sequences are Int32Arrays of dense item ids; a projected database is two
 * Int32Arrays (sequence index, start position) per tree node, and the first-instance
 * position of every prefix item is kept in one Int32Array per depth indexed by sequence,
 * so nothing is copied.
 *
 * Max length: with `maxLength` L, a pattern is reported when it is frequent, |p| ≤ L and (closed
 * mode) no super-pattern of length ≤ L has the same support — "closed within the patterns of
 * length ≤ L". So every frequent pattern of length exactly L is reported. BackScan then only
 * skips closure checks below L (it cannot skip the length-L descendants).
 */

export interface MinedPattern {
  /** dense item ids (see SequenceDb.items to map back) */
  items: number[];
  /** number of sequences that contain the pattern */
  support: number;
}

export interface MineOptions {
  /** a fraction of the sequences (when ≤ 1, unless minSupportIsFraction is false) or an absolute count */
  minSupport: number;
  /** force the meaning of `minSupport` (default: fraction when ≤ 1, count otherwise) */
  minSupportIsFraction?: boolean;
  closed?: boolean;
  maxLength?: number;
  /** stop after this many patterns (safety valve for huge outputs; `truncated` is set) */
  maxPatterns?: number;
  /**
   * Position bitmaps for the growth and the closure checks (same result, faster on dense
   * databases with long sequences). Default: built when the alphabet is no larger than the
   * average sequence length and the bitmaps fit in 32 MiB, and used where they are cheaper;
   * `true` builds them whatever the size and uses them everywhere; `false` never (suffix scans).
   */
  bitmaps?: boolean;
}

export interface MineResult {
  patterns: MinedPattern[];
  minSupportCount: number;
  truncated: boolean;
  /** tree nodes visited (for benchmarks) */
  nodes: number;
}

/** Absolute support count of a `minSupport` option for `n` sequences. */
export function supportCount(minSupport: number, n: number, isFraction?: boolean): number {
  if (!(minSupport > 0)) throw new Error(`minimum support must be > 0, got ${minSupport}`);
  if (isFraction ?? minSupport <= 1) {
    if (minSupport > 1) throw new Error(`a fractional minimum support must be ≤ 1, got ${minSupport}`);
    return Math.max(1, Math.ceil(minSupport * n - 1e-9));
  }
  return Math.max(1, Math.ceil(minSupport));
}

/**
 * The sequences without the items of support below the minimum (SPMF's BIDE+ does the same): no
 * pattern, forward or backward extension can hold one, so the result is the same and every scan
 * is shorter. Returns `seqs` itself when every item is frequent (or the options are invalid: the
 * miner reports those), else views of one new Int32Array (sequence indexes unchanged).
 */
function withoutInfrequentItems(seqs: readonly Int32Array[], itemCount: number, options: MineOptions): readonly Int32Array[] {
  const n = seqs.length;
  let minSup: number;
  try {
    minSup = supportCount(options.minSupport, n, options.minSupportIsFraction);
  } catch {
    return seqs;
  }
  const support = new Int32Array(itemCount);
  const last = new Int32Array(itemCount).fill(-1);
  let total = 0;
  for (let sid = 0; sid < n; sid++) {
    const s = seqs[sid];
    total += s.length;
    for (let p = 0; p < s.length; p++) {
      const it = s[p];
      if (last[it] !== sid) {
        last[it] = sid;
        support[it]++;
      }
    }
  }
  let kept = 0;
  for (let sid = 0; sid < n; sid++) {
    const s = seqs[sid];
    for (let p = 0; p < s.length; p++) if (support[s[p]] >= minSup) kept++;
  }
  if (kept === total) return seqs;
  const buf = new Int32Array(kept);
  const out: Int32Array[] = new Array(n);
  let w = 0;
  for (let sid = 0; sid < n; sid++) {
    const s = seqs[sid];
    const from = w;
    for (let p = 0; p < s.length; p++) if (support[s[p]] >= minSup) buf[w++] = s[p];
    out[sid] = buf.subarray(from, w);
  }
  return out;
}

/**
 * Mines `seqs` (dense item ids 0..itemCount-1). Patterns come out in depth-first,
 * item-id order (deterministic).
 */
export function mineSequences(input: readonly Int32Array[], itemCount: number, options: MineOptions): MineResult {
  const seqs = withoutInfrequentItems(input, itemCount, options);
  const n = seqs.length;
  const minSup = supportCount(options.minSupport, n, options.minSupportIsFraction);
  const closed = options.closed ?? true;
  const maxLen = options.maxLength ?? Infinity;
  if (!(maxLen >= 1)) throw new Error(`max length must be ≥ 1, got ${options.maxLength}`);
  const maxPatterns = options.maxPatterns ?? Infinity;
  const out: MinedPattern[] = [];
  const res: MineResult = { patterns: out, minSupportCount: minSup, truncated: false, nodes: 0 };
  if (n === 0 || minSup > n) return res;

  // per-item scratch
  const count = new Int32Array(itemCount);
  const seen = new Int32Array(itemCount).fill(-1);
  const mark = new Int32Array(itemCount).fill(-1);
  let markStamp = 0;
  const slot = new Int32Array(itemCount).fill(-1);
  // seen[item] === stamp: the item was met in the current suffix (one stamp per suffix scanned)
  let seenStamp = 0;
  const nextStamp = (): number => {
    if (seenStamp === 0x7fffffff) {
      seen.fill(-1);
      seenStamp = 0;
    }
    return ++seenStamp;
  };

  // Position bitmaps for dense databases (few distinct items, each occurring many times per
  // sequence): bit p of row (sid, item) is set when seqs[sid][p] === item. Built when the
  // alphabet is no larger than the average sequence length and the bitmaps fit in 32 MiB; used
  // for the last-in-last/first positions, for period checks with fewer candidates than period
  // items, and for the growth of nodes whose suffixes hold more items than the candidates.
  const bitRow = new Int32Array(itemCount).fill(-1);
  let bitItems = 0;
  let longest = 0;
  let total = 0;
  for (const s of seqs) {
    total += s.length;
    if (s.length > longest) longest = s.length;
    for (let p = 0; p < s.length; p++) if (bitRow[s[p]] < 0) bitRow[s[p]] = 0;
  }
  const rootItems: number[] = [];
  for (let it = 0; it < itemCount; it++) if (bitRow[it] === 0) rootItems.push(it);
  const words = Math.max(1, Math.ceil(longest / 32));
  const dense = options.bitmaps ?? (rootItems.length <= total / n && n * rootItems.length * words <= 1 << 23);
  let bits: Uint32Array | null = null;
  let scratchQ = new Int32Array(0);
  const rootCand = Int32Array.from(rootItems);
  if (dense) {
    bitItems = rootItems.length;
    rootItems.forEach((it, r) => (bitRow[it] = r));
    bits = new Uint32Array(n * bitItems * words);
    for (let sid = 0; sid < n; sid++) {
      const s = seqs[sid];
      const base = sid * bitItems;
      for (let p = 0; p < s.length; p++) bits[(base + bitRow[s[p]]) * words + (p >>> 5)] |= 1 << (p & 31);
    }
  }
  const bitsOf = bits ?? new Uint32Array(0);
  /** First position ≥ from of row `row` (word offset), or -1. */
  const nextBit = (row: number, from: number): number => {
    let w = from >>> 5;
    if (w >= words) return -1;
    let word = bitsOf[row + w] & (0xffffffff << (from & 31));
    while (word === 0) {
      if (++w === words) return -1;
      word = bitsOf[row + w];
    }
    return (w << 5) + (31 - Math.clz32(word & -word));
  };
  /** Last position < before of row `row` (word offset), or -1. */
  const prevBit = (row: number, before: number): number => {
    if (before <= 0) return -1;
    const b = before - 1;
    let w = b >>> 5;
    let word = bitsOf[row + w] & (0xffffffff >>> (31 - (b & 31)));
    while (word === 0) {
      if (--w < 0) return -1;
      word = bitsOf[row + w];
    }
    return (w << 5) + (31 - Math.clz32(word));
  };
  // first[d][sid]: position of the d-th prefix item in the first instance of the prefix in sequence sid
  const first: Int32Array[] = [];
  const prefix: number[] = [];
  const scratchLL: number[] = [];

  const firstAt = (d: number): Int32Array => {
    while (first.length <= d) first.push(new Int32Array(n));
    return first[d];
  };

  /** Computes last-in-last (mode 0) or last-in-first (mode 1) positions of the prefix in `sid` into scratchLL. */
  const lastIn = (sid: number, depth: number, mode: 0 | 1): void => {
    if (bits) {
      const base = sid * bitItems;
      let p = mode === 0 ? prevBit((base + bitRow[prefix[depth - 1]]) * words, seqs[sid].length) : first[depth - 1][sid];
      scratchLL[depth - 1] = p;
      for (let i = depth - 2; i >= 0; i--) {
        p = prevBit((base + bitRow[prefix[i]]) * words, p);
        scratchLL[i] = p;
      }
      return;
    }
    const s = seqs[sid];
    let p: number;
    if (mode === 0) {
      // LL_n: last occurrence of e_n
      p = s.length - 1;
      while (s[p] !== prefix[depth - 1]) p--;
    } else p = first[depth - 1][sid];
    scratchLL[depth - 1] = p;
    for (let i = depth - 2; i >= 0; i--) {
      p--;
      while (s[p] !== prefix[i]) p--;
      scratchLL[i] = p;
    }
  };

  // candidate items of the i-th period, shared by all i: cand[candAt[i] .. candAt[i] + candLen[i])
  let cand = new Int32Array(Math.max(16, itemCount));
  const candAt: number[] = [];
  const candLen: number[] = [];

  /**
   * Backward extension (mode 0, maximum periods) or BackScan (mode 1, semi-maximum periods):
   * is there, for some i, an item in the i-th period of every supporting sequence?
   * The sequences are visited one by one with the candidates of every period at once, so the
   * check stops at the first sequence that leaves no candidate (often the second or third).
   */
  const hasBackward = (sids: Int32Array, m: number, depth: number, mode: 0 | 1): boolean => {
    let alive = 0;
    for (let k = 0; k < m; k++) {
      const sid = sids[k];
      const s = seqs[sid];
      lastIn(sid, depth, mode);
      if (k === 0) {
        // the candidates: the distinct items of each period of the first sequence
        let used = 0;
        for (let i = 0; i < depth; i++) {
          const lo = i === 0 ? 0 : first[i - 1][sid] + 1;
          const hi = scratchLL[i];
          if (used + (hi - lo) > cand.length) {
            const grown = new Int32Array(Math.max(cand.length * 2, used + (hi - lo)));
            grown.set(cand.subarray(0, used));
            cand = grown;
          }
          const stamp = ++markStamp;
          candAt[i] = used;
          for (let p = lo; p < hi; p++) {
            const it = s[p];
            if (mark[it] !== stamp) {
              mark[it] = stamp;
              cand[used++] = it;
            }
          }
          candLen[i] = used - candAt[i];
          if (candLen[i] > 0) alive++;
        }
      } else {
        for (let i = 0; i < depth; i++) {
          const len = candLen[i];
          if (len === 0) continue;
          const lo = i === 0 ? 0 : first[i - 1][sid] + 1;
          const hi = scratchLL[i];
          const at = candAt[i];
          let w = at;
          if (bits && len < hi - lo) {
            // a candidate is in [lo, hi) when its next occurrence from lo is before hi
            const base = sid * bitItems;
            for (let c = at; c < at + len; c++) {
              const x = nextBit((base + bitRow[cand[c]]) * words, lo);
              if (x >= 0 && x < hi) cand[w++] = cand[c];
            }
          } else {
            const stamp = ++markStamp;
            for (let p = lo; p < hi; p++) mark[s[p]] = stamp;
            for (let c = at; c < at + len; c++) if (mark[cand[c]] === stamp) cand[w++] = cand[c];
          }
          candLen[i] = w - at;
          if (w === at) alive--;
        }
      }
      if (alive === 0) return false;
    }
    return true;
  };

  type Child = { item: number; sids: Int32Array; starts: Int32Array; m: number };

  /** Scan growth: counts the items of the projected suffixes, then records the first occurrence of each frequent one. */
  const childrenByScan = (sids: Int32Array, starts: Int32Array, m: number): { children: Child[]; forwardClosed: boolean } => {
    const touched: number[] = [];
    for (let k = 0; k < m; k++) {
      const s = seqs[sids[k]];
      const stamp = nextStamp();
      for (let p = starts[k]; p < s.length; p++) {
        const it = s[p];
        if (seen[it] !== stamp) {
          seen[it] = stamp;
          if (count[it] === 0) touched.push(it);
          count[it]++;
        }
      }
    }
    let forwardClosed = true;
    const frequent: number[] = [];
    let total = 0;
    for (const it of touched) {
      if (count[it] === m) forwardClosed = false;
      if (count[it] >= minSup) {
        frequent.push(it);
        total += count[it];
      }
    }
    frequent.sort((a, b) => a - b);
    const children: Child[] = [];
    if (frequent.length) {
      const cs = new Int32Array(total);
      const ct = new Int32Array(total);
      let off = 0;
      for (const it of frequent) {
        slot[it] = children.length;
        children.push({ item: it, sids: cs.subarray(off, off + count[it]), starts: ct.subarray(off, off + count[it]), m: 0 });
        off += count[it];
      }
      for (let k = 0; k < m; k++) {
        const sid = sids[k];
        const s = seqs[sid];
        const stamp = nextStamp();
        for (let p = starts[k]; p < s.length; p++) {
          const it = s[p];
          if (seen[it] !== stamp) {
            seen[it] = stamp; // first occurrence in this suffix
            const c = slot[it];
            if (c >= 0) {
              const ch = children[c];
              ch.sids[ch.m] = sid;
              ch.starts[ch.m] = p + 1;
              ch.m++;
            }
          }
        }
      }
    }
    for (const it of touched) {
      count[it] = 0;
      slot[it] = -1;
    }
    return { children, forwardClosed };
  };

  /**
   * Bitmap growth (dense databases): for each candidate item (the parent's frequent items), its
   * next occurrence in each projected suffix is one or two word operations on the position bitmaps.
   */
  const childrenByBits = (sids: Int32Array, starts: Int32Array, m: number, cand: Int32Array): { children: Child[]; forwardClosed: boolean } => {
    const nc = cand.length;
    if (scratchQ.length < m * nc) scratchQ = new Int32Array(Math.max(m * nc, scratchQ.length * 2));
    const q = scratchQ;
    const cnt = new Int32Array(nc);
    for (let k = 0; k < m; k++) {
      const sid = sids[k];
      const st = starts[k];
      const base = sid * bitItems;
      const qk = k * nc;
      for (let j = 0; j < nc; j++) {
        const at = nextBit((base + bitRow[cand[j]]) * words, st);
        q[qk + j] = at;
        if (at >= 0) cnt[j]++;
      }
    }
    let forwardClosed = true;
    const children: Child[] = [];
    const cols: number[] = [];
    let total = 0;
    for (let j = 0; j < nc; j++) {
      if (cnt[j] === m) forwardClosed = false;
      if (cnt[j] >= minSup) {
        cols.push(j);
        total += cnt[j];
      }
    }
    if (cols.length) {
      const cs = new Int32Array(total);
      const ct = new Int32Array(total);
      let off = 0;
      for (const j of cols) {
        children.push({ item: cand[j], sids: cs.subarray(off, off + cnt[j]), starts: ct.subarray(off, off + cnt[j]), m: 0 });
        off += cnt[j];
      }
      for (let k = 0; k < m; k++) {
        const sid = sids[k];
        const qk = k * nc;
        for (let c = 0; c < cols.length; c++) {
          const at = q[qk + cols[c]];
          if (at >= 0) {
            const ch = children[c];
            ch.sids[ch.m] = sid;
            ch.starts[ch.m] = at + 1;
            ch.m++;
          }
        }
      }
    }
    return { children, forwardClosed };
  };

  const grow = (sids: Int32Array, starts: Int32Array, m: number, depth: number, pruned: boolean, cand: Int32Array | null): void => {
    if (depth > 0) res.nodes++;
    // depth = |prefix| ≥ 1 here; m = support
    const atMax = depth >= maxLen;
    // BackScan first: an item in every semi-maximum period means no descendant (shorter than L) is
    // closed, and this node is not closed either (a semi-maximum period lies inside the maximum
    // period, so that item is a backward extension)
    let scanned = false;
    if (closed && depth > 0 && !pruned && !atMax && hasBackward(sids, m, depth, 1)) {
      if (maxLen === Infinity) return;
      scanned = true;
    }
    let children: Child[] = [];
    let forwardClosed = true;
    if (!atMax) {
      // bitmaps cost about one step per (suffix, candidate item), scans one step per suffix item:
      // take the cheaper at this node (long suffixes over a few items: bitmaps)
      let useBits = false;
      if (cand && options.bitmaps === true) useBits = true;
      else if (cand) {
        let suffixItems = 0;
        for (let k = 0; k < m; k++) suffixItems += seqs[sids[k]].length - starts[k];
        useBits = 1.5 * m * cand.length < suffixItems;
      }
      const g = useBits ? childrenByBits(sids, starts, m, cand!) : childrenByScan(sids, starts, m);
      children = g.children;
      forwardClosed = g.forwardClosed;
    }
    // report
    let report: boolean;
    if (depth === 0) report = false;
    else if (!closed) report = true;
    else if (atMax) report = true;
    else if (pruned || scanned) report = false;
    else report = forwardClosed && !hasBackward(sids, m, depth, 0);
    if (report) {
      if (out.length >= maxPatterns) {
        res.truncated = true;
        return;
      }
      out.push({ items: prefix.slice(0, depth), support: m });
    }
    if (atMax) return;
    const childPruned = pruned || scanned;
    const childCand = cand ? Int32Array.from(children, (c) => c.item) : null;
    const fd = firstAt(depth);
    for (const c of children) {
      if (res.truncated) return;
      for (let k = 0; k < c.m; k++) fd[c.sids[k]] = c.starts[k] - 1;
      prefix[depth] = c.item;
      grow(c.sids, c.starts, c.m, depth + 1, childPruned, childCand);
    }
    children = [];
  };

  // the root: the empty prefix, every sequence from position 0
  const all = new Int32Array(n);
  for (let sid = 0; sid < n; sid++) all[sid] = sid;
  grow(all, new Int32Array(n), n, 0, false, bits ? rootCand : null);
  return res;
}

/** Is `p` a (not necessarily contiguous) subsequence of `s`? */
export function isSubsequence(p: ArrayLike<number>, s: ArrayLike<number>): boolean {
  let k = 0;
  for (let i = 0; i < s.length && k < p.length; i++) if (s[i] === p[k]) k++;
  return k === p.length;
}

/** Is `p` a substring (contiguous) of `s`? */
export function isSubstring(p: ArrayLike<number>, s: ArrayLike<number>): boolean {
  outer: for (let i = 0; i + p.length <= s.length; i++) {
    for (let j = 0; j < p.length; j++) if (s[i + j] !== p[j]) continue outer;
    return true;
  }
  return false;
}
