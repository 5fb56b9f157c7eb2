/**
 * The fewest runs IGS's stop test (the likelihood-ratio test at p < 10⁻⁶,
 * likelihoodRatioPValue) can stop on, for a trigger point failing a share
 * `with` of its runs and the runs without it failing a share `without`:
 * every total N and every split of N into runs with and without the point,
 * outcomes at their expected counts (fails with rounded down, without up).
 * No search, IGS or one point at a time, stops in fewer runs than this.
 *   node --import tsx bench/stop-test-floor.ts [with=0.95] [without shares…]
 */
import { likelihoodRatioPValue } from '../server/src/engine/noise/likelihoodRatio';

const STOP_P = 1e-6;
const withShare = Number(process.argv[2] ?? 0.95);
const withoutShares = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [0, 0.05, 0.1, 0.15, 0.2];

function stopFloor(pWith: number, pWithout: number, maxRuns = 200): { runs: number; runsWith: number; failsWith: number; failsWithout: number } | undefined {
  for (let n = 2; n <= maxRuns; n++)
    for (let a = 1; a < n; a++) {
      const fw = Math.floor(a * pWith + 1e-9);
      const fo = Math.ceil((n - a) * pWithout - 1e-9);
      if (likelihoodRatioPValue(fw, a, fo, n - a) < STOP_P) return { runs: n, runsWith: a, failsWith: fw, failsWithout: fo };
    }
  return undefined;
}

console.log(`Stop test floor (p < ${STOP_P}): a trigger failing ${Math.round(withShare * 100)} % of its runs`);
console.log('runs without it fail   fewest runs   (with it: runs, fails; without: fails)');
for (const s of withoutShares) {
  const f = stopFloor(withShare, s);
  console.log(`${`${Math.round(s * 100)} %`.padStart(20)}   ${String(f?.runs ?? '> 200').padStart(11)}   ${f ? `(${f.runsWith}, ${f.failsWith}; ${f.failsWithout})` : ''}`);
}
