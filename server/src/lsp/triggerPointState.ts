/**
 * The trigger points of the workspace's noise plans (`.braid/plans/*.json`, their `triggers`,
 * written by `braid pinpoint`, seed 004) for the editor: which source lines they are on (the
 * trigger-point decorations, braid/triggerPoints) and the hover line of each one ("noise here
 * raises the failure rate from 2% to 61%"). Plan files are workspace content, so untrusted: every
 * field is checked, a bad file or trigger is reported with its file (and index) and skipped, and
 * the hover escapes every string.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { jsonErrorPlace } from '../engine/noise/noisePlanFile';
import { otherRanks, type TriggerPoint } from '../engine/noise/triggerPoints';
import { formatP } from '../engine/ranking/rootCauseOrder';
import { fileUri } from './analysisState';
import { code, commandUri, esc } from './features';
import type { NoisePlanDto, TriggerPointLineDto, TriggerPointsResult } from './protocol';

export const PLAN_DIR = path.join('.braid', 'plans');
/** larger plan files are not read (a plan lists points, not events) */
const MAX_PLAN_BYTES = 10 * 1024 * 1024;
/**
 * the plans of a workspace together (issue 39: 20 identical 10 MB plans made a 3.4 GB server whose
 * hover went unanswered): files past this total are not read, each with a problem saying so
 */
export const MAX_PLANS_TOTAL_BYTES = 16 * 1024 * 1024;
/** trigger points kept over all plans (a `braid pinpoint` plan lists tens); later ones are dropped with a problem */
export const MAX_TRIGGER_POINTS = 10_000;
export const REPRODUCE_COMMAND = 'braid.reproduceWithPlan';

export interface LoadedPlan {
  name: string;
  /** absolute path of the plan file */
  file: string;
  command?: string[];
  runs?: number;
  created?: string;
  triggers: TriggerPoint[];
}

export interface PlanProblem {
  file: string;
  message: string;
}

/** True for a plan file the server reads: `<folder>/.braid/plans/<name>.json`. */
export function isPlanFile(fsPath: string, folders: string[]): boolean {
  if (!fsPath.endsWith('.json')) return false;
  const dir = path.dirname(path.resolve(fsPath));
  return folders.some((f) => dir === path.resolve(f, PLAN_DIR));
}

/**
 * Reads every `<folder>/.braid/plans/*.json` (sorted by name); unreadable files become problems.
 * Plan files follow the traces' rules (traceDiscovery.ts): a symbolic link is followed only when
 * it leads to a file inside the workspace folder (else the plan is skipped with a warning, and
 * its target is never read), and an error never quotes the text of a file that is not a plan.
 */
export async function loadPlans(folders: string[]): Promise<{ plans: LoadedPlan[]; problems: PlanProblem[] }> {
  const plans: LoadedPlan[] = [];
  const problems: PlanProblem[] = [];
  let totalBytes = 0;
  let totalTriggers = 0;
  for (const folder of folders) {
    const dir = path.resolve(folder, PLAN_DIR);
    let names: string[];
    try {
      names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      continue; // no plans folder
    }
    let realFolder: string;
    try {
      realFolder = await fs.realpath(folder);
    } catch {
      continue;
    }
    for (const n of names) {
      const file = path.join(dir, n);
      try {
        // the file itself or .braid/plans may be a link: where it really is decides
        let real: string;
        try {
          real = await fs.realpath(file);
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ENOENT') {
            if ((await fs.lstat(file).catch(() => undefined))?.isSymbolicLink()) throw new Error('broken symbolic link; the plan is skipped');
            continue; // removed meanwhile
          }
          throw new Error(code === 'ELOOP' ? 'symbolic link loop (too many levels of symbolic links); the plan is skipped' : 'cannot be read; the plan is skipped');
        }
        const rel = path.relative(realFolder, real);
        if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error('skipped: a symbolic link to a file outside the workspace folder (plan files follow the rules of trace files)');
        const st = await fs.stat(real);
        if (!st.isFile()) continue;
        if (st.size > MAX_PLAN_BYTES) throw new Error(`larger than ${MAX_PLAN_BYTES / 1024 / 1024} MB; not read`);
        if (totalBytes + st.size > MAX_PLANS_TOTAL_BYTES)
          throw new Error(`not read: the plans read before it take ${(totalBytes / 1024 / 1024).toFixed(1)} MB, and Braid reads at most ${MAX_PLANS_TOTAL_BYTES / 1024 / 1024} MB of plans in all (remove plans from .braid/plans)`);
        totalBytes += st.size;
        const r = parsePlan(file, await fs.readFile(real, 'utf8'));
        if (totalTriggers + r.plan.triggers.length > MAX_TRIGGER_POINTS) {
          const kept = Math.max(0, MAX_TRIGGER_POINTS - totalTriggers);
          problems.push({ file, message: `${r.plan.triggers.length - kept} of its ${r.plan.triggers.length} trigger points are not shown: Braid shows at most ${MAX_TRIGGER_POINTS} trigger points of all plans` });
          r.plan.triggers = r.plan.triggers.slice(0, kept);
        }
        totalTriggers += r.plan.triggers.length;
        plans.push(r.plan);
        problems.push(...r.problems.slice(0, 100));
        if (r.problems.length > 100) problems.push({ file, message: `${r.problems.length - 100} more problems` });
      } catch (err) {
        problems.push({ file, message: (err as Error).message });
      }
    }
  }
  return { plans, problems };
}

