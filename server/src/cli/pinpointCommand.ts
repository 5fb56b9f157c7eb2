/**
 * `braid pinpoint [options] -- <command…>` (issue 17): the trigger points of a flaky failure by
 * seed 004's Iterative Group Sampling, and a reproduction plan. Exit code: 0 when trigger points
 * were found, 1 when none was (or on an error), 2 on a usage error, 130 when stopped with Ctrl-C.
 */
import os from 'node:os';
import path from 'node:path';
import { deriveName, MAX_TIMEOUT_SECONDS, sanitizeName, takeList } from '../recorder/runs/recordOptions';
import { deriveNodeName, recorderFor } from '../recorder/node/nodeRunner';
import { pinpoint, PinpointExtras } from '../recorder/runs/pinpoint';
import { otherRanks, PinpointOptions, PinpointResult } from '../engine/noise/triggerPoints';
import { NoiseKind } from '../engine/noise/noisePlan';
import { terminalLine, terminalText } from '../engine/outputEscaping';
import { outputPattern } from '../recorder/runs/outputPattern';

export const PINPOINT_USAGE = `braid pinpoint [options] -- <command...>
  Finds the instrumented points whose timing noise makes the failure appear (seed 004's Iterative
  Group Sampling: noise at random groups of points, full factorial per round, discard the groups
  that elicit the failure least) and writes a reproduction plan for braid record --plan.
  --budget RUNS         most program runs (default 400)
  --candidates all|patterns   points searched: on the lines of the top UNICORN patterns of the
                        recorded traces and their neighbours (default patterns), or every point
  --traces PATH...      traces the patterns come from (default .braid/traces)
  --per-thread          noise at a point in one thread at a time (the threads of the top patterns): for
                        code that several threads run, where noise in all of them delays them alike
  --format text|json    output (default text)
  --plan-dir DIR        where the plan goes (default .braid/plans; the file is <name>.json)
  --name NAME           plan name (default: the main class or tool name)
  --noise KIND          noise at a chosen point: sleep:MS (park 1..MS ms, default sleep:2), yield, busy:US
  --probability P       chance of that noise at each visit of a chosen point (default 1)
  --plan-strength auto|full
                        auto (default): the plan gets the least noise that still reproduces the failure
                        (P, P/2 … P/64 per visit, bisection, ≤ 40 runs); full: probability P as searched (the seed)
  --no-derivative       skip the derivative score around the trigger points (seed §4)
  --include PKG... --exclude PKG... --timeout S --fail-on-output RE --jobs J --seed S   as for braid record`;

export class PinpointUsageError extends Error {}

function num(flag: string, v: string | undefined, ok: (n: number) => boolean, what: string): number {
  const n = Number(v);
  if (v === undefined || v === '' || !Number.isFinite(n) || !ok(n)) throw new PinpointUsageError(`${flag} ${v ?? ''}: expected ${what}`.replace(/ +:/, ':'));
  return n;
}

export function parseNoiseKind(v: string | undefined): NoiseKind {
  const m = /^(yield|sleep|busy)(?::(\d+(?:\.\d+)?))?$/.exec(v ?? '');
  if (!m) throw new PinpointUsageError(`--noise ${v ?? ''}: expected sleep:MS, yield or busy:US`);
  if (m[1] === 'yield') return { kind: 'yield' };
  if (m[1] === 'sleep') return { kind: 'sleep', ms: m[2] ? Number(m[2]) : 2 };
  return { kind: 'busy', micros: m[2] ? Number(m[2]) : 100 };
}

export interface PinpointArgs {
  options: PinpointOptions & PinpointExtras;
  format: 'text' | 'json';
}

