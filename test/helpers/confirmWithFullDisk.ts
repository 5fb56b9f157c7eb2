/**
 * Runs `braid confirm <args>` (runConfirmCommand, in this process) on a disk that is "full" for some
 * files: a file whose path contains $BRAID_TEST_FULL_DISK is created, but every write to it fails with
 * ENOSPC, as on a full disk (fs.promises.open and fs.promises.writeFile are wrapped here, for the test
 * only). Exits with braid confirm's exit code. Used by test/recorder/confirmWriteFailure.test.ts.
 */
import { promises as fs } from 'node:fs';
import { runConfirmCommand } from '../../server/src/cli/confirmCommand';

const full = process.env.BRAID_TEST_FULL_DISK;
const enospc = (): NodeJS.ErrnoException => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
if (full) {
  const open = fs.open.bind(fs);
  (fs as { open: typeof fs.open }).open = async (file, flags, mode) => {
    const handle = await open(file, flags, mode);
    if (String(file).includes(full)) {
      handle.write = (async () => {
        throw enospc();
      }) as unknown as typeof handle.write;
    }
    return handle;
  };
  const writeFile = fs.writeFile.bind(fs);
  (fs as { writeFile: typeof fs.writeFile }).writeFile = async (file, data, options) => {
    if (!String(file).includes(full)) return writeFile(file, data, options);
    // the file is made (an exclusive create succeeds), its content is not
    await writeFile(file, '', options);
    throw enospc();
  };
}

// the confirmation's folder (.braid/confirm) goes under the working folder: the test's own
if (process.env.BRAID_TEST_CWD) process.chdir(process.env.BRAID_TEST_CWD);

runConfirmCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(99);
  },
);
