/**
 * Reading, checking and writing noise plan files (noisePlan.ts, docs/noise.md "Plan format").
 * Every error names the file and the field (`plan.json: points[2].probability: must be a number
 * between 0 and 1`). The Java agent checks plans the same way (NoisePlanLoader.java), so a plan
 * this module accepts is one the agent uses.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../workspace/atomicWrite';
import { ForceAccess, ForceSpec, ForceWait, MAX_FORCE_ACCESSES, MAX_FORCE_WAITS, NOISE_PLAN_VERSION, NoiseKind, NoisePlan, PlannedPoint } from './noisePlan';

/** A plan that cannot be used: names the file and the field. */
export class NoisePlanError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
  }
}

/** Longest sleep (ms) and busy wait (µs) of a point: a minute; more is a mistake, not noise. */
export const MAX_SLEEP_MS = 60_000;
export const MAX_BUSY_MICROS = 60_000_000;

/** `<internal class>.<method><descriptor>@<offset>`, e.g. `bank/Bank.transfer(II)V@12`. */
const POINT_ID = /^[^\s.()@][^\s()@]*\.[^\s.()@/]+\([^\s()]*\)[^\s()@]+@\d{1,6}$/;

/** A JavaScript point (the Node.js recorder): `js:<file>:<line>#<k>`, the k-th instrumented point of the line. */
const JS_POINT_ID = /^js:[^\s#]+:\d{1,7}#\d{1,4}$/;

export function isPointId(id: string): boolean {
  return POINT_ID.test(id) || JS_POINT_ID.test(id);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkNoise(v: unknown, file: string, field: string): NoiseKind {
  if (!isObject(v)) throw new NoisePlanError(file, field, 'must be an object such as {"kind":"yield"}, {"kind":"sleep","ms":5} or {"kind":"busy","micros":200}');
  const positive = (key: string, most: number): number => {
    const n = v[key];
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > most) throw new NoisePlanError(file, `${field}.${key}`, `must be a number > 0 and ≤ ${most}`);
    return n;
  };
  switch (v.kind) {
    case 'yield':
      return { kind: 'yield' };
    case 'sleep':
      return { kind: 'sleep', ms: positive('ms', MAX_SLEEP_MS) };
    case 'busy':
      return { kind: 'busy', micros: positive('micros', MAX_BUSY_MICROS) };
    default:
      throw new NoisePlanError(file, `${field}.kind`, 'must be "yield", "sleep" or "busy"');
  }
}

const isWhole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

/** Checks a plan's `force` section (docs/noise.md "Forcing plans"); NoisePlanLoader.java checks it the same way. */
function checkForce(v: unknown, file: string): ForceSpec {
  if (!isObject(v)) throw new NoisePlanError(file, 'force', 'must be an object {"order", "waitMs", "times", "accesses", "waits"}');
  if (v.order !== 'pattern' && v.order !== 'opposite') throw new NoisePlanError(file, 'force.order', 'must be "pattern" or "opposite"');
  if (typeof v.waitMs !== 'number' || !(v.waitMs > 0 && v.waitMs <= MAX_SLEEP_MS)) throw new NoisePlanError(file, 'force.waitMs', `must be a number > 0 and ≤ ${MAX_SLEEP_MS}`);
  if (!isWhole(v.times)) throw new NoisePlanError(file, 'force.times', 'must be a whole number ≥ 1');
  if (v.maxTimeouts !== undefined && !isWhole(v.maxTimeouts)) throw new NoisePlanError(file, 'force.maxTimeouts', 'must be a whole number ≥ 1');
  if (v.pattern !== undefined && !isObject(v.pattern)) throw new NoisePlanError(file, 'force.pattern', 'must be an object');
  if (!Array.isArray(v.accesses) || v.accesses.length === 0 || v.accesses.length > MAX_FORCE_ACCESSES) {
    throw new NoisePlanError(file, 'force.accesses', `must be a non-empty array of at most ${MAX_FORCE_ACCESSES} accesses`);
  }
  const accesses: ForceAccess[] = v.accesses.map((a: unknown, k: number) => {
    const at = `force.accesses[${k}]`;
    if (!isObject(a)) throw new NoisePlanError(file, at, 'must be an object {"role", "type", "variable", "file", "line", "method"}');
    if (!isWhole(a.role)) throw new NoisePlanError(file, `${at}.role`, 'must be a whole number ≥ 1');
    if (a.type !== 'R' && a.type !== 'W' && a.type !== 'RW') throw new NoisePlanError(file, `${at}.type`, 'must be "R", "W" or "RW"');
    if (a.anywhere !== undefined && typeof a.anywhere !== 'boolean') throw new NoisePlanError(file, `${at}.anywhere`, 'must be true or false');
    if (a.call !== undefined && (typeof a.call !== 'string' || a.call === '')) throw new NoisePlanError(file, `${at}.call`, 'must be a non-empty string (a library call as trace locations name it, e.g. "java.util.Iterator.next")');
    for (const key of ['variable', 'file'] as const) {
      if (typeof a[key] !== 'string' || a[key] === '') throw new NoisePlanError(file, `${at}.${key}`, 'must be a non-empty string');
    }
    if (!(Number.isInteger(a.line) && (a.line as number) >= 0)) throw new NoisePlanError(file, `${at}.line`, 'must be a whole number ≥ 0 (0: any line of the method)');
    if (typeof a.method !== 'string' || a.method === '') throw new NoisePlanError(file, `${at}.method`, 'must be a non-empty string');
    if (a.threads !== undefined) {
      if (!Array.isArray(a.threads) || a.threads.length === 0) throw new NoisePlanError(file, `${at}.threads`, 'must be a non-empty array of thread names');
      const names = new Set<string>();
      a.threads.forEach((n: unknown, j: number) => {
        if (typeof n !== 'string' || n === '') throw new NoisePlanError(file, `${at}.threads[${j}]`, 'must be a non-empty string (a thread name)');
        if (names.has(n)) throw new NoisePlanError(file, `${at}.threads[${j}]`, `thread ${n} is named twice`);
        names.add(n);
      });
    }
    if (a.atStart !== undefined && typeof a.atStart !== 'boolean') throw new NoisePlanError(file, `${at}.atStart`, 'must be true or false');
    if (a.atStart === true && a.call === undefined) throw new NoisePlanError(file, `${at}.atStart`, 'needs call (only a library call\'s access has a start)');
    if (a.atNext !== undefined && typeof a.atNext !== 'boolean') throw new NoisePlanError(file, `${at}.atNext`, 'must be true or false');
    if (a.atNext === true && a.call === undefined) throw new NoisePlanError(file, `${at}.atNext`, 'needs call (only a library call\'s access is counted at its thread\'s next access)');
    if (a.atNext === true && a.atStart === true) throw new NoisePlanError(file, `${at}.atNext`, 'cannot go with atStart');
    if (a.callers !== undefined) {
      if (!Array.isArray(a.callers) || a.callers.length === 0 || a.callers.length > 8) {
        throw new NoisePlanError(file, `${at}.callers`, 'must be a non-empty array of at most 8 call sites {"file", "line", "method"}, nearest first');
      }
      a.callers.forEach((c: unknown, j: number) => {
        const where = `${at}.callers[${j}]`;
        if (!isObject(c)) throw new NoisePlanError(file, where, 'must be an object {"file", "line", "method"}');
        if (typeof c.file !== 'string' || c.file === '') throw new NoisePlanError(file, `${where}.file`, 'must be a non-empty string');
        if (!(Number.isInteger(c.line) && (c.line as number) >= 0)) throw new NoisePlanError(file, `${where}.line`, 'must be a whole number ≥ 0 (0: any line of the method)');
        if (typeof c.method !== 'string' || c.method === '') throw new NoisePlanError(file, `${where}.method`, 'must be a non-empty string');
      });
    }
    if (a.points !== undefined) {
      if (!Array.isArray(a.points)) throw new NoisePlanError(file, `${at}.points`, 'must be an array of point ids');
      a.points.forEach((id: unknown, j: number) => {
        if (typeof id !== 'string' || !isPointId(id)) throw new NoisePlanError(file, `${at}.points[${j}]`, 'must be a point id <class>.<method><descriptor>@<offset>, e.g. bank/Bank.transfer(II)V@12');
      });
    }
    return { ...a } as unknown as ForceAccess;
  });
  if (!Array.isArray(v.waits) || v.waits.length === 0 || v.waits.length > MAX_FORCE_WAITS) {
    throw new NoisePlanError(file, 'force.waits', `must be a non-empty array of at most ${MAX_FORCE_WAITS} waits`);
  }
  const n = accesses.length;
  const index = (x: unknown, field: string): number => {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= n) throw new NoisePlanError(file, field, `must be an index into force.accesses (0..${n - 1})`);
    return x;
  };
  const waits: ForceWait[] = v.waits.map((w: unknown, k: number) => {
    const at = `force.waits[${k}]`;
    if (!isObject(w)) throw new NoisePlanError(file, at, 'must be an object {"at", "for", "sameObject"}');
    const a = index(w.at, `${at}.at`);
    const b = index(w.for, `${at}.for`);
    const role = accesses[a].role;
    if (accesses[b].role === role) throw new NoisePlanError(file, `${at}.for`, `must be an access of another role than at (force.accesses[${a}] has role ${role})`);
    if (w.since !== undefined) {
      const c = index(w.since, `${at}.since`);
      if (c === a) throw new NoisePlanError(file, `${at}.since`, 'must differ from at');
      if (accesses[c].role !== role) throw new NoisePlanError(file, `${at}.since`, `must be an access of the same role as at (force.accesses[${a}] has role ${role})`);
    }
    if (typeof w.sameObject !== 'boolean') throw new NoisePlanError(file, `${at}.sameObject`, 'must be true or false');
    if (w.optional !== undefined && typeof w.optional !== 'boolean') throw new NoisePlanError(file, `${at}.optional`, 'must be true or false');
    if (w.sameKey !== undefined) {
      if (typeof w.sameKey !== 'boolean') throw new NoisePlanError(file, `${at}.sameKey`, 'must be true or false');
      if (w.sameKey && !w.sameObject) throw new NoisePlanError(file, `${at}.sameKey`, 'needs sameObject');
    }
    if (w.fresh !== undefined) {
      if (typeof w.fresh !== 'boolean') throw new NoisePlanError(file, `${at}.fresh`, 'must be true or false');
      if (w.since !== undefined) throw new NoisePlanError(file, `${at}.fresh`, 'cannot go with since');
    }
    if (w.ready !== undefined) {
      if (typeof w.ready !== 'boolean') throw new NoisePlanError(file, `${at}.ready`, 'must be true or false');
      if (w.since !== undefined || w.fresh === true) throw new NoisePlanError(file, `${at}.ready`, 'cannot go with since or fresh');
      if (w.ready && w.optional !== true) throw new NoisePlanError(file, `${at}.ready`, 'must be optional');
    }
    if (w.beforeLock !== undefined) {
      // ready with beforeLock: held before the lock until a partner is held (the same-delay control, docs/confirm.md)
      if (w.since !== undefined || w.fresh === true) throw new NoisePlanError(file, `${at}.beforeLock`, 'cannot go with since or fresh');
      const l = w.beforeLock;
      if (!isObject(l)) throw new NoisePlanError(file, `${at}.beforeLock`, 'must be an object {"file", "line", "method"} (a lock acquisition)');
      if (typeof l.file !== 'string' || l.file === '') throw new NoisePlanError(file, `${at}.beforeLock.file`, 'must be a non-empty string');
      if (!isWhole(l.line)) throw new NoisePlanError(file, `${at}.beforeLock.line`, 'must be a whole number ≥ 1');
      if (typeof l.method !== 'string' || l.method === '') throw new NoisePlanError(file, `${at}.beforeLock.method`, 'must be a non-empty string');
      if (l.within !== undefined && (typeof l.within !== 'string' || l.within.lastIndexOf('.') <= 0)) {
        throw new NoisePlanError(file, `${at}.beforeLock.within`, 'must be a method name "pkg.Class.method" (a caller on the thread\'s stack)');
      }
    }
    if (w.afterOwn !== undefined) {
      const j = index(w.afterOwn, `${at}.afterOwn`);
      if (j === b || accesses[j].role !== accesses[b].role) throw new NoisePlanError(file, `${at}.afterOwn`, `must be another access of the role of for (force.accesses[${b}] has role ${accesses[b].role})`);
      if (w.beforeLock !== undefined || w.ready === true) throw new NoisePlanError(file, `${at}.afterOwn`, 'cannot go with beforeLock or ready');
    }
    if (w.needs !== undefined) {
      if (w.since === undefined) throw new NoisePlanError(file, `${at}.needs`, 'needs since');
      if (!Array.isArray(w.needs) || w.needs.length > MAX_FORCE_ACCESSES) throw new NoisePlanError(file, `${at}.needs`, 'must be an array of indices into force.accesses');
      w.needs.forEach((x: unknown, j: number) => {
        const k = index(x, `${at}.needs[${j}]`);
        if (accesses[k].role === role) throw new NoisePlanError(file, `${at}.needs[${j}]`, 'must be an access of another role than at');
      });
    }
    return { ...w } as unknown as ForceWait;
  });
  if (waits.every((w) => w.optional === true)) throw new NoisePlanError(file, 'force.waits', 'needs at least one wait that is not optional');
  return { ...(v as unknown as ForceSpec), accesses, waits };
}

