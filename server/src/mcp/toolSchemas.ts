/**
 * The MCP tools' input and output schemas (zod, as the SDK's McpServer.registerTool takes them; the
 * SDK validates inputs against them and turns them into the JSON Schemas a client lists) and their
 * descriptions, written for a language model: when to use which tool, what the verdicts mean, and
 * that a verdict comes only from runs of the program (docs/agents.md).
 */
import { z } from 'zod';
import { DATA_NOTE } from './recordedText';

const runsCount = z.object({ total: z.number().int(), failed: z.number().int(), passed: z.number().int() });

const access = z.object({
  thread: z.number().int().describe('thread role: 1 = the thread of the first access'),
  threadName: z.string().optional(),
  type: z.enum(['R', 'W']),
  variable: z.string(),
  where: z.string().describe('file:line of the access in the program’s own code'),
  method: z.string(),
});

const cause = z.object({
  pattern: z.number().int().describe('the pattern’s position in the ranking (1 = first): pass it to confirm, reproduce or check_fix'),
  key: z.string().describe('stable key of the pattern (also accepted as "pattern")'),
  kind: z.string().describe('access types in execution order, e.g. RWW (read, other thread writes, write)'),
  category: z.string(),
  failed: z.number().int().describe('failing runs showing the pattern'),
  passed: z.number().int().describe('passing runs showing the pattern'),
  pValue: z.number().describe('one-sided Fisher exact p-value that the pattern goes with failing (smaller = stronger)'),
  evidence: z.boolean().describe('p < 0.05 and absent from some passing runs'),
  sentence: z.string().describe('the interleaving in plain words'),
  accesses: z.array(access),
  accessesLeftOut: z.number().int().optional(),
  confirmation: z.string().optional().describe('verdict of an earlier confirm of this pattern, when there was one'),
});

const bug = z.object({
  headline: z.string(),
  kind: z.string(),
  failingRuns: z.number().int().describe('failing runs this bug explains'),
  totalFailing: z.number().int(),
  pValue: z.number(),
  weak: z.string().optional().describe('present when the bug has only weak evidence: what it rests on (one or two failing runs, or a pattern in every failing run and in passing runs too)'),
  suspiciousMethods: z.array(z.object({ method: z.string(), where: z.string() })),
  fix: z.array(z.string()).describe('fix strategies, most usual first'),
});

export const analysisOutput = {
  note: z.string().describe(DATA_NOTE),
  recording: z.string().describe('handle of the recording: pass it to confirm, reproduce, check_fix, explain_run'),
  resource: z.string().describe('MCP resource URI of the recording'),
  status: z
    .enum(['cause-found', 'no-evidence', 'never-failed', 'always-failed', 'no-runs'])
    .describe('cause-found: a pattern separates failing from passing runs; no-evidence: none does yet (record more runs); never-failed: no run failed (nothing to explain; more noise); always-failed: no passing run to compare'),
  runs: runsCount,
  recorded: z
    .object({ command: z.string(), seconds: z.number(), stopped: z.string().describe('evidence | max-runs | max-seconds | cancelled') })
    .optional()
    .describe('present when this call recorded new runs'),
  causes: z.array(cause).describe('best ranked causes first (at most 3)'),
  bug: bug.optional().describe('GRIFFIN’s first bug: what goes wrong and where to fix it'),
  bugs: z.number().int().describe('bugs GRIFFIN found'),
  totalPatterns: z.number().int(),
  message: z.string().optional(),
  next: z.string().describe('what to do next'),
  trimmed: z.boolean().optional().describe('parts were left out to keep the result small; read the recording resource for all of it'),
};

