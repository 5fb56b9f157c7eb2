/**
 * One `braid record` per trace folder: a lock file `.braid-record.lock` (created exclusively,
 * holding the recorder's pid) so that two recordings into the same folder cannot give the same
 * run names to different runs. A lock whose process is gone is stale and taken over.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFailure } from './writeFailure';

export const LOCK_NAME = '.braid-record.lock';

export class RecordingLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `outDir`; returns its release function. */
export async function lockTraceFolder(outDir: string): Promise<() => Promise<void>> {
  const file = path.join(outDir, LOCK_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return async () => {
        // only our own lock
        const pid = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim());
        if (pid === process.pid) await fs.rm(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // made but not written (a full disk): no empty lock is left behind, and the error names it
        await fs.rm(file, { force: true }).catch(() => {});
        throw writeFailure(file, e) ?? e;
      }
    }
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    const pid = Number(text.trim());
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new RecordingLockedError(
        `another braid record (pid ${pid}) is recording into ${outDir}; wait for it or use another --out folder (if no recording runs, delete ${file})`,
      );
    }
    await fs.rm(file, { force: true }); // stale: its recorder is gone
  }
  throw new RecordingLockedError(`cannot take the lock ${file}`);
}
