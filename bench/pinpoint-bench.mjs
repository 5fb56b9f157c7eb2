// `braid pinpoint` (issue 17, seed 004): acceptance figures, printed, never asserted.
//
// Part 1, the seed's simulated fault model (good / neutral / bad points): runs IGS needs, against
// one-point-at-a-time search and RELIEF trained on as many runs as IGS used (seed §3.2), 30
// searches per model.
// Part 2, the sample programs with real JVM runs (record=false, noise plans): for each subject
//   - IGS over the `patterns` candidates (the committed recordings in test/fixtures/recorded/<pkg>
//     give the top UNICORN patterns), budget 400: runs, and whether the top 3 trigger points
//     include an `@bug` line;
//   - the failure rate with the reproduction plan against uniform noise of the same kind at every
//     instrumented point with the same expected number of noise events (events per point estimated
//     from the committed recordings: events per source line and run, shared by the points of a line);
//   - one-at-a-time search over the same candidates: 10 runs without noise, then every point alone,
//     up to 10 runs each (early stop at p < 10⁻⁶): the runs to find the trigger points this way, and
//     the expected runs to the first one found over random orders, 10 + (|S| − m)·10/(m + 1) + the
//     mean runs of the m points found; RELIEF on as many random configurations as IGS used.
//
//   node --import tsx bench/pinpoint-bench.mjs [pkg...|all] [--budget 400] [--jobs 2] [--rate-runs 20]
//        [--candidates patterns|all] [--sim-only] [--no-baselines]
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
import { makePlan, mulberry32, pinpoint, ProgramRunner, topPatternLines, DEFAULT_PINPOINT_NOISE } from '../server/src/recorder/pinpoint.ts';
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
const RATE_RUNS = opt('--rate-runs', 20);
const CANDIDATES = args.includes('--candidates') ? args[args.indexOf('--candidates') + 1] : 'patterns';
const simOnly = args.includes('--sim-only');
const baselines = !args.includes('--no-baselines');
const names = args.filter((a, k) => !a.startsWith('--') && !['--budget', '--jobs', '--rate-runs', '--candidates'].includes(args[k - 1]));
const pct = (x) => `${Math.round(x * 100)}%`;
const load = () => os.loadavg()[0].toFixed(1);

// ---------- part 1: the seed's fault model ----------
const MODELS = [
  { name: '60 pts, 1 good, 3 bad, p 0.7', points: 60, relevant: [7], blocking: [12, 40, 51], pBug: 0.7, pBase: 0.01 },
  { name: '60 pts, 2 good (both needed), 3 bad', points: 60, relevant: [7, 33], blocking: [12, 40, 51], pBug: 0.7, pBase: 0.01 },
  { name: '20 pts, 1 good p 0.4, 2 bad', points: 20, relevant: [3], blocking: [5, 9], pBug: 0.4, pBase: 0.02 },
  { name: '150 pts, 1 good, 6 bad, p 0.5', points: 150, relevant: [77], blocking: [3, 20, 41, 90, 111, 140], pBug: 0.5, pBase: 0.01 },
];
console.log(`pinpoint bench, part 1: the seed's fault model (30 searches per model; load ${load()})`);
console.log('model                                  IGS found  IGS runs (mean)  1-at-a-time found  runs (mean)  ratio  RELIEF@IGS runs found');
for (const m of MODELS) {
  const T = 30;
  let igsOk = 0, igsRuns = 0, oneOk = 0, oneRuns = 0, relOk = 0;
  for (let s = 0; s < T; s++) {
    const r = await iterativeGroupSampling(m.points, faultModelOracle(m, s), { budget: BUDGET, random: rng(100 + s) });
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
    `${m.name.padEnd(39)}${`${igsOk}/${T}`.padStart(9)}  ${(igsRuns / T).toFixed(0).padStart(15)}  ${`${oneOk}/${T}`.padStart(17)}  ${(oneRuns / T).toFixed(0).padStart(11)}  ${(oneRuns / igsRuns).toFixed(1).padStart(5)}  ${`${relOk}/${T}`.padStart(21)}`,
  );
}
console.log('(found: a good point among the top 3; 1-at-a-time: up to 20 runs a point, stops at the first point with p < 1e-6; RELIEF: as many random runs as IGS used, top 3)');
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