/**
 * The parts of a noise plan (docs/noise.md) the editor uses. Throws when the file is not a plan,
 * or when a count in it is more than the plan holds (a trigger's `rank` or `together` above the
 * number of its triggers: the plan is skipped, the message names the field); a trigger that is
 * otherwise bad is a problem naming its index, and the other triggers are kept. Messages never
 * quote the file's text.
 */
export function parsePlan(file: string, text: string): { plan: LoadedPlan; problems: PlanProblem[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${jsonErrorPlace(text, err as Error)}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('not a Braid noise plan: expected a JSON object');
  const o = raw as Record<string, unknown>;
  if (o.format !== 'braid-noise-plan') throw new Error('not a Braid noise plan: "format" is not "braid-noise-plan"');
  const fallback = path.basename(file, '.json');
  const name = typeof o.name === 'string' && o.name.trim() ? o.name.slice(0, 200) : fallback;
  const problems: PlanProblem[] = [];
  const triggers: TriggerPoint[] = [];
  if (o.triggers !== undefined && !Array.isArray(o.triggers)) problems.push({ file, message: '"triggers" is not a list; ignored' });
  const listed = Array.isArray(o.triggers) ? o.triggers : [];
  listed.forEach((t, k) => {
    const why = badTrigger(t);
    if (why) {
      problems.push({ file, message: `triggers[${k}]: ${why}; ignored` });
      return;
    }
    // counts are bounded by what the plan holds: ranks 1 … (its triggers), a configuration of at most all of them
    const tp = t as TriggerPoint;
    const most = listed.length;
    const points = `${most} trigger point${most === 1 ? '' : 's'}`;
    if (tp.rank > most) throw new Error(`triggers[${k}].rank: ${tp.rank} is more than the plan's ${points}; the plan is not used`);
    if (tp.together !== undefined && tp.together > most) throw new Error(`triggers[${k}].together: ${tp.together} is more than the plan's ${points}; the plan is not used`);
    triggers.push(tp);
  });
  const command = Array.isArray(o.command) && o.command.length && o.command.every((x) => typeof x === 'string') ? (o.command as string[]) : undefined;
  const origin = o.origin && typeof o.origin === 'object' ? (o.origin as Record<string, unknown>) : {};
  const runs = Number.isInteger(origin.runs) && (origin.runs as number) >= 0 ? (origin.runs as number) : undefined;
  const created = typeof origin.created === 'string' ? origin.created.slice(0, 40) : undefined;
  return { plan: { name, file, command, runs, created, triggers }, problems };
}

function badTrigger(t: unknown): string | undefined {
  if (!t || typeof t !== 'object' || Array.isArray(t)) return 'not an object';
  const o = t as Record<string, unknown>;
  const prob = (k: string) => typeof o[k] === 'number' && (o[k] as number) >= 0 && (o[k] as number) <= 1;
  if (typeof o.file !== 'string' || !o.file) return '"file" must be a source file name';
  if (!Number.isInteger(o.line) || (o.line as number) < 1) return '"line" must be an integer ≥ 1';
  if (!Number.isInteger(o.rank) || (o.rank as number) < 1) return '"rank" must be an integer ≥ 1';
  if (typeof o.id !== 'string' || typeof o.method !== 'string') return '"id" and "method" must be strings';
  for (const k of ['failWith', 'failWithout', 'pValue']) if (!prob(k)) return `"${k}" must be a number in [0, 1]`;
  if (o.thread !== undefined && (typeof o.thread !== 'string' || !o.thread)) return '"thread" must be a thread name';
  if (o.together !== undefined && (!Number.isInteger(o.together) || (o.together as number) < 2 || (o.rank as number) > (o.together as number)))
    return '"together" must be an integer ≥ 2 and ≥ the point\'s rank (the points #1 … #together elicit the failure together)';
  return undefined;
}

/**
 * Source paths to try for a trigger point, best first: a bare file name (the class file's
 * SourceFile, e.g. `Bank.java`) gets the package folder of its class (from the point id
 * `bank/Bank.transfer(II)V@12`, else the dotted method `bank.Bank.transfer`).
 */
export function sourceCandidates(t: Pick<TriggerPoint, 'file' | 'id' | 'method'>): string[] {
  const f = t.file.replace(/\\/g, '/');
  if (f.includes('/')) return [f];
  const fromId = /^([\w$/]+)\/[\w$]+\./.exec(t.id)?.[1];
  const parts = t.method.split('.');
  const fromMethod = parts.length > 2 ? parts.slice(0, -2).join('/') : undefined;
  const pkg = fromId ?? fromMethod;
  return pkg ? [`${pkg}/${f}`, f] : [f];
}

interface Entry {
  trigger: TriggerPoint;
  plan: LoadedPlan;
}

export class TriggerPointState {
  /** fsPath → line → trigger points on it (best rank first) */
  private readonly byFile = new Map<string, Map<number, Entry[]>>();
  /** trigger points whose source file is not in the workspace */
  readonly unresolved: { plan: string; file: string; rank: number }[] = [];

  constructor(
    readonly plans: LoadedPlan[],
    readonly problems: PlanProblem[],
    resolve: (sourcePath: string) => string | undefined,
  ) {
    for (const plan of plans) {
      for (const trigger of plan.triggers) {
        let fsPath: string | undefined;
        for (const c of sourceCandidates(trigger)) if ((fsPath = resolve(c))) break;
        if (!fsPath) {
          this.unresolved.push({ plan: plan.file, file: trigger.file, rank: trigger.rank });
          continue;
        }
        let lines = this.byFile.get(fsPath);
        if (!lines) this.byFile.set(fsPath, (lines = new Map()));
        let l = lines.get(trigger.line);
        if (!l) lines.set(trigger.line, (l = []));
        l.push({ trigger, plan });
      }
    }
    for (const lines of this.byFile.values()) for (const l of lines.values()) l.sort((a, b) => a.trigger.rank - b.trigger.rank);
  }

  /** trigger points resolved to workspace files */
  get resolvedCount(): number {
    let n = 0;
    for (const lines of this.byFile.values()) for (const l of lines.values()) n += l.length;
    return n;
  }

  /** The hover text of the trigger points on a line (markdown), or undefined. */
  hoverAt(fsPath: string, line1: number): string | undefined {
    const entries = this.byFile.get(fsPath)?.get(line1);
    if (!entries?.length) return undefined;
    return entries.map((e) => triggerHoverLine(e.trigger, e.plan)).join('\n\n');
  }

  result(): TriggerPointsResult {
    const plans: NoisePlanDto[] = this.plans.map((p) => ({
      name: p.name,
      file: p.file,
      uri: fileUri(p.file),
      ...(p.command ? { command: p.command } : {}),
      triggers: p.triggers.length,
      ...(p.runs !== undefined ? { runs: p.runs } : {}),
      ...(p.created ? { created: p.created } : {}),
    }));
    const files = [...this.byFile].map(([fsPath, lines]) => ({
      uri: fileUri(fsPath),
      lines: [...lines]
        .sort((a, b) => a[0] - b[0])
        .flatMap(([line, es]) =>
          es.map(({ trigger: t, plan }): TriggerPointLineDto => ({
            line,
            rank: t.rank,
            failWith: t.failWith,
            failWithout: t.failWithout,
            pValue: t.pValue,
            method: t.method,
            ...(t.thread !== undefined ? { thread: t.thread } : {}),
            ...(t.together !== undefined ? { together: t.together } : {}),
            plan: plan.name,
            planFile: plan.file,
          })),
        ),
    }));
    return { plans, files, problems: this.problems };
  }
}

/** A failure rate for people: `61%`, `0.4%` below 1%, `0%`. */
export function percent(x: number): string {
  const v = x * 100;
  if (v > 0 && v < 1) return `${v.toFixed(1)}%`;
  return `${Math.round(v)}%`;
}

/** "trigger point #2" / "trigger points #1 and #3" / "trigger points #1, #2 and #4": the other points of a configuration of `n` (ranks 1 … n). */
export function togetherOthers(rank: number, n: number): string {
  const others = otherRanks(rank, n);
  if (others.length === 1) return `trigger point ${others[0]}`;
  return `trigger points ${others.slice(0, -1).join(', ')} and ${others[others.length - 1]}`;
}

/** "Noise here raises the failure rate from 2% to 61% (p = 3.0e-9, 212 runs) — plan checkout.json" */
export function triggerHoverLine(t: TriggerPoint, plan: LoadedPlan): string {
  const verb = t.failWith > t.failWithout ? 'raises' : 'does not raise';
  const runs = plan.runs !== undefined ? `, ${plan.runs} runs` : '';
  const link = `[Reproduce](${commandUri(REPRODUCE_COMMAND, [plan.file])})`;
  return (
    `**Braid** · trigger point **#${t.rank}**: noise here${t.thread !== undefined ? ` in thread ${code(t.thread)}` : ''}${t.together !== undefined ? ` and at ${togetherOthers(t.rank, t.together)}, together,` : ''} ${verb} the failure rate from **${percent(t.failWithout)}** to **${percent(t.failWith)}** ` +
    `(p = ${formatP(t.pValue)}${runs}) — plan ${code(path.basename(plan.file))}${plan.name !== path.basename(plan.file, '.json') ? ` (${esc(plan.name)})` : ''} · ${link}`
  );
}
