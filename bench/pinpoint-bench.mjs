// `braid pinpoint` (issue 17, seed 004): acceptance figures, printed, never asserted.
//
// Part 1, the seed's simulated fault model (good / neutral / bad points): runs IGS needs, against
// one-point-at-a-time search and RELIEF trained on as many runs as IGS used (seed §3.2), 30
// searches per model, and IGS with its leader design off (the complementary pairs, same seeds);
// two small models: a trigger among points whose noise raises the rate a little, redundant triggers.
// Part 2, the sample programs with real JVM runs (record=false, noise plans): for each subject
//   - IGS over the `patterns` candidates (the committed recordings in test/fixtures/recorded/<pkg>
//     give the top UNICORN patterns), budget 400: runs, and whether the top 3 trigger points
//     include an `@bug` line;
//   - the failure rate with no noise, with the reproduction plan, and with uniform noise of the same
//     kind at every instrumented point with the same expected number of noise events (events per
//     point estimated from the committed recordings: events per source line and run, shared by the
//     points of a line), over --rate-runs runs each;
//   - one-at-a-time search over the same candidates: 10 runs without noise, then every point alone,
//     10 runs each (up to 30 while its test stays at p < 0.01; early stop at p < 10⁻⁶, IGS's stop
//     rule): the runs to test every point, and the expected runs over random orders to find the
//     points IGS found (p < 10⁻⁶, or the plan's when it stopped on them together): 1 (catalogue) + 10 + their own runs + each other point's
//     runs × k/(k + 1) for k points; RELIEF on as many random configurations as IGS used.
//   At the end: the IGS vs one-at-a-time table and the failure-rate table, in markdown.
//
//   node --import tsx bench/pinpoint-bench.mjs [pkg...|all] [--budget 400] [--jobs 2] [--rate-runs 50]
//        [--candidates patterns|all] [--seed 4242] [--searches 1] [--per-thread] [--plan-strength auto|full] [--sim-only] [--no-sim] [--no-baselines] [--verbose]
// Default subjects: the seven samples of test/fixtures/java (all = samples and evaluation subjects).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { iterativeGroupSampling } from '../server/src/engine/noise/iterativeGroupSampling.ts';
import { oneAtATime } from '../server/src/engine/noise/oneAtATime.ts';
import { reliefRanking, reliefWeights, sampleRandomConfigurations } from '../server/src/engine/noise/relief.ts';
import { baseName, candidatePoints } from '../server/src/engine/noise/candidatePoints.ts';
import { makePlan, mulberry32, perThreadCandidates, pinpoint, ProgramRunner, topPatterns, DEFAULT_PINPOINT_NOISE } from '../server/src/recorder/runs/pinpoint.ts';
import { faultModelOracle } from '../test/helpers/faultModel.ts';
import { rng } from '../test/helpers/seededRandom.ts';
import harness from '../test/recorder/recorderHarness.ts';

const { ALL_SUBJECTS, SAMPLE_PROGRAMS, FAST_JVM, bugTags, classesDir, prepare } = harness;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const k = args.indexOf(name);
  return k < 0 ? def : Number(args[k + 1]);
};
const BUDGET = opt('--budget', 400);
const JOBS = opt('--jobs', 2);
const RATE_RUNS = opt('--rate-runs', 50);
const SEED = opt('--seed', 4242);
// searches per subject (seeds SEED … SEED + K − 1): IGS's runs vary with the partition and the program's timing;
// the failure rates and the baselines are measured once (with the first search's plan), the ratio over the mean
const SEARCHES = Math.max(1, opt('--searches', 1));
// per-thread candidates (braid pinpoint --per-thread), for the search and for one point at a time
const PER_THREAD = args.includes('--per-thread');
const CANDIDATES = args.includes('--candidates') ? args[args.indexOf('--candidates') + 1] : 'patterns';
// the plan's strength: auto (default, as braid pinpoint) calibrates the plan's per-visit probability; full = probability 1 (the seed)
const STRENGTH = args.includes('--plan-strength') ? args[args.indexOf('--plan-strength') + 1] : 'auto';
const simOnly = args.includes('--sim-only');
const baselines = !args.includes('--no-baselines');
const verbose = args.includes('--verbose');
const names = args.filter((a, k) => !a.startsWith('--') && !['--budget', '--jobs', '--rate-runs', '--candidates', '--seed', '--plan-strength', '--searches'].includes(args[k - 1]));
const pct = (x) => `${Math.round(x * 100)}%`;
const load = () => os.loadavg()[0].toFixed(1);