export const findRootCauseInput = {
  test: z.string().optional().describe('a JUnit 4/5 or TestNG test as Class#method or Class (simple or full name), found under the project'),
  jsTest: z
    .object({ file: z.string().describe('the test file, relative to the project'), titles: z.array(z.string()).optional().describe('describe names then the test’s own name, outermost first; absent: the whole file') })
    .optional()
    .describe('a node:test, mocha, jest or vitest test'),
  command: z.array(z.string()).min(1).optional().describe('a program to run many times, e.g. ["java","-cp","classes","bank.Bank"] (needs include for Java)'),
  build: z.array(z.string()).min(1).optional().describe('with command: a build step run once before recording and again by check_fix, e.g. ["javac","-d","classes","bank/Bank.java"]'),
  include: z.array(z.string()).optional().describe('packages/classes to record (Java); default for a test: its package'),
  recording: z.string().optional().describe('analyze an existing recording instead of running anything (a name from list_recordings, or a folder of traces)'),
  project: z.string().optional().describe('the project folder: a root of this server or a folder inside one (default: the only root)'),
  maxRuns: z.number().int().min(10).max(1000).optional().describe('most runs (default 200); recording stops earlier once the evidence is in'),
  maxSeconds: z.number().min(5).max(3600).optional().describe('most seconds of recording (default 300)'),
  noise: z.number().min(0).max(1).optional().describe('timing noise probability at each instrumented point (default 0.1)'),
  timeoutSeconds: z.number().min(1).max(3600).optional().describe('time limit per run (default 60)'),
};

export const patternInput = {
  recording: z.string().describe('the recording handle from find_root_cause or list_recordings'),
  pattern: z.union([z.number().int().min(1), z.string().min(1)]).default(1).describe('the pattern’s position in the ranking (1 = first) or its key'),
  runs: z.number().int().min(2).max(200).optional().describe('runs per group (default 10)'),
};

const group = z.object({ runs: z.number().int(), failed: z.number().int() });

export const confirmOutput = {
  note: z.string().describe(DATA_NOTE),
  verdict: z
    .enum(['confirmed', 'confirms the window', 'refuted', 'not forced', 'could not check'])
    .describe('confirmed: forcing the interleaving makes the program fail far more (proof it causes the failure); confirms the window: holding a thread there makes it fail whatever the order (the window is real; the cause is another pattern over it); refuted: forced, and it does not fail more; not forced: a lock or join orders the accesses; could not check: no verdict (why says why)'),
  pattern: z.object({ pattern: z.number().int(), key: z.string(), kind: z.string() }),
  forced: group.extend({ forcedOk: z.number().int().describe('runs in which the interleaving was really forced') }),
  opposite: group.extend({ forcedOk: z.number().int() }).optional().describe('runs forced in the opposite order'),
  unforced: group.optional(),
  pValue: z.number(),
  reason: z.string(),
  why: z.string().optional(),
  hint: z.string().optional(),
  within: z
    .array(
      z.object({
        pattern: z.number().int().describe('its position in the ranking'),
        key: z.string(),
        kind: z.string(),
        verdict: z.enum(['confirmed', 'confirms the window', 'refuted', 'not forced', 'could not check']),
        forced: group,
        opposite: group.optional(),
      }),
    )
    .optional()
    .describe('a confirmed pattern of three or four accesses over two variables: the smaller patterns within it forced alone, in turn, until one was confirmed'),
  cause: z
    .object({ pattern: z.number().int(), key: z.string(), kind: z.string() })
    .optional()
    .describe('the pattern within it that was confirmed alone: its order is the cause; the confirmed pattern’s other accesses are incidental'),
  runs: z.number().int(),
  seconds: z.number(),
  next: z.string(),
};

export const reproduceOutput = {
  note: z.string().describe(DATA_NOTE),
  reproduced: z.boolean().describe('a forced run failed'),
  failure: z.string().optional().describe('the forced failing run’s failure message'),
  failureAt: z.string().optional(),
  interleaving: z.array(z.string()).describe('the forced failing run’s accesses of the pattern’s variables up to its failure, in order'),
  plan: z.string().optional().describe('the forcing plan file: braid record --runs 1 --plan <plan> -- <command> reproduces it'),
  run: z.string().optional().describe('the forced run’s trace, for explain_run'),
  forced: group.extend({ forcedOk: z.number().int().describe('runs in which the interleaving was really forced') }),
  reason: z.string(),
  next: z.string(),
};

export const checkFixInput = {
  recording: patternInput.recording,
  pattern: patternInput.pattern,
  runs: patternInput.runs,
  build: z.array(z.string()).min(1).optional().describe('the build step to run first (default: the recording’s own, e.g. its javac step)'),
};