console.log(`\npinpoint bench, part 2: sample programs, real JVM runs (record=false), candidates ${CANDIDATES}, budget ${BUDGET}, jobs ${JOBS}, plan vs uniform over ${RATE_RUNS} runs each; load ${load()}`);
console.log('subject         cands  IGS runs  stop         top-3 @bug  plan fail  uniform fail (p)   1-at-a-time: all (first hit, @bug)  RELIEF top-3 @bug  secs');
const rows = [];
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
    seed: 4242,
    agentOptions: s.testCode?.length ? [`testCode=${s.testCode.join(';')}`] : [],
  };
  try {
    const runner = new ProgramRunner(base, scratch, undefined, base.agentOptions);
    const catalogue = (await runner.catalogue()).points;
    const r = await pinpoint({ ...base, budget: BUDGET - 1, catalogue }); // the catalogue run counts in the budget, as in braid pinpoint
    const top3 = r.points.slice(0, 3);
    const bugRank = r.points.findIndex((p) => isBugPoint(tags, p)) + 1;
    const plan = r.plan ? JSON.parse(readFileSync(r.plan, 'utf8')) : undefined;
    // plan vs uniform noise with the same expected number of noise events
    let planRate, uniformRate, pu;
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
      const lines = await topPatternLines(base.traces);
      const S = candidatePoints(catalogue, CANDIDATES, lines).points;
      const oracle = async (active) => runner.runPlan(makePlan('config', active.map((k) => S[k]), DEFAULT_PINPOINT_NOISE, 1));
      // every point, up to 10 runs each (a point stops early once p < 1e-6): what it takes to find the
      // trigger points one at a time; and the expected runs, over random orders, to the first one found
      const perPoint = new Map();
      const o = await oneAtATime(S.length, async (active) => {
        if (active.length === 1) perPoint.set(active[0], (perPoint.get(active[0]) ?? 0) + 1);
        return oracle(active);
      }, { budget: Math.min(10 + 10 * S.length, 1000), random: mulberry32(7), jobs: JOBS, runsPerPoint: 10, until: () => false });
      const m = o.found.length;
      const sigRuns = o.found.map((k) => perPoint.get(k) ?? 0);
      const firstHit = m ? 10 + ((S.length - m) * 10) / (m + 1) + sigRuns.reduce((a, b) => a + b, 0) / m : undefined;
      one = { runs: o.runs, complete: o.stopped !== 'budget', firstHit, bug: o.found.some((k) => isBugPoint(tags, S[k])), found: m };
      const sample = await sampleRandomConfigurations(S.length, r.runs, oracle, mulberry32(9), JOBS);
      reliefHit = reliefRanking(reliefWeights(sample)).slice(0, 3).some((k) => isBugPoint(tags, S[k]));
    }
    const row = {
      pkg: s.pkg,
      candidates: r.candidates,
      runs: r.runs + 1, // + the catalogue run
      stopped: r.stopped,
      top3: top3.some((p) => isBugPoint(tags, p)),
      bugRank,
      planRate,
      uniformRate,
      pu,
      one,
      reliefHit,
      secs: (Date.now() - started) / 1000,
    };
    rows.push(row);
    console.log(
      `${s.pkg.padEnd(16)}${String(row.candidates).padStart(5)}  ${String(row.runs).padStart(8)}  ${row.stopped.padEnd(11)}  ${(row.top3 ? `yes (#${bugRank})` : bugRank ? `no (#${bugRank})` : 'no').padEnd(10)}  ${(planRate === undefined ? '–' : pct(planRate)).padStart(9)}  ${(uniformRate === undefined ? '–' : `${pct(uniformRate)} (${pu.toFixed(3)})`).padStart(16)}  ${(one ? `${one.complete ? '' : '≥'}${one.runs} (${one.firstHit === undefined ? '–' : one.firstHit.toFixed(0)}, ${one.bug ? 'yes' : one.found ? 'other point' : 'none found'})` : '–').padStart(34)}  ${(reliefHit === undefined ? '–' : reliefHit ? 'yes' : 'no').padStart(17)}  ${row.secs.toFixed(0).padStart(4)}`,
    );
    for (const p of top3) console.log(`    ${p.rank}. ${p.file}:${p.line} ${p.method} ${pct(p.failWithout)} → ${pct(p.failWith)} p=${p.pValue.toExponential(1)}${isBugPoint(tags, p) ? '  @bug' : ''}`);
  } catch (e) {
    console.log(`${s.pkg.padEnd(16)} error: ${e.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
const ok = rows.filter((r) => r.top3).length;
const withOne = rows.filter((r) => r.one);
console.log(`\n@bug line in the top 3: ${ok} of ${rows.length} subjects; mean IGS runs ${(rows.reduce((a, r) => a + r.runs, 0) / Math.max(1, rows.length)).toFixed(0)}` +
  (withOne.length ? `; mean one-at-a-time runs: all points ${(withOne.reduce((a, r) => a + r.one.runs, 0) / withOne.length).toFixed(0)}, to the first hit ${withOne.some((r) => r.one.firstHit !== undefined) ? (withOne.filter((r) => r.one.firstHit !== undefined).reduce((a, r) => a + r.one.firstHit, 0) / withOne.filter((r) => r.one.firstHit !== undefined).length).toFixed(0) : '–'} (expected over orders, where one was found)` : '') + `; load ${load()}`);
