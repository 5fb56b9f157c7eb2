/**
 * The set of pattern ids found in one run: a growable byte map plus the list
 * of ids, cheaper than a Set on the hot path (every pair adds its pattern).
 * It also keeps, per pattern, the earliest end (global index of the last
 * access) of its occurrences, which tells whether the pattern occurred
 * before the run's failure point (cause vs consequence).
 */
export class PatternSet {
  private seen = new Uint8Array(1024);
  private ends = new Float64Array(1024);
  readonly ids: number[] = [];

  /** Adds pattern `id` occurring up to global index `end` (-1: unknown, counts as early). */
  add(id: number, end = -1): void {
    // fast path, small enough to be inlined in the pair window's loop: a pattern already found in this run
    if (id < this.seen.length && this.seen[id] === 1) {
      if (end < this.ends[id]) this.ends[id] = end;
      return;
    }
    this.addNew(id, end);
  }

  private addNew(id: number, end: number): void {
    if (id >= this.seen.length) {
      let n = this.seen.length;
      while (n <= id) n *= 2;
      const grown = new Uint8Array(n);
      grown.set(this.seen);
      this.seen = grown;
      const ends = new Float64Array(n);
      ends.set(this.ends);
      this.ends = ends;
    }
    if (this.seen[id] === 0) {
      this.seen[id] = 1;
      this.ends[id] = end;
      this.ids.push(id);
    } else if (end < this.ends[id]) this.ends[id] = end;
  }

  /** The earliest end of pattern `id`'s occurrences (-1 unknown). */
  earliestEnd(id: number): number {
    return id < this.seen.length && this.seen[id] ? this.ends[id] : -1;
  }

  get size(): number {
    return this.ids.length;
  }
}
