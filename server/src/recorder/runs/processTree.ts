/**
 * Starts a command in its own process group and stops the whole group (the command and every
 * process it started, e.g. Maven's forked test JVM): SIGTERM first, so JVM shutdown hooks can
 * finish the trace, then SIGKILL after a grace period.
 */
import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';

export function spawnGroup(command: string[], options: SpawnOptions): ChildProcess {
  return spawn(command[0], command.slice(1), { ...options, detached: process.platform !== 'win32' });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Stops the process group; resolves when the child has exited (or after the kill). */
export function stopGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      signalGroup(child, 'SIGKILL'); // leftover grandchildren
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL');
      resolve();
    });
    signalGroup(child, 'SIGTERM');
  });
}
