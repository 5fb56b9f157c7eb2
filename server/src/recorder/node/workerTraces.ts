/**
 * Worker threads of a recorded Node.js process (docs/recorder-node.md, "Worker threads"): each
 * worker's runtime writes `<process trace>@w<threadId>` with ids of its own, and takes its event
 * indexes from a counter every thread of the process shares. When the run ends, mergeWorkerTraces
 * folds those files into the process' trace: the worker's thread, location, variable, stack,
 * object and token ids are renumbered after the ones already in it (objects of the shared
 * namespace — views of a SharedArrayBuffer, file paths — keep theirs: they are the same object in
 * every thread), and the events of all threads are merged in index order, each definition line
 * ahead of the event of its own file that follows it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SHARED_OBJECT_BASE, SHARED_TOKEN_BASE } from './runtime';

const WORKER_SUFFIX = /^(.*)@w(\d+)$/;
/** keyed collection objects are `id * 2^20 + key`: offsets keep that shape */
const OBJECT_STEP = 2 ** 20;

/** The worker files of the in-progress traces of a run, by the trace they belong to. */
async function workerFiles(partPath: string): Promise<Map<string, string[]>> {
  const dir = path.dirname(partPath);
  const base = path.basename(partPath);
  const out = new Map<string, string[]>();
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return out;
  }
  for (const n of names.sort()) {
    const m = WORKER_SUFFIX.exec(n);
    if (!m || !(m[1] === base || (m[1].startsWith(`${base}~`) && /^\d+$/.test(m[1].slice(base.length + 1))))) continue;
    const target = path.join(dir, m[1]);
    const list = out.get(target) ?? [];
    list.push(path.join(dir, n));
    out.set(target, list);
  }
  for (const list of out.values()) list.sort((a, b) => Number(WORKER_SUFFIX.exec(a)![2]) - Number(WORKER_SUFFIX.exec(b)![2]));
  return out;
}

/** Folds every worker file of the run into its process trace (the worker files are removed). */
export async function mergeWorkerTraces(partPath: string): Promise<void> {
  for (const [target, workers] of await workerFiles(partPath)) {
    const own = await fs.readFile(target, 'utf8').catch(() => undefined);
    const sources = [own ?? '', ...(await Promise.all(workers.map((w) => fs.readFile(w, 'utf8'))))];
    await fs.writeFile(`${target}.merging`, mergeTraceTexts(sources, own !== undefined));
    await fs.rename(`${target}.merging`, target);
    for (const w of workers) await fs.rm(w, { force: true });
  }
}

/** Removes the worker files of a run's in-progress traces (a run started again or stopped). */
export async function removeWorkerTraces(partPath: string): Promise<void> {
  for (const list of (await workerFiles(partPath)).values()) for (const w of list) await fs.rm(w, { force: true });
}

interface Ids {
  thread: number;
  loc: number;
  variable: number;
  stack: number;
  obj: number;
  tok: number;
}

/** One file's lines, each event with its index, each other line with the index of the event after it. */
interface Chunk {
  key: number;
  lines: string[];
  /** the variable definitions among `lines`: line index → variable id */
  varDefs?: Map<number, number>;
  /** the variable the chunk's event (its last line) accesses, or -1 */
  useVar: number;
}

/**
 * Merges the texts of one process' traces (the first the main thread's, `hasMain` false when it
 * wrote none): renumbers the later files' ids past the earlier ones' and orders the events by index.
 */
