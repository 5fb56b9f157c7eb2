/**
 * The names of a jar's (zip's) entries, read from its central directory only: the end-of-central-
 * directory record at the file's end gives where the directory is, and each directory record gives
 * one name — no entry is inflated, so a jar of thousands of classes is listed in a millisecond or two.
 * Zip64 archives (more than 65535 entries, or a directory beyond 4 GiB) are read through their zip64
 * end record. Used to find the jars that hold the code under test (libraryJars.ts).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
/** the end record (22 bytes) and the longest comment a zip may carry */
const TAIL = 22 + 0xffff;

/** The entry names of the zip `file`; throws when it cannot be read or is not a zip. */
export function jarEntryNames(file: string): string[] {
  const fd = openSync(file, 'r');
  const read = (b: Buffer, at: number) => {
    if (readSync(fd, b, 0, b.length, at) !== b.length) throw new Error(`${file}: cut short`);
  };
  try {
    const size = fstatSync(fd).size;
    const tailLength = Math.min(size, TAIL + 20);
    const tail = Buffer.alloc(tailLength);
    read(tail, size - tailLength);
    let end = -1;
    for (let k = tailLength - 22; k >= 0; k--) {
      if (tail.readUInt32LE(k) === EOCD) {
        end = k;
        break;
      }
    }
    if (end < 0) throw new Error(`${file}: not a zip (no end of central directory)`);
    let entries = tail.readUInt16LE(end + 10);
    let dirSize = tail.readUInt32LE(end + 12);
    let dirOffset = tail.readUInt32LE(end + 16);
    if ((entries === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) && end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR) {
      const at = Number(tail.readBigUInt64LE(end - 20 + 8));
      const z = Buffer.alloc(56);
      read(z, at);
      if (z.readUInt32LE(0) !== ZIP64_EOCD) throw new Error(`${file}: broken zip64 end record`);
      entries = Number(z.readBigUInt64LE(32));
      dirSize = Number(z.readBigUInt64LE(40));
      dirOffset = Number(z.readBigUInt64LE(48));
    }
    if (dirOffset + dirSize > size) throw new Error(`${file}: central directory beyond the file's end`);
    const dir = Buffer.alloc(dirSize);
    read(dir, dirOffset);
    const names: string[] = [];
    let p = 0;
    for (let k = 0; k < entries && p + 46 <= dir.length; k++) {
      if (dir.readUInt32LE(p) !== CENTRAL) throw new Error(`${file}: broken central directory`);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      names.push(dir.toString('utf8', p + 46, p + 46 + nameLength));
      p += 46 + nameLength + extraLength + commentLength;
    }
    return names;
  } finally {
    closeSync(fd);
  }
}
