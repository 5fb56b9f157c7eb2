/**
 * Short labels of recorded runs for the Runs view: `Bank #42 ✗ exception` instead of the execution
 * id `src_bank_Bank.java-20261123-141812-0042` (the full id stays in the tooltip). Pure, no vscode.
 */

export interface RunLike {
  execution: string;
  outcome: 'pass' | 'fail';
  reason?: string;
  program?: string;
}

const REASONS: Record<string, string> = { 'exit-code': 'exit code', 'output-match': 'output', 'exception': 'exception', timeout: 'timeout', killed: 'killed' };

/** The program's short name: `bank.Bank` → Bank, `src_bank_Bank.java` → Bank, `AccountTest.transfer` → AccountTest. */
export function shortProgramName(name: string): string {
  let n = name.replace(/\.(java|jar|class|kt)$/i, '');
  n = n.slice(Math.max(n.lastIndexOf('/'), n.lastIndexOf('\\'), n.lastIndexOf('_')) + 1) || n;
  const parts = n.split('.').filter(Boolean);
  if (parts.length < 2) return n;
  const last = parts[parts.length - 1];
  const prev = parts[parts.length - 2];
  // Class.method (a recorded test): the class, so the run number and outcome fit the sidebar (the method is in the tooltip)
  if (/^[a-z]/.test(last) && /^[A-Z]/.test(prev)) return prev;
  return last;
}

/** Name and number of a run from its execution id `<name>[-<yyyymmdd>-<hhmmss>]-<index>`. */
export function splitExecution(execution: string): { name: string; index?: number } {
  const m = /^(.*?)(?:-\d{8}-\d{6})?-(\d+)$/.exec(execution);
  if (!m || !m[1]) return { name: execution };
  return { name: m[1], index: Number(m[2]) };
}

export function runLabel(r: RunLike): string {
  const { name, index } = splitExecution(r.execution);
  const short = shortProgramName(name);
  const mark = r.outcome === 'fail' ? `✗ ${REASONS[r.reason ?? ''] ?? r.reason ?? 'failed'}` : '✓';
  return `${short}${index !== undefined ? ` #${index}` : ''} ${mark}`;
}
