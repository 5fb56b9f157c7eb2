/**
 * The set of pattern ids found in one run: a growable byte map plus the list
 * of ids, cheaper than a Set on the hot path (every pair adds its pattern).
 */
export class PatternSet {
  private seen = new Uint8Array(1024);
  readonly ids: number[] = [];

  add(id: number): void {
    if (id >= this.seen.length) {
      let n = this.seen.length;
      while (n <= id) n *= 2;
      const grown = new Uint8Array(n);
      grown.set(this.seen);
      this.seen = grown;
    }
    if (this.seen[id] === 0) {
      this.seen[id] = 1;
      this.ids.push(id);
    }
  }

  get size(): number {
    return this.ids.length;
  }
}
