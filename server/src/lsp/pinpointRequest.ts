/**
 * braid/pinpoint: seed 004's search for trigger points (`braid pinpoint`, server/src/recorder/
 * runs/pinpoint.ts) run from the editor. It runs the user's program, so it is refused unless the
 * workspace is trusted (the client says so in initializationOptions and braid/workspaceTrust).
 * Progress goes to the request's work-done token ($/progress); $/cancelRequest stops the search
 * (the result so far is returned, `stopped: 'cancelled'`).
 */
import path from 'node:path';
import { CancellationToken, Connection, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { Pinpoint, PinpointOptions } from '../engine/noise/triggerPoints';
import { deriveName, sanitizeName } from '../recorder/runs/recordOptions';
import { fileUri } from './analysisState';
import type { PinpointParams, PinpointResultDto } from './protocol';
import { PLAN_DIR } from './triggerPointState';
import { outputPattern } from '../recorder/runs/outputPattern';

export interface PinpointContext {
  folder: string | undefined;
  trusted: boolean;
  /** trace files of the last analysis (where the top patterns come from) */
  traces: string[];
  /** the implementation (injected so the request's checks are testable on their own) */
  pinpoint: Pinpoint | undefined;
  /** a plan was written: reload the trigger points */
  planWritten(file: string): void;
}

export const UNTRUSTED_MESSAGE = 'Braid: finding trigger points runs your program, so it needs a trusted workspace. Trust the workspace first.';

const bad = (message: string) => new ResponseError(-32602, message);

/** The checked PinpointOptions of a braid/pinpoint request (throws a ResponseError naming the bad field). */
export function pinpointOptions(p: PinpointParams, folder: string, traces: string[]): PinpointOptions {
  if (!p || !Array.isArray(p.command) || p.command.length === 0 || !p.command.every((x) => typeof x === 'string' && x.length > 0)) {
    throw bad('braid/pinpoint needs "command": the program and its arguments, e.g. ["java", "-cp", "out", "bank.Bank"]');
  }
  const int = (k: keyof PinpointParams, def: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = p[k];
    if (v === undefined) return def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(`braid/pinpoint: "${k}" must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  const strings = (k: 'include' | 'exclude') => {
    const v = p[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(`braid/pinpoint: "${k}" must be a list of package or class names`);
    return v;
  };
  if (p.candidates !== undefined && p.candidates !== 'all' && p.candidates !== 'patterns') throw bad(`braid/pinpoint: "candidates" must be "all" or "patterns", got ${JSON.stringify(p.candidates)}`);
  if (p.perThread !== undefined && typeof p.perThread !== 'boolean') throw bad(`braid/pinpoint: "perThread" must be true or false, got ${JSON.stringify(p.perThread)}`);
  let cwd = folder;
  if (p.cwd !== undefined) {
    if (typeof p.cwd !== 'string') throw bad('braid/pinpoint: "cwd" must be a folder inside the workspace folder');
    cwd = path.resolve(folder, p.cwd);
    if (path.relative(folder, cwd).startsWith('..')) throw bad(`braid/pinpoint: "${p.cwd}" is outside the workspace folder ${folder}`);
  }
  let failOnOutput: RegExp | undefined;
  if (p.failOnOutput !== undefined) {
    // matched in linear time (outputPattern.ts): a backtracking pattern cannot hang the server's runs
    const re = outputPattern(String(p.failOnOutput));
    if (re instanceof Error) throw bad(`braid/pinpoint: "failOnOutput": ${re.message}`);
    failOnOutput = re;
  }
  if (p.name !== undefined && typeof p.name !== 'string') throw bad('braid/pinpoint: "name" must be a string');
  return {
    command: p.command,
    cwd,
    name: sanitizeName(p.name || deriveName(p.command)),
    budget: int('budget', 400, 1, 1_000_000),
    candidates: p.candidates ?? 'patterns',
    ...(p.perThread === true ? { perThread: true } : {}),
    // no analyzed traces yet: pinpoint's default (the workspace's .braid/traces)
    ...(traces.length ? { traces } : {}),
    planDir: path.resolve(folder, PLAN_DIR),
    include: strings('include'),
    exclude: strings('exclude'),
    timeoutSeconds: int('timeoutSeconds', 60, 1),
    ...(failOnOutput ? { failOnOutput } : {}),
    jobs: int('jobs', 1, 1, 64),
    seed: int('seed', Date.now() % 2_147_483_647, 0),
  };
}

export async function pinpointFromServer(connection: Connection, p: PinpointParams, token: CancellationToken, ctx: PinpointContext): Promise<PinpointResultDto> {
  if (!ctx.trusted) throw new ResponseError(LSPErrorCodes.RequestFailed, UNTRUSTED_MESSAGE);
  if (!ctx.folder) throw bad('Finding trigger points needs an open workspace folder.');
  const options = pinpointOptions(p, ctx.folder, ctx.traces);
  if (!ctx.pinpoint) throw new ResponseError(LSPErrorCodes.RequestFailed, 'Braid: this build has no trigger-point search (braid pinpoint).');
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  const progress = connection.window.attachWorkDoneProgress(p.workDoneToken);
  progress.begin('Braid: finding trigger points', 0, `Starting ${path.basename(options.command[0])}…`, true);
  connection.console.info(`Finding trigger points (budget ${options.budget} runs, candidates ${options.candidates}): ${options.command.join(' ')}`);
  try {
    const r = await ctx.pinpoint(options, {
      signal: abort.signal,
      progress: (pr) => {
        const pct = pr.budget > 0 ? Math.min(100, Math.round((pr.runs / pr.budget) * 100)) : undefined;
        // pinpoint's message names the round and the candidates left
        progress.report(pct ?? 0, `${pr.runs}/${pr.budget} runs · ${pr.message || `round ${pr.round}, ${pr.candidates} candidate points`}`);
      },
    });
    connection.console.info(
      `Trigger points: ${r.points.length} found in ${r.runs} runs (${r.candidates} candidates, ${r.rounds} rounds, stopped: ${r.stopped})${r.plan ? `; plan ${r.plan}` : ''}`,
    );
    if (r.plan) ctx.planWritten(r.plan);
    return { ...r, ...(r.plan ? { planUri: fileUri(path.resolve(r.plan)) } : {}) };
  } catch (err) {
    if (err instanceof ResponseError) throw err;
    throw new ResponseError(LSPErrorCodes.RequestFailed, `Finding trigger points failed: ${(err as Error).message}`);
  } finally {
    progress.done();
    sub.dispose();
  }
}
