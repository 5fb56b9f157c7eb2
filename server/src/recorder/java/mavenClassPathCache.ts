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
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/**
 * Skipping the build step of a warm call (issue 41 point 4). A second `braid test` with no edit
 * must not pay Maven's start and its up-to-date checks (2.1 of a warm call's 5.4 s on
 * test/fixtures/maven/inventory, where one plain `mvn test` takes 1.5 s): after each successful build
 * Braid writes a stamp (`<module>.build-stamp` next to the class path file: the step it ran, when it
 * started and ended), and the next call skips the step when nothing the build reads changed since:
 * every file under the tree Maven starts in (sources, resources, poms of every module; not build
 * output `target/`, `node_modules/` or hidden folders such as .braid/ and .git/) and every folder
 * below a module's own folder (a file added, removed or renamed) older than the build's start,
 * Maven's per-project configuration and the user's settings too (mavenClassPathInputs); every jar of
 * the class path older than the build's end (a SNAPSHOT installed since); and the outputs there (the
 * test's class file, each class path entry). Anything else — no stamp, another build command, a
 * tree too large to check (MAX_ENTRIES) — builds. Pure file-system inspection.
 */
export interface MavenBuildStamp {
  /** the build step's command, NUL-joined: another command (another reactor, mvnw) builds */
  build: string;
  /** when the step started and ended (ms since the epoch, the clock file times are written with) */
  started: number;
  finished: number;
}

/** How many files and folders a tree may have for the check; a larger one is built (its walk would cost what it saves). */
export const MAX_ENTRIES = 20000;

/** Writes the stamp of a successful build step (`build`: its key, mavenBuildKey). */
export function writeMavenBuildStamp(stampFile: string, build: string, started: number, finished: number): void {
  try {
    mkdirSync(path.dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, JSON.stringify({ build, started, finished } satisfies MavenBuildStamp) + '\n');
  } catch {
    // no stamp: the next call builds
  }
}

/** Removes the stamp before a build runs: a build that fails or is stopped leaves none (the next call builds). */
export function dropMavenBuildStamp(stampFile: string): void {
  try {
    rmSync(stampFile, { force: true });
  } catch {
    // the stamp's start stays older than what changed
  }
}

/** The key of a build step: its command. */
export function mavenBuildKey(command: string[]): string {
  return command.join('\0');
}

function readStamp(stampFile: string): MavenBuildStamp | undefined {
  try {
    const s = JSON.parse(readFileSync(stampFile, 'utf8')) as MavenBuildStamp;
    return typeof s.build === 'string' && Number.isFinite(s.started) && Number.isFinite(s.finished) ? s : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first file or folder under `top` changed at or after `since` (a path), `'too large'`, or
 * undefined when none. Folders holding a pom.xml (module folders, whose entries include target/
 * and .braid/, written by the build and Braid) are not compared themselves; their files are.
 */
function changedUnder(top: string, since: number): string | undefined {
  let seen = 0;
  const walk = (dir: string, isTop: boolean): string | undefined => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return dir;
    }
    if (!isTop && !entries.some((e) => e.name === 'pom.xml')) {
      const t = mtime(dir);
      if (t === undefined || t >= since) return dir;
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) return 'too large';
      if (e.name.startsWith('.') || SKIP.has(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const hit = walk(p, false);
        if (hit) return hit;
      } else {
        const t = mtime(p);
        if (t === undefined || t >= since) return p;
      }
    }
    return undefined;
  };
  return walk(top, true);
}

/**
 * Whether the build step `build` (its key) need not run: undefined when it must, else when the
 * build it can skip ran (the stamp's start). `tree`: the folder Maven starts in; `inputs`:
 * mavenClassPathInputs; `outputs`: files the build wrote that must still be there (the test's
 * class file); `classPathFile`: the resolved class path (its jars older than the build's end, its
 * entries there).
 */
export function mavenBuildUpToDate(stampFile: string, build: string, tree: string, inputs: string[], outputs: string[], classPathFile: string): Date | undefined {
  const stamp = readStamp(stampFile);
  if (!stamp || stamp.build !== build) return undefined;
  if (outputs.some((f) => mtime(f) === undefined)) return undefined;
  for (const input of inputs) {
    try {
      if (statSync(input).mtimeMs >= stamp.started) return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    }
  }
  let entries: string[];
  try {
    entries = readFileSync(classPathFile, 'utf8').trim().split(path.delimiter).filter((e) => e !== '');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    let st: import('node:fs').Stats;
    try {
      st = statSync(entry);
    } catch {
      return undefined;
    }
    // a reactor module's classes folder is the build's own output; a jar installed or downloaded since the build builds again
    if (st.isFile() && st.mtimeMs >= stamp.finished) return undefined;
  }
  return changedUnder(tree, stamp.started) === undefined ? new Date(stamp.started) : undefined;
}