/**
 * Checks a parsed plan and returns it typed (unknown fields are kept: later versions may add
 * informative ones). `file` is only used in error messages.
 */
export function validateNoisePlan(value: unknown, file: string): NoisePlan {
  if (!isObject(value)) throw new NoisePlanError(file, '', 'a noise plan must be a JSON object');
  if (value.format !== 'braid-noise-plan') throw new NoisePlanError(file, 'format', 'must be "braid-noise-plan"');
  if (value.version !== NOISE_PLAN_VERSION) throw new NoisePlanError(file, 'version', `must be ${NOISE_PLAN_VERSION} (this Braid reads plan version ${NOISE_PLAN_VERSION})`);
  if (typeof value.name !== 'string' || value.name.trim() === '') throw new NoisePlanError(file, 'name', 'must be a non-empty string');
  if (value.command !== undefined && !(Array.isArray(value.command) && value.command.every((c) => typeof c === 'string'))) {
    throw new NoisePlanError(file, 'command', 'must be an array of strings');
  }
  const noise = checkNoise(value.noise, file, 'noise');
  if (!Array.isArray(value.points)) throw new NoisePlanError(file, 'points', 'must be an array of planned points');
  const seen = new Set<string>();
  const points: PlannedPoint[] = value.points.map((p: unknown, k: number) => {
    const at = `points[${k}]`;
    if (!isObject(p)) throw new NoisePlanError(file, at, 'must be an object {"id": …, "probability": …}');
    if (typeof p.id !== 'string' || !isPointId(p.id)) throw new NoisePlanError(file, `${at}.id`, 'must be a point id <class>.<method><descriptor>@<offset>, e.g. bank/Bank.transfer(II)V@12, or js:<file>:<line>#<k> for JavaScript (ids are listed by agent option points=FILE)');
    if (seen.has(p.id)) throw new NoisePlanError(file, `${at}.id`, `point ${p.id} is planned twice`);
    seen.add(p.id);
    if (typeof p.probability !== 'number' || !(p.probability >= 0 && p.probability <= 1)) throw new NoisePlanError(file, `${at}.probability`, 'must be a number between 0 and 1');
    if (p.line !== undefined && !(Number.isInteger(p.line) && (p.line as number) >= 0)) throw new NoisePlanError(file, `${at}.line`, 'must be a whole number ≥ 0');
    for (const key of ['file', 'method'] as const) {
      if (p[key] !== undefined && typeof p[key] !== 'string') throw new NoisePlanError(file, `${at}.${key}`, 'must be a string');
    }
    if (p.threads !== undefined) {
      if (!Array.isArray(p.threads) || p.threads.length === 0) throw new NoisePlanError(file, `${at}.threads`, 'must be a non-empty array of thread names');
      const names = new Set<string>();
      p.threads.forEach((n: unknown, j: number) => {
        if (typeof n !== 'string' || n === '') throw new NoisePlanError(file, `${at}.threads[${j}]`, 'must be a non-empty string (a thread name)');
        if (names.has(n)) throw new NoisePlanError(file, `${at}.threads[${j}]`, `thread ${n} is named twice`);
        names.add(n);
      });
    }
    const out = { ...p } as unknown as PlannedPoint;
    if (p.noise !== undefined) out.noise = checkNoise(p.noise, file, `${at}.noise`);
    return out;
  });
  if (value.triggers !== undefined && !Array.isArray(value.triggers)) throw new NoisePlanError(file, 'triggers', 'must be an array');
  if (value.origin !== undefined && !(isObject(value.origin) && typeof value.origin.tool === 'string')) throw new NoisePlanError(file, 'origin', 'must be an object with a "tool" string');
  const force = value.force !== undefined ? checkForce(value.force, file) : undefined;
  return { ...(value as unknown as NoisePlan), noise, points, ...(force ? { force } : {}) };
}

