/**
 * Runs `braid record <args>` (runRecordCommand, in this process) on a disk that is "full" for some
 * files: every write to an opened file whose path contains $BRAID_TEST_FULL_DISK fails with ENOSPC,
 * as a full disk's write(2) does (fs.promises.open is wrapped here, for the test only). Exits with
 * braid record's exit code. Used by test/recorder/writeFailure.test.ts.
 */
import { promises as fs } from 'node:fs';
import { runRecordCommand } from '../../server/src/recorder/runs/recordCommand';

const full = process.env.BRAID_TEST_FULL_DISK;
if (full) {
  const open = fs.open.bind(fs);
  (fs as { open: typeof fs.open }).open = async (file, flags, mode) => {
    const handle = await open(file, flags, mode);
    if (String(file).includes(full)) {
      handle.write = (async () => {
        const e: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, write`);
        e.code = 'ENOSPC';
        e.errno = -28;
        e.syscall = 'write';
        throw e;
      }) as unknown as typeof handle.write;
    }
    return handle;
  };
}

runRecordCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(99);
  },
);
