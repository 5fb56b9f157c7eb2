/**
 * Worker threads of a recorded Node.js process (docs/recorder-node.md, "Worker threads"): each
 * worker's runtime writes `<process trace>@w<threadId>` with ids of its own, and takes its event
 * indexes from a counter every thread of the process shares. When the run ends, mergeWorkerTraces
 * folds those files into the process' trace: the worker's thread, location, variable, stack,
 * object and token ids are renumbered after the ones already in it (objects of the shared
 * namespace — views of a SharedArrayBuffer, file paths — keep theirs: they are the same object in
 * every thread), and the events of all threads are merged in index order, each definition line
 * ahead of the event of its own file that follows it. The files are streamed (two passes), never
 * held whole; a worker's file is bounded by the runtime's cap (MAX_WORKER_TRACE_BYTES).
 */
import { createReadStream, promises as fs } from 'node:fs';
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

/**
 * Folds every worker file of the run into its process trace (the worker files are removed). The
 * files are streamed, never read whole (a busy worker's 402 MB trace made "Invalid string length"):
 * one pass finds each file's id offsets, a second merges them line by line into `<trace>.merging`,
 * renamed over the trace at the end. When a merge fails, `<trace>.merging` is removed and the error
 * is thrown (the runner removes the run's files: runOnce.ts).
 */
export async function mergeWorkerTraces(partPath: string): Promise<void> {
  for (const [target, workers] of await workerFiles(partPath)) {
    const hasMain = await fs
      .stat(target)
      .then((st) => st.isFile())
      .catch(() => false);
    const sources = [...(hasMain ? [target] : []), ...workers].map((f) => () => fileLines(f));
    const merging = `${target}.merging`;
    const out = await fs.open(merging, 'w');
    try {
      try {
        await mergeTraceLines(sources, hasMain, out);
      } finally {
        await out.close();
      }
      await fs.rename(merging, target);
    } catch (e) {
      await fs.rm(merging, { force: true }).catch(() => {});
      throw e;
    }
    for (const w of workers) await fs.rm(w, { force: true });
  }
}

/** Removes the worker files of a run's in-progress traces (a run started again or stopped), and a merge's leftover. */
export async function removeWorkerTraces(partPath: string): Promise<void> {
  for (const [target, list] of await workerFiles(partPath)) {
    // names of the recorder's own files in the run's folder: whatever is there goes (a folder too)
    for (const w of list) await fs.rm(w, { force: true, recursive: true });
    await fs.rm(`${target}.merging`, { force: true });
  }
  await fs.rm(`${partPath}.merging`, { force: true });
}

/** a longer line is not a line the recorder writes (a partial or corrupt one): skipped, never held whole */
const MAX_LINE_CHARS = 16 * 2 ** 20;

/** The lines of a file, read in blocks (a line longer than MAX_LINE_CHARS is skipped). */
async function* fileLines(file: string): AsyncGenerator<string> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 2 ** 20 });
  let rest = '';
  let skipping = false;
  for await (const block of stream as AsyncIterable<string>) {
    let from = 0;
    for (;;) {
      const nl = block.indexOf('\n', from);
      if (nl < 0) break;
      if (!skipping) yield rest + block.slice(from, nl);
      rest = '';
      skipping = false;
      from = nl + 1;
    }
    if (!skipping) {
      rest += block.slice(from);
      if (rest.length > MAX_LINE_CHARS) {
        rest = '';
        skipping = true;
      }
    }
  }
  if (!skipping && rest) yield rest;
}

