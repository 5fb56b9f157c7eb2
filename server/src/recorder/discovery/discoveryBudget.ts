/**
 * The work test discovery (testDiscovery.ts for Java, jsTestDiscovery.ts for JS/TS) may do on one
 * source text, counted in steps (characters looked at, declarations, annotations and calls handled):
 * a fixed allowance plus a few steps per character. Discovery is linear in the text, so a real file
 * never comes near it; a file that does is cut off with DiscoveryLimitError instead of holding the
 * language server (which then skips that one file's tests with the reason in its log). The count is
 * deterministic — no clock — so the tests assert on it.
 */

/** Steps allowed per character of the text (every pass of the scans together stays well under this). */
export const STEPS_PER_CHAR = 40;
/** Steps allowed for any text, however short. */
export const BASE_STEPS = 100_000;

/** The entries one file lists at most (tests, suites, classes); the rest have none. */
export const MAX_TESTS_PER_FILE = 10_000;

export class DiscoveryLimitError extends Error {}

export class DiscoveryBudget {
  /** the steps spent so far */
  steps = 0;

  constructor(readonly limit: number) {}

  /** The budget of one source text: BASE_STEPS + STEPS_PER_CHAR per character (smaller factors for tests). */
  static forText(text: string, perChar = STEPS_PER_CHAR, base = BASE_STEPS): DiscoveryBudget {
    return new DiscoveryBudget(base + perChar * text.length);
  }

  /** Counts n steps; throws DiscoveryLimitError past the limit. */
  spend(n: number): void {
    this.steps += n;
    if (this.steps > this.limit) {
      throw new DiscoveryLimitError(`test discovery gave up after ${this.limit.toLocaleString('en')} steps (the file is too large or too deeply nested to scan)`);
    }
  }
}