// ---------- part 1: the seed's fault model ----------
const MODELS = [
  { name: '60 pts, 1 good, 3 bad, p 0.7', points: 60, relevant: [7], blocking: [12, 40, 51], pBug: 0.7, pBase: 0.01 },
  { name: '60 pts, 2 good (both needed), 3 bad', points: 60, relevant: [7, 33], blocking: [12, 40, 51], pBug: 0.7, pBase: 0.01 },
  { name: '20 pts, 1 good p 0.4, 2 bad', points: 20, relevant: [3], blocking: [5, 9], pBug: 0.4, pBase: 0.02 },
  { name: '150 pts, 1 good, 6 bad, p 0.5', points: 150, relevant: [77], blocking: [3, 20, 41, 90, 111, 140], pBug: 0.5, pBase: 0.01 },
  { name: '8 pts, 1 good p 1, 2 raise 6%→35%', points: 8, relevant: [2], blocking: [], pBug: 1, pBase: 0.06, mild: [3, 5], pMild: 0.35 },
  { name: '8 pts, 2 good (either one), p 0.9', points: 8, relevant: [1, 4], blocking: [], pBug: 0.9, pBase: 0.02, any: true },
  // orderviolation-like: fails without noise, noise at shared code raises the rate, one blocking point
  { name: '9 pts, 1 good .95, 1 bad, 2 raise 15%→50%', points: 9, relevant: [0], blocking: [5], pBug: 0.95, pBase: 0.15, mild: [2, 3], pMild: 0.5 },
];
const noSim = args.includes('--no-sim');
if (!noSim) {
console.log(`pinpoint bench, part 1: the seed's fault model (30 searches per model; load ${load()})`);
console.log('model                                  IGS found  IGS runs (mean)  1-at-a-time found  runs (mean)  ratio  RELIEF@IGS runs found  IGS pairs');
for (const m of MODELS) {
  const T = 30;
  let igsOk = 0, igsRuns = 0, oneOk = 0, oneRuns = 0, relOk = 0, pairsRuns = 0;
  for (let s = 0; s < T; s++) {
    const r = await iterativeGroupSampling(m.points, faultModelOracle(m, s), { budget: BUDGET, random: rng(100 + s) });
    // the same search with the complementary pairs throughout (IGS's leaderDesign off), paired
    pairsRuns += (await iterativeGroupSampling(m.points, faultModelOracle(m, s), { budget: BUDGET, random: rng(100 + s), leaderDesign: false })).runs;
    const top = r.ranked.slice(0, 3).map((x) => x.point);
    const hit = m.relevant.some((p) => top.includes(p));
    if (hit) igsOk++;
    igsRuns += r.runs;
    const o = await oneAtATime(m.points, faultModelOracle(m, 1000 + s), { budget: 20 * m.points + 10, random: rng(200 + s), runsPerPoint: 20 });
    if (o.found.some((p) => m.relevant.includes(p))) oneOk++;
    oneRuns += o.runs;
    const sample = await sampleRandomConfigurations(m.points, r.runs, faultModelOracle(m, 2000 + s), rng(300 + s));
    const rel = reliefRanking(reliefWeights(sample)).slice(0, 3);
    if (m.relevant.some((p) => rel.includes(p))) relOk++;
  }
  console.log(
    `${m.name.padEnd(39)}${`${igsOk}/${T}`.padStart(9)}  ${(igsRuns / T).toFixed(0).padStart(15)}  ${`${oneOk}/${T}`.padStart(17)}  ${(oneRuns / T).toFixed(0).padStart(11)}  ${(oneRuns / igsRuns).toFixed(1).padStart(5)}  ${`${relOk}/${T}`.padStart(21)}  ${(pairsRuns / T).toFixed(0).padStart(10)}`,
  );
}
console.log('(found: a good point among the top 3; 1-at-a-time: up to 20 runs a point, stops at the first point with p < 1e-6; RELIEF: as many random runs as IGS used, top 3; IGS pairs: mean runs with leaderDesign off, same seeds)');
}
if (simOnly) process.exit(0);

