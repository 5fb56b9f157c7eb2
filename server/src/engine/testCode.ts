/**
 * Test code ("harness") versus code under test. A source location is test
 * code when the recorder marked it (`loc.harness`: a JUnit 4/5 or TestNG
 * class, a `junit.framework.TestCase` subclass), when its file lies in a
 * Maven/Gradle test source root (`src/test/...`), or when it matches one of
 * the user's `--test-code` globs (`braid.testCode`), matched against the
 * file path and against the qualified method name.
 *
 * Used by the ranking (harness patterns) and by GRIFFIN (a suspicious
 * method is never a harness method when code under test is on the stack).
 */
export interface CodeLocation {
  file: string;
  method: string;
  harness?: boolean;
}

export class TestCodeClassifier {
  private readonly patterns: RegExp[];

  constructor(globs: readonly string[] = []) {
    this.patterns = globs.map(globToRegExp);
  }

  isTestCode(loc: CodeLocation): boolean {
    if (loc.harness) return true;
    const file = loc.file.replace(/\\/g, '/');
    if (/(^|\/)src\/(test|it|integrationTest)\//.test(file)) return true;
    for (const re of this.patterns) if (re.test(file) || re.test(loc.method)) return true;
    return false;
  }
}

/** `*` matches within one path segment or name part, `**` across them; `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let k = 0; k < glob.length; k++) {
    const c = glob[k];
    if (c === '*') {
      if (glob[k + 1] === '*') {
        re += '.*';
        k++;
        if (glob[k + 1] === '/') k++;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
