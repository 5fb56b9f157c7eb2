/**
 * The names of a jar's (zip's) entries, read with yauzl from the central directory only: no entry is
 * inflated, so a jar of thousands of classes is listed in a few milliseconds (zip64 included). Used to
 * find the jars that hold the code under test (libraryJars.ts).
 */
import yauzl from 'yauzl';

/** The entry names of the zip `file`; rejects with `<file>: <reason>` when it cannot be read or is not a zip. */
export function jarEntryNames(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const fail = (e: unknown) => reject(new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`));
    // strictFileNames off: a jar may hold names with backslashes; names are only compared, never used as paths
    yauzl.open(file, { lazyEntries: true, autoClose: true, decodeStrings: true, validateEntrySizes: false, strictFileNames: false }, (err, zip) => {
      if (err || !zip) return fail(err ?? 'cannot be read');
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.once('end', () => resolve(names));
      zip.once('error', (e) => {
        zip.close();
        fail(e);
      });
      zip.readEntry();
    });
  });
}
