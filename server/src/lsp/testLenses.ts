/**
 * The "Braid: find the root cause" code lenses above JUnit 4/5 and TestNG test classes and methods
 * (found by recorder/testDiscovery). The lens runs braid.recordTest in the client, which asks the
 * server for the test's command (braid/testCommand) and records runs of just that test.
 */
import type { CodeLens } from 'vscode-languageserver';
import { findTests } from '../recorder/testDiscovery';
import type { RecordTestArgs } from './protocol';

export const RECORD_TEST_COMMAND = 'braid.recordTest';
export const RECORD_TEST_TITLE = 'Braid: find the root cause';

export function testCodeLenses(uri: string, text: string | undefined): CodeLens[] {
  if (text === undefined || !uri.endsWith('.java')) return [];
  return findTests(text).map((t) => {
    const args: RecordTestArgs = { uri, className: t.className, framework: t.framework, ...(t.method ? { method: t.method } : {}) };
    return {
      range: { start: { line: t.line, character: t.character }, end: { line: t.line, character: t.character } },
      command: {
        title: RECORD_TEST_TITLE,
        tooltip: `Record runs of ${t.method ? `${t.className}#${t.method}` : `the tests of ${t.className}`} with noise and rank the access patterns that explain its failures`,
        command: RECORD_TEST_COMMAND,
        arguments: [args],
      },
    } as CodeLens;
  });
}
