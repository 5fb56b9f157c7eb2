/**
 * The real failure of a failing run (issue 30, point 2): the assertion or exception message and the
 * place in the program's own code where it was raised, instead of "exit code 1".
 *
 * Sources, best first:
 * 1. the outcome line's `message` / `location` (docs/trace-format.md): what the runner read in the
 *    test framework's own report on stdout/stderr (`parseFailureOutput`: JUnit 5 / 4 console
 *    launcher, Maven Surefire, Gradle, TestNG, JUnitCore, a plain `Exception in thread …`);
 * 2. the first FAIL event the agent recorded (`assert`: an AssertionError created in instrumented
 *    code, with the assertion's line; `uncaught`; `exit`);
 * 3. the agent's first `uncaught` line (exception, message, first frame of the program's code);
 * 4. the outcome's `detail` (a time limit, a signal, an output match, or the exit code).
 *
 * Everything here is trace (or program output) text: it is bounded here and escaped where it is
 * shown (outputEscaping.ts).
 */

export interface FailureLocation {
  /** source path as the agent writes it (`bank/AccountTest.java`), or the bare file name when only that is known */
  file: string;
  line: number;
  /** qualified method, when known (`bank.AccountTest.concurrentDepositsAreAllKept`) */
  method?: string;
}

export interface RunFailure {
  /**
   * what happened: `assertion` (a test assertion failed), `exception` (an uncaught exception), or the
   * runner's outcome reason (`exit-code`, `timeout`, `recorder-blocked`, `output-match`, `killed`, …)
   */
  reason: string;
  /** the assertion or exception message as the program reported it (`org.opentest4j.AssertionFailedError: expected: <2> but was: <1>`) */
  message?: string;
  /** where it was raised in the program's own code (the test's assertion line, the throwing frame) */
  location?: FailureLocation;
}

/** Longest failure message kept (characters); longer ones end with '…'. */
export const MAX_FAILURE_MESSAGE = 500;
const MAX_NAME = 1000;