async function* arrayLines(text: string): AsyncGenerator<string> {
  for (const l of text.split('\n')) yield l;
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

/** What the first pass learns of one file: its id offsets, its variables' new ids, the ones it defines first. */
interface FileIds {
  off: Ids;
  vars: Map<number, number>;
  /** variable ids (the file's own) whose definition is the first of their name */
  newDefs: Set<number>;
}

/** State of a merge over all files. */
interface MergeState {
  next: Ids;
  header?: string;
  /** a variable is one id per name in a trace (the access windows key on it): a later file's definition of a known name takes the known id */
  varByName: Map<string, number>;
  /**
   * a variable's definition line, by id: a thread whose file does not define a name another
   * thread's file defines later (a worker's first Atomics.store before the main thread's first
   * access of the view) gets the definition ahead of its first access
   */
  varDefText: Map<number, string>;
}

/**
 * One file's lines as chunks (`emit`), or only its ids learnt (`scan`, the first pass): the same
 * renumbering either way, so that the second pass writes what the first one counted.
 */
async function* fileChunks(lines: AsyncIterable<string>, fileIndex: number, hasMain: boolean, st: MergeState, ids: FileIds, emit: boolean): AsyncGenerator<Chunk> {
  const { next, varByName, varDefText } = st;
  const { off, vars, newDefs } = ids;
  const renumber = fileIndex > 0 || !hasMain;
  let pending: string[] = [];
  let pendingDefs: Map<number, number> | undefined;
  const emittedDefs = new Set<number>();
  const markDef = (id: number, line: string) => {
    if (!emit) {
      varDefText.set(id, line);
      return;
    }
    (pendingDefs ??= new Map()).set(pending.length, id);
    pending.push(line);
  };
  const push = (line: () => string) => {
    if (emit) pending.push(line());
  };
  const see = (kind: keyof Ids, id: unknown) => {
    if (!emit && typeof id === 'number' && Number.isFinite(id) && id + 1 > next[kind] && !(kind === 'obj' && id >= SHARED_OBJECT_BASE)) next[kind] = id + 1;
  };
  for await (const raw of lines) {
    if (raw.length === 0) continue;
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
      if (emit) {
        pending.push(renumber ? JSON.stringify(e) : raw);
        yield { key: typeof e[0] === 'number' ? e[0] : 0, lines: pending, varDefs: pendingDefs, useVar: (e[2] === 'R' || e[2] === 'W') && typeof e[3] === 'number' ? e[3] : -1 };
      }
      pending = [];
      pendingDefs = undefined;
      continue;
    }
    const o = v as Record<string, unknown>;
    if (o && typeof o === 'object' && o.braid === 'trace') {
      if (!emit && st.header === undefined && (fileIndex === 0 || !hasMain)) st.header = raw;
      continue;
    }
    if (o && typeof o === 'object' && o.def === 'var' && typeof o.id === 'number' && typeof o.name === 'string') {
      if (!renumber) {
        if (!emit && !varByName.has(o.name)) varByName.set(o.name, o.id);
        see('variable', o.id);
        markDef(o.id, raw);
      } else if (!emit) {
        const known = varByName.get(o.name);
        if (known !== undefined) {
          if (!vars.has(o.id)) vars.set(o.id, known);
        } else {
          const id = next.variable++;
          vars.set(o.id, id);
          newDefs.add(o.id);
          varByName.set(o.name, id);
          markDef(id, JSON.stringify({ ...o, id }));
        }
      } else if (newDefs.has(o.id) && !emittedDefs.has(o.id)) {
        emittedDefs.add(o.id);
        const id = vars.get(o.id)!;
        markDef(id, JSON.stringify({ ...o, id }));
      }
      continue;
    }
    if (o && typeof o === 'object' && typeof o.def === 'string') {
      if (renumber) renumberDef(o, off);
      const kind = o.def === 'thread' ? 'thread' : o.def === 'loc' ? 'loc' : o.def === 'var' ? 'variable' : o.def === 'stack' ? 'stack' : undefined;
      if (kind) see(kind, o.id);
      push(() => (renumber ? JSON.stringify(o) : raw));
      continue;
    }
    if (o && typeof o === 'object' && o.uncaught && renumber) {
      const u = o.uncaught as Record<string, unknown>;
      if (typeof u.thread === 'number') u.thread += off.thread;
      push(() => JSON.stringify(o));
      continue;
    }
    push(() => raw);
  }
  if (emit && pending.length) yield { key: Number.POSITIVE_INFINITY, lines: pending, varDefs: pendingDefs, useVar: -1 };
}

/** Where merged lines go: a file handle (written in blocks) or an array. */
interface LineSink {
  write(text: string): Promise<unknown>;
}

/**
 * Merges the line sources of one process' traces (the first the main thread's, `hasMain` false
 * when it wrote none; each source read twice): renumbers the later files' ids past the earlier
 * ones' and orders the events by index, writing to `out` in blocks.
 */
async function mergeTraceLines(sources: readonly (() => AsyncIterable<string>)[], hasMain: boolean, out: LineSink): Promise<void> {
  const st: MergeState = { next: { thread: 0, loc: 0, variable: 0, stack: 0, obj: 0, tok: 0 }, varByName: new Map(), varDefText: new Map() };
  const files: FileIds[] = [];
  // first pass: each file's offsets are past the ids of the files before it
  for (let k = 0; k < sources.length; k++) {
    const ids: FileIds = { off: { ...st.next, obj: Math.ceil(st.next.obj / OBJECT_STEP) * OBJECT_STEP }, vars: new Map(), newDefs: new Set() };
    files.push(ids);
    for await (const _ of fileChunks(sources[k](), k, hasMain, st, ids, false)) void _;
  }
  // second pass: k-way merge by event index (each file is in index order); each variable defined once, before its first access
  let block: string[] = [];
  let blockChars = 0;
  const put = async (line: string) => {
    block.push(line);
    blockChars += line.length + 1;
    if (blockChars >= 2 ** 20) {
      const text = block.join('\n') + '\n';
      block = [];
      blockChars = 0;
      await out.write(text);
    }
  };
  if (st.header) await put(st.header);
  const its = sources.map((src, k) => fileChunks(src(), k, hasMain, st, files[k], true));
  const heads: (Chunk | undefined)[] = [];
  for (const it of its) heads.push((await it.next()).value as Chunk | undefined);
  const emittedVars = new Set<number>();
  for (;;) {
    let best = -1;
    for (let f = 0; f < heads.length; f++) if (heads[f] && (best < 0 || heads[f]!.key < heads[best]!.key)) best = f;
    if (best < 0) break;
    const c = heads[best]!;
    const last = c.useVar >= 0 ? c.lines.length - 1 : c.lines.length;
    for (let k = 0; k < c.lines.length; k++) {
      const def = c.varDefs?.get(k);
      if (def !== undefined) {
        if (emittedVars.has(def)) continue;
        emittedVars.add(def);
      }
      if (k === last && !emittedVars.has(c.useVar)) {
        const text = st.varDefText.get(c.useVar);
        if (text !== undefined) await put(text);
        emittedVars.add(c.useVar);
      }
      await put(c.lines[k]);
    }
    heads[best] = (await its[best].next()).value as Chunk | undefined;
  }
  if (block.length) await out.write(block.join('\n') + '\n');
}

/**
 * Merges the texts of one process' traces (the first the main thread's, `hasMain` false when it
 * wrote none): renumbers the later files' ids past the earlier ones' and orders the events by index.
 */
export async function mergeTraceTexts(texts: readonly string[], hasMain = true): Promise<string> {
  const parts: string[] = [];
  await mergeTraceLines(
    texts.map((t) => () => arrayLines(t)),
    hasMain,
    { write: async (text) => parts.push(text) },
  );
  return parts.join('');
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
