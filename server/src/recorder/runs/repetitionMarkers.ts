/**
 * Repetitions of a test in one JVM or one Node.js process (java/repeatedRuns.ts, node/nodeRepetitions.ts)
 * tell the session where each run starts and ends with marker lines in their output: `REPETITION_MARK`
 * followed by a JSON object and a newline. MarkerSplitter splits one output stream into the program's
 * text and those markers.
 */
export const REPETITION_MARK = '@@braid-repetition@@';

/**
 * Splits one output stream into text and marker lines. Text is passed on as it arrives (a partial
 * line that may still become a marker is held back until the rest arrives, or `end`).
 */
export class MarkerSplitter {
  private held = '';

  constructor(
    private readonly onText: (text: string) => void,
    private readonly onMarker: (json: string) => void,
  ) {}

  push(text: string): void {
    let s = this.held + text;
    this.held = '';
    for (;;) {
      const k = s.indexOf(REPETITION_MARK);
      if (k < 0) break;
      const nl = s.indexOf('\n', k);
      if (nl < 0) {
        if (k > 0) this.onText(s.slice(0, k));
        this.held = s.slice(k);
        return;
      }
      if (k > 0) this.onText(s.slice(0, k));
      this.onMarker(s.slice(k + REPETITION_MARK.length, nl));
      s = s.slice(nl + 1);
    }
    // the end of s may be the start of a marker
    let keep = 0;
    for (let n = Math.min(REPETITION_MARK.length - 1, s.length); n > 0; n--) {
      if (REPETITION_MARK.startsWith(s.slice(s.length - n))) {
        keep = n;
        break;
      }
    }
    if (s.length - keep > 0) this.onText(s.slice(0, s.length - keep));
    this.held = s.slice(s.length - keep);
  }

  end(): void {
    if (this.held) this.onText(this.held);
    this.held = '';
  }
}
