/**
 * Issue 43, points 2 and 5: build output in the editor's messages without ANSI colour codes, the
 * compiler's first errors (not its last), and a test that does not exist in the framework's words.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { firstErrors, plainOutput } from '../../server/src/lsp/buildOutput';
import { testNotFoundMessage } from '../../server/src/lsp/testNotFound';

const ESC = '\u001b';

test('Maven colour codes are removed', () => {
  assert.equal(plainOutput(`[${ESC}[1;31mERROR${ESC}[m] COMPILATION ERROR : \n[${ESC}[1;34mINFO${ESC}[m] x`), '[ERROR] COMPILATION ERROR : \n[INFO] x');
  assert.doesNotMatch(plainOutput(`a${ESC}]8;;http://x${ESC}\\b\u0007c`), /[\u0000-\u0008\u001b\u0007]/);
});

test('javac: the first errors with their source line, not the last ones', () => {
  const errors = Array.from({ length: 30 }, (_, i) => [`src/bank/Account.java:${i + 10}: error: cannot find symbol`, '        balance = balanse + amount;', '                  ^']).flat();
  const out = ['Note: some input files use unchecked operations.', ...errors, '30 errors'].join('\n');
  const shown = firstErrors(out).split('\n');
  assert.equal(shown[0], 'src/bank/Account.java:10: error: cannot find symbol');
  assert.equal(shown.length, 15);
  assert.ok(!shown.includes('30 errors'));
});

test('Maven with colours: the first file error, without escape codes', () => {
  const out = [
    `[${ESC}[1;34mINFO${ESC}[m] Compiling 3 source files`,
    `[${ESC}[1;31mERROR${ESC}[m] COMPILATION ERROR : `,
    `[${ESC}[1;34mINFO${ESC}[m] -------------------------------------------------------------`,
    `[${ESC}[1;31mERROR${ESC}[m] /ws/src/main/java/bank/Account.java:[12,43] ';' expected`,
    `[${ESC}[1;34mINFO${ESC}[m] 1 error`,
    `[${ESC}[1;31mERROR${ESC}[m] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile`,
    `[${ESC}[1;31mERROR${ESC}[m] -> [Help 1]`,
  ].join('\n');
  const shown = firstErrors(out, 3);
  assert.equal(shown.split('\n')[0], "[ERROR] /ws/src/main/java/bank/Account.java:[12,43] ';' expected");
  assert.ok(!shown.includes(ESC));
});

test('output without an error line: its last lines', () => {
  assert.equal(firstErrors(['a', 'b', 'c', 'd'].join('\n'), 2), 'c\nd');
});

test("a test that does not exist: JUnit's, Maven's and Gradle's own message", () => {
  const junit5 = [
    'Thanks for using JUnit! Support its development at https://junit.org/sponsoring',
    '',
    `${ESC}[31mJUnit Platform Suite${ESC}[0m`,
    'org.junit.platform.commons.PreconditionViolationException: Could not find method with name [noSuchTest] in class [bank.AccountTest].',
    '\tat org.junit.platform.commons.util.Preconditions.condition(Preconditions.java:299)',
  ].join('\n');
  assert.equal(testNotFoundMessage(junit5), 'Could not find method with name [noSuchTest] in class [bank.AccountTest]');
  assert.equal(
    testNotFoundMessage('[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project bank: No tests matching pattern "AccountTest#noSuchTest" were executed! (Set -Dsurefire.failIfNoSpecifiedTests=false to ignore this error.) -> [Help 1]'),
    'No tests matching pattern "AccountTest#noSuchTest" were executed!',
  );
  assert.equal(testNotFoundMessage("Execution failed for task ':test'.\n> No tests found for given includes: [bank.AccountTest.noSuchTest](--tests filter)"), 'No tests found for given includes: [bank.AccountTest.noSuchTest](--tests filter)');
  assert.equal(testNotFoundMessage('Error: Could not find or load main class vectorcopy.VectorCopy'), undefined, 'not a test that is missing');
});
