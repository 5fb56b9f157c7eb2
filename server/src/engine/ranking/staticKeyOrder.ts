/**
 * The order of a registry's patterns by their stable static key
 * (PatternRegistry.patternKey, compared as strings with `<`): the last
 * tie-break of the listed order (rootCauseOrder.ts). Sorting the patterns by
 * their key strings builds one string per pattern; here the order is computed
 * from small integer ranks, with no string per pattern or per access key, and
 * kept across rank() calls (patterns are only ever added).
 *
 * Why it is the same order: a key is `P<n>|a1|a2|…|ak` with ak the last
 * access key (PatternRegistry.accessKey, `<T><role>:<variable>@<file>:<line>`).
 * Read as the tokens `P<n>|`, `a1|`, …, `ak`, two keys compare as their first
 * differing token, because tokens ending in `|` and containing no other `|`
 * are prefix-free, and patterns of one definition have the same number of
 * accesses (their last tokens are at the same place). A token is in turn read
 * as the parts `<T><role>:` (three characters), `<variable>@`, `<file>:` and
 * `<line>|` (or `<line>` for the last token): while no variable contains `@`
 * and no file contains `:`, each part's strings are prefix-free too (the last
 * part is last), so tokens compare as their parts' ranks: only the distinct
 * variables, files and lines are sorted as strings. A token is then ranked by
 * (type and role, rank of its static access' variable, file and line). With
 * `@` or `:` in such names the static accesses' key strings are sorted
 * instead (one string per static access); when an access key contains a `|`,
 * the patterns' key strings.
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
/** the definition number of each rank (DEF_RANK inverted) */
const DEF_OF_RANK = new Uint8Array(PATTERNS.length);
for (const d of PATTERNS) DEF_OF_RANK[DEF_RANK[d.n]] = d.n;
/** per definition number n and access k: the role (1|2) at n * 4 + k; and the number of accesses at n */
const DEF_ROLES = new Uint8Array((PATTERNS.length + 1) * 4);
const DEF_LENGTH = new Uint8Array(PATTERNS.length + 1);
/** per definition number n and access k: the slot of the access' token in a static access' four, (role - 1) · 2 + last */
const DEF_SLOTS = new Uint8Array((PATTERNS.length + 1) * 4);
for (const d of PATTERNS) {
  DEF_LENGTH[d.n] = d.kind.length;
  d.roles.forEach((r, k) => {
    DEF_ROLES[d.n * 4 + k] = r;
    DEF_SLOTS[d.n * 4 + k] = (r - 1) * 2 + (k === d.kind.length - 1 ? 1 : 0);
  });
}

const byString = (keys: string[]) => (a: number, b: number) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0);

/** Dense ranks (0-based) of `ids` sorted with `cmp` (equal under cmp: equal rank), written to out[id]; returns the number of ranks. */
function denseRanks(ids: number[], cmp: (a: number, b: number) => number, out: Int32Array): number {
  ids.sort(cmp);
  let r = -1;
  for (let k = 0; k < ids.length; k++) {
    if (k === 0 || cmp(ids[k - 1], ids[k]) !== 0) r++;
    out[ids[k]] = r;
  }
  return r + 1;
}

export class StaticKeyOrder {
  /** per static access: rank of its key without `<T><role>:`, as a middle token (`…|`) and as the last token */
  private restMid = new Int32Array(0);
  private restLast = new Int32Array(0);
  /** number of distinct rests (token ranks are below 4 · rests + 1) */
  private rests = 0;
  /** static accesses the ranks are for (-1: none yet) */
  private ranksFor = -1;
  /** an access key contains "|": sort the patterns' key strings */
  private pipe = false;
  private sorted: Int32Array = new Int32Array(0);
  private sortedFor = -1;

  constructor(private readonly reg: PatternRegistry) {}

  /** Every pattern id of the registry, ascending by static key (ids ascending among equal keys). */
  order(): Int32Array {
    const n = this.reg.patternCount;
    if (n === this.sortedFor) return this.sorted;
    const known = this.sortedFor;
    this.rankAccesses();
    if (this.pipe) this.sorted = this.byStrings(n);
    // a few new patterns (one more trace): sorted apart and merged in
    else if (known > 0 && n - known <= known / 8) this.sorted = this.merged(known, n);
    else this.sorted = this.byTokens(n);
    this.sortedFor = n;
    return this.sorted;
  }

  /** Rank (≥ 1) of pattern `id`'s token `k` (its access k), 0 when it has no access k. */
  private tokenRank(id: number, n: number, k: number): number {
    if (k >= DEF_LENGTH[n]) return 0;
    const s = this.reg.patternAccessAt(id, k);
    const typeRole = (this.reg.isWrite(s) ? 2 : 0) + DEF_ROLES[n * 4 + k] - 1;
    return 1 + typeRole * this.rests + (k === DEF_LENGTH[n] - 1 ? this.restLast[s] : this.restMid[s]);
  }

