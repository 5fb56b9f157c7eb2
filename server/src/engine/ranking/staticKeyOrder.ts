/**
 * The order of a registry's patterns by their stable static key
 * (PatternRegistry.patternKey, compared as strings with `<`): the last
 * tie-break of the listed order (rootCauseOrder.ts). Sorting the patterns by
 * their key strings builds one string per pattern; here each pattern keeps
 * the interned tokens its key is made of, and the patterns are radix-sorted
 * by the tokens' ranks, so the order is computed without a string per
 * pattern and kept across rank() calls (patterns are only ever added).
 *
 * Why it is the same order: a key is `P<n>|a1|a2|…|ak` with ak the last
 * access key (PatternRegistry.accessKey). Read as the tokens `P<n>|`,
 * `a1|`, …, `ak`, two keys compare as their first differing token, because
 * tokens ending in `|` and containing no other `|` are prefix-free, and
 * patterns of one definition have the same number of accesses (their last
 * tokens are at the same place). Tokens are ranked by the same `<`. When an
 * access key contains a `|` (a variable or file name with one), the keys'
 * strings are sorted instead.
 */
import { PATTERNS } from '../unicorn/patternCatalog';
import type { PatternRegistry } from '../unicorn/patternRegistry';

/** rank of `P<n>|` among the 17 definitions, by definition number n */
const DEF_RANK: Int32Array = (() => {
  const ids = PATTERNS.map((d) => d.n).sort((a, b) => {
    const x = `P${a}|`;
    const y = `P${b}|`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const r = new Int32Array(PATTERNS.length + 1);
  ids.forEach((n, k) => (r[n] = k));
  return r;
})();

export class StaticKeyOrder {
  /** patterns whose tokens are interned */
  private interned = 0;
  /** per pattern: its definition number */
  private defs = new Uint8Array(1024);
  /** per pattern: 4 token ids + 1 (0: no access there) */
  private toks = new Int32Array(4096);
  /** per (static access, role, last): its token id + 1 */
  private tokenIds = new Int32Array(0);
  private readonly tokens: string[] = [];
  /** a token contains "|": sort the keys' strings */
  private pipe = false;
  private sorted: Int32Array = new Int32Array(0);
  private sortedFor = -1;

  constructor(private readonly reg: PatternRegistry) {}

  /** Every pattern id of the registry, ascending by static key (ids ascending among equal keys). */
  order(): Int32Array {
    const n = this.reg.patterns.length;
    if (n === this.sortedFor) return this.sorted;
    const known = this.sortedFor;
    this.intern(n);
    if (this.pipe) this.sorted = this.byStrings(n);
    // a few new patterns (one more trace): sorted apart and merged in
    else if (known > 0 && n - known <= known / 8) this.sorted = this.merged(known, n);
    else this.sorted = this.byTokens(n);
    this.sortedFor = n;
    return this.sorted;
  }

  /** Dense ranks of the tokens (equal strings share a rank), 1-based; 0 = no token. */
  private tokenRanks(): { rank: Int32Array; max: number } {
    const T = this.tokens.length;
    if (this.ranks && this.ranks.rank.length === T + 1) return this.ranks;
    const byString = Array.from({ length: T }, (_, k) => k);
    const tokens = this.tokens;
    byString.sort((a, b) => (tokens[a] < tokens[b] ? -1 : tokens[a] > tokens[b] ? 1 : 0));
    const rank = new Int32Array(T + 1);
    let r = 0;
    for (let k = 0; k < T; k++) {
      if (k === 0 || tokens[byString[k]] !== tokens[byString[k - 1]]) r++;
      rank[byString[k] + 1] = r;
    }
    return (this.ranks = { rank, max: r });
  }

  private ranks: { rank: Int32Array; max: number } | undefined;

  /** The sorted patterns [0, known) with the patterns [known, n) merged in (new tokens keep the old order). */
  private merged(known: number, n: number): Int32Array {
    const { rank } = this.tokenRanks();
    const toks = this.toks;
    const defs = this.defs;
    const cmp = (a: number, b: number) => {
      const d = DEF_RANK[defs[a]] - DEF_RANK[defs[b]];
      if (d !== 0) return d;
      for (let f = 0; f < 4; f++) {
        const x = rank[toks[a * 4 + f]] - rank[toks[b * 4 + f]];
        if (x !== 0) return x;
      }
      return a - b;
    };
    const added = Array.from({ length: n - known }, (_, k) => known + k).sort(cmp);
    const old = this.sorted;
    const out = new Int32Array(n);
    let i = 0;
    let j = 0;
    let k = 0;
    // ids of equal keys stay ascending: an old id (smaller) before a new one
    while (i < old.length && j < added.length) out[k++] = cmp(old[i], added[j]) < 0 ? old[i++] : added[j++];
    while (i < old.length) out[k++] = old[i++];
    while (j < added.length) out[k++] = added[j++];
    return out;
  }

  private intern(n: number): void {
    const reg = this.reg;
    if (n > this.defs.length) {
      const d = new Uint8Array(Math.max(n, this.defs.length * 2));
      d.set(this.defs);
      this.defs = d;
      const t = new Int32Array(4 * d.length);
      t.set(this.toks);
      this.toks = t;
    }
    const need = reg.accesses.length * 4;
    if (need > this.tokenIds.length) {
      const g = new Int32Array(Math.max(need, this.tokenIds.length * 2));
      g.set(this.tokenIds);
      this.tokenIds = g;
    }
    for (let id = this.interned; id < n; id++) {
      const def = reg.patternDef(id);
      const accs = reg.patternColumn(id, 0) as number[];
      this.defs[id] = def.n;
      const len = accs.length;
      for (let k = 0; k < 4; k++) {
        if (k >= len) {
          this.toks[id * 4 + k] = 0;
          continue;
        }
        const sacc = accs[k];
        const last = k === len - 1 ? 1 : 0;
        const slot = sacc * 4 + (def.roles[k] - 1) * 2 + last;
        if (slot >= this.tokenIds.length) {
          const g = new Int32Array(Math.max(slot + 1, this.tokenIds.length * 2));
          g.set(this.tokenIds);
          this.tokenIds = g;
        }
        let t = this.tokenIds[slot];
        if (t === 0) {
          const key = reg.accessKey(sacc, def.roles[k]);
          if (key.includes('|')) this.pipe = true;
          this.tokens.push(last ? key : key + '|');
          this.tokenIds[slot] = t = this.tokens.length;
        }
        this.toks[id * 4 + k] = t;
      }
    }
    this.interned = n;
  }

  /** LSD radix sort by (definition, token 1..4), each token by its rank among all tokens. */
  private byTokens(n: number): Int32Array {
    const { rank, max: r } = this.tokenRanks();
    let src: Int32Array = new Int32Array(n);
    for (let k = 0; k < n; k++) src[k] = k;
    let dst: Int32Array = new Int32Array(n);
    const count = new Int32Array(Math.max(r + 1, PATTERNS.length) + 1);
    const toks = this.toks;
    const defs = this.defs;
    for (let field = 3; field >= -1; field--) {
      count.fill(0);
      if (field < 0) {
        for (let id = 0; id < n; id++) count[DEF_RANK[defs[id]] + 1]++;
        for (let b = 1; b < count.length; b++) count[b] += count[b - 1];
        for (let k = 0; k < n; k++) {
          const id = src[k];
          dst[count[DEF_RANK[defs[id]]]++] = id;
        }
      } else {
        // the counts do not depend on the order: read the tokens in id order (sequential)
        for (let id = 0; id < n; id++) count[rank[toks[id * 4 + field]] + 1]++;
        for (let b = 1; b < count.length; b++) count[b] += count[b - 1];
        for (let k = 0; k < n; k++) {
          const id = src[k];
          dst[count[rank[toks[id * 4 + field]]]++] = id;
        }
      }
      const t = src;
      src = dst;
      dst = t;
    }
    return src;
  }

  private byStrings(n: number): Int32Array {
    const keys: string[] = new Array(n);
    for (let id = 0; id < n; id++) keys[id] = this.reg.patternKey(id);
    const ids = Array.from({ length: n }, (_, k) => k);
    ids.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    return Int32Array.from(ids);
  }
}
