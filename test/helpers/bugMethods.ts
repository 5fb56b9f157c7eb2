/**
 * The methods of a sample program that hold its `// @bug` lines, read from the loc definitions of
 * its traces (a loc names file, line and enclosing method). For a bug inside a JDK class
 * (`// @bug name file=java/util/ArrayList.java`), the JDK method that the tagged line calls.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { bugTags, fixturesDir } from '../recorder/recorderHarness';

export async function bugMethods(pkg: string, traceFiles: string[]): Promise<Set<string>> {
  const tags = bugTags(pkg);
  const out = new Set<string>();
  for (const f of traceFiles.slice(0, 10)) {
    const res = await readTrace(f, { event() {} });
    for (const loc of res.symbols.locs.values()) {
      for (const t of tags) {
        if (t.inFile) {
          const text = readFileSync(path.join(fixturesDir, t.file), 'utf8').split('\n')[t.line - 1];
          const called = /\.(\w+)\(/.exec(text)?.[1];
          if (loc.file === t.inFile && called && loc.method.endsWith(`.${called}`)) out.add(loc.method);
        } else if (loc.file === t.file && loc.line === t.line && loc.method) out.add(loc.method);
      }
    }
  }
  return out;
}