  /** Ranks every static access' key rest (variable, file, line), by parts or by strings (see the file comment). */
  private rankAccesses(): void {
    const reg = this.reg;
    const A = reg.accesses.length;
    if (A === this.ranksFor) return;
    this.ranksFor = A;
    const locs = reg.locs;
    const vars = reg.variables;
    let parts = true;
    for (const v of vars) {
      if (v.includes('|')) this.pipe = true;
      if (v.includes('@')) parts = false;
    }
    for (const l of locs) {
      if (l.file.includes('|')) this.pipe = true;
      if (l.file.includes(':')) parts = false;
    }
    if (this.pipe) return;
    this.restMid = new Int32Array(A);
    this.restLast = new Int32Array(A);
    if (!parts) {
      // one key string per static access
      const rest = (s: number) => {
        const a = reg.accesses[s];
        const l = locs[a.loc];
        return `${vars[a.variable]}@${l.file}:${l.line}`;
      };
      const keys: string[] = new Array(A);
      for (let s = 0; s < A; s++) keys[s] = rest(s) + '|';
      const ids = Array.from({ length: A }, (_, s) => s);
      const mid = denseRanks(ids, byString(keys), this.restMid);
      for (let s = 0; s < A; s++) keys[s] = keys[s].slice(0, -1);
      this.rests = Math.max(mid, denseRanks(ids, byString(keys), this.restLast));
      return;
    }
    const varKeys = vars.map((v) => v + '@');
    const varRank = new Int32Array(vars.length);
    const V = denseRanks(Array.from({ length: vars.length }, (_, k) => k), byString(varKeys), varRank);
    // per loc: rank of `<file>:<line>|` and of `<file>:<line>`
    const fileKeys = locs.map((l) => l.file + ':');
    const lineMid = locs.map((l) => `${l.line}|`);
    const lineLast = locs.map((l) => `${l.line}`);
    const locMid = new Int32Array(locs.length);
    const locLast = new Int32Array(locs.length);
    const locIds = Array.from({ length: locs.length }, (_, k) => k);
    const byFile = byString(fileKeys);
    const byMid = byString(lineMid);
    const byLast = byString(lineLast);
    const L = Math.max(
      denseRanks(locIds, (a, b) => byFile(a, b) || byMid(a, b), locMid),
      denseRanks(locIds, (a, b) => byFile(a, b) || byLast(a, b), locLast),
    );
    // per static access: dense rank of (variable rank, loc rank), by a two-pass counting sort
    const accVar = new Int32Array(A);
    const accLoc = new Int32Array(A);
    for (let s = 0; s < A; s++) {
      const a = reg.accesses[s];
      accVar[s] = varRank[a.variable];
      accLoc[s] = a.loc;
    }
    const tmp = new Int32Array(A);
    const out = new Int32Array(A);
    const count = new Int32Array(Math.max(V, L) + 1);
    let rests = 0;
    for (const [locRank, rest] of [
      [locMid, this.restMid],
      [locLast, this.restLast],
    ]) {
      count.fill(0);
      for (let s = 0; s < A; s++) count[locRank[accLoc[s]] + 1]++;
      for (let b = 1; b <= L; b++) count[b] += count[b - 1];
      for (let s = 0; s < A; s++) tmp[count[locRank[accLoc[s]]]++] = s;
      count.fill(0);
      for (let s = 0; s < A; s++) count[accVar[s] + 1]++;
      for (let b = 1; b <= V; b++) count[b] += count[b - 1];
      for (let k = 0; k < A; k++) {
        const s = tmp[k];
        out[count[accVar[s]]++] = s;
      }
      let r = -1;
      for (let k = 0; k < A; k++) {
        const s = out[k];
        if (k === 0 || accVar[s] !== accVar[out[k - 1]] || locRank[accLoc[s]] !== locRank[accLoc[out[k - 1]]]) r++;
        rest[s] = r;
      }
      rests = Math.max(rests, r + 1);
    }
    this.rests = rests;
  }

