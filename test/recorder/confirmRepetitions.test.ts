/**
 * Confirm by Forcing with a JUnit test's runs as repetitions in one JVM (issue 43 item 3; docs/confirm.md
 * "Cost"): the forced and opposite-order groups run in one JVM per group and job (repeatedRuns.ts), the
 * agent forcing each repetition afresh (Forcing.beginSegment) and ending each with its own `{"forcing":…}`
 * report. The same confirmation with one JVM per run (`freshJvm`, `braid confirm --fresh-jvm`) gives the
 * same verdict, and every repetition's report counts that repetition only: the opposite order's wait is
 * reached exactly once per deposit of the sample's two clerks (2 × 5), in every repetition — a count left
 * over from the repetition before would add up (10, 20, 30 …), and a forcing that stayed stopped after
 * the first repetition (times 1) would leave the later forced runs unforced and mostly passing.
 * Uses the sample JUnit 5 project (test/fixtures/junit5-sample) and Debian's junit5 console launcher.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureCopy, junitToolsSkip, preparedTestPlan } from '../helpers/junitProject';
import { Confirmation, confirmPattern } from '../../server/src/recorder/runs/confirmRuns';
import type { ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';

const skip = junitToolsSkip();

/** The sample's root cause: one clerk's read of the balance (line 8), the other's write (line 10). */
const ROOT_CAUSE: ForcedPattern = {
  key: 'RW|R1:bank/Account.java:8|W2:bank/Account.java:10',
  id: 'P1',
  kind: 'RW',
  rank: 1,
  accesses: [
    { thread: 1, type: 'R', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 8, method: 'bank.Account.deposit' },
    { thread: 2, type: 'W', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 10, method: 'bank.Account.deposit' },
  ],
};
const RUNS = 10;
/** reads of the balance at line 8 in one run of concurrentDepositsAreAllKept: two clerks, five deposits each */
const READS_PER_RUN = 10;

interface Report {
  ok: boolean;
  waits: { met: number; timedOut: number; lock: number; skipped: number }[];
}

/** Per trace of a group folder: the JVM that wrote it and its forcing reports. */
function groupTraces(folder: string, group: string): { file: string; pid: number; reports: Report[] }[] {
  const dir = path.join(folder, group);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.trace.jsonl'))
    .sort()
    .map((f) => {
      const lines = readFileSync(path.join(dir, f), 'utf8').split('\n');
      const pid = (JSON.parse(lines[0]) as { recorder: { options: { pid: number } } }).recorder.options.pid;
      const reports = lines.filter((l) => l.startsWith('{"forcing":')).map((l) => (JSON.parse(l) as { forcing: Report }).forcing);
      return { file: f, pid, reports };
    });
}

async function confirmSample(freshJvm: boolean): Promise<Confirmation> {
  const ws = fixtureCopy('junit5-sample');
  const plan = preparedTestPlan(ws, 'bank.AccountTest#concurrentDepositsAreAllKept');
  return confirmPattern(ROOT_CAUSE, {
    command: plan.command,
    cwd: plan.cwd,
    include: plan.include,
    exclude: [],
    runs: RUNS,
    noise: 0,
    timeoutSeconds: 60,
    jobs: 2,
    seed: 3,
    name: 'sample',
    outRoot: path.join(ws, 'confirm'),
    ...(freshJvm ? { freshJvm: true } : {}),
  });
}

test('Confirm by Forcing with repetitions in one JVM: the same verdict as one JVM per run, each repetition forced afresh with its own report', { skip, timeout: 360_000 }, async () => {
  const repeated = await confirmSample(false);
  const fresh = await confirmSample(true);
  const show = (c: Confirmation) => JSON.stringify({ verdict: c.verdict, forced: c.forced, opposite: c.opposite, control: c.control, reason: c.reason, seconds: c.seconds });
  for (const c of [repeated, fresh]) {
    assert.equal(c.verdict, 'confirmed', show(c));
    assert.equal(c.forced.runs, RUNS, show(c));
    // forced R1 → W2 (and thread 1 held at its write until W2): the lost update in every forced run
    assert.ok(c.forced.forcedOk === RUNS && c.forced.failed >= RUNS - 1, show(c));
    // confirmed: the opposite order was imposed in most of its runs and failed clearly less
    assert.ok(c.opposite && c.opposite.runs === RUNS && c.opposite.forcedOk > RUNS / 2, show(c));
  }
  assert.equal(repeated.verdict, fresh.verdict);

  for (const [c, repetitions] of [[repeated, true], [fresh, false]] as const) {
    for (const group of ['forced', 'opposite']) {
      const traces = groupTraces(c.folder, group);
      assert.equal(traces.length, RUNS, `${group}: ${traces.map((t) => t.file).join(' ')}`);
      const jvms = new Set(traces.map((t) => t.pid)).size;
      // repetitions: one JVM per job (2); otherwise one per run
      if (repetitions) assert.ok(jvms <= 2, `${group}: ${jvms} JVMs for ${RUNS} runs, expected repetitions in one JVM per job`);
      else assert.equal(jvms, RUNS, `${group}: one JVM per run with freshJvm`);
      for (const t of traces) {
        // one report per run, of that run only
        assert.equal(t.reports.length, 1, `${group} ${t.file}: ${JSON.stringify(t.reports)}`);
        const r = t.reports[0];
        if (group === 'opposite') {
          // the opposite order holds every read of the balance (times: every instance): each read reaches the wait once
          const w = r.waits[0];
          assert.equal(w.met + w.timedOut + w.lock + w.skipped, READS_PER_RUN, `${t.file}: ${JSON.stringify(r)} (a count left over from an earlier repetition?)`);
        } else {
          // forced once (times 1): the last wait met once, then forcing stops for the rest of the run
          assert.equal(r.ok, true, `${group} ${t.file}: ${JSON.stringify(r)}`);
          assert.equal(r.waits.at(-1)!.met, 1, `${t.file}: ${JSON.stringify(r)}`);
        }
      }
    }
  }
});
