/** Terminal progress of `braid record`: one updating line on a TTY, periodic lines otherwise. */
import { RecordProgress } from './recordRuns';

export class ProgressPrinter {
  private lastLineLength = 0;
  private lastPrinted = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly tty = Boolean(process.stderr.isTTY),
  ) {}

  update(p: RecordProgress): void {
    const r = p.run;
    const text = `recording ${p.done}/${p.total}  pass ${p.passed}  fail ${p.failed}  (last: ${r.execution} ${r.outcome}${r.outcome === 'fail' ? `, ${r.reason}` : ''})`;
    if (this.tty) {
      this.stream.write('\r' + text.padEnd(this.lastLineLength));
      this.lastLineLength = text.length;
    } else {
      const now = Date.now();
      if (p.done === p.total || p.done === 1 || now - this.lastPrinted > 2000 || p.done % 25 === 0) {
        this.stream.write(text + '\n');
        this.lastPrinted = now;
      }
    }
  }

  endLine(): void {
    if (this.tty && this.lastLineLength > 0) this.stream.write('\n');
    this.lastLineLength = 0;
  }
}
