/**
 * The failure a JavaScript/TypeScript run's own output reports (issue 32, point 5): the assertion
 * or error message and the line of the user's code it was thrown at, from
 *   - node:test's TAP reporter (`not ok N - name`, then a YAML block: `error`, `name`, `stack`,
 *     `location`), the default when the output is not a terminal;
 *   - an error line `AssertionError [ERR_ASSERTION]: msg` with `at …(file:line:col)` frames below
 *     it: node:test's spec reporter, mocha, an uncaught exception or unhandled rejection;
 *   - vitest (`AssertionError: expected 1 to be 2`, frames as `❯ file:line:col`);
 *   - jest (`● suite › test`, the message lines, then `at … (file:line:col)`).
 * File paths are made relative to the run's working folder when they lie under it (the trace's
 * locations are), `file://` URLs turned into paths. Frames of Node's internals and node_modules
 * are skipped. Reads at most the first 1 MiB and 20,000 lines.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutputFailure } from './runFailure';

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
/** `AssertionError [ERR_ASSERTION]: msg`, `TypeError: x is not a function`, `Error: boom` */
const ERROR_LINE = /^\s*(?:Uncaught\s+)?((?:[A-Z][\w$]*)?(?:Error|Exception))(?: \[[A-Z0-9_]+\])?(?::\s?(.*))?$/;
/** a frame: `at fn (file:line:col)`, `at file:line:col`, vitest's `❯ file:line:col` */
const FRAME = /^\s*(?:at\s+(?:.*?\()?|❯\s+(?:.*?\()?)((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;
/** a frame of a TAP block's `stack` (node:test drops the `at `): `file:///a.mjs:45:12`, `async Test.run (node:…:797:9)` */
const TAP_FRAME = /^\s*(?:at\s+)?(?:[^()]*\()?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;

function isOwn(file: string): boolean {
  return !/^node:|^internal\/|[\\/]node_modules[\\/]|^<anonymous>$/.test(file);
}

function fileOf(raw: string, cwd: string | undefined): string {
  let f = raw;
  if (f.startsWith('file://')) {
    try {
      f = fileURLToPath(f);
    } catch {
      // not a file URL after all
    }
  }
  if (cwd && path.isAbsolute(f)) {
    const rel = path.relative(cwd, f);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) f = rel;
  }
  return f.split(path.sep).join('/');
}

/** The first frame of the user's code among `lines` (from index `from`, at most `max` lines). */
function ownFrameAt(lines: readonly string[], from: number, max: number, cwd: string | undefined, frame = FRAME): { file: string; line: number } | undefined {
  for (let j = from; j < lines.length && j < from + max; j++) {
    const m = frame.exec(lines[j]);
    if (m && isOwn(m[1])) return { file: fileOf(m[1], cwd), line: Number(m[2]) };
  }
  return undefined;
}

const isAssertion = (name: string, message: string) => /Assertion/.test(name) || /^expect\(/.test(message);

/** node:test's TAP block after `not ok`: its error, error name, stack and location. */
function tapFailure(lines: readonly string[], k: number, cwd: string | undefined): OutputFailure | undefined {
  let error: string | undefined;
  let name: string | undefined;
  let location: { file: string; line: number } | undefined;
  let stackAt = -1;
  const unquote = (v: string) => {
    const t = v.trim();
    if (t.startsWith('"')) {
      try {
        return JSON.parse(t) as string;
      } catch {
        return t.slice(1, -1);
      }
    }
    if (t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    return t;
  };
  for (let j = k + 1; j < lines.length && j < k + 400; j++) {
    const line = lines[j];
    if (/^\s*\.\.\.\s*$/.test(line) || /^(?:not )?ok \d+/.test(line.trim())) break;
    const kv = /^\s+([a-zA-Z_]+):\s?(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, value] = kv;
    if (key === 'error') {
      if (/^[|>]-?$/.test(value.trim())) {
        const block: string[] = [];
        const indent = /^(\s*)/.exec(line)![1].length;
        for (let i = j + 1; i < lines.length && (/^(\s*)/.exec(lines[i])![1].length > indent || lines[i].trim() === ''); i++) block.push(lines[i].trim());
        error = block.filter(Boolean).join(' ');
      } else error = unquote(value);
    } else if (key === 'name' && name === undefined) name = unquote(value);
    else if (key === 'location' && !location) {
      const m = /^(.*):(\d+):\d+$/.exec(unquote(value));
      if (m) location = { file: fileOf(m[1], cwd), line: Number(m[2]) };
    } else if (key === 'stack') stackAt = j + 1;
  }
  if (error === undefined) return undefined;
  const where = (stackAt >= 0 ? ownFrameAt(lines, stackAt, 40, cwd, TAP_FRAME) : undefined) ?? location;
  const message = name && !error.startsWith(name) ? `${name}: ${error}` : error;
  return { message, ...(where ? { location: where } : {}), assertion: isAssertion(name ?? '', error) };
}

/** jest's `● suite › test` block: its first message line and the first frame of the user's code. */
function jestFailure(lines: readonly string[], k: number, cwd: string | undefined): OutputFailure | undefined {
  let message: string | undefined;
  for (let j = k + 1; j < lines.length && j < k + 60; j++) {
    const t = lines[j].trim();
    if (!t) continue;
    if (FRAME.test(lines[j])) break;
    message = t;
    break;
  }
  if (!message) return undefined;
  const where = ownFrameAt(lines, k + 1, 80, cwd);
  return { message, ...(where ? { location: where } : {}), assertion: isAssertion('', message) || /expect/.test(message) };
}

export function parseJsFailureOutput(output: string, cwd?: string): OutputFailure | undefined {
  const lines = output.slice(0, 1 << 20).replace(ANSI, '').split(/\r?\n/, 20000);
  let generic: OutputFailure | undefined;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    if (/^\s*not ok \d+/.test(line)) {
      const f = tapFailure(lines, k, cwd);
      // a suite's `not ok` only repeats its subtest's failure: the first block with an error wins
      if (f) return f;
      continue;
    }
    if (/^\s*● /.test(line) && !/^\s*● Test suite failed to run/.test(line)) {
      const f = jestFailure(lines, k, cwd);
      if (f) return f;
      continue;
    }
    if (generic) continue;
    const e = ERROR_LINE.exec(line);
    if (!e) continue;
    const where = ownFrameAt(lines, k + 1, 30, cwd);
    // an error line with no frame below it is prose, not a report
    if (!where && !FRAME.test(lines[k + 1] ?? '')) continue;
    const text = e[2]?.trim();
    generic = { message: text ? `${e[1]}: ${text}` : e[1], ...(where ? { location: where } : {}), assertion: isAssertion(e[1], text ?? '') };
  }
  return generic;
}
