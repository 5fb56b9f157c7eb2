/**
 * braid/testItems: the tests of a file or of the workspace for VS Code's Testing view (the client's
 * "Run with Braid" profile, client/src/testing.ts), found exactly as the "find the root cause" code
 * lens finds them (recorder/java/testDiscovery.findTests for Java; testLenses.jsTestsOf for node:test,
 * mocha, jest and vitest files) and carrying the lens' argument, so running a test item records the
 * same command as clicking its lens (braid/testCommand, braid/record). A JS/TS test file is an item
 * of its own (running it runs the file), with its suites and tests inside.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findTests, type FoundTest } from '../recorder/java/testDiscovery';
import { JS_SOURCE } from '../recorder/node/jsTestDiscovery';
import type { RecordTestArgs, TestItemDto, TestItemsParams, TestItemsResult } from './protocol';
import { jsTestsOf, skippedReason, type BudgetOf } from './testLenses';
import { DiscoveryBudget } from '../recorder/discovery/discoveryBudget';

/** Folders never searched: hidden ones (.git, .braid, .gradle), dependencies and build outputs (as `braid test`). */
const SKIPPED = new Set(['node_modules', 'target', 'build', 'out', 'bin', 'dist']);
/** Most source files (.java, and JS/TS test files) looked at in a workspace walk. */
export const MAX_JAVA_FILES = 20_000;
/** Larger sources are not read (generated code). */
const MAX_FILE_BYTES = 2_000_000;

/** The test items of one Java source text: its test classes (nested ones inside their outer test class) with their test methods. */
export function testItemsOfText(uri: string, text: string, budget: DiscoveryBudget = DiscoveryBudget.forText(text)): TestItemDto[] {
  if (!uri.endsWith('.java')) return jsTestItems(uri, text, budget);
  const found = findTests(text, budget);
  const classes = new Map<string, TestItemDto>();
  const top: TestItemDto[] = [];
  for (const t of found) {
    if (t.method !== undefined) continue;
    const item = node(uri, t);
    classes.set(t.className, item);
    const outer = t.className.includes('$') ? classes.get(t.className.slice(0, t.className.lastIndexOf('$'))) : undefined;
    if (outer) outer.children.push(item);
    else top.push(item);
  }
  for (const t of found) if (t.method !== undefined) classes.get(t.className)?.children.push(node(uri, t));
  return top;
}

/** A JS/TS test file's item: the file, its suites inside it, each test inside its innermost suite. */
function jsTestItems(uri: string, text: string, budget: DiscoveryBudget): TestItemDto[] {
  const found = jsTestsOf(uri, text, budget);
  if (!found || !found.tests.length) return [];
  const fileItem: TestItemDto = {
    id: uri,
    label: found.file.className,
    uri,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    args: found.file,
    children: [],
  };
  const byTitles = new Map<string, TestItemDto>();
  for (const { test: t, args } of found.tests) {
    const key = t.titles.join('\u0000');
    if (byTitles.has(key)) continue; // two tests of one name in one suite: the runner's name pattern runs both
    const label = t.titles[t.titles.length - 1];
    const item: TestItemDto = {
      id: `${uri}#${t.titles.map((x) => x.replace(/[\\›]/g, '\\$&')).join('›')}`,
      label,
      uri,
      range: { start: { line: t.line, character: t.character }, end: { line: t.line, character: t.character } },
      args,
      children: [],
    };
    byTitles.set(key, item);
    let parent: TestItemDto | undefined;
    for (let k = t.titles.length - 1; k > 0 && !parent; k--) parent = byTitles.get(t.titles.slice(0, k).join('\u0000'));
    (parent ?? fileItem).children.push(item);
  }
  return [fileItem];
}

