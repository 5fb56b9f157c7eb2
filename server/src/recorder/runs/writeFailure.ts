/**
 * A recording that cannot write its files (issue 31, N12): a full disk, a quota, an I/O error or a
 * read-only file system while the agent writes a trace, or while the runner writes a run's log or
 * completes its trace. Such a failure stops the recording (docs/recorder.md, "Robustness"): the
 * unfinished run's files are deleted, the runs finished before are kept, and `braid record` says
 * what happened and where, with exit code EXIT_WRITE_FAILURE.
 */

/** Exit code of `braid record` when a trace or log could not be written (docs/cli.md). */
export const EXIT_WRITE_FAILURE = 3;

/** What each error code means for the user. */
const WHY: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'I/O error',
  EROFS: 'read-only file system',
};

/** The messages the JVM gives the same errors (IOException.getMessage, from strerror). */
const JAVA_MESSAGES: [RegExp, string][] = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/File too large/i, 'EFBIG'],
  [/Input\/output error/i, 'EIO'],
  [/Read-only file system/i, 'EROFS'],
];

/** A file of the recording could not be written: the recording stops. */
export class RecordWriteError extends Error {
  constructor(
    /** the file being written */
    readonly file: string,
    /** ENOSPC, EDQUOT, EFBIG, EIO, EROFS, or undefined for another reason (then in `detail`) */
    readonly code: string | undefined,
    detail?: string,
  ) {
    super(code && WHY[code] ? `${WHY[code]} writing ${file}` : `cannot write ${file}: ${detail ?? 'write failed'}`);
  }
}

/** The error codes of a write the disk refused (the recording stops on them). */
export function isWriteFailureCode(code: unknown): code is string {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(WHY, code);
}

/** A RecordWriteError for `cause` when it is a refused write (ENOSPC, EDQUOT, EFBIG, EIO, EROFS), else undefined. */
export function writeFailure(file: string, cause: unknown): RecordWriteError | undefined {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return isWriteFailureCode(code) ? new RecordWriteError(file, code) : undefined;
}

const AGENT_LINE = /^\[braid-agent\] cannot write trace (.+?): (.*)$/;
/** Longest line kept while looking for the agent's notice. */
const MAX_LINE = 8192;

/**
 * Watches a run's output for the agent's notice that it could not write its trace
 * (`[braid-agent] cannot write trace <file>: <reason>`, TraceWriter.fail): that trace is
 * incomplete, whatever the run's outcome.
 */
export class AgentWriteFailureWatch {
  private line = '';
  private tooLong = false;
  failure: RecordWriteError | undefined;

  push(text: string): void {
    if (this.failure || !text) return;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const part = text.slice(start, nl < 0 ? text.length : nl);
      if (!this.tooLong) {
        if (this.line.length + part.length > MAX_LINE) this.tooLong = true;
        else this.line += part;
      }
      if (nl < 0) return;
      this.endLine();
      if (this.failure) return;
      start = nl + 1;
    }
  }

  end(): void {
    if (!this.failure) this.endLine();
  }

  private endLine(): void {
    const m = this.tooLong ? null : AGENT_LINE.exec(this.line.replace(/\r$/, ''));
    this.line = '';
    this.tooLong = false;
    if (!m) return;
    const code = JAVA_MESSAGES.find(([re]) => re.test(m[2]))?.[1];
    this.failure = new RecordWriteError(m[1], code, m[2]);
  }
}