/** Parses and checks the text of a plan file; JSON syntax errors name the line and column. */
export function parseNoisePlan(text: string, file: string): NoisePlan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new NoisePlanError(file, '', `not valid JSON (${jsonErrorPlace(text, e as Error)})`);
  }
  return validateNoisePlan(value, file);
}

/**
 * Where and what a JSON syntax error is, without any of the file's text: V8's messages quote the
 * text around the error (`Unexpected token 'r', "root:x:0:0"... is not valid JSON`), and a file
 * named as a plan may be anything (a link to /etc/passwd), so only the line, the column and V8's
 * own words before the first quote are kept.
 */
export function jsonErrorPlace(text: string, e: Error): string {
  if (text.trim() === '') return 'the file is empty';
  const what =
    e.message
      .replace(/ in JSON at position \d+.*$/s, '')
      .split(/["'`]/)[0]
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/[\s,:]+$/, '')
      .slice(0, 80) || 'syntax error';
  const m = /position (\d+)/.exec(e.message);
  if (!m) {
    // the text ended inside a value (a cut-off file): the place is its end
    const lines = text.replace(/\s+$/, '').split('\n');
    return /end of JSON input/i.test(e.message) ? `line ${lines.length}, column ${lines[lines.length - 1].length + 1}: the file ends before the JSON is complete` : what;
  }
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: ${what}`;
}

/** Reads and checks a plan file (`file` as given, resolved against `cwd` for reading). */
export async function readNoisePlan(file: string, cwd = process.cwd()): Promise<NoisePlan> {
  let text: string;
  try {
    text = await fs.readFile(path.resolve(cwd, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new NoisePlanError(file, '', code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a plan file' : (e as Error).message);
  }
  return parseNoisePlan(text, file);
}

/** The text of a plan file: checked, pretty-printed, one point per line. */
export function formatNoisePlan(plan: NoisePlan, file = 'noise plan'): string {
  validateNoisePlan(plan, file);
  const { points, triggers, ...rest } = plan;
  const head = JSON.stringify(rest, null, 2).replace(/\n}$/, '');
  const list = (items: unknown[]) => (items.length ? `[\n${items.map((p) => `    ${JSON.stringify(p)}`).join(',\n')}\n  ]` : '[]');
  return `${head},\n  "points": ${list(points)}${triggers ? `,\n  "triggers": ${list(triggers)}` : ''}\n}\n`;
}

/** Writes a plan file (checked first; folders created; written to a temporary name and renamed). */
export async function writeNoisePlan(file: string, plan: NoisePlan): Promise<void> {
  const text = formatNoisePlan(plan, file);
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFileAtomic(file, text);
}
