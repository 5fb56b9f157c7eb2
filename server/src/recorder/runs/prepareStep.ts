/**
 * A preparation step before recording (the test lens' and `braid test`'s compile step, e.g.
 * `javac`): run once, without the recorder, to its end; its output is kept for the error message.
 */
import { spawn } from 'node:child_process';

export interface StepResult {
  /** exit code; -1 when it could not start (`error` says why) or was killed */
  code: number;
  /** the last 20,000 characters of its stdout and stderr */
  output: string;
  error?: string;
}

export function runStep(command: string[], cwd: string, signal?: AbortSignal): Promise<StepResult> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command[0], command.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal } : {}) });
    child.stdout.on('data', (d) => (output = (output + d).slice(-20000)));
    child.stderr.on('data', (d) => (output = (output + d).slice(-20000)));
    child.on('error', (e) => resolve({ code: -1, output, error: `cannot run ${command[0]}: ${e.message}` }));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** The last `lines` lines of a step's output (what a failed build says last). */
export function outputTail(output: string, lines = 15): string {
  return output.trim().split('\n').slice(-lines).join('\n');
}
