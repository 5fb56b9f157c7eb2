/**
 * A module's inline source map (a TS loader's output, a bundle) for the Node.js recorder's transform
 * (transform.ts): generated line → original (file, line) for each instrumented site, and the
 * incoming segment under a generated position when the transform composes its own map with it.
 *
 * The map is decoded once, straight into typed arrays (no object per segment), and indexed per
 * generated line with its segments sorted by column; a lookup is a binary search (issue 39: a large
 * minified file with an inline map cost 38 s per start — one long line, each site scanning all its
 * segments, and the map decoded twice).
 */
export const INLINE_SOURCE_MAP = /\/\/[#@] sourceMappingURL=data:application\/json(?:;charset=[^;,]+)?;base64,([A-Za-z0-9+/=]+)\s*$/;

/** The fields of the incoming map that the composed map keeps. */
export interface SourceMapHead {
  file?: string;
  sourceRoot?: string;
  sources: string[];
  sourcesContent?: string[];
}

const B64 = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, k) => (B64[c.charCodeAt(0)] = k));

class MapError extends Error {}

export class InlineSourceMap {
  /** per generated line (0-based): its segments are [lineStart[l], lineStart[l + 1]) of the arrays below, by column */
  private lineStart = new Int32Array(1);
  private cols = new Int32Array(0);
  private srcs = new Int32Array(0);
  private srcLines = new Int32Array(0);
  private srcCols = new Int32Array(0);
  private nLines = 0;
  head: SourceMapHead = { sources: [] };

  constructor(code: string) {
    const m = INLINE_SOURCE_MAP.exec(code);
    if (!m) return;
    try {
      const map = JSON.parse(Buffer.from(m[1], 'base64').toString('utf8')) as Record<string, unknown>;
      const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : '')) : undefined);
      this.head = {
        ...(typeof map.file === 'string' ? { file: map.file } : {}),
        ...(typeof map.sourceRoot === 'string' ? { sourceRoot: map.sourceRoot } : {}),
        sources: strings(map.sources) ?? [],
        ...(Array.isArray(map.sourcesContent) ? { sourcesContent: strings(map.sourcesContent) } : {}),
      };
      if (typeof map.mappings !== 'string') throw new MapError('no mappings');
      this.index(map.mappings);
    } catch {
      this.nLines = 0;
    }
  }

  /** Decodes the `mappings` VLQ string into the typed arrays, keeping the segments with a source position. */
  private index(mappings: string): void {
    const len = mappings.length;
    let max = 1;
    let lines = 1;
    for (let k = 0; k < len; k++) {
      const c = mappings.charCodeAt(k);
      if (c === 44 /* , */) max++;
      else if (c === 59 /* ; */) (lines++, max++);
    }
    const cols = new Int32Array(max);
    const srcs = new Int32Array(max);
    const srcLines = new Int32Array(max);
    const srcCols = new Int32Array(max);
    const lineStart = new Int32Array(lines + 1);
    const fields = [0, 0, 0, 0, 0];
    let n = 0;
    let line = 0;
    let lineFrom = 0;
    let col = 0;
    let src = 0;
    let srcLine = 0;
    let srcCol = 0;
    const endLine = () => {
      // a well-formed map lists a line's segments by column; sorted here otherwise
      for (let k = lineFrom + 1; k < n; k++) {
        if (cols[k] < cols[k - 1]) {
          this.sortRange(lineFrom, n, cols, srcs, srcLines, srcCols);
          break;
        }
      }
      lineStart[++line] = n;
      lineFrom = n;
      col = 0;
    };
    let at = 0;
    while (at < len) {
      const c = mappings.charCodeAt(at);
      if (c === 59 /* ; */) {
        endLine();
        at++;
        continue;
      }
      if (c === 44 /* , */) {
        at++;
        continue;
      }
      // one segment: 1, 4 or 5 VLQ fields
      let f = 0;
      while (at < len) {
        const ch = mappings.charCodeAt(at);
        if (ch === 44 || ch === 59) break;
        let value = 0;
        let shift = 0;
        let digit: number;
        do {
          if (at >= len) throw new MapError('the mappings end inside a number');
          const code = mappings.charCodeAt(at++);
          digit = code < 128 ? B64[code] : -1;
          if (digit < 0) throw new MapError('not base64');
          value += (digit & 31) * 2 ** shift;
          shift += 5;
          if (shift > 35) throw new MapError('a number too long');
        } while (digit & 32);
        if (f >= 5) throw new MapError('a segment of more than 5 fields');
        fields[f++] = value % 2 === 1 ? -(value - 1) / 2 : value / 2;
      }
      col += fields[0];
      // positions are never below zero (the source map spec): a map whose deltas say otherwise is broken and not used
      if (col < 0) throw new MapError('a generated column below zero');
      if (f >= 4) {
        src += fields[1];
        srcLine += fields[2];
        srcCol += fields[3];
        if (src < 0 || srcLine < 0 || srcCol < 0) throw new MapError('a source position below zero');
        cols[n] = col;
        srcs[n] = src;
        srcLines[n] = srcLine;
        srcCols[n] = srcCol;
        n++;
      }
    }
    endLine();
    this.nLines = line;
    this.lineStart = lineStart.subarray(0, line + 1);
    this.cols = cols;
    this.srcs = srcs;
    this.srcLines = srcLines;
    this.srcCols = srcCols;
  }

  private sortRange(from: number, to: number, ...arrays: Int32Array[]): void {
    const order = Array.from({ length: to - from }, (_, k) => from + k).sort((a, b) => arrays[0][a] - arrays[0][b]);
    for (const a of arrays) {
      const copy = order.map((k) => a[k]);
      for (let k = 0; k < copy.length; k++) a[from + k] = copy[k];
    }
  }

  get active(): boolean {
    return this.nLines > 0;
  }

  /**
   * The segment under a generated position (line 0-based, column 0-based): the last one of the line
   * that starts at or before the column, or the line's first (`orFirst`); -1 when there is none.
   */
  segmentAt(line: number, col: number, orFirst: boolean): number {
    if (line < 0 || line >= this.nLines) return -1;
    let lo = this.lineStart[line];
    let hi = this.lineStart[line + 1] - 1;
    if (hi < lo) return -1;
    if (this.cols[lo] > col) return orFirst ? lo : -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.cols[mid] <= col) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** A segment's source index, original line and column (0-based). */
  original(k: number): [number, number, number] {
    return [this.srcs[k], this.srcLines[k], this.srcCols[k]];
  }

  /** Original line (1-based) and source of a generated position (line 1-based, column 0-based). */
  map(line: number, col: number): { line: number; source?: string } {
    const k = this.segmentAt(line - 1, col, true);
    if (k < 0) return { line };
    return { line: this.srcLines[k] + 1, source: this.head.sources[this.srcs[k]] };
  }
}
