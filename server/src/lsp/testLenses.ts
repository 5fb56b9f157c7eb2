/**
 * The "Braid: find the root cause" code lenses above JUnit 4/5 and TestNG test classes and methods
 * (found by recorder/java/testDiscovery), and above the tests and describe blocks of node:test, mocha,
 * jest and vitest in .js/.ts test files (recorder/node/jsTestDiscovery). The lens runs braid.recordTest in
 * the client, which asks the server for the test's command (braid/testCommand) and records runs of
 * just that test.
 */
import path from 'node:path';
import type { CodeLens } from 'vscode-languageserver';
import { findTests } from '../recorder/java/testDiscovery';
import { findJsTests, FoundJsTest, importedRunner, isJsTestFile, JS_SOURCE, scanJs } from '../recorder/node/jsTestDiscovery';
import type { RecordTestArgs } from './protocol';
import { DiscoveryBudget } from '../recorder/discovery/discoveryBudget';

export const RECORD_TEST_COMMAND = 'braid.recordTest';
export const RECORD_TEST_TITLE = 'Braid: find the root cause';

function lens(line: number, character: number, tooltip: string, args: RecordTestArgs): CodeLens {
  return {
    range: { start: { line, character }, end: { line, character } },
    command: { title: RECORD_TEST_TITLE, tooltip, command: RECORD_TEST_COMMAND, arguments: [args] },
  };
}

/** The path part of a URI (decoded), for the file-name checks; the URI itself when it has none. */
function uriPath(uri: string): string {
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/** The budget of one file's discovery: DiscoveryBudget.forText unless a test gives another. */
export type BudgetOf = (text: string) => DiscoveryBudget;

/**
 * Why a file's tests are skipped, for the server's log: the file and what stopped its discovery
 * (issue 39: one file must never empty the Testing view or the lenses of the others).
 */
export function skippedReason(uri: string, e: unknown): string {
  return `Braid: the tests of ${JSON.stringify(uri)} are skipped: ${e instanceof Error ? e.message : String(e)}`;
}

/** The lenses of a test file; none (and the reason logged) when its discovery fails. */
export function testCodeLenses(uri: string, text: string | undefined, log?: (message: string) => void, budget: BudgetOf = (t) => DiscoveryBudget.forText(t)): CodeLens[] {
  if (text === undefined) return [];
  try {
    return lensesOf(uri, text, budget(text));
  } catch (e) {
    log?.(skippedReason(uri, e));
    return [];
  }
}

function lensesOf(uri: string, text: string, budget: DiscoveryBudget): CodeLens[] {
  if (uri.endsWith('.java')) {
    return findTests(text, budget).map((t) => {
      const args: RecordTestArgs = { uri, className: t.className, framework: t.framework, ...(t.method ? { method: t.method } : {}) };
      const what = t.method ? `${t.className}#${t.method}` : `the tests of ${t.className}`;
      return lens(t.line, t.character, `Record runs of ${what} with noise and rank the access patterns that explain its failures`, args);
    });
  }
  return jsTestsOf(uri, text, budget)?.tests.map(({ test: t, args }) => {
    const what = t.kind === 'suite' ? `the tests of "${t.titles.join(' › ')}"` : `"${t.titles.join(' › ')}"`;
    return lens(t.line, t.character, `Record runs of ${what} with noise and rank the access patterns that explain its failures`, args);
  }) ?? [];
}

/**
 * The tests and suites of a JS/TS test file with the lens' argument of each, and the argument that
 * runs the whole file (no titles); undefined when the file is not a JS/TS test file. The lens and the
 * Testing view (testItems.ts) use the same.
 */
export function jsTestsOf(uri: string, text: string, budget: DiscoveryBudget = DiscoveryBudget.forText(text)): { file: RecordTestArgs; tests: { test: FoundJsTest; args: RecordTestArgs }[] } | undefined {
  const file = uriPath(uri);
  if (!JS_SOURCE.test(file)) return undefined;
  const scan = scanJs(text, budget);
  if (!isJsTestFile(file, text, scan)) return undefined;
  const runner = importedRunner(text, scan);
  const className = path.posix.basename(file);
  const base: RecordTestArgs = { uri, className, framework: 'js', ...(runner ? { runner } : {}) };
  return {
    file: { ...base, titles: [] },
    tests: findJsTests(text, scan, budget).map((t) => ({
      test: t,
      args: { uri, className, method: t.titles[t.titles.length - 1], framework: 'js', titles: t.titles, ...(t.kind === 'suite' ? { suite: true } : {}), ...(runner ? { runner } : {}) },
    })),
  };
}