function node(uri: string, t: FoundTest): TestItemDto {
  const args: RecordTestArgs = { uri, className: t.className, framework: t.framework, ...(t.method !== undefined ? { method: t.method } : {}) };
  const simple = t.className.slice(t.className.lastIndexOf('.') + 1);
  const label = t.method ?? simple.slice(simple.lastIndexOf('$') + 1);
  const pkg = t.className.includes('.') ? t.className.slice(0, t.className.lastIndexOf('.')) : '';
  return {
    id: `${uri}#${t.className}${t.method !== undefined ? `#${t.method}` : ''}`,
    label,
    ...(t.method === undefined && !t.className.includes('$') && pkg ? { description: pkg } : {}),
    uri,
    range: { start: { line: t.line, character: t.character }, end: { line: t.line, character: t.character + label.length } },
    args,
    children: [],
  };
}

export interface TestItemsContext {
  folders: readonly string[];
  /** the text of an open document (its unsaved edits), else undefined */
  openText(uri: string): string | undefined;
  /** where a file whose tests are skipped is said (the server's log) */
  log?(message: string): void;
  /** the discovery budget of one file (default DiscoveryBudget.forText) */
  budget?: BudgetOf;
}

/** A file's items; none, and the reason logged, when its discovery fails: the other files still list. */
function itemsOrSkip(uri: string, text: string, ctx: TestItemsContext): TestItemDto[] {
  try {
    return testItemsOfText(uri, text, ctx.budget ? ctx.budget(text) : DiscoveryBudget.forText(text));
  } catch (e) {
    ctx.log?.(skippedReason(uri, e));
    return [];
  }
}

/** braid/testItems: one file (`uri`) or every test file under the workspace folders. */
export async function testItemsRequest(p: TestItemsParams | undefined, ctx: TestItemsContext): Promise<TestItemsResult> {
  if (p?.uri !== undefined) {
    if (typeof p.uri !== 'string') return { files: [] };
    const text = ctx.openText(p.uri) ?? (await readSource(uriPath(p.uri), ctx.folders));
    return { files: [{ uri: p.uri, items: text === undefined ? [] : itemsOrSkip(p.uri, text, ctx) }] };
  }
  const files: TestItemsResult['files'] = [];
  let seen = 0;
  let truncated = false;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (seen >= MAX_JAVA_FILES) {
        truncated = true;
        return;
      }
      // symbolic links are not followed (Dirent of a link is neither a file nor a folder): nothing outside the folder is read
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIPPED.has(e.name)) await walk(path.join(dir, e.name));
      } else if (e.isFile() && e.name.endsWith('.java')) {
        seen++;
        const f = path.join(dir, e.name);
        const uri = pathToFileURL(f).href;
        const text = ctx.openText(uri) ?? (await readSource(f, ctx.folders));
        if (text === undefined || !/@\s*[\w.]*Test\w*/.test(text)) continue;
        const items = itemsOrSkip(uri, text, ctx);
        if (items.length) files.push({ uri, items });
      } else if (e.isFile() && JS_SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) {
        seen++;
        const f = path.join(dir, e.name);
        const uri = pathToFileURL(f).href;
        const text = ctx.openText(uri) ?? (await readSource(f, ctx.folders));
        // a cheap look first: test files call test(, it( or describe( (jsTestsOf decides)
        if (text === undefined || !/\b(?:test|it|describe|suite|specify|context)\s*(?:\.\s*\w+\s*)?\(/.test(text)) continue;
        const items = itemsOrSkip(uri, text, ctx);
        if (items.length) files.push({ uri, items });
      }
    }
  };
  for (const folder of ctx.folders) await walk(folder);
  return { files, ...(truncated ? { truncated } : {}) };
}

function uriPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** A .java or JS/TS file inside a workspace folder, not a symbolic link and not huge; else undefined. */
async function readSource(file: string | undefined, folders: readonly string[]): Promise<string | undefined> {
  if (!file || !(file.endsWith('.java') || JS_SOURCE.test(file))) return undefined;
  const inside = folders.some((f) => {
    const rel = path.relative(f, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
  if (!inside) return undefined;
  try {
    const st = await lstat(file);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}