export const checkFixOutput = {
  note: z.string().describe(DATA_NOTE),
  verdict: z
    .enum(['fixed', 'not fixed', 'could not check'])
    .describe('fixed: forcing the interleaving no longer makes the program fail (or it can no longer happen) and the fresh runs with the recording’s noise do not fail as often as before; not fixed: a forced run still fails (e.g. "volatile" does not make a read-modify-write atomic), or the failure rate did not drop; could not check: no verdict (the build failed, no run finished: why/hint)'),
  reason: z.string(),
  before: group,
  after: group.describe('noise runs after the fix (0 runs when not recorded)'),
  forced: group.extend({ forcedOk: z.number().int() }),
  pValue: z.number(),
  why: z.string().optional(),
  hint: z.string().optional(),
  built: z.string().optional().describe('the build step that ran first'),
  seconds: z.number(),
  next: z.string(),
};

export const listRecordingsInput = {
  project: z.string().optional().describe('only this root (default: every root)'),
};

export const listRecordingsOutput = {
  note: z.string().describe(DATA_NOTE),
  recordings: z.array(
    z.object({
      recording: z.string(),
      resource: z.string(),
      root: z.string(),
      traces: z.number().int(),
      command: z.string().optional(),
      startedAt: z.string().optional(),
      canRun: z.boolean().describe('has a recording.json: confirm, reproduce and check_fix can rerun it'),
    }),
  ),
  left: z.number().int().optional().describe('recordings not listed (newest are listed first)'),
};

export const explainRunInput = {
  recording: patternInput.recording,
  run: z.string().optional().describe('execution id of the run (default: the first failing run)'),
  around: z.number().int().min(1).max(60).optional().describe('events shown before the failure point (default 20)'),
};

export const explainRunOutput = {
  note: z.string().describe(DATA_NOTE),
  run: z.string(),
  outcome: z.string(),
  failure: z.string().optional(),
  failureAt: z.string().optional(),
  failPoint: z.number().int().optional().describe('event index of the failure'),
  threads: z.array(z.string()),
  events: z.array(z.string()).describe('"#index thread KIND variable @ file:line method", in execution order'),
  totalEvents: z.number().int(),
};

export const TOOL_DESCRIPTIONS = {
  find_root_cause:
    'Find why a test or program fails only sometimes (a flaky, concurrency-dependent failure). Runs it many times under Braid’s recorder with timing noise until the evidence is in, then ranks the shared-memory access interleavings that separate failing from passing runs. Use it first, before editing code, when a test is flaky or fails intermittently; give `test` (Java Class#method), `jsTest`, or `command` (+ `build`), or `recording` to analyze runs recorded before without running anything. Returns the ranked causes (failing/passing runs, Fisher p), GRIFFIN’s bug headline, suspicious methods with file:line and fix strategies, and a recording handle. A ranking is statistical evidence, not proof: call confirm on pattern 1 to prove it. Takes minutes (progress is reported); runs the program, only in the server’s roots.',
  confirm:
    'Prove (or refute) that a ranked pattern causes the failure: runs the program with the pattern’s interleaving forced, with the opposite order, and unforced. Verdicts: confirmed (forced runs fail far more: the cause is proven; for a pattern of three or four accesses over two variables the smaller patterns within it are forced alone too, and one confirmed is named as `cause`), refuted (forcing it does not make the program fail: look at the next pattern), not forced (a lock or a join already orders these accesses), could not check (no runs to compare; `why` and `hint` say what to do). Use after find_root_cause and before fixing. A verdict always comes from these runs, never from reading code.',
  reproduce:
    'Make the failure happen on demand: forces a ranked pattern’s interleaving and returns a forced failing run’s failure message and its accesses around the failure, in order, with the plan file that replays it. Use it to see the failing interleaving concretely or to write a regression test.',
  check_fix:
    'Check a fix after you edited the code: rebuilds with the recording’s build step (or `build`), forces the pattern’s interleaving on the new build and records fresh runs with the recording’s noise. Verdicts: fixed (forcing the interleaving no longer makes the program fail, and fresh runs with the recording’s noise do not fail as often as before), not fixed (a forced run still fails, or the failure rate did not drop — e.g. `volatile` does not make a read-modify-write atomic), could not check (the build failed or no run finished; why/hint). Use it after each attempted fix; do not call a fix done without `fixed`.',
  list_recordings:
    'List the recordings (folders of recorded runs) in the server’s roots, newest first, with their handles. Use it to find a recording to analyze (find_root_cause with `recording`), confirm, or explain. Runs nothing.',
  explain_run:
    'Show one recorded run’s memory accesses around its failure point (bounded, in execution order): which thread read or wrote which variable where, just before it failed. Use it to understand a failing run of a recording (default: its first failing run). Runs nothing.',
} as const;
