/**
 * Short labels of recorded runs for the Runs view: `Bank #42 ✗ exception` instead of the execution
 * id `src_bank_Bank.java-20261123-141812-0042` (the full id stays in the tooltip). Pure, no vscode.
 */

import { shortFailureMessage } from '../../server/src/engine/runFailure';

export interface RunLike {
  execution: string;
  outcome: 'pass' | 'fail';
  reason?: string;
  program?: string;
  /** what failed (issue 30): the assertion or exception message, where */
  failure?: { reason: string; message?: string; location?: { file: string; line: number } };
}

const REASONS: Record<string, string> = { 'exit-code': 'exit code', 'output-match': 'output', 'exception': 'exception', timeout: 'timeout', killed: 'killed', assertion: 'assertion failed', 'recorder-blocked': 'recorder blocked' };

/**
 * What failed, in a few words: the assertion or exception message the program reported (class
 * simple name: `AssertionFailedError: expected: <2> but was: <1>`), else the runner's reason
 * (`timeout`, `exit code`). Trace text: escape it for where it goes.
 */
export function failureWords(r: RunLike): string {
  const f = r.failure;
  if (f?.message && f.reason !== 'timeout' && f.reason !== 'killed' && f.reason !== 'recorder-blocked') return shortFailureMessage(f.message);
  const reason = f?.reason ?? r.reason ?? '';
  return REASONS[reason] ?? (reason || 'failed');
}

/**
 * The program's short name: `bank.Bank` → Bank, `src_bank_Bank.java` → Bank, `AccountTest.transfer` → AccountTest,
 * a JS/TS test `inventory.two-orders-reserved` (the file and the test's name in words) → inventory.
 */
export function shortProgramName(name: string): string {
  let n = name.replace(/\.(java|jar|class|kt)$/i, '');
  n = n.slice(Math.max(n.lastIndexOf('/'), n.lastIndexOf('\\'), n.lastIndexOf('_')) + 1) || n;
  const parts = n.split('.').filter(Boolean);
  if (parts.length < 2) return n;
  const last = parts[parts.length - 1];
  const prev = parts[parts.length - 2];
  // Class.method (a recorded test): the class, so the run number and outcome fit the sidebar (the method is in the tooltip)
  if (/^[a-z]/.test(last) && /^[A-Z]/.test(prev)) return prev;
  // file.test-name (a JS/TS test, recorder/node/jsTestCommand.ts): the file; no Java name has a dash, nor two lower-case parts
  if (last.includes('-') || (/^[a-z]/.test(last) && /^[a-z]/.test(prev))) return prev;
  return last;
}

/** Name and number of a run from its execution id `<name>[-<yyyymmdd>-<hhmmss>]-<index>`. */
export function splitExecution(execution: string): { name: string; index?: number } {
  const m = /^(.*?)(?:-\d{8}-\d{6})?-(\d+)$/.exec(execution);
  if (!m || !m[1]) return { name: execution };
  return { name: m[1], index: Number(m[2]) };
}

/** `Bank #42`: the short program name and the run number (what two runs of different recordings may share). */
function baseLabel(execution: string): string {
  const { name, index } = splitExecution(execution);
  return `${shortProgramName(name)}${index !== undefined ? ` #${index}` : ''}`;
}

/** The recording's time in an execution id (`…-20261123-141812-0042` → `14:18:12`), if it has one. */
function recordingTime(execution: string): string | undefined {
  const m = /-(\d{8})-(\d{2})(\d{2})(\d{2})-\d+$/.exec(execution);
  return m ? `${m[2]}:${m[3]}:${m[4]}` : undefined;
}

/** per base label: how many runs share it, and how many of those have no recording time */
const baseCounts = new WeakMap<readonly RunLike[], Map<string, { all: number; untimed: number }>>();

/**
 * `Bank #42 ✗ exception`. With `peers` (all runs shown), a run whose name and number another run shares (two
 * recordings both start at #0) also shows what tells them apart: the recording's time (`Bank #0 · 14:18:12 ✓`); a run
 * without one keeps its short label unless another run without a time shares it too (then the full program name).
 */
export function runLabel(r: RunLike, peers?: readonly RunLike[], inGroup = false): string {
  const mark = r.outcome === 'fail' ? `✗ ${failureWords(r)}` : '✓';
  // inside its recording's group (Runs view): the group names the program and time, the row starts with the number
  if (inGroup) {
    const { index } = splitExecution(r.execution);
    if (index !== undefined) return `#${index} ${mark}`;
  }
  const base = baseLabel(r.execution);
  let tag = '';
  if (peers) {
    let counts = baseCounts.get(peers);
    if (!counts) {
      counts = new Map();
      for (const p of peers) {
        const b = baseLabel(p.execution);
        const c = counts.get(b) ?? { all: 0, untimed: 0 };
        c.all++;
        if (recordingTime(p.execution) === undefined) c.untimed++;
        counts.set(b, c);
      }
      baseCounts.set(peers, counts);
    }
    const c = counts.get(base);
    if (c && c.all > 1) {
      const time = recordingTime(r.execution);
      const { name } = splitExecution(r.execution);
      if (time) tag = ` · ${time}`;
      else if (c.untimed > 1 && name !== shortProgramName(name)) tag = ` · ${name}`;
    }
  }
  return `${base}${tag} ${mark}`;
}
