/**
 * Removes the lines the JVM prints because the runner put the agent in JAVA_TOOL_OPTIONS —
 * `Picked up JAVA_TOOL_OPTIONS: …` (one per JVM the command starts) and the class-data-sharing
 * warning caused by the agent's bootstrap class path — from a run's output, before it is matched
 * by `--fail-on-output`, written to the run's log or shown to the user. One filter per stream
 * (stdout, stderr): lines may arrive split across chunks, so a partial line that could still
 * become such a notice is held back until its end arrives (or the stream ends).
 */
const NOTICES = [
  'Picked up JAVA_TOOL_OPTIONS:',
  'OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes because bootstrap classpath has been appended',
  'Java HotSpot(TM) 64-Bit Server VM warning: Sharing is only supported for boot loader classes because bootstrap classpath has been appended',
];

function isNotice(line: string): boolean {
  return NOTICES.some((n) => line.startsWith(n));
}

/** True while `partial` (no line end yet) may still turn out to be a notice. */
function mayBeNotice(partial: string): boolean {
  return NOTICES.some((n) => (partial.length <= n.length ? n.startsWith(partial) : partial.startsWith(n)));
}

export class JvmNoticeFilter {
  /** Start of the current line held back (it may be a notice), or '' */
  private held = '';
  /** True when the current line was already passed on (it is not a notice). */
  private passing = false;

  /** Returns the part of `text` to keep. */
  push(text: string): string {
    let out = '';
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const piece = nl < 0 ? text.slice(start) : text.slice(start, nl + 1);
      start = nl < 0 ? text.length : nl + 1;
      if (this.passing) {
        out += piece;
        if (nl >= 0) this.passing = false;
        continue;
      }
      const line = this.held + piece;
      if (nl >= 0) {
        this.held = '';
        if (!isNotice(line)) out += line;
      } else if (mayBeNotice(line)) {
        this.held = line;
      } else {
        this.held = '';
        this.passing = true;
        out += line;
      }
    }
    return out;
  }

  /** At the end of the stream: the held-back text, unless it is a (complete) notice. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest && !isNotice(rest) ? rest : '';
  }
}
