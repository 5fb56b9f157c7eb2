/**
 * Confirm by Forcing on the JUnit sample (issue 43 item 3: ≤ 30 s), before and after forcing per in-JVM
 * repetition, in paired alternating runs (the shared machine's load hits both alike): the sample's root
 * cause (R1 Account.java:8 → W2 Account.java:10, AccountTest.concurrentDepositsAreAllKept) confirmed as the
 * editor asks for it — 20 runs per group (two looks), 2 jobs, no noise — once per mode and pair, the
 * mode that goes first alternating from pair to pair.
 *
 *   node --import tsx bench/confirmRepetitions.ts [--pairs N] [--before <checkout>]
 *
 * Modes: `repetitions` (this code: the forced, opposite and unforced groups as repetitions in one JVM per
 * group and job) against `one JVM per run` (`freshJvm`, every group), or with --before, against the
 * confirmPattern of an older checkout (e.g. `git worktree add --detach /tmp/before <commit>`; its
 * node_modules linked), run with this checkout's agent and launcher jars. Prints seconds, runs and the
 * verdict of each confirmation and the medians; never asserts.
 * Needs Debian's junit5 (/usr/share/java/junit-platform-console-standalone.jar) and dist/braid-agent.jar,
 * dist/braid-launcher.jar (node scripts/build-agent.mjs).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inferTestCommand } from '../server/src/recorder/java/testCommand';
import { locateTest } from '../server/src/recorder/java/testLocate';
import { Confirmation, confirmPattern, ConfirmOptions } from '../server/src/recorder/runs/confirmRuns';
import type { ForcedPattern } from '../server/src/engine/confirm/forcingPlan';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const JAR = path.join(ROOT, 'dist/braid-agent.jar');

const PATTERN: ForcedPattern = {
  key: 'RW|R1:bank/Account.java:8|W2:bank/Account.java:10',
  id: 'P1',
  kind: 'RW',
  rank: 1,
  accesses: [
    { thread: 1, type: 'R', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 8, method: 'bank.Account.deposit' },
    { thread: 2, type: 'W', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 10, method: 'bank.Account.deposit' },
  ],
};

function flag(name: string): string | undefined {
  const k = process.argv.indexOf(name);
  return k < 0 ? undefined : process.argv[k + 1];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

type Confirm = (p: ForcedPattern, o: ConfirmOptions) => Promise<Confirmation>;

async function main(): Promise<void> {
  if (!existsSync(LAUNCHER) || !existsSync(JAR) || !existsSync(path.join(ROOT, 'dist/braid-launcher.jar'))) {
    console.log(`confirm repetitions bench skipped: needs ${LAUNCHER}, dist/braid-agent.jar and dist/braid-launcher.jar (node scripts/build-agent.mjs)`);
    return;
  }
  const pairs = Number(flag('--pairs') ?? 3);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--pairs needs a whole number ≥ 1, got ${JSON.stringify(flag('--pairs'))}`);
  const beforeDir = flag('--before');
  let before: { label: string; confirm: Confirm; extra: Partial<ConfirmOptions> };
  if (beforeDir) {
    const file = path.resolve(beforeDir, 'server/src/recorder/runs/confirmRuns.ts');
    if (!existsSync(file)) throw new Error(`--before ${beforeDir}: no ${file} (give a checkout of Braid)`);
    const older = (await import(pathToFileURL(file).href)) as { confirmPattern: Confirm };
    before = { label: `before (${beforeDir})`, confirm: older.confirmPattern, extra: {} };
  } else before = { label: 'one JVM per run', confirm: confirmPattern, extra: { freshJvm: true } };
  const after = { label: 'repetitions', confirm: confirmPattern as Confirm, extra: {} as Partial<ConfirmOptions> };

  const ws = mkdtempSync(path.join(tmpdir(), 'braid-confirm-rep-bench-'));
  try {
    cpSync(path.join(ROOT, 'test/fixtures/junit5-sample'), ws, { recursive: true });
    const plan = inferTestCommand(ws, locateTest(ws, 'bank.AccountTest#concurrentDepositsAreAllKept'));
    for (const step of plan.prepare) {
      const r = spawnSync(step.command[0], step.command.slice(1), { cwd: step.cwd, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${step.command.join(' ')} failed: ${r.stderr}`);
    }
    const base: ConfirmOptions = { command: plan.command, cwd: plan.cwd, include: plan.include, exclude: [], runs: 20, noise: 0, timeoutSeconds: 60, jobs: 2, seed: 1, name: 'sample', outRoot: path.join(ws, 'confirm'), agentJar: JAR };
    console.log(`Confirm by Forcing, JUnit sample (AccountTest.concurrentDepositsAreAllKept), R1 Account.java:8 → W2 Account.java:10, 20 runs per group, 2 jobs: ${before.label} vs ${after.label}, ${pairs} pairs`);
    const seconds = new Map<string, number[]>([[before.label, []], [after.label, []]]);
    const g = (x?: { runs: number; failed: number }) => (x ? `${x.failed}/${x.runs}` : '—');
    for (let k = 0; k < pairs; k++) {
      const order = k % 2 === 0 ? [before, after] : [after, before];
      for (const m of order) {
        const c = await m.confirm(PATTERN, { ...base, seed: 1000 * (k + 1), ...m.extra });
        seconds.get(m.label)!.push(c.seconds);
        console.log(`  pair ${k + 1}, ${m.label}: ${c.seconds.toFixed(1)} s, ${c.runsSpent} runs — forced ${g(c.forced)}, opposite ${g(c.opposite)}, control ${g(c.control)}: ${c.verdict}`);
      }
    }
    for (const [label, xs] of seconds) console.log(`  median ${label}: ${median(xs).toFixed(1)} s (${xs.map((x) => x.toFixed(1)).join(', ')})`);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