export function mergeTraceTexts(texts: readonly string[], hasMain = true): string {
  const next: Ids = { thread: 0, loc: 0, variable: 0, stack: 0, obj: 0, tok: 0 };
  const files: Chunk[][] = [];
  let header: string | undefined;
  // a variable is one id per name in a trace (the access windows key on it): a later file's
  // definition of a known name takes the known id
  const varByName = new Map<string, number>();
  // a variable's definition line, by id: a thread whose file does not define a name another thread's
  // file defines later (a worker's first Atomics.store before the main thread's first access of the
  // view) gets the definition ahead of its first access
  const varDefText = new Map<number, string>();
  texts.forEach((text, fileIndex) => {
    const lines = text.split('\n').filter((l) => l.length > 0);
    const off: Ids = { ...next, obj: Math.ceil(next.obj / OBJECT_STEP) * OBJECT_STEP };
    const renumber = fileIndex > 0 || !hasMain;
    const chunks: Chunk[] = [];
    let pending: string[] = [];
    let pendingDefs: Map<number, number> | undefined;
    const markDef = (id: number, line: string) => {
      varDefText.set(id, line);
      (pendingDefs ??= new Map()).set(pending.length, id);
      pending.push(line);
    };
    const vars = new Map<number, number>();
    const see = (kind: keyof Ids, id: unknown) => {
      if (typeof id === 'number' && Number.isFinite(id) && id + 1 > next[kind] && !(kind === 'obj' && id >= SHARED_OBJECT_BASE)) next[kind] = id + 1;
    };
    for (const raw of lines) {
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch {
        continue; // a partial line of a thread that was stopped
      }
      if (Array.isArray(v)) {
        const e = v as unknown[];
        if (renumber) renumberEvent(e, off, vars);
        see('thread', e[1]);
        if (e[2] === 'R' || e[2] === 'W') {
          see('variable', e[3]);
          see('loc', e[4]);
          see('stack', e[5]);
          see('obj', e[6]);
        } else if ((e[2] === 'SND' || e[2] === 'RCV') && typeof e[3] === 'number' && e[3] < SHARED_TOKEN_BASE) see('tok', e[3]);
        pending.push(renumber ? JSON.stringify(e) : raw);
        chunks.push({ key: typeof e[0] === 'number' ? e[0] : 0, lines: pending, varDefs: pendingDefs, useVar: (e[2] === 'R' || e[2] === 'W') && typeof e[3] === 'number' ? e[3] : -1 });
        pending = [];
        pendingDefs = undefined;
        continue;
      }
      const o = v as Record<string, unknown>;
      if (o && typeof o === 'object' && o.braid === 'trace') {
        if (header === undefined && (fileIndex === 0 || !hasMain)) header = raw;
        continue;
      }
      if (o && typeof o === 'object' && o.def === 'var' && typeof o.id === 'number' && typeof o.name === 'string') {
        const known = varByName.get(o.name);
        if (!renumber) {
          if (known === undefined) varByName.set(o.name, o.id);
          see('variable', o.id);
          markDef(o.id, raw);
          continue;
        } else if (known !== undefined) {
          vars.set(o.id, known);
          continue;
        } else {
          const id = next.variable++;
          vars.set(o.id, id);
          varByName.set(o.name, id);
          o.id = id;
          markDef(id, JSON.stringify(o));
          continue;
        }
      }
      if (o && typeof o === 'object' && typeof o.def === 'string') {
        if (renumber) renumberDef(o, off);
        const kind = o.def === 'thread' ? 'thread' : o.def === 'loc' ? 'loc' : o.def === 'var' ? 'variable' : o.def === 'stack' ? 'stack' : undefined;
        if (kind) see(kind, o.id);
        pending.push(renumber ? JSON.stringify(o) : raw);
        continue;
      }
      if (o && typeof o === 'object' && o.uncaught && renumber) {
        const u = o.uncaught as Record<string, unknown>;
        if (typeof u.thread === 'number') u.thread += off.thread;
        pending.push(JSON.stringify(o));
        continue;
      }
      pending.push(raw);
    }
    if (pending.length) chunks.push({ key: Number.POSITIVE_INFINITY, lines: pending, varDefs: pendingDefs, useVar: -1 });
    files.push(chunks);
  });
  // k-way merge by event index (each file is in index order); each variable defined once, before its first access
  const out: string[] = header ? [header] : [];
  const emittedVars = new Set<number>();
  const at = files.map(() => 0);
  for (;;) {
    let best = -1;
    for (let f = 0; f < files.length; f++) if (at[f] < files[f].length && (best < 0 || files[f][at[f]].key < files[best][at[best]].key)) best = f;
    if (best < 0) break;
    const c = files[best][at[best]++];
    const last = c.useVar >= 0 ? c.lines.length - 1 : c.lines.length;
    for (let k = 0; k < c.lines.length; k++) {
      const def = c.varDefs?.get(k);
      if (def !== undefined) {
        if (emittedVars.has(def)) continue;
        emittedVars.add(def);
      }
      if (k === last && !emittedVars.has(c.useVar)) {
        const text = varDefText.get(c.useVar);
        if (text !== undefined) out.push(text);
        emittedVars.add(c.useVar);
      }
      out.push(c.lines[k]);
    }
  }
  return out.length ? out.join('\n') + '\n' : '';
}

function renumberEvent(e: unknown[], off: Ids, vars: ReadonlyMap<number, number>): void {
  if (typeof e[1] === 'number') e[1] += off.thread;
  if (e[2] === 'R' || e[2] === 'W') {
    if (typeof e[3] === 'number') e[3] = vars.get(e[3]) ?? e[3] + off.variable;
    if (typeof e[4] === 'number') e[4] += off.loc;
    if (typeof e[5] === 'number' && e[5] >= 0) e[5] += off.stack;
    if (typeof e[6] === 'number' && e[6] < SHARED_OBJECT_BASE) e[6] += off.obj;
  } else if (e[2] === 'SND' || e[2] === 'RCV') {
    if (typeof e[3] === 'number' && e[3] < SHARED_TOKEN_BASE) e[3] += off.tok;
  }
}

function renumberDef(o: Record<string, unknown>, off: Ids): void {
  const add = (k: string, by: number) => {
    if (typeof o[k] === 'number') o[k] = (o[k] as number) + by;
  };
  switch (o.def) {
    case 'thread':
      add('id', off.thread);
      break;
    case 'loc':
      add('id', off.loc);
      break;
    case 'stack':
      add('id', off.stack);
      add('parent', off.stack);
      add('frame', off.loc);
      if (Array.isArray(o.frames)) o.frames = o.frames.map((l) => (typeof l === 'number' ? l + off.loc : l));
      break;
  }
}
