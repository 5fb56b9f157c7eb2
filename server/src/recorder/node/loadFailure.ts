/**
 * A JavaScript or TypeScript program that cannot load (issue 42, item 4; docs/recorder-node.md "A
 * program that cannot load"): a TypeScript loader's transform error (esbuild through tsx, ts-node's
 * compile error), a syntax error Node reports while compiling a file, or a module that is not found.
 * Such a run says nothing about the program's concurrency — every run would end the same way — so the
 * recording stops at its first runs with the error, as the Java build step stops at a compile error,
 * and none of its traces join the analysis (notReached.ts).
 *
 * Read from the run's output (stdout and stderr; node:test prints a child's stderr as `# ` lines).
 */
import path from 'node:path';

export interface LoadFailure {
  /** the error in words: `src/accounts.ts:27:52: Expected ";" but found "x"` */
  message: string;
  /** the file (relative to the working folder when under it) and line, when the error names them */
  file?: string;
  line?: number;
}

/** Lines of the output without node:test's `# ` prefix of a child process' output. */
function plain(output: string): string {
  return output.replace(/^# ?/gm, '');
}

function where(file: string, cwd: string): string {
  const f = file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file;
  const rel = path.isAbsolute(f) ? path.relative(cwd, f) : f;
  return (rel.startsWith('..') || path.isAbsolute(rel) ? f : rel).split(path.sep).join('/');
}

const SOURCE = String.raw`((?:file:\/\/)?[^\s:'"()]+\.(?:[cm]?[jt]sx?|json))`;

/** The load failure a run's output reports, or undefined. */
export function jsLoadFailure(output: string, cwd: string): LoadFailure | undefined {
  const text = plain(output);
  let m: RegExpExecArray | null;
  // esbuild (tsx): "Transform failed with 1 error:\n/abs/src/a.ts:27:52: ERROR: Expected ";" but found "x""
  if ((m = new RegExp(String.raw`Transform failed with \d+ errors?:\s*\n\s*${SOURCE}:(\d+):(\d+): ERROR: ([^\n]+)`).exec(text))) {
    const file = where(m[1], cwd);
    return { message: `${file}:${m[2]}:${m[3]}: ${m[4].trim()} (the TypeScript loader could not transform it)`, file, line: Number(m[2]) };
  }
  // ts-node: "TSError: ⨯ Unable to compile TypeScript:\nsrc/a.ts:3:5 - error TS1005: ';' expected."
  if ((m = new RegExp(String.raw`Unable to compile TypeScript:\s*\n\s*${SOURCE}:(\d+):(\d+) - (error TS\d+: [^\n]+)`).exec(text))) {
    const file = where(m[1], cwd);
    return { message: `${file}:${m[2]}:${m[3]}: ${m[4].trim()}`, file, line: Number(m[2]) };
  }
  // Node's own syntax error: "/abs/src/a.js:3\n<the line>\n    ^^^\n\nSyntaxError: Unexpected identifier\n    at wrapSafe (…)"
  // — thrown while compiling the file (its first frame is the compiler's), not a SyntaxError the
  // program throws or JSON.parse raises while it runs (a half-written file read by another task);
  // mocha's CLI prints the same error after ' Exception during run: ' (a spec file's import failed)
  if ((m = new RegExp(String.raw`(?:^|\n)(?: ?Exception during run: )?${SOURCE}:(\d+)\n(?:[^\n]*\n){1,3}\s*\n?SyntaxError: ([^\n]+)\n\s+at (?:wrapSafe|compileSourceTextModule|internalCompileFunction|compileFunction|ModuleLoader\.moduleStrategy) `).exec(text))) {
    const file = where(m[1], cwd);
    return { message: `${file}:${m[2]}: SyntaxError: ${m[3].trim()}`, file, line: Number(m[2]) };
  }
  // a module not found: ES modules ("Cannot find module '/abs/x' imported from /abs/a.mjs",
  // "Cannot find package 'x' imported from …") and CommonJS ("Cannot find module './x'\nRequire stack:\n- /abs/a.js")
  if ((m = /ERR_MODULE_NOT_FOUND[\s\S]{0,200}?Cannot find (module|package) '([^'\n]+)' imported from ([^\s]+)/.exec(text)) || (m = /Error \[ERR_MODULE_NOT_FOUND\]: Cannot find (module|package) '([^'\n]+)' imported from ([^\s]+)/.exec(text))) {
    const file = where(m[3], cwd);
    return { message: `${m[1]} ${where(m[2], cwd)} not found, imported from ${file}`, file };
  }
  if ((m = /Cannot find module '([^'\n]+)'\s*\nRequire stack:\s*\n\s*- ([^\n]+)/.exec(text))) {
    const file = where(m[2].trim(), cwd);
    return { message: `module ${where(m[1], cwd)} not found, required from ${file}`, file };
  }
  return undefined;
}
