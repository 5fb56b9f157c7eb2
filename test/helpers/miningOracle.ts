/**
 * Brute-force reference for the miner tests: all frequent subsequences (by enumerating the
 * distinct subsequences of every sequence up to a length) and the closed ones among them.
 */
/** Whether a occurs in b in order (gaps allowed); the oracle's own, not the miner's. */
function isSubsequence(a: number[], b: number[]): boolean {
  let k = 0;
  for (let i = 0; i < b.length && k < a.length; i++) if (b[i] === a[k]) k++;
  return k === a.length;
}

export function bruteForce(seqs: number[][], minSup: number, maxLen: number, closed: boolean): Map<string, number> {
  const support = new Map<string, number>();
  for (const s of seqs) {
    const mine = new Set<string>();
    const rec = (start: number, acc: number[]) => {
      if (acc.length) mine.add(acc.join(' '));
      if (acc.length >= maxLen) return;
      const used = new Set<number>();
      for (let i = start; i < s.length; i++) {
        if (used.has(s[i])) continue; // the leftmost occurrence covers the others
        used.add(s[i]);
        acc.push(s[i]);
        rec(i + 1, acc);
        acc.pop();
      }
    };
    rec(0, []);
    for (const k of mine) support.set(k, (support.get(k) ?? 0) + 1);
  }
  const freq = new Map([...support].filter(([, v]) => v >= minSup));
  if (!closed) return freq;
  const out = new Map<string, number>();
  const parsed = [...freq].map(([k, v]) => ({ k, v, a: k.split(' ').map(Number) }));
  for (const p of parsed) {
    const sub = parsed.some((q) => q.v === p.v && q.a.length > p.a.length && isSubsequence(p.a, q.a));
    if (!sub) out.set(p.k, p.v);
  }
  return out;
}

/** Deterministic pseudo-random generator (re-exported for the mining tests). */
export { rng } from './seededRandom';
