/**
 * Suspiciousness formulas of statistical fault localization applied to
 * patterns (thesis §3.2.2, §4.2.4). Jaccard is the default: it ranks a
 * pattern seen in one failing run and nowhere else below one seen in every
 * failing run, which Tarantula does not.
 */
export type Formula = 'jaccard' | 'ochiai' | 'tarantula';

export const FORMULAS: readonly Formula[] = ['jaccard', 'ochiai', 'tarantula'];

/** failed(p) / (totalFailed + passed(p)) — thesis formula (2)/(3). */
export function jaccard(failed: number, passed: number, totalFailed: number): number {
  const d = totalFailed + passed;
  return d === 0 ? 0 : failed / d;
}

/** failed(p) / sqrt(totalFailed × (failed(p) + passed(p))). */
export function ochiai(failed: number, passed: number, totalFailed: number): number {
  const d = Math.sqrt(totalFailed * (failed + passed));
  return d === 0 ? 0 : failed / d;
}

/** %failed / (%failed + %passed) — thesis formula (1). */
export function tarantula(failed: number, passed: number, totalFailed: number, totalPassed: number): number {
  const f = totalFailed === 0 ? 0 : failed / totalFailed;
  const p = totalPassed === 0 ? 0 : passed / totalPassed;
  return f + p === 0 ? 0 : f / (f + p);
}

export function suspiciousness(formula: Formula, failed: number, passed: number, totalFailed: number, totalPassed: number): number {
  switch (formula) {
    case 'jaccard':
      return jaccard(failed, passed, totalFailed);
    case 'ochiai':
      return ochiai(failed, passed, totalFailed);
    case 'tarantula':
      return tarantula(failed, passed, totalFailed, totalPassed);
  }
}
