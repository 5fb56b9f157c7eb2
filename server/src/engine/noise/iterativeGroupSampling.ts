/**
 * Iterative Group Sampling (seed 004, Algorithm 1): finds the few instrumentation points whose
 * noise makes the bug appear, among many, by sampling random low-dimensional projections.
 *
 *   S ← all D candidate points
 *   while |S| is not small and runs remain:
 *     H ← a random partition of S into L groups            (line 4)
 *     run the 2^L − 2 configurations of the full factorial  (lines 5–9; none/all groups left out)
 *     if the bug appeared: discard the points of the groups that elicited it least (line 10),
 *       or — seed §5 — keep only the groups significantly above the others (Eq. 9, p < 10⁻⁶)
 *   the survivors, ranked by the likelihood-ratio score (Eq. 1) over every run.
 *
 * L comes from the seed's analysis (§2, Eqs. 2–8): a first round with a small L estimates the
 * number of blocking points K_b from the share of configurations that failed (Eq. 2 with K_r = 1,
 * the worst case), and L is the one minimising Eq. 7's worst-case run count (≈ √(K_b / ln 2)).
 *
 * Deviations (docs/noise.md, "Finding trigger points"): groups are balanced (a shuffled S dealt
 * round-robin) so no group is empty; once |S| ≤ `finalSize` every survivor is its own group and the
 * full set is run too (a bug that needs two points only shows when both are on) as well as one
 * control run without noise, survivors then go only by the significance test or as blocking points
 * (their runs fail significantly less than the runs without them, `blockingSignificance`); after `backtrackAfter` rounds without a failure the last discarded
 * points come back (the seed's backtracking), and in the final stage every discarded point comes
 * back when all survivors on fail no more often than the control runs (`futilityRuns`: a program
 * that fails without noise never has a failure-free round); the search stops once a survivor's
 * likelihood-ratio test reaches p < 10⁻⁶ (the seed's threshold) — or, for redundant trigger points
 * (either one elicits the failure, so neither beats the runs without it), once the runs with all
 * survivors on beat the control runs at p < 10⁻⁶ — or when the budget is spent. The stop is
 * checked after every `jobs` runs of the final stage (`sequential`), its configurations run in
 * complementary pairs; once the leading survivor fails alone significantly more often than the
 * control runs, the runs go to it alone or to no noise at all (`leaderDesign`). When no survivor
 * does (each survivor run alone ≥ 3 times), the configuration of several survivors that beats the
 * control runs best leads instead, and the search stops when it does so at p < 10⁻⁶ with a
 * Bonferroni factor for the configurations tried: a bug that needs noise at two points, or one where
 * either of two pairs elicits it and a point of the other pair hides it (`configurationLeader`).
 */
import { ConfigurationOracle, ConfigurationRunner } from './configurationOracle';
import { groupDifferencePValue, likelihoodRatioPValue, PointStatistics, SIGNIFICANCE } from './likelihoodRatio';

