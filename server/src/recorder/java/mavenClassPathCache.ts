/**
 * Whether the test class path an earlier `braid test` wrote for a Maven module (the dependency
 * plugin's `build-classpath`, in .braid/build/maven/) still holds, so the next call can skip that
 * goal: its Maven start spends most of its time loading the dependency plugin (15 of the 25 s of
 * `mvn test-compile dependency:build-classpath` on test/fixtures/maven/inventory, where the whole
 * compile takes 6 s), and a warm `braid test` must stay near one plain `mvn test` (issue 41).
 *
 * The class path depends on the build's inputs: every pom.xml of the reactor (the module's, its
 * parents' up the tree, the other modules'), `.mvn/maven.config` and `.mvn/extensions.xml` of the
 * folder Maven starts in, and the user's `~/.m2/settings.xml` (a mirror, a local repository). The
 * file is current when it is newer than all of them and every entry it names still exists (a
 * local repository that was cleaned, a jar removed). Anything else — a missing file, an entry
 * gone, an input newer or unreadable — means "resolve again". Pure file-system inspection.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders never searched for poms: build output, dependencies, VCS and Braid's own files. */
const SKIP = new Set(['target', 'node_modules']);
/** How deep below the reactor's top pom modules are looked for. */
const MAX_DEPTH = 6;

/** Modification time in ms, or undefined when the file cannot be read. */
function mtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The pom.xml files of a Maven tree: `top`'s and its sub-folders' (not build output or hidden folders). */
function treePoms(top: string, depth = 0, out: string[] = []): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(top, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e.isFile() && e.name === 'pom.xml') out.push(path.join(top, e.name));
    else if (e.isDirectory() && depth < MAX_DEPTH && !e.name.startsWith('.') && !SKIP.has(e.name)) treePoms(path.join(top, e.name), depth + 1, out);
  }
  return out;
}

/**
 * The files the Maven class path of `module` depends on: the poms of the tree Maven starts in
 * (`stepCwd`, the reactor's top or the module itself), the poms above it up to `root`, Maven's
 * per-project configuration and the user's settings.
 */
export function mavenClassPathInputs(root: string, stepCwd: string, home = os.homedir()): string[] {
  const inputs = treePoms(stepCwd);
  const stop = path.resolve(root);
  for (let d = path.dirname(path.resolve(stepCwd)); !path.relative(stop, d).startsWith('..'); d = path.dirname(d)) {
    inputs.push(path.join(d, 'pom.xml'));
    if (d === stop || path.dirname(d) === d) break;
  }
  inputs.push(path.join(stepCwd, '.mvn', 'maven.config'), path.join(stepCwd, '.mvn', 'extensions.xml'), path.join(home, '.m2', 'settings.xml'));
  return inputs;
}

/**
 * Whether `classPathFile` (and each of `alsoWritten`, e.g. the effective POM written by the same
 * Maven start) was written after every one of `inputs` changed (an input that does not exist
 * counts as unchanged; one that exists but cannot be read counts as changed) and every class path
 * entry still exists.
 */
export function mavenClassPathCurrent(classPathFile: string, inputs: string[], alsoWritten: string[] = []): boolean {
  let text: string;
  try {
    text = readFileSync(classPathFile, 'utf8').trim();
  } catch {
    return false;
  }
  if (!text) return false;
  const written = [classPathFile, ...alsoWritten].map(mtime);
  if (written.some((t) => t === undefined)) return false;
  const oldest = Math.min(...(written as number[]));
  for (const input of inputs) {
    let t: number;
    try {
      t = statSync(input).mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      return false;
    }
    if (t >= oldest) return false;
  }
  return text.split(path.delimiter).every((entry) => entry === '' || mtime(entry) !== undefined);
}
