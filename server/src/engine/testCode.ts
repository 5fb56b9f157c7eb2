/**
 * Test code ("harness") versus code under test. A source location is test
 * code when
 *   1. the user's `--test-code` globs (`braid.testCode`) say so: matched
 *      against the file path and the qualified method name, the last glob
 *      that matches decides, and a glob prefixed with `!` says "code under
 *      test" (it overrides everything below);
 *   2. otherwise, when the recorder marked it (`loc.harness`: a JUnit 4/5 or
 *      TestNG class, a `junit.framework.TestCase` subclass) or its file lies
 *      in a Maven/Gradle test source root (`src/test/...`);
 *   3. otherwise, when it is the test driver of the recorded command
 *      (testDriver.ts: the entry class's `main`, its lambdas, and the code of
 *      its source file that only the driver uses — when the program has code
 *      under test elsewhere).
 *
 * Used by the ranking (harness patterns) and by GRIFFIN (a suspicious
 * method is never a harness method when code under test is on the stack).
 */
import { DriverCode, DriverRule } from './testDriver';

export interface CodeLocation {
  file: string;
  method: string;
  harness?: boolean;
}

export class TestCodeClassifier {
  private readonly globs: { re: RegExp; test: boolean }[];
  private drivers: DriverCode | undefined;

  constructor(globs: readonly string[] = [], drivers?: DriverRule) {
    this.globs = globs.map((g) => (g.startsWith('!') ? { re: globToRegExp(g.slice(1)), test: false } : { re: globToRegExp(g), test: true }));
    this.setDrivers(drivers);
  }

  /** The test driver rule of the recorded runs (testDriver.ts); undefined: none. */
  setDrivers(rule: DriverRule | undefined): void {
    this.drivers = rule && rule.entries.length ? new DriverCode(rule) : undefined;
  }

  /**
   * What the user's globs, the recorder's mark and the test folders say: true test code, false code
   * under test (a `!` glob), undefined nothing (the driver rule then decides).
   */
  declared(loc: CodeLocation): boolean | undefined {
    const file = loc.file.replace(/\\/g, '/');
    for (let k = this.globs.length - 1; k >= 0; k--) {
      const g = this.globs[k];
      if (g.re.test(file) || g.re.test(loc.method)) return g.test;
    }
    if (loc.harness) return true;
    if (/(^|\/)src\/(test|it|integrationTest)\//.test(file)) return true;
    return undefined;
  }

  isTestCode(loc: CodeLocation): boolean {
    const d = this.declared(loc);
    if (d !== undefined) return d;
    return this.drivers ? this.drivers.isDriver(loc.file, loc.method) : false;
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