export interface IgsOptions {
  /** most runs of the program (each configuration run is one) */
  budget: number;
  /** random source in [0, 1) (seeded for reproducible searches) */
  random: () => number;
  /** runs at once */
  jobs?: number;
  /** a fixed L; default: estimated from the first round (seed §2) */
  groups?: number;
  /** L of the first round when L is estimated (default 3, "a reasonably small L") */
  firstGroups?: number;
  /** largest L the estimate may choose (default 6: 62 runs a round) */
  maxGroups?: number;
  /** p-value threshold of the §5 speed-up and of the stop (default 10⁻⁶) */
  significance?: number;
  /** seed §5: keep only groups significantly above the rest when there are (default true) */
  speedup?: boolean;
  /** survivors few enough to test one by one, and every configuration of them (default 4: 16 a round) */
  finalSize?: number;
  /** rounds without a failure before the last discarded points come back (default 3) */
  backtrackAfter?: number;
  /** θ of Eq. 5–7: accepted probability of not having met a good partition (default 0.05) */
  theta?: number;
  /**
   * Final stage: check the stop after every `jobs` runs instead of after the whole round, with the
   * configurations ordered in complementary pairs (each pair gives every survivor one run with
   * and one without noise) — a sequential test (default true; false = check once per round).
   */
  sequential?: boolean;
  /**
   * Final stage: once the runs with all survivors on and the control runs without noise number at
   * least this many each, and the former fail no more often than the latter, the survivors explain
   * none of the failures — every discarded point comes back (backtracking on evidence; the
   * failure-free-round rule cannot fire when the program also fails without noise). 0 = off
   * (default 4).
   */
  futilityRuns?: number;
  /**
   * Final stage: a survivor whose runs fail less often than the runs without it, at this one-sided
   * p-value of the likelihood-ratio test, is a blocking point (seed: noise there hides the bug) and
   * is discarded — it only dilutes the runs of the trigger point it shares configurations with.
   * Safe for a bug that needs two points: each of them raises the failure rate. 0 = off (default 0.01).
   */
  blockingSignificance?: number;
  /**
   * Final stage (with `sequential`): once the leading survivor (smallest p-value) has failed alone
   * more often than the control runs without noise, the runs go to noise at the leader alone and to
   * no noise at all — each batch on the side (leader on / off) whose run raises the leader's expected
   * likelihood-ratio statistic more (`nextRunOn`). A clean comparison: the other survivors' noise,
   * which may raise the failure rate somewhat, or be a second trigger point, raises neither side.
   * Once a leader's runs alone fail no more often than the control runs (a bug that needs two
   * points), the complementary pairs for the rest of that survivor set. A round keeps its size.
   * false = the complementary pairs only (the seed-like design; default true).
   */
  leaderDesign?: boolean;
  /**
   * Final stage (with `leaderDesign`): when no single survivor leads — each has been run alone at
   * least 3 times and none beats the control runs (p < 0.05) — the configuration of several
   * survivors that beats the control runs best (p < 0.05; a factor 4 of p-value per extra point
   * favours smaller ones) gets the runs, against no noise at all (`nextRunOn`); the search stops when
   * a configuration beats the control runs at p < α / (configurations tried), `together.points`
   * then holding it. A survivor that is significant over all runs but whose runs alone (≥ 3) do not
   * beat the control runs, or has < 3 of them while a configuration led, does not stop the search on
   * its own (it looks significant through the configurations it was in). Rounds whose runs were
   * redirected discard nothing (their group counts are the leader's, not the factorial's).
   * Configurations' runs and the control runs count across survivor sets. false = the single-point
   * leader only (default true).
   */
  configurationLeader?: boolean;
  signal?: AbortSignal;
  onRound?(round: IgsRound): void;
  onRun?(runs: number): void;
}

export interface IgsRound {
  round: number;
  groups: number;
  /** candidate points before the round */
  candidates: number;
  /** configurations run and how many failed */
  configurations: number;
  failures: number;
  /** failures with each group on */
  groupFailures: number[];
  /** points discarded (candidate indices) */
  discarded: number[];
  /** points put back by backtracking */
  restored: number[];
  /** set after the first round when L is estimated */
  kbEstimate?: number;
  runs: number;
}

export interface RankedPoint {
  /** candidate index */
  point: number;
  /** likelihood-ratio score (Eq. 1) over every run */
  score: number;
  failWith: number;
  failWithout: number;
  pValue: number;
}

export interface IgsResult {
  /** the surviving points, best first */
  ranked: RankedPoint[];
  runs: number;
  rounds: number;
  stopped: 'significant' | 'budget' | 'no-failure' | 'cancelled';
  /** K_b estimated from the first round (undefined with a fixed L or without a failure in it) */
  kbEstimate?: number;
  /** L used after the first round */
  groups: number;
  log: IgsRound[];
  stats: PointStatistics;
  /**
   * The final survivors together: runs with noise at all of them against the control runs without
   * noise. Set when the search stopped because the set was significant while no single point was
   * (redundant trigger points: noise at either one elicits the failure). With `points`: the
   * configuration of those survivors only (`configurationLeader`), against every control run.
   */
  together?: { failWith: number; failWithout: number; pValue: number; points?: number[] };
  /** every control run of the final stage (no noise at all): how often the program fails anyway */
  control: { runs: number; fails: number };
}