// ---------- part 2: the sample programs ----------
prepare();
const subjects = names.includes('all') ? ALL_SUBJECTS : names.length ? ALL_SUBJECTS.filter((s) => names.includes(s.pkg)) : SAMPLE_PROGRAMS;

/** Events per source line and run in the committed recordings (basename:line → mean events). */
function eventsPerLine(pkg) {
  const dir = path.join(root, 'test', 'fixtures', 'recorded', pkg);
  const perLine = new Map();
  if (!existsSync(dir)) return perLine;
  const files = readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl.gz')).slice(0, 10);
  for (const f of files) {
    const locs = new Map();
    for (const line of gunzipSync(readFileSync(path.join(dir, f))).toString('utf8').split('\n')) {
      if (line.startsWith('{"def":"loc"')) {
        const d = JSON.parse(line);
        locs.set(d.id, `${baseName(d.file)}:${d.line}`);
      } else if (line.startsWith('[')) {
        const e = JSON.parse(line);
        if (['R', 'W', 'LOCK', 'UNLOCK', 'ACQ', 'REL', 'START', 'SND', 'CALL', 'WAIT', 'NOTIFY'].includes(e[2]) && typeof e[4] === 'number') {
          const key = locs.get(e[4]);
          if (key) perLine.set(key, (perLine.get(key) ?? 0) + 1 / files.length);
        }
      }
    }
  }
  return perLine;
}

/** A candidate's identity: its point id, and with per-thread candidates its thread. */
const keyOf = (p) => `${p.id}|${p.thread ?? ''}`;

function isBugPoint(tags, p) {
  return tags.some((t) => (baseName(t.file) === baseName(p.file) && t.line === p.line) || (t.inFile && baseName(t.inFile) === baseName(p.file)));
}

async function failureRate(runner, plan, runs) {
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      next++;
      if (await runner.runPlan(plan)) failed++;
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  return failed / runs;
}

