/**
 * A test that does not exist (issue 43, point 5): the test framework's own words, from the output of
 * a run that never reached the program, instead of the generic "the command never reached the
 * program". JUnit Platform (`Could not find method with name [x] in class [y]`), JUnit 4 (`No tests
 * found matching …`), Maven Surefire (`No tests matching pattern … were executed`), Gradle (`No tests
 * found for given includes: …`) and TestNG (`… no test … found`). The line is shown as text (the
 * caller escapes it for where it goes); control characters (ANSI colours) are removed.
 */
import { plainOutputLine } from './buildOutput';

const NOT_FOUND: RegExp[] = [
  /Could not find method with name \[[^\]\n]*\][^\n]*/,
  /Could not find class with name \[[^\]\n]*\][^\n]*/,
  /No tests found matching [^\n]*/,
  /No tests matching pattern [^\n]*? were executed[^\n]*/,
  /No tests found for given includes: [^\n]*/,
  /No test(?:s| methods?) (?:were |was )?found[^\n]*/,
  /No tests were executed[^\n]*/,
];

/** The framework's sentence saying the selected test does not exist, or undefined. */
export function testNotFoundMessage(output: string): string | undefined {
  for (const line of output.split(/\r?\n/)) {
    const plain = plainOutputLine(line);
    for (const re of NOT_FOUND) {
      const m = re.exec(plain);
      if (m) return m[0].replace(/\s*\(Set -Dsurefire\.failIfNoSpecifiedTests=false[^)]*\)/, '').replace(/\s*-> \[Help \d+\]\s*$/, '').replace(/[.\s]+$/, '').slice(0, 500);
    }
  }
  return undefined;
}