  /** The sorted patterns [0, known) with the patterns [known, n) merged in (ranks of all tokens, old and new). */
  private merged(known: number, n: number): Int32Array {
    const reg = this.reg;
    const cmp = (a: number, b: number) => {
      const na = reg.patternDef(a).n;
      const nb = reg.patternDef(b).n;
      const d = DEF_RANK[na] - DEF_RANK[nb];
      if (d !== 0) return d;
      for (let f = 0; f < 4; f++) {
        const x = this.tokenRank(a, na, f) - this.tokenRank(b, nb, f);
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

  /**
   * Radix sort: the patterns by definition (one counting pass in id order), then each definition's
   * patterns by their tokens, last to first (LSD passes over 11-bit digits of the tokens' ranks, on
   * the segment's positions: each pass stays within the segment's few MiB); small segments by
   * comparison.
   */
  private byTokens(n: number): Int32Array {
    const reg = this.reg;
    // per static access, role and last: the token's rank (one read per token below)
    const A = this.ranksFor;
    const R = this.rests;
    const tok = new Int32Array(4 * A);
    for (let s = 0; s < A; s++) {
      const t = reg.isWrite(s) ? 2 : 0;
      tok[s * 4] = 1 + t * R + this.restMid[s];
      tok[s * 4 + 1] = 1 + t * R + this.restLast[s];
      tok[s * 4 + 2] = 1 + (t + 1) * R + this.restMid[s];
      tok[s * 4 + 3] = 1 + (t + 1) * R + this.restLast[s];
    }
    const defs = new Uint8Array(n);
    const segStart = new Int32Array(PATTERNS.length + 2);
    for (let id = 0; id < n; id++) segStart[DEF_RANK[(defs[id] = reg.patternDef(id).n)] + 1]++;
    for (let d = 1; d < segStart.length; d++) segStart[d] += segStart[d - 1];
    // per segment: where its keys start (each of its patterns' tokens' ranks, field-major by position)
    const keyStart = new Int32Array(PATTERNS.length + 1);
    let longest = 0;
    for (let r = 0; r < PATTERNS.length; r++) {
      const m = segStart[r + 1] - segStart[r];
      longest = Math.max(longest, m);
      keyStart[r + 1] = keyStart[r] + DEF_LENGTH[DEF_OF_RANK[r]] * m;
    }
    const keys = new Int32Array(keyStart[PATTERNS.length]);
    const maxKey = new Int32Array(PATTERNS.length);
    const out = new Int32Array(n);
    const at = segStart.slice();
    // one pass in id order (the registry's columns read in order): each pattern to its segment, its keys
    for (let id = 0; id < n; id++) {
      const d = defs[id];
      const r = DEF_RANK[d];
      const from = segStart[r];
      const p = at[r]++ - from;
      out[from + p] = id;
      const m = segStart[r + 1] - from;
      const len = DEF_LENGTH[d];
      let max = maxKey[r];
      for (let f = 0; f < len; f++) {
        const v = (keys[keyStart[r] + f * m + p] = tok[reg.patternAccessAt(id, f) * 4 + DEF_SLOTS[d * 4 + f]]);
        if (v > max) max = v;
      }
      maxKey[r] = max;
    }
    let perm = new Int32Array(longest);
    let next = new Int32Array(longest);
    const ids = new Int32Array(longest);
    const count = new Int32Array(2049);
    for (let r = 0; r < PATTERNS.length; r++) {
      const from = segStart[r];
      const m = segStart[r + 1] - from;
      if (m < 2) continue;
      const d = defs[out[from]];
      const len = DEF_LENGTH[d];
      const max = maxKey[r];
      const kb = keyStart[r];
      for (let p = 0; p < m; p++) {
        ids[p] = out[from + p];
        perm[p] = p;
      }
      if (m < 2048) {
        // a small segment: sorted by comparing its tokens' ranks (positions, so ids, ascending among equal keys)
        const small = Array.from(perm.subarray(0, m));
        small.sort((a, b) => {
          for (let f = 0; f < len; f++) {
            const x = keys[kb + f * m + a] - keys[kb + f * m + b];
            if (x !== 0) return x;
          }
          return a - b;
        });
        for (let k = 0; k < m; k++) out[from + k] = ids[small[k]];
        continue;
      }
      for (let f = len - 1; f >= 0; f--) {
        const base = kb + f * m;
        for (let shift = 0; shift === 0 || (shift < 32 && max >>> shift > 0); shift += 11) {
          count.fill(0);
          for (let p = 0; p < m; p++) count[((keys[base + p] >>> shift) & 2047) + 1]++;
          for (let b = 1; b <= 2048; b++) count[b] += count[b - 1];
          for (let k = 0; k < m; k++) {
            const p = perm[k];
            next[count[(keys[base + p] >>> shift) & 2047]++] = p;
          }
          const t = perm;
          perm = next;
          next = t;
        }
      }
      for (let k = 0; k < m; k++) out[from + k] = ids[perm[k]];
    }
    return out;
  }

  private byStrings(n: number): Int32Array {
    const keys: string[] = new Array(n);
    for (let id = 0; id < n; id++) keys[id] = this.reg.patternKey(id);
    const ids = Array.from({ length: n }, (_, k) => k);
    ids.sort(byString(keys));
    return Int32Array.from(ids);
  }
}
