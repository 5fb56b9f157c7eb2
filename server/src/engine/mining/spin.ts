/**
 * SPIN (Promela model checker, Debian package `spin`) counterexamples as traces (seed 002 §3.1).
 *
 * Bad traces: the error trails of `pan -c0 -e` (every violation SPIN finds), replayed with
 * `spin -t<N> -p model.pml`, plus random simulations (`spin -p -n<seed> model.pml`) that end in a
 * violation. Good traces: random simulations that do not violate the property. Each executed
 * Promela statement is one event: thread = proctype name, target = the statement text SPIN prints
 * (`gateCtrl!1`, `carcrossing = 1`), source = model file and line — seed 002 writes such an
 * event as `Gate.gateCtrl!1`.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emptyTraceSet, TraceSet } from './traceSet';

export interface SpinStep {
  step: number;
  pid: number;
  proctype: string;
  file: string;
  line: number;
  statement: string;
}

export interface SpinRun {
  steps: SpinStep[];
  /** an assertion violation (or other `Error:`) was reported */
  violated: boolean;
  /** index of the first step of an acceptance cycle (`<<<<<START OF CYCLE>>>>>`), if any */
  cycleStart?: number;
}

const STEP = /^\s*(\d+):\s+proc\s+(\d+)\s+\(([^:)\s]+)(?::\d+)?\)\s+(\S+?):(\d+)\s+\(state\s+\d+\)\s+\[(.*)\]\s*$/;

/** Parses the step lines of `spin -p` (simulation) or `spin -t -p` (trail replay) output. */
export function parseSpinOutput(text: string): SpinRun {
  const run: SpinRun = { steps: [], violated: false };
  for (const raw of text.split(/\r?\n/)) {
    if (/^spin: trail ends after/.test(raw)) break;
    if (/Error:|assertion violated/.test(raw)) run.violated = true;
    if (raw.includes('<<<<<START OF CYCLE>>>>>')) run.cycleStart = run.steps.length;
    const m = STEP.exec(raw);
    if (!m) continue;
    run.steps.push({ step: Number(m[1]), pid: Number(m[2]), proctype: m[3], file: m[4], line: Number(m[5]), statement: m[6] });
  }
  return run;
}

/**
 * Adds a parsed SPIN run to a TraceSet as one execution. A lasso (acceptance cycle) is cut
 * after one pass of its cycle, as the seed does for good traces.
 */
export function addSpinRun(set: TraceSet, run: SpinRun, outcome: 'pass' | 'fail', id: string): void {
  const events: number[] = [];
  for (const s of run.steps) events.push(set.table.intern(s.proctype, 'ACTION', s.statement, path.basename(s.file), s.line, s.proctype));
  set.executions.push({ id, outcome, events: Int32Array.from(events), locs: new Int32Array(events.length).fill(-1) });
}

interface Proc {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 60000): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${cmd}: ${e.message} (SPIN needs the Debian packages spin and gcc)`));
    });
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface SpinDatasetOptions {
  /** random simulations (default 300) */
  simulations?: number;
  /** first simulation seed (default 1) */
  seed?: number;
  /** simulation step bound (-u, default 10000) */
  maxSteps?: number;
  /** collect the error trails of `pan -c0 -e` as bad traces (default true; needs gcc) */
  verifierTrails?: boolean;
  /** at most this many verifier trails (default 1000) */
  maxTrails?: number;
}

/** Runs SPIN on `model` and returns bad (fail) and good (pass) traces. */
export async function spinDataset(model: string, options: SpinDatasetOptions = {}): Promise<TraceSet> {
  const set = emptyTraceSet();
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-spin-'));
  const name = path.basename(model);
  try {
    copyFileSync(model, path.join(dir, name));
    if (options.verifierTrails ?? true) {
      const a = await run('spin', ['-a', name], dir);
      if (a.code !== 0) throw new Error(`spin -a ${model} failed:\n${a.stdout}${a.stderr}`);
      const cc = await run('gcc', ['-O1', '-DSAFETY', '-o', 'pan', 'pan.c'], dir);
      if (cc.code !== 0) throw new Error(`gcc pan.c failed:\n${cc.stderr}`);
      await run('./pan', ['-c0', '-e'], dir);
      const trails = readdirSync(dir)
        .map((f) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\d+)\\.trail$`).exec(f))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => Number(m[1]))
        .sort((x, y) => x - y)
        .slice(0, options.maxTrails ?? 1000);
      for (const n of trails) {
        const t = await run('spin', [`-t${n}`, '-p', name], dir);
        addSpinRun(set, parseSpinOutput(t.stdout + t.stderr), 'fail', `trail-${n}`);
      }
    }
    const sims = options.simulations ?? 300;
    const seed0 = options.seed ?? 1;
    for (let k = 0; k < sims; k++) {
      const s = await run('spin', ['-p', `-n${seed0 + k}`, `-u${options.maxSteps ?? 10000}`, name], dir);
      const r = parseSpinOutput(s.stdout + s.stderr);
      addSpinRun(set, r, r.violated ? 'fail' : 'pass', `sim-${seed0 + k}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return set;
}
