/**
 * A run in which the test never ran is not a failing run (docs/recorder.md "A run in which the test
 * did not run"): the selection matched no test, its discovery failed (a method or class that does
 * not exist, a class JUnit cannot read), or every test it selected was skipped. With repetitions in
 * one JVM the RepeatLauncher says so itself (outcome `norun`, its `notRun` reason: repeatedRuns.ts);
 * with one JVM per run (`--fresh-jvm`, or a recording of the console launcher command as given)
 * this module reads it from the JUnit console launcher's own output: the discovery error
 * (`TestEngine with ID '…' failed to discover tests` and its causes), the summary's
 * `[ 0 tests started ]` with no failed container, or JUnit 4's initializationError "tests" that say
 * no test matched or the class is invalid. The reason names the test selector.
 */

/** The test selectors of a JUnit console launcher command (`--select-method C#m`, `-c C`, `--select-class=C`), as written. */
export function consoleLauncherSelectors(command: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < command.length; i++) {
    const a = command[i];
    const eq = /^(--select-method|--select-class)=(.*)$/.exec(a);
    if (eq) out.push(eq[2]);
    else if (/^(--select-method|-m|--select-class|-c)$/.test(a) && i + 1 < command.length) out.push(command[++i]);
  }
  return out;
}

/** Whether `command` runs the JUnit console launcher (`… -jar …junit-platform-console-standalone*.jar …`). */
export function isConsoleLauncherCommand(command: readonly string[]): boolean {
  const jar = command.indexOf('-jar');
  return jar >= 0 && jar + 1 < command.length && /junit-platform-console-standalone[^/\\]*\.jar$/.test(command[jar + 1]);
}

/** `[         0 tests started           ]` → 0; undefined when the summary has no such line. */
function summaryCount(output: string, what: string): number | undefined {
  const m = new RegExp(`^\\[\\s*(\\d+) ${what}\\s*\\]\\s*$`, 'm').exec(output);
  return m ? Number(m[1]) : undefined;
}

/** The messages of a Java stack trace's exception and its `Caused by:` lines, outermost first, repeats left out. */
function causeChain(output: string, from: number): string {
  const lines = output.slice(from).split(/\r?\n/);
  const parts: string[] = [];
  const first = /^(?:[\w$.]+(?:Exception|Error)): (.*)$/.exec(lines[0].trim());
  if (first) parts.push(first[1]);
  for (const line of lines.slice(1)) {
    const c = /^Caused by: ([\w$.]+)(?:: (.*))?$/.exec(line.trim());
    if (!c) continue;
    // the root cause keeps its class name when JUnit's own message is not a sentence of its own (ClassNotFoundException: bank.Nope)
    const text = c[2] === undefined ? c[1] : /^org\.junit\./.test(c[1]) ? c[2] : `${c[1]}: ${c[2]}`;
    if (!parts.some((p) => p.includes(text))) parts.push(text);
  }
  return parts.join(': ').replace(/[.\s]+$/, '');
}

/**
 * JUnit 4 (the vintage engine) reports a selection it cannot run as failed "tests" named
 * initializationError: no test matched the filter (`No tests found matching Method nope(bank.A)`),
 * or the class is not a valid JUnit 4 test (`InvalidTestClassError`, an `InitializationError`).
 * The reason when every started test is such a one, else undefined.
 */
function junit4NotRun(output: string, started: number, selected: string): string | undefined {
  if (summaryCount(output, 'tests failed') !== started || (summaryCount(output, 'tests successful') ?? 0) > 0) return undefined;
  const lines = output.split(/\r?\n/);
  const at = lines.flatMap((l, k) => (/:initializationError\s*$/.test(l) ? [k] : []));
  if (at.length !== started) return undefined;
  let reason: string | undefined;
  for (const k of at) {
    const arrow = lines.slice(k + 1, k + 6).findIndex((l) => /^\s*=> /.test(l));
    if (arrow < 0) return undefined;
    const first = lines[k + 1 + arrow].trim().slice(3);
    let m: RegExpExecArray | null;
    let why: string;
    if ((m = /^java\.lang\.Exception: (No tests found matching .*?)(?: from org\.junit\.\S+)?$/.exec(first))) why = `no test matched ${selected}: ${m[1]}`;
    else if ((m = /^org\.junit\.runners\.model\.(?:InitializationError|InvalidTestClassError)(?:: (.*))?$/.exec(first))) {
      // InvalidTestClassError's numbered problems follow on their own lines
      const more = lines.slice(k + 2 + arrow).filter((l, j, all) => all.slice(0, j + 1).every((x) => /^\s+\d+\. /.test(x))).map((l) => l.trim());
      why = `the discovery of ${selected} failed: ${[m[1] ?? 'org.junit.runners.model.InitializationError', ...more].join(' ')}`;
    } else return undefined;
    reason ??= why;
  }
  return reason;
}

/**
 * Why a run of the JUnit console launcher ran no test, from its exit code and output, or undefined
 * (a test ran — passed or failed — or the output is not the console launcher's). `selectors` are the
 * command's test selectors (consoleLauncherSelectors), named in the reason.
 */
export function consoleLauncherNotRun(output: string, exitCode: number | null, selectors: readonly string[]): string | undefined {
  if (exitCode === 0) return undefined;
  const selected = selectors.length ? selectors.join(', ') : 'the selected tests';
  const discovery = /^.*JUnitException: TestEngine with ID '[^'\n]*' failed to discover tests.*$/m.exec(output);
  if (discovery) return `the discovery of ${selected} failed: ${causeChain(output, discovery.index)}`.slice(0, 2000);
  const started = summaryCount(output, 'tests started');
  if (started !== undefined && started > 0) return junit4NotRun(output, started, selected);
  if (started !== 0) return undefined;
  // a class whose set-up failed (@BeforeAll) ran the project's code: that is a failing run
  if ((summaryCount(output, 'containers failed') ?? 0) > 0 || (summaryCount(output, 'tests failed') ?? 0) > 0) return undefined;
  if ((summaryCount(output, 'tests skipped') ?? 0) > 0 || (summaryCount(output, 'containers skipped') ?? 0) > 0) return `${selected} was skipped`;
  if (summaryCount(output, 'tests found') === 0) return `no test matched ${selected}`;
  return `no test of ${selected} ran`;
}
