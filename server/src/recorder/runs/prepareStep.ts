/**
 * A preparation step before recording (the test lens' and `braid test`'s compile step, e.g.
 * `javac`): run once, without the recorder, to its end; its output is kept for the error message.
 */
import { spawn } from 'node:child_process';
import { dropMavenBuildStamp, writeMavenBuildStamp } from '../java/mavenClassPathCache';

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

/**
 * A build step of a test plan (recorder/java/testCommand.ts PrepareStep): not run when `upToDate`
 * (Maven: nothing the build reads changed since Braid's last build; an exit 0 without output), else
 * run, its stamp removed first and written again when it succeeds (mavenClassPathCache.ts).
 */
export async function runBuildStep(step: { command: string[]; cwd: string; stamp?: { file: string; build: string }; upToDate?: string }, signal?: AbortSignal): Promise<StepResult> {
  if (step.upToDate) return { code: 0, output: '' };
  if (step.stamp) dropMavenBuildStamp(step.stamp.file);
  const started = Date.now();
  const r = await runStep(step.command, step.cwd, signal);
  if (step.stamp && r.code === 0 && !signal?.aborted) writeMavenBuildStamp(step.stamp.file, step.stamp.build, started, Date.now());
  return r;
}

/** The last `lines` lines of a step's output (what a failed build says last). */
export function outputTail(output: string, lines = 15): string {
  return output.trim().split('\n').slice(-lines).join('\n');
}