export function parsePinpointArgs(argv: string[], cwd = process.cwd()): PinpointArgs {
  const dash = argv.indexOf('--');
  const flags = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  if (command.length === 0) throw new PinpointUsageError('no command: put it after "--", e.g. braid pinpoint --budget 200 -- java -cp out bank.Bank');
  const o: PinpointOptions & PinpointExtras = {
    command,
    cwd,
    name: '',
    budget: 400,
    candidates: 'patterns',
    planDir: path.join('.braid', 'plans'),
    include: [],
    exclude: [],
    timeoutSeconds: 60,
    jobs: 1,
    seed: Math.floor(Math.random() * 1_000_000_000),
  };
  let format: 'text' | 'json' = 'text';
  let name: string | undefined;
  for (let i = 0; i < flags.length; ) {
    const flag = flags[i];
    const v = flags[i + 1];
    switch (flag) {
      case '--budget':
        o.budget = num(flag, v, (n) => Number.isInteger(n) && n >= 2, 'a whole number of runs ≥ 2');
        i += 2;
        break;
      case '--candidates':
        if (v !== 'all' && v !== 'patterns') throw new PinpointUsageError(`--candidates ${v ?? ''}: expected all or patterns`);
        o.candidates = v;
        i += 2;
        break;
      case '--format':
        if (v !== 'text' && v !== 'json') throw new PinpointUsageError(`--format ${v ?? ''}: expected text or json`);
        format = v;
        i += 2;
        break;
      case '--traces': {
        const [list, next] = takeList(flags, i + 1);
        if (!list.length) throw new PinpointUsageError('--traces needs a trace file or folder');
        o.traces = [...(o.traces ?? []), ...list.map((t) => path.resolve(cwd, t))];
        i = next;
        break;
      }
      case '--plan-dir':
        if (!v) throw new PinpointUsageError('--plan-dir needs a folder');
        o.planDir = v;
        i += 2;
        break;
      case '--name':
        if (!v) throw new PinpointUsageError('--name needs a value');
        name = v;
        i += 2;
        break;
      case '--noise':
        o.noise = parseNoiseKind(v);
        i += 2;
        break;
      case '--probability':
        o.probability = num(flag, v, (n) => n > 0 && n <= 1, 'a probability in (0, 1]');
        i += 2;
        break;
      case '--per-thread':
        o.perThread = true;
        i += 1;
        break;
      case '--plan-strength':
        if (v !== 'auto' && v !== 'full') throw new PinpointUsageError(`--plan-strength ${v ?? ''}: expected auto or full`);
        o.planStrength = v;
        i += 2;
        break;
      case '--no-derivative':
        o.derivative = false;
        i += 1;
        break;
      case '--include':
      case '--exclude': {
        const [list, next] = takeList(flags, i + 1);
        if (!list.length) throw new PinpointUsageError(`${flag} needs at least one package or class`);
        if (flag === '--include') o.include.push(...list);
        else o.exclude.push(...list);
        i = next;
        break;
      }
      case '--timeout':
        o.timeoutSeconds = num(flag, v, (n) => n > 0 && n <= MAX_TIMEOUT_SECONDS, `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
        i += 2;
        break;
      case '--fail-on-output':
        if (v === undefined) throw new PinpointUsageError('--fail-on-output needs a regular expression');
        {
          const re = outputPattern(v);
          if (re instanceof Error) throw new PinpointUsageError(`--fail-on-output ${v}: ${re.message}`);
          o.failOnOutput = re;
        }
        i += 2;
        break;
      case '--jobs':
        o.jobs = v === 'auto' ? os.availableParallelism() : num(flag, v, (n) => Number.isInteger(n) && n >= 1, 'a whole number ≥ 1 or "auto"');
        i += 2;
        break;
      case '--seed':
        o.seed = num(flag, v, (n) => Number.isSafeInteger(n) && n >= 0, 'a whole number ≥ 0');
        i += 2;
        break;
      default:
        throw new PinpointUsageError(`unknown option ${flag} for braid pinpoint`);
    }
  }
  o.name = sanitizeName(name ?? (recorderFor(command, o.include ?? []) === 'node' ? deriveNodeName(command) : deriveName(command)));
  return { options: o, format };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

const fraction = (p: number) => (p >= 1 ? '1' : Number.isInteger(1 / p) ? `1/${1 / p}` : String(p));

/** One line on the plan strength calibration, e.g. "plan strength: noise at 1/8 of the visits (failed 8 of 8 runs; full strength 8 of 8) — 32 runs". */
export function strengthLine(s: NonNullable<PinpointResult['strength']>): string {
  const full = s.full ? `full strength ${s.full.failures} of ${s.full.runs}` : '';
  const chosen = s.chosen ? `failed ${s.chosen.failures} of ${s.chosen.runs} runs` : '';
  const why =
    s.reason === 'full-strength-weak'
      ? ` — kept at full strength: it reproduced the failure in only ${s.full?.failures ?? 0} of ${s.full?.runs ?? 0} runs`
      : s.reason === 'budget'
        ? ' — the budget ran out during calibration'
        : '';
  return `plan strength: noise at ${fraction(s.probability)} of the visits (${s.probability === s.full?.probability ? full : [chosen, full].filter(Boolean).join('; ')})${why} — ${s.runs} run(s)`;
}

/**
 * What `--format json` prints (docs/cli.md): the trigger points (with `thread` per thread and
 * `together` on the points of a configuration), the plan, the runs and how the search ended.
 */
export function pinpointJsonReport(r: PinpointResult): Record<string, unknown> {
  return {
    points: r.points.map((p) => ({
      rank: p.rank,
      file: p.file,
      line: p.line,
      method: p.method,
      failWith: p.failWith,
      failWithout: p.failWithout,
      pValue: p.pValue,
      id: p.id,
      score: p.score,
      ...(p.thread !== undefined ? { thread: p.thread } : {}),
      ...(p.together !== undefined ? { together: p.together } : {}),
    })),
    plan: r.plan ?? null,
    runs: r.runs,
    candidates: r.candidates,
    rounds: r.rounds,
    stopped: r.stopped,
    message: r.message,
    ...(r.suggestPerThread ? { suggestPerThread: true } : {}),
    strength: r.strength ?? null,
  };
}

export function pinpointTextReport(r: PinpointResult, cwd = process.cwd()): string {
  const out: string[] = [];
  out.push(`braid pinpoint: ${r.runs} run(s), ${r.rounds} round(s) over ${r.candidates} candidate point(s); stopped: ${r.stopped}`);
  if (r.points.length === 0) out.push('no trigger point found');
  for (const p of r.points) {
    out.push(
      `${String(p.rank).padStart(3)}. ${p.file}:${p.line}  ${p.method}  failure ${pct(p.failWithout)} → ${pct(p.failWith)} with noise here${p.thread !== undefined ? ` in thread ${p.thread}` : ''}${p.together !== undefined ? ` and at ${otherRanks(p.rank, p.together).join(', ')} together` : ''}` +
        `  (p = ${p.pValue < 1e-3 ? p.pValue.toExponential(1) : p.pValue.toFixed(3)})`,
    );
  }
  if (r.plan) out.push(`plan: ${path.relative(cwd, r.plan) || r.plan}  (reproduce: braid record --plan ${path.relative(cwd, r.plan) || r.plan} -- …)`);
  if (r.plan && r.strength) out.push(strengthLine(r.strength));
  if (r.message) out.push(r.message);
  // trace paths and method names reach terminals and CI logs: every line escaped (outputEscaping.ts)
  return out.map(terminalLine).join('\n');
}

export async function runPinpointCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    const dash = argv.indexOf('--');
    const h = Math.max(argv.indexOf('--help'), argv.indexOf('-h'));
    if (dash < 0 || h < dash) {
      console.log(PINPOINT_USAGE);
      return 0;
    }
  }
  let args: PinpointArgs;
  try {
    args = parsePinpointArgs(argv);
  } catch (e) {
    if (e instanceof PinpointUsageError) {
      console.error(`braid pinpoint: ${e.message}\n\n${PINPOINT_USAGE}`);
      return 2;
    }
    throw e;
  }
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  const tty = process.stderr.isTTY;
  try {
    const o = args.options;
    console.error(`braid pinpoint: \`${o.command.join(' ')}\`, budget ${o.budget} runs, candidates ${o.candidates}${o.perThread ? ' per thread' : ''}, seed ${o.seed}, jobs ${o.jobs}`);
    let last = '';
    const r = await pinpoint(o, {
      signal: controller.signal,
      progress: (p) => {
        const line = terminalLine(`${p.runs}/${p.budget} runs · ${p.message}`);
        if (tty) process.stderr.write(`\r\x1b[K${line}`);
        else if (p.message !== last) console.error(line);
        last = p.message;
      },
    });
    if (tty) process.stderr.write('\r\x1b[K');
    if (args.format === 'json') {
      console.log(JSON.stringify(pinpointJsonReport(r), null, 2));
    } else console.log(pinpointTextReport(r));
    if (r.stopped === 'cancelled') return 130;
    return r.points.length > 0 ? 0 : 1;
  } catch (e) {
    console.error(`braid pinpoint: ${terminalText((e as Error).message)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