export function boundedText(s: string, max = MAX_FAILURE_MESSAGE): string {
  // one line, no control characters: a message is shown in one-line labels
  const t = s.replace(/[\u0000-\u001f\u007f\u2028\u2029\u0085]+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

function boundedLocation(l: FailureLocation | undefined): FailureLocation | undefined {
  if (!l || typeof l.file !== 'string' || !l.file || !Number.isSafeInteger(l.line) || l.line < 1) return undefined;
  return { file: boundedText(l.file, MAX_NAME), line: l.line, ...(typeof l.method === 'string' && l.method ? { method: boundedText(l.method, MAX_NAME) } : {}) };
}

/** Test frameworks, build tools, the JDK and the agent's stubs: a frame of these is not the program's own code. */
const FRAMEWORK = /^(?:org\.junit\.|junit\.|org\.opentest4j\.|org\.testng\.|org\.assertj\.|org\.hamcrest\.|com\.google\.common\.truth\.|org\.apache\.maven\.|org\.gradle\.|worker\.org\.gradle\.|java\.|javax\.|jdk\.|sun\.|com\.sun\.|kotlin\.|scala\.|dev\.braid\.|org\.mockito\.|net\.bytebuddy\.)/;

/** Exception classes that mean "an assertion failed" (JUnit, TestNG, AssertJ, Hamcrest, Truth, `assert`). */
const ASSERTION = /(?:^|\.)(?:AssertionError|AssertionFailedError|ComparisonFailure|MultipleFailuresError|AssumptionViolatedException|AssertionFailure|[A-Za-z]*Assertion[A-Za-z]*Error)$/;

export function isAssertionClass(exception: string): boolean {
  return ASSERTION.test(exception);
}

/** A stack frame `pkg.Class.method(File.java:12)` (optionally `at `, a module prefix `java.base/`), as a location, when it has a line. */
export function frameLocation(frame: string): FailureLocation | undefined {
  const m = /^\s*(?:at\s+)?(?:[\w.$-]+(?:@[^/]*)?\/)?([\w$.]+)\.([\w$<>-]+)\(([^():]+)(?::(\d+))?\)\s*$/.exec(frame);
  if (!m || !m[4]) return undefined;
  const cls = m[1];
  const pkg = cls.includes('.') ? cls.slice(0, cls.lastIndexOf('.')).replace(/\./g, '/') + '/' : '';
  return { file: pkg + m[3], line: Number(m[4]), method: `${cls}.${m[2]}` };
}

/** A frame's module prefix (`java.base/`, `jdk.httpserver/`, `foo@1.0/`): Java 9+ prints it for classes of a named module. */
const MODULE_PREFIX = /^\s*(?:at\s+)?([\w.$-]+)(?:@[^/]*)?\/[\w$]/;
/** The run-time image's modules: `java.*`, `jdk.*` (and the old `oracle.*`, `javafx.*`). */
const JDK_MODULE = /^(?:java|jdk|oracle|javafx)\./;
/** Packages the JDK and class-path libraries share: the JDK's own classes there print with a module prefix on Java 9+. */
const SHARED_WITH_LIBRARIES = /^(?:javax\.|com\.sun\.)/;

/**
 * The first frame of the program's own code (not a test framework, the JDK or the agent's stubs) that has a line.
 * `javax.*` and `com.sun.*` are the JDK's by name only in a trace of Java 8 or older: a trace printed by
 * Java 9+ (one frame at least with a JDK module prefix, `java.base/…`) names the JDK's classes with their
 * module, so a frame there without one is a library on the class path (Jersey 1.x's `com.sun.jersey`,
 * issue 38), the program's code like any other library's.
 */
export function ownFrame(frames: readonly string[]): FailureLocation | undefined {
  const modular = frames.some((f) => JDK_MODULE.test(MODULE_PREFIX.exec(f)?.[1] ?? ''));
  for (const f of frames) {
    const loc = frameLocation(f);
    if (!loc || /\.braid\$/.test(loc.method ?? '')) continue;
    const module = MODULE_PREFIX.exec(f)?.[1];
    if (module !== undefined && JDK_MODULE.test(module)) continue;
    const method = loc.method ?? '';
    if (modular && module === undefined && SHARED_WITH_LIBRARIES.test(method)) return loc;
    if (!FRAMEWORK.test(method)) return loc;
  }
  return undefined;
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
/** `Exception in thread "main" pkg.Ex: msg`, `=> pkg.Ex: msg` (JUnit console), `pkg.Ex: msg` alone on its line, `Caused by: …` */
const EXCEPTION_LINE = /^\s*(?:=>\s*|Exception in thread "[^"]*"\s+|\[ERROR\]\s+)?((?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Error|Exception|Failure|Failed|Throwable)[\w$]*)(?::\s?(.*))?$/;
/** Gradle's short form: `    org.opentest4j.AssertionFailedError at AccountTest.java:29` */
const GRADLE_LINE = /^\s+((?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*) at ([\w$.-]+\.(?:java|kt|groovy|scala)):(\d+)\s*$/;
const FRAME_LINE = /^\s*(?:at\s+)?(?:[\w.$-]+(?:@[^/]*)?\/)?[\w$.]+\.[\w$<>-]+\([^()]*\)\s*$/;

/** What the program's own output says about its failure. */
export interface OutputFailure {
  message: string;
  location?: FailureLocation;
  assertion: boolean;
}

/**
 * The first failure the program's output reports: an exception or assertion line (JUnit 5/4
 * console launcher `=> …`, Maven Surefire, JUnitCore, TestNG, `Exception in thread "main" …`) with
 * the first frame of the program's own code below it (the test method's assertion line), or
 * Gradle's `Ex at File.java:N`. Lines of a known framework's frames are skipped. Reads at most the
 * first 1 MiB and 20,000 lines.
 */
export function parseFailureOutput(output: string): OutputFailure | undefined {
  const lines = output.slice(0, 1 << 20).replace(ANSI, '').split(/\r?\n/, 20000);
  let best: { message: string; location?: FailureLocation; assertion: boolean; score: number } | undefined;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const g = GRADLE_LINE.exec(line);
    if (g) {
      if (!best) best = { message: g[1], location: { file: g[2], line: Number(g[3]) }, assertion: isAssertionClass(g[1]), score: 1 };
      continue;
    }
    const m = EXCEPTION_LINE.exec(line);
    if (!m || FRAME_LINE.test(line) || /^\s*Caused by:/.test(line)) continue;
    const frames: string[] = [];
    for (let j = k + 1; j < lines.length && j < k + 200; j++) {
      if (FRAME_LINE.test(lines[j])) frames.push(lines[j]);
      else if (!/^\s*(?:\.\.\. \d+ more|\[\.\.\.\])\s*$/.test(lines[j])) break;
    }
    // a line with frames below it, the launcher's `=>` or `Exception in thread` is a report; a class name in prose is not
    const explicit = /^\s*(?:=>|Exception in thread)/.test(line);
    if (!frames.length && !explicit) continue;
    const score = (frames.length ? 2 : 0) + (explicit ? 1 : 0);
    if (best && score <= best.score) continue;
    const text = m[2]?.trim();
    best = { message: text ? `${m[1]}: ${text}` : m[1], location: ownFrame(frames), assertion: isAssertionClass(m[1]), score };
    if (score >= 3) break;
  }
  if (!best) return undefined;
  const location = boundedLocation(best.location);
  return { message: boundedText(best.message), ...(location ? { location } : {}), assertion: best.assertion };
}

export interface FailureSources {
  outcome: 'pass' | 'fail';
  reason?: string;
  detail?: string;
  /** the outcome line's message / location (the runner's reading of the output) */
  message?: string;
  location?: FailureLocation;
  /** the first FAIL event: its kind (`assert`, `uncaught`, `exit`, `output`), detail and location */
  failEvent?: { kind?: string; detail?: string; location?: FailureLocation };
  uncaught?: readonly { exception?: string; message?: string; frames?: string[] }[];
}

/** The exception class at the start of a message (`org.x.Ex: text` → `org.x.Ex`). */
function exceptionOf(message: string): string | undefined {
  return /^((?:[a-zA-Z_$][\w$]*\.)*[A-Z][\w$]*)(?::|$)/.exec(message)?.[1];
}

/** The failure of a run (undefined for a passing run). */
export function runFailure(s: FailureSources): RunFailure | undefined {
  if (s.outcome !== 'fail') return undefined;
  const runner = s.reason ?? 'failed';
  // the time limit, a signal, the recorder or an output match decided the outcome: that is the reason, whatever was printed
  const decidedByRunner = runner !== 'exit-code' && runner !== 'exception' && runner !== 'failed' && runner !== '';
  const withReason = (message: string | undefined, location: FailureLocation | undefined, assertion?: boolean): RunFailure => {
    const msg = message ? boundedText(message) : undefined;
    const cls = msg ? exceptionOf(msg) : undefined;
    const reason = decidedByRunner ? runner : assertion || (cls && isAssertionClass(cls)) ? 'assertion' : cls && /(?:Error|Exception|Throwable)/.test(cls) ? 'exception' : runner;
    const loc = boundedLocation(location);
    return { reason, ...(msg ? { message: msg } : {}), ...(loc ? { location: loc } : {}) };
  };
  if (decidedByRunner) return withReason(s.detail, s.location ?? s.failEvent?.location);
  if (s.message) return withReason(s.message, s.location ?? (s.failEvent?.detail && sameException(s.failEvent.detail, s.message) ? s.failEvent.location : undefined));
  const fe = s.failEvent;
  if (fe && (fe.kind === 'assert' || fe.kind === 'uncaught') && fe.detail) return withReason(fe.detail, fe.location, fe.kind === 'assert');
  const u = s.uncaught?.find((x) => x && typeof x.exception === 'string');
  if (u) {
    const text = `${u.exception}${u.message && u.message !== 'null' ? `: ${u.message}` : ''}`;
    return withReason(text, ownFrame(Array.isArray(u.frames) ? u.frames.filter((f) => typeof f === 'string') : []) ?? fe?.location);
  }
  if (fe && fe.detail) return withReason(s.detail ?? fe.detail, fe.location);
  return withReason(s.detail, fe?.location);
}

function sameException(a: string, b: string): boolean {
  return exceptionOf(a) === exceptionOf(b);
}

/** `org.opentest4j.AssertionFailedError: expected …` → `AssertionFailedError: expected …` (the class's simple name). */
export function shortFailureMessage(message: string): string {
  return message.replace(/^(?:[a-zA-Z_$][\w$]*\.)+(?=[A-Z][\w$]*(?::|$))/, '');
}

/** `AccountTest.java:29` */
export function shortLocation(l: FailureLocation): string {
  return `${l.file.slice(Math.max(l.file.lastIndexOf('/'), l.file.lastIndexOf('\\')) + 1)}:${l.line}`;
}

/** Plain words for a failure reason (labels). */
export const FAILURE_REASON_WORDS: Readonly<Record<string, string>> = {
  assertion: 'assertion failed',
  exception: 'exception',
  'exit-code': 'exit code',
  timeout: 'timed out',
  'recorder-blocked': 'recorder blocked',
  'output-match': 'output matched',
  killed: 'killed',
};

/** A one-line summary: the short message (else the reason's words), and where. */
export function failureSummary(f: RunFailure, detail?: string): string {
  const what = f.message ? shortFailureMessage(f.message) : (detail ?? FAILURE_REASON_WORDS[f.reason] ?? f.reason);
  return f.location ? `${what} at ${shortLocation(f.location)}` : what;
}

/** A RunFailure read from untrusted JSON (a summary, a snapshot), or undefined when it has the wrong shape. */
export function checkedFailure(v: unknown): RunFailure | undefined | 'bad' {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return 'bad';
  const o = v as Record<string, unknown>;
  if (typeof o.reason !== 'string' || (o.message !== undefined && typeof o.message !== 'string')) return 'bad';
  let location: FailureLocation | undefined;
  if (o.location !== undefined) {
    const l = o.location as Record<string, unknown>;
    if (!l || typeof l !== 'object' || typeof l.file !== 'string' || !Number.isSafeInteger(l.line) || (l.method !== undefined && typeof l.method !== 'string')) return 'bad';
    location = boundedLocation(l as unknown as FailureLocation);
  }
  return { reason: boundedText(o.reason, 100), ...(typeof o.message === 'string' ? { message: boundedText(o.message) } : {}), ...(location ? { location } : {}) };
}