/**
 * Eq. 2 with K_r = 1 read per configuration: the expected share of the 2^L − 2 configurations that
 * elicit the bug when the one relevant point always elicits it and each of K_b blocking points
 * hides it — a configuration with i of the L groups on has the relevant point on with probability
 * i/L (P_r) and every blocking point off with probability ((L − i)/L)^K_b (P_b, Eq. 3).
 */
export function expectedFailureShare(kb: number, L: number): number {
  let sum = 0;
  let choose = 1; // C(L, i)
  for (let i = 1; i <= L - 1; i++) {
    choose = (choose * (L - i + 1)) / i;
    sum += choose * (i / L) * Math.pow((L - i) / L, kb);
  }
  return sum / (Math.pow(2, L) - 2);
}

/**
 * The worst-case K_b estimate from a first round (seed §2: "based on the empirical probability of
 * finding a bug in this iteration, use Equation 2 to estimate K_b"): the K_b whose expected failure
 * share equals the observed one. Taking the failure probability of a well-instrumented run as 1
 * overestimates K_b, which is the safe side. Undefined when nothing failed (no information).
 */
export function estimateBlockingPoints(failed: number, configurations: number, L: number): number | undefined {
  if (failed <= 0 || configurations <= 0) return undefined;
  const share = failed / configurations;
  if (share >= expectedFailureShare(0, L)) return 0;
  let lo = 0;
  let hi = 1;
  while (expectedFailureShare(hi, L) > share && hi < 1e6) hi *= 2;
  for (let k = 0; k < 60; k++) {
    const mid = (lo + hi) / 2;
    if (expectedFailureShare(mid, L) > share) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Eq. 7: worst-case runs until a good partition is met with probability 1 − θ. */
export function worstCaseRuns(kb: number, L: number, theta = 0.05): number {
  const good = Math.pow((L - 1) / L, kb);
  if (good >= 1) return 0;
  return (Math.log(theta) / Math.log(1 - good)) * (Math.pow(2, L) - 2);
}

/** The L minimising Eq. 7 in [2, maxGroups] (ties: the smaller L). The seed's closed form is √(K_b / ln 2). */
export function chooseGroupCount(kb: number, maxGroups = 6, theta = 0.05): number {
  let best = 2;
  let bestRuns = worstCaseRuns(kb, 2, theta);
  for (let L = 3; L <= maxGroups; L++) {
    const runs = worstCaseRuns(kb, L, theta);
    if (runs < bestRuns) {
      best = L;
      bestRuns = runs;
    }
  }
  return best;
}

/** Seed Eq. 8's closed form: L ≈ √(K_b / ln 2). */
export function worstCaseGroupCount(kb: number): number {
  return Math.sqrt(kb / Math.LN2);
}

/** A random partition of `points` into `L` non-empty groups (shuffled, dealt round-robin). */
export function randomPartition(points: readonly number[], L: number, random: () => number): number[][] {
  const a = points.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  const groups: number[][] = Array.from({ length: Math.min(L, a.length) }, () => []);
  a.forEach((p, k) => groups[k % groups.length].push(p));
  return groups;
}

/** The full factorial over L groups: every on/off mask of the groups but none and all (2^L − 2 rows), or with `withAll` also all. */
export function fullFactorial(L: number, withAll = false): number[] {
  const masks: number[] = [];
  const last = (1 << L) - (withAll ? 1 : 2);
  for (let m = 1; m <= last; m++) masks.push(m);
  return masks;
}

/**
 * The final stage's configurations over k survivors in complementary pairs — m, then all ^ m —
 * ending with all on and the control (0): every consecutive pair gives each survivor one run with
 * noise and one without, so a sequential check after each pair sees balanced evidence.
 */
export function complementaryPairs(k: number): number[] {
  const all = (1 << k) - 1;
  const masks: number[] = [];
  for (let m = 1; m < all; m++) if (m < (all ^ m)) masks.push(m, all ^ m);
  masks.push(all, 0);
  return masks;
}

/**
 * Which groups a round keeps. Seed §5 first: groups sorted by failures; if some consecutive pair
 * differs significantly (Eq. 9, p < α) only the groups above the highest such gap are kept.
 * Otherwise Algorithm 1 line 10: the groups with the fewest failures go, unless all groups tie.
 * `n` is the configurations run with each group on.
 */
export function groupsToDiscard(failures: readonly number[], n: number, alpha: number, speedup: boolean, basic: boolean): number[] {
  const order = failures.map((_, g) => g).sort((a, b) => failures[a] - failures[b]);
  if (speedup) {
    for (let k = order.length - 2; k >= 0; k--) {
      if (groupDifferencePValue(failures[order[k + 1]], failures[order[k]], n) < alpha) return order.slice(0, k + 1);
    }
  }
  if (!basic) return [];
  const min = failures[order[0]];
  const max = failures[order[order.length - 1]];
  if (min === max) return [];
  return order.filter((g) => failures[g] === min);
}

/** The G statistic of the one-sided likelihood-ratio test (0 when the point does not raise the failure rate). */
function gStatistic(failsWith: number, runsWith: number, failsWithout: number, runsWithout: number): number {
  const p = likelihoodRatioPValue(failsWith, runsWith, failsWithout, runsWithout);
  if (p >= 1) return 0;
  const n = runsWith + runsWithout;
  const fails = failsWith + failsWithout;
  const passes = n - fails;
  const x = (o: number, e: number) => (o > 0 ? o * Math.log(o / e) : 0);
  return (
    2 *
    (x(failsWith, (runsWith * fails) / n) +
      x(runsWith - failsWith, (runsWith * passes) / n) +
      x(failsWithout, (runsWithout * fails) / n) +
      x(runsWithout - failsWithout, (runsWithout * passes) / n))
  );
}

/**
 * Whether the next run should have noise at a point with `fw` of `nw` runs failed with it and `fo`
 * of `no` without: the side whose extra run gives the larger expected G statistic (rates estimated
 * with a +½ correction). Ties: on.
 */
export function nextRunOn(fw: number, nw: number, fo: number, no: number): boolean {
  const pw = (fw + 0.5) / (nw + 1);
  const po = (fo + 0.5) / (no + 1);
  const on = pw * gStatistic(fw + 1, nw + 1, fo, no) + (1 - pw) * gStatistic(fw, nw + 1, fo, no);
  const off = po * gStatistic(fw, nw, fo + 1, no + 1) + (1 - po) * gStatistic(fw, nw, fo, no + 1);
  return on >= off;
}

/** `ranked` with the points at p < `alpha` first (each part keeps its order). */
export function significantFirst(ranked: RankedPoint[], alpha: number): RankedPoint[] {
  return [...ranked.filter((x) => x.pValue < alpha), ...ranked.filter((x) => !(x.pValue < alpha))];
}

export function rankPoints(points: readonly number[], stats: PointStatistics): RankedPoint[] {
  return points
    .map((p) => ({ point: p, score: stats.score(p), failWith: stats.failWith(p), failWithout: stats.failWithout(p), pValue: stats.pValue(p) }))
    .sort((a, b) => b.score - a.score || a.pValue - b.pValue || a.point - b.point);
}

export async function iterativeGroupSampling(points: number, oracle: ConfigurationOracle, options: IgsOptions): Promise<IgsResult> {
  const alpha = options.significance ?? SIGNIFICANCE;
  const finalSize = Math.max(1, options.finalSize ?? 4);
  const backtrackAfter = options.backtrackAfter ?? 3;
  const speedup = options.speedup ?? true;
  const maxGroups = options.maxGroups ?? 6;
  const sequential = options.sequential ?? true;
  const futilityRuns = options.futilityRuns ?? 4;
  const blockingAlpha = options.blockingSignificance ?? 0.01;
  const leaderDesign = options.leaderDesign ?? true;
  const jobs = Math.max(1, options.jobs ?? 1);
  const runner = new ConfigurationRunner(oracle, points, options.budget, jobs, options.signal, options.onRun);
  let S = Array.from({ length: points }, (_, k) => k);
  const discardedStack: number[][] = [];
  let L = options.groups ?? options.firstGroups ?? 3;
  let estimating = options.groups === undefined;
  let kbEstimate: number | undefined;
  let roundsWithoutFailure = 0;
  const log: IgsRound[] = [];
  let stopped: IgsResult['stopped'] = 'budget';
  // final stage: all survivors on / control (no noise) tallies for the current survivor set
  let tallyKey = '';
  const tally = { allRuns: 0, allFails: 0, controlRuns: 0, controlFails: 0 };
  let together: IgsResult['together'];
  const control = { runs: 0, fails: 0 };

  /**
   * A survivor significant over all runs whose runs alone, in this survivor set, do not beat the
   * control runs (≥ 3 each, p ≥ 0.05): it raises the rate only in company (a bug that needs two
   * points) or through the configurations it shared — not a trigger point on its own.
   */
  const aloneObjects = (p: number): boolean => {
    if (!(options.configurationLeader ?? true)) return false;
    const a = alone.get(p) ?? { runs: 0, fails: 0 };
    // runs led by a configuration (several points on) make each of its points look significant over all runs
    if (a.runs < 3) return configurationLed;
    return tally.controlRuns >= 3 && likelihoodRatioPValue(a.fails, a.runs, tally.controlFails, tally.controlRuns) >= 0.05;
  };
  // final stage: runs and failures per configuration of several points (by its sorted points), kept
  // across survivor sets — like the control runs (`control`), a configuration's runs do not depend on them
  const configStats = new Map<string, { points: number[]; runs: number; fails: number }>();
  /** a configuration of several survivors has led runs in this survivor set */
  let configurationLed = false;
  /**
   * The configuration of several survivors that beats the control runs best: its points, stats and
   * p-value. Smaller configurations are preferred (a factor 4 of p-value per extra point): a plan
   * should hold the points the bug needs, not also those that merely do no harm.
   */
  const bestConfiguration = () => {
    const alive = new Set(S);
    let best: { points: number[]; runs: number; fails: number; p: number; rank: number } | undefined;
    for (const c of configStats.values()) {
      if (c.runs < 2 || !c.points.every((p) => alive.has(p))) continue;
      const p = likelihoodRatioPValue(c.fails, c.runs, control.fails, control.runs);
      const rank = Math.log(p) + Math.log(4) * (c.points.length - 2);
      if (!best || rank < best.rank) best = { ...c, p, rank };
    }
    return best;
  };
  /** The stop (p < α): the best survivor, or — redundant trigger points — all survivors together against the control runs. */
  const significantNow = (): boolean => {
    if (S.length > finalSize || runner.stats.fails === 0) return false;
    // any survivor (the best by score need not have the smallest p-value)
    if (S.some((p) => runner.stats.pValue(p) < alpha && !aloneObjects(p))) return true;
    if (options.configurationLeader ?? true) {
      const c = bestConfiguration();
      // Bonferroni over every configuration tried
      if (c && c.p * Math.max(1, configStats.size) < alpha) {
        together = { failWith: c.fails / c.runs, failWithout: control.fails / control.runs, pValue: c.p, points: c.points };
        return true;
      }
    }
    const setP = likelihoodRatioPValue(tally.allFails, tally.allRuns, tally.controlFails, tally.controlRuns);
    if (S.length >= 2 && S.join(',') === tallyKey && setP < alpha) {
      together = { failWith: tally.allFails / tally.allRuns, failWithout: tally.controlFails / tally.controlRuns, pValue: setP };
      return true;
    }
    return false;
  };

  // leader design (`leaderDesign`): per survivor set, each survivor's runs with noise at it alone
  let leaderKey = '';
  const alone = new Map<number, { runs: number; fails: number }>();
  // survivors that need company (a second point) — never run alone as the leader again in this set
  const needsCompany = new Set<number>();
  /**
   * Fills masks[from, from + count) with the leader (`mask`, its `points`) or the control (0), each
   * run on the side nextRunOn says, from the tallies [fails with, runs with, fails without, runs
   * without]; the batch's later runs see the earlier ones at their expected outcome.
   */
  const fillLeaderBatch = (masks: number[], configs: number[][], from: number, count: number, mask: number, points: number[], tallies: [number, number, number, number]) => {
    let [fw, nw, fo, no] = tallies;
    for (let k = from; k < from + count; k++) {
      const on = nextRunOn(fw, nw, fo, no);
      masks[k] = on ? mask : 0;
      configs[k] = on ? points : [];
      if (on) {
        fw += (fw + 0.5) / (nw + 1);
        nw++;
      } else {
        fo += (fo + 0.5) / (no + 1);
        no++;
      }
    }
  };
  /** Leader design: the batch masks[from, from + count) to a single leader, else to a configuration leader, else left as planned. */
  const chooseBatch = (masks: number[], configs: number[][], from: number, count: number, groups: number[][]) => {
    if (chooseLeaderBatch(masks, configs, from, count, groups) || !(options.configurationLeader ?? true)) return;
    // only once every survivor has been run alone a few times: a single trigger point goes first
    if (groups.some((g) => (alone.get(g[0])?.runs ?? 0) < 3)) return;
    const c = bestConfiguration();
    if (!c || c.p >= 0.05) return;
    const mask = groups.reduce((m, g, k) => (c.points.includes(g[0]) ? m | (1 << k) : m), 0);
    configurationLed = true;
    fillLeaderBatch(masks, configs, from, count, mask, c.points, [c.fails, c.runs, control.fails, control.runs]);
  };
  /**
   * When the leader has failed alone more often than the control runs, fills masks[from, from +
   * count) (and their configurations) with the leader alone or the control, as nextRunOn says, and
   * says true; otherwise leaves the complementary pairs.
   */
  const chooseLeaderBatch = (masks: number[], configs: number[][], from: number, count: number, groups: number[][]): boolean => {
    const st = runner.stats;
    let lead = -1;
    let best = 1;
    groups.forEach((g, k) => {
      const pv = st.pValue(g[0]);
      if (pv < best) {
        best = pv;
        lead = k;
      }
    });
    if (lead < 0) return false; // no survivor raises the failure rate yet
    const p = groups[lead][0];
    const a = alone.get(p) ?? { runs: 0, fails: 0 };
    const controlRate = tally.controlRuns ? tally.controlFails / tally.controlRuns : 0;
    // the leader needs company (a second point): alone it fails no more often than the control, or
    // significantly (p < 0.05) and by more than half less often than with other survivors on (not
    // just a little less: the other survivors' noise may raise the rate somewhat)
    const fc = st.failsWith[p] - a.fails;
    const nc = st.runsWith[p] - a.runs;
    const company = likelihoodRatioPValue(fc, nc, a.fails, a.runs) < 0.05 && a.fails / a.runs < fc / nc / 2;
    // (alone no better than the control: judged on ≥ 3 runs each, rates with a +½ correction, and
    // again at every batch — one early control run that failed must not mark a trigger point for good)
    const noBetter = a.runs >= 3 && tally.controlRuns >= 3 && (a.fails + 0.5) / (a.runs + 1) <= (tally.controlFails + 0.5) / (tally.controlRuns + 1);
    if (noBetter || company) needsCompany.add(p);
    else needsCompany.delete(p);
    if (needsCompany.has(p) || likelihoodRatioPValue(a.fails, a.runs, tally.controlFails, tally.controlRuns) >= 0.05) return false;
    if (a.runs === 0 || a.fails / a.runs <= controlRate) return false;
    fillLeaderBatch(masks, configs, from, count, 1 << lead, [p], [st.failsWith[p], st.runsWith[p], st.fails - st.failsWith[p], st.runs - st.runsWith[p]]);
    return true;
  };

  while (S.length > 0) {
    if (runner.cancelled) {
      stopped = 'cancelled';
      break;
    }
    const final = S.length <= finalSize;
    // final stage: every survivor alone, and together
    let groupsNow = final ? S.length : Math.min(L, S.length);
    let masks = final ? complementaryPairs(groupsNow).filter((m) => m !== 0) : fullFactorial(groupsNow);
    if (runner.remaining < masks.length) {
      // the budget cannot pay a whole round: a smaller factorial if one fits
      while (!final && groupsNow > 2 && fullFactorial(groupsNow).length > runner.remaining) groupsNow--;
      masks = final ? masks : fullFactorial(groupsNow);
      if (runner.remaining < masks.length || masks.length === 0) break;
    }
    // final stage: a control run without noise, so "without the point" is measured too
    if (final && runner.remaining > masks.length) masks = [...masks, 0];
    if (final && !sequential) masks = [...masks].sort((a, b) => (a === 0 ? 1 : b === 0 ? -1 : a - b));
    const groups = final ? S.map((p) => [p]) : randomPartition(S, groupsNow, options.random);
    const configs = masks.map((m) => groups.flatMap((g, k) => ((m >> k) & 1 ? g : [])));
    if (final) {
      const key = S.join(',');
      if (key !== tallyKey) {
        Object.assign(tally, { allRuns: 0, allFails: 0, controlRuns: 0, controlFails: 0 });
        configurationLed = false;
      }
      tallyKey = key;
    }
    const all = (1 << groups.length) - 1;
    // run the round: at once, or in the final stage (sequential) `jobs` at a time with the stop checked after each batch
    const outcomes: (boolean | undefined)[] = new Array(configs.length).fill(undefined);
    const step = final && sequential ? jobs : configs.length;
    let stopMidRound = false;
    const adaptive = final && sequential && leaderDesign && groups.length >= 2;
    if (final && leaderKey !== S.join(',')) {
      leaderKey = S.join(',');
      alone.clear();
      needsCompany.clear();
    }
    // the masks as planned: a round whose runs the leader design redirected has group counts the §5 rule cannot read
    const planned = masks.slice();
    for (let from = 0; from < configs.length; from += step) {
      if (adaptive) chooseBatch(masks, configs, from, Math.min(step, configs.length - from), groups);
      const part = await runner.run(configs.slice(from, from + step));
      part.forEach((o, k) => {
        outcomes[from + k] = o;
        if (!final || o === undefined) return;
        const m = masks[from + k];
        const active = configs[from + k];
        if (active.length >= 2) {
          const points = [...active].sort((a, b) => a - b);
          const key = points.join(',');
          const cs = configStats.get(key) ?? { points, runs: 0, fails: 0 };
          cs.runs++;
          if (o) cs.fails++;
          configStats.set(key, cs);
        }
        if (m !== 0 && (m & (m - 1)) === 0) {
          const p = groups[31 - Math.clz32(m)][0];
          const a = alone.get(p) ?? { runs: 0, fails: 0 };
          a.runs++;
          if (o) a.fails++;
          alone.set(p, a);
        }
        if (masks[from + k] === all) {
          tally.allRuns++;
          if (o) tally.allFails++;
        } else if (masks[from + k] === 0) {
          tally.controlRuns++;
          control.runs++;
          if (o) {
            tally.controlFails++;
            control.fails++;
          }
        }
      });
      if (runner.cancelled || runner.remaining <= 0) break;
      if (step < configs.length && from + step < configs.length && significantNow()) {
        stopMidRound = true;
        break;
      }
    }
    if (runner.cancelled) {
      stopped = 'cancelled';
      break;
    }
    const failures = new Array(groups.length).fill(0);
    let failed = 0;
    outcomes.forEach((o, c) => {
      if (!o) return;
      failed++;
      for (let g = 0; g < groups.length; g++) if ((masks[c] >> g) & 1) failures[g]++;
    });
    const round: IgsRound = {
      round: log.length + 1,
      groups: groups.length,
      candidates: S.length,
      configurations: outcomes.filter((o) => o !== undefined).length,
      failures: failed,
      groupFailures: failures,
      discarded: [],
      restored: [],
      runs: runner.runs,
    };
    if (stopMidRound) {
      log.push(round);
      options.onRound?.(round);
      stopped = 'significant';
      break;
    }
    if (estimating && !final) {
      const kb = estimateBlockingPoints(failed, round.configurations, groups.length);
      if (kb !== undefined) {
        kbEstimate = kb;
        L = chooseGroupCount(kb, maxGroups, options.theta);
        round.kbEstimate = kb;
        estimating = false;
      }
    }
    const futile =
      final &&
      futilityRuns > 0 &&
      discardedStack.length > 0 &&
      tally.allRuns >= futilityRuns &&
      tally.controlRuns >= futilityRuns &&
      tally.allFails / tally.allRuns <= tally.controlFails / tally.controlRuns;
    if (futile) {
      // the survivors together fail no more often than no noise at all: the trigger points were
      // discarded, at some round — every discarded point comes back (the runs so far still count)
      round.restored = discardedStack.splice(0).flat();
      S = S.concat(round.restored).sort((a, b) => a - b);
      roundsWithoutFailure = 0;
    } else if (failed === 0) {
      roundsWithoutFailure++;
      if (roundsWithoutFailure >= backtrackAfter && discardedStack.length > 0) {
        round.restored = discardedStack.pop()!;
        S = S.concat(round.restored).sort((a, b) => a - b);
        roundsWithoutFailure = 0;
      }
    } else {
      roundsWithoutFailure = 0;
      const st = runner.stats;
      // final stage: blocking survivors (their runs fail significantly less than the runs without them)
      const adapted = masks.some((m, k) => m !== planned[k]);
      const blocking =
        final && !adapted && blockingAlpha > 0 && S.length >= 2
          ? S.filter((p) => likelihoodRatioPValue(st.fails - st.failsWith[p], st.runs - st.runsWith[p], st.failsWith[p], st.runsWith[p]) < blockingAlpha)
          : [];
      if (blocking.length > 0 && blocking.length < S.length) {
        const gone = new Set(blocking);
        round.discarded = [...gone].sort((a, b) => a - b);
        discardedStack.push(round.discarded);
        S = S.filter((p) => !gone.has(p));
      }
      const n = (1 << (groups.length - 1)) - (final ? 0 : 1);
      const drop = adapted ? [] : groupsToDiscard(failures, n, alpha, speedup, !final);
      if (round.discarded.length === 0 && drop.length > 0 && drop.length < groups.length) {
        const gone = new Set(drop.flatMap((g) => groups[g]));
        round.discarded = [...gone].sort((a, b) => a - b);
        discardedStack.push(round.discarded);
        S = S.filter((p) => !gone.has(p));
      }
    }
    log.push(round);
    options.onRound?.(round);
    if (significantNow()) {
      stopped = 'significant';
      break;
    }
    if (runner.remaining <= 0) break;
  }
  if (stopped === 'budget' && runner.stats.fails === 0) stopped = 'no-failure';
  return {
    // the survivors that passed the stop's test (p < α) first, then by score: with the leader
    // design a survivor run only in company with the trigger point can have the higher score
    ranked: runner.stats.fails === 0 ? [] : significantFirst(rankPoints(S, runner.stats), alpha),
    runs: runner.runs,
    rounds: log.length,
    stopped,
    kbEstimate,
    groups: L,
    log,
    stats: runner.stats,
    ...(together ? { together } : {}),
    control,
  };
}