console.log(`\npinpoint bench, part 2: sample programs, real JVM runs (record=false), candidates ${CANDIDATES}, budget ${BUDGET}, jobs ${JOBS}, failure rates over ${RATE_RUNS} runs each; load ${load()}`);
console.log('subject         cands  IGS runs (+deriv)  stop         top-3 @bug  none  uniform (p)     plan   1-at-a-time: all (found, @bug) / to IGS\'s points  RELIEF top-3 @bug  secs');
const rows = [];
const CONTROL = 10; // one-at-a-time: runs without noise first
for (const s of subjects) {
  const started = Date.now();
  const tags = bugTags(s.pkg);
  const scratch = mkdtempSync(path.join(os.tmpdir(), `braid-pinpoint-bench-${s.pkg}-`));
  const base = {
    command: ['java', ...FAST_JVM, '-cp', classesDir, s.main],
    cwd: root,
    name: `bench-${s.pkg}`,
    budget: BUDGET,
    candidates: CANDIDATES,
    traces: [path.join(root, 'test', 'fixtures', 'recorded', s.pkg)],
    planDir: scratch,
    include: s.include,
    exclude: [],
    timeoutSeconds: 20,
    jobs: JOBS,
    seed: SEED,
    ...(PER_THREAD ? { perThread: true } : {}),
    agentOptions: s.testCode?.length ? [`testCode=${s.testCode.join(';')}`] : [],
  };
  try {
    const runner = new ProgramRunner(base, scratch, undefined, base.agentOptions);
    const catalogue = (await runner.catalogue()).points;
    let searchRuns = 0; // IGS's own runs (without the derivative walk that follows it)
    const onRound = (x) => {
      searchRuns = x.runs;
      if (verbose) console.log(`    round ${x.round}: ${x.candidates} cands, L ${x.groups}, ${x.failures}/${x.configurations} failed, per group [${x.groupFailures.join(' ')}]${x.kbEstimate !== undefined ? `, Kb≈${x.kbEstimate.toFixed(1)}` : ''}, dropped ${x.discarded.length}${x.restored.length ? `, restored ${x.restored.length}` : ''}; runs ${x.runs}`);
    };
    const r = await pinpoint({ ...base, budget: BUDGET - 1, catalogue, onRound, planStrength: STRENGTH }); // the catalogue run counts in the budget, as in braid pinpoint
    const firstSearchRuns = searchRuns;
    // more searches with other seeds (no derivative walk, no calibration: only the search's runs count)
    const more = [];
    for (let k = 1; k < SEARCHES; k++) {
      let runsK = 0;
      const rk = await pinpoint({ ...base, seed: SEED + k, budget: BUDGET - 1, catalogue, onRound: (x) => { runsK = x.runs; onRound(x); }, planStrength: 'full', derivative: false });
      more.push({ searchRuns: (runsK || rk.runs) + 1, stopped: rk.stopped, sig: rk.points.filter((p) => p.pValue < 1e-6).map(keyOf), bug: rk.points.slice(0, 3).some((p) => isBugPoint(tags, p)) });
      if (verbose) console.log(`    search ${k + 1} (seed ${SEED + k}): ${more.at(-1).searchRuns} runs, ${rk.stopped}, @bug in top 3: ${more.at(-1).bug}`);
    }
    const top3 = r.points.slice(0, 3);
    const bugRank = r.points.findIndex((p) => isBugPoint(tags, p)) + 1;
    const plan = r.plan ? JSON.parse(readFileSync(r.plan, 'utf8')) : undefined;
    // failure rates: no noise, uniform noise with the plan's expected number of noise events, the plan
    let planRate, uniformRate, noneRate, pu;
    noneRate = await failureRate(runner, makePlan('none', [], DEFAULT_PINPOINT_NOISE, 1), RATE_RUNS);
    if (plan) {
      const perLine = eventsPerLine(s.pkg);
      const pointsOnLine = new Map();
      for (const p of catalogue) pointsOnLine.set(`${baseName(p.file)}:${p.line}`, (pointsOnLine.get(`${baseName(p.file)}:${p.line}`) ?? 0) + 1);
      const hits = (p) => {
        const k = `${baseName(p.file)}:${p.line}`;
        return (perLine.get(k) ?? 0) / (pointsOnLine.get(k) ?? 1);
      };
      const planEvents = plan.points.reduce((sum, p) => sum + p.probability * hits(p), 0);
      const allEvents = catalogue.reduce((sum, p) => sum + hits(p), 0);
      pu = allEvents > 0 ? Math.min(1, planEvents / allEvents) : 0;
      planRate = await failureRate(runner, plan, RATE_RUNS);
      uniformRate = await failureRate(runner, makePlan('uniform', catalogue, DEFAULT_PINPOINT_NOISE, pu), RATE_RUNS);
    }
    // baselines over the same candidates
    let one, reliefHit;
    if (baselines) {
      const top = await topPatterns(base.traces);
      const located = candidatePoints(catalogue, CANDIDATES, top.lines).points;
      const S = PER_THREAD && top.seen.length ? perThreadCandidates(located, top.seen) : located;
      const oracle = async (active) => runner.runPlan(makePlan('config', active.map((k) => S[k]), DEFAULT_PINPOINT_NOISE, 1));
      // every point alone: CONTROL runs without noise, then 10 runs a point (30 while its test stays at
      // p < 0.01), a point stops early once p < 1e-6 (IGS's stop rule)
      const perPoint = new Map();
      const o = await oneAtATime(S.length, async (active) => {
        if (active.length === 1) perPoint.set(active[0], (perPoint.get(active[0]) ?? 0) + 1);
        return oracle(active);
      }, { budget: Math.min(CONTROL + 30 * S.length, 1000), random: mulberry32(7), jobs: JOBS, runsPerPoint: 10, extendTo: 30, baselineRuns: CONTROL, until: () => false });
      // the runs one-at-a-time needs to find the points IGS found (the plan's points), expected over
      // random orders: the catalogue run + the control runs + each of IGS's k points' own runs + each
      // other point's runs times the chance k/(k+1) that it comes before the last of them
      // IGS's points: those it found at p < 1e-6 (or, stopped on the survivors together, the plan's)
      const sig = r.points.filter((p) => p.pValue < 1e-6).map(keyOf);
      const planIds = new Set(r.stopped !== 'significant' ? [] : sig.length ? sig : (plan?.points ?? []).flatMap((p) => (p.threads ?? [undefined]).map((thread) => keyOf({ id: p.id, thread }))));
      const foundSet = new Set(o.found);
      const cost = (q) => perPoint.get(q) ?? 10;
      const toSameFor = (ids) => {
        const T = S.map((p, k) => (ids.has(keyOf(p)) ? k : -1)).filter((k) => k >= 0);
        if (!T.length || !T.every((t) => foundSet.has(t))) return { T };
        const k = T.length;
        return { T, toSame: 1 + CONTROL + T.reduce((a, t) => a + cost(t), 0) + S.map((_, q) => q).filter((q) => !T.includes(q)).reduce((a, q) => a + (cost(q) * k) / (k + 1), 0) };
      };
      const { T, toSame } = toSameFor(planIds);
      for (const m of more) m.toSame = m.stopped === 'significant' && m.sig.length ? toSameFor(new Set(m.sig)).toSame : undefined;
      one = { runs: o.runs + 1, complete: o.stopped !== 'budget', bug: o.found.some((k) => isBugPoint(tags, S[k])), found: o.found.length, toSame, igsPoints: T.length };
      const sample = await sampleRandomConfigurations(S.length, r.runs, oracle, mulberry32(9), JOBS);
      reliefHit = reliefRanking(reliefWeights(sample)).slice(0, 3).some((k) => isBugPoint(tags, S[k]));
    }
    const row = {
      more,
      pkg: s.pkg,
      candidates: r.candidates,
      searchRuns: (firstSearchRuns || r.runs) + 1, // + the catalogue run
      runs: r.runs + 1,
      stopped: r.stopped,
      top3: top3.some((p) => isBugPoint(tags, p)),
      bugRank,
      noneRate,
      planRate,
      uniformRate,
      pu,
      planP: plan ? Math.max(...plan.points.map((p) => p.probability)) : undefined,
      strengthRuns: r.strength?.runs ?? 0,
      one,
      reliefHit,
      secs: (Date.now() - started) / 1000,
    };
    rows.push(row);
    const oneText = one
      ? `${one.complete ? '' : '≥'}${one.runs} (${one.found}, ${one.bug ? 'yes' : one.found ? 'other point' : 'none found'}) / ${one.toSame === undefined ? (one.igsPoints ? 'not found' : '–') : one.toSame.toFixed(0)}`
      : '–';
    console.log(
      `${s.pkg.padEnd(16)}${String(row.candidates).padStart(5)}  ${`${row.searchRuns} (${row.runs})`.padStart(17)}  ${row.stopped.padEnd(11)}  ${(row.top3 ? `yes (#${bugRank})` : bugRank ? `no (#${bugRank})` : 'no').padEnd(10)}  ${pct(noneRate).padStart(4)}  ${(uniformRate === undefined ? '–' : `${pct(uniformRate)} (${pu.toFixed(3)})`).padStart(13)}  ${(planRate === undefined ? '–' : pct(planRate)).padStart(5)}   ${oneText.padStart(46)}  ${(reliefHit === undefined ? '–' : reliefHit ? 'yes' : 'no').padStart(17)}  ${row.secs.toFixed(0).padStart(4)}`,
    );
    if (r.strength) console.log(`    plan strength: p ${r.strength.probability} (${r.strength.reason}; levels ${r.strength.levels.map((l) => `${l.probability}: ${l.failures}/${l.runs}${l.accepted ? '' : ' ✗'}`).join(', ')}; ${r.strength.runs} runs)`);
    for (const p of top3) console.log(`    ${p.rank}. ${p.file}:${p.line}${p.thread !== undefined ? ` in ${p.thread}` : ''} ${p.method} ${pct(p.failWithout)} → ${pct(p.failWith)} p=${p.pValue.toExponential(1)}${p.together !== undefined ? ` (together with the other ${p.together - 1})` : ''}${isBugPoint(tags, p) ? '  @bug' : ''}`);
  } catch (e) {
    console.log(`${s.pkg.padEnd(16)} error: ${e.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
const ok = rows.filter((r) => r.top3).length;
console.log(`\n@bug line in the top 3: ${ok} of ${rows.length} subjects; load ${load()}`);
if (SEARCHES > 1) {
  const all = rows.map((r) => [r.top3, ...r.more.map((m) => m.bug)]);
  const hits = all.flat().filter(Boolean).length;
  console.log(`over ${SEARCHES} searches each: ${hits} of ${all.flat().length} searches had an @bug line in the top 3; ${rows.map((r, k) => `${r.pkg} ${all[k].filter(Boolean).length}/${all[k].length}`).join(', ')}`);
}

// the acceptance tables (markdown, for the closing note)
if (baselines) {
  console.log(`\nIGS vs one point at a time (candidates ${CANDIDATES}; runs include the catalogue run for both; one at a time: ${CONTROL} runs without noise, then each point alone, 10 runs (30 while p < 0.01), stop rule p < 1e-6 as IGS; "to IGS's points" = expected runs over random orders to find the points IGS found)`);
  console.log('| subject | S | IGS runs | IGS found | 1-at-a-time, every point | 1-at-a-time to IGS\'s points | IGS ÷ 1-at-a-time | ≤ ½ |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const found = r.stopped === 'significant' ? `${r.one.igsPoints} pt${r.one.igsPoints === 1 ? '' : 's'}${r.top3 ? `, @bug #${r.bugRank}` : ', no @bug'}` : `nothing significant (${r.stopped})`;
    const ratio = r.one.toSame !== undefined ? r.searchRuns / r.one.toSame : undefined;
    // a capped pass that did not find IGS's points: they cost one at a time more than the whole pass
    const capped = r.stopped === 'significant' && ratio === undefined && !r.one.complete;
    const verdict =
      r.stopped !== 'significant' ? 'no (IGS found nothing)' : ratio !== undefined ? (ratio <= 0.5 ? 'yes' : 'no') : capped ? 'yes' : 'yes (1-at-a-time did not find them)';
    const same = r.one.toSame !== undefined ? r.one.toSame.toFixed(0) : capped ? `> ${r.one.runs} (not found within the capped pass)` : r.stopped === 'significant' ? 'not found' : '–';
    const ratioText = ratio !== undefined ? ratio.toFixed(2) : capped ? `< ${(r.searchRuns / r.one.runs).toFixed(2)}` : '–';
    console.log(`| ${r.pkg} | ${r.candidates} | ${r.searchRuns} | ${found} | ${r.one.complete ? '' : '≥'}${r.one.runs} (${r.one.found} found${r.one.bug ? ', @bug' : ''}) | ${same} | ${ratioText} | ${verdict} |`);
  }
}
if (baselines && SEARCHES > 1) {
  console.log(`\nIGS over ${SEARCHES} searches (seeds ${SEED}…${SEED + SEARCHES - 1}; the first with the derivative walk and calibration after it, not counted) against one point at a time to the points each search found (expected runs)`);
  console.log('| subject | S | IGS runs, each search | mean | 1-at-a-time to the same points, each | mean | mean ÷ mean | searches ≤ ½ |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const all = [{ searchRuns: r.searchRuns, toSame: r.one.toSame, stopped: r.stopped }, ...r.more];
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const igs = all.map((x) => x.searchRuns);
    const same = all.map((x) => x.toSame);
    const known = same.filter((x) => x !== undefined);
    // a capped one-at-a-time pass that did not find a search's points: they cost it more than the whole pass
    const capped = !r.one.complete;
    const lower = (x) => (x.toSame !== undefined ? x.toSame : capped && x.stopped === 'significant' ? r.one.runs : undefined);
    const bounds = all.map(lower);
    const ratio = known.length === all.length ? mean(igs) / mean(known) : bounds.every((x) => x !== undefined) ? mean(igs) / mean(bounds) : undefined;
    const half = all.filter((x) => lower(x) !== undefined && x.searchRuns <= lower(x) / 2).length;
    const sameText = all.map((x) => (x.toSame !== undefined ? x.toSame.toFixed(0) : lower(x) !== undefined ? `> ${lower(x)}` : '–')).join(', ');
    const ratioText = ratio === undefined ? '–' : `${known.length === all.length ? '' : '< '}${ratio.toFixed(2)}`;
    console.log(`| ${r.pkg} | ${r.candidates} | ${all.map((x) => `${x.searchRuns}${x.stopped === 'significant' ? '' : ` (${x.stopped})`}`).join(', ')} | ${mean(igs).toFixed(1)} | ${sameText} | ${known.length === all.length ? mean(known).toFixed(1) : bounds.every((x) => x !== undefined) ? `> ${mean(bounds).toFixed(0)}` : '–'} | ${ratioText} | ${half} of ${all.length} |`);
  }
}
console.log(`\nFailure rates over ${RATE_RUNS} runs each (record=false): no noise, uniform noise at every point with the plan's expected number of noise events (p per point), the plan`);
console.log(`(plan strength ${STRENGTH}: "plan p" is the plan's per-visit probability, with the calibration's runs)`);
console.log('| subject | no noise | uniform (p) | plan (plan p, runs) | plan ÷ uniform | ≥ 3× | uniform ≤ 20 % → plan ≥ 50 % |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  if (r.planRate === undefined) {
    console.log(`| ${r.pkg} | ${pct(r.noneRate)} | – | – (no plan) | – | – | – |`);
    continue;
  }
  const x = r.uniformRate > 0 ? r.planRate / r.uniformRate : Infinity;
  const three = x >= 3 ? 'yes' : r.uniformRate > 1 / 3 ? `impossible (uniform > 33 %)` : 'no';
  const fifty = r.uniformRate <= 0.2 ? (r.planRate >= 0.5 ? 'yes' : 'no') : 'n/a';
  console.log(`| ${r.pkg} | ${pct(r.noneRate)} | ${pct(r.uniformRate)} (${r.pu.toFixed(3)}) | ${pct(r.planRate)} (${r.planP}, ${r.strengthRuns}) | ${x === Infinity ? '∞' : x.toFixed(1)} | ${three} | ${fifty} |`);
}
