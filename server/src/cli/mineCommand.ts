/**
 * `braid mine` (the closed sequential pattern miner on an SPMF file) and `braid explain`
 * (explanations by pattern mining: seed 000 on traces, seed 002 on traces or a SPIN model).
 * Exit codes: 0 ok, 1 error (e.g. a malformed input, named by file:line), 2 usage error.
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { SpmfFormatError } from '../engine/mining/sequenceDb';
import { readSpmfDb } from '../engine/mining/spmfReader';
import type { MinedPattern } from '../engine/mining/closedMiner';
import { formatDiagnostic } from '../engine/trace/traceFormat';
import { abstractionTextReport, AbstractionOptions } from '../engine/mining/abstractionExplainer';
import { contrastTextReport, ContrastOptions } from '../engine/mining/contrastExplainer';
import { explainByContrastFiles, explainByMining, explainSpinModel } from '../engine/mining/index';
import { terminalText } from '../engine/outputEscaping';

export const MINE_USAGE = `  braid mine --input FILE --minsup F [--closed] [--max-length N] [--output FILE] [--spmf]
      closed (BIDE+) or all (PrefixSpan) sequential patterns of an SPMF sequence file
      (-1 ends an itemset, -2 a sequence; one item per itemset). F ≤ 1: fraction of the
      sequences; F > 1: absolute count. Prints "a b c #SUP: 4" per pattern (--spmf: "a -1 b -1 c -1 #SUP: 4").`;

export const EXPLAIN_USAGE = `  braid explain <trace files or folders...> [--method abstraction|contrast] [--minsup F|auto]
        [--max-length N] [--min-rel-supp R] [--good-minsup F] [--break-at EVENT] [--top N]
        [--format text|json] [--output FILE]
  braid explain --spin MODEL.pml [--simulations N] [--seed S] [--minsup F] ...
      explanations by closed pattern mining: abstraction (seed 000, default for traces) ranks
      groups by relative support; contrast (seed 002, default for --spin) lists anomalies.`;

class Usage extends Error {}

interface Parsed {
  flags: Map<string, string | true>;
  inputs: string[];
}

const BOOLEAN = new Set(['--closed', '--spmf', '--help', '-h']);

function parse(argv: string[], known: string[]): Parsed {
  const flags = new Map<string, string | true>();
  const inputs: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.indexOf('=');
      const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
      if (!known.includes(flag)) throw new Usage(`unknown option ${arg}`);
      if (BOOLEAN.has(flag)) flags.set(flag, true);
      else {
        const v = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : argv[++k];
        if (v === undefined) throw new Usage(`${flag} needs a value`);
        flags.set(flag, v);
      }
    } else inputs.push(arg);
  }
  return { flags, inputs };
}

function num(p: Parsed, flag: string, check: (x: number) => boolean, what: string): number | undefined {
  const v = p.flags.get(flag);
  if (v === undefined) return undefined;
  const x = Number(v);
  if (v === true || !Number.isFinite(x) || !check(x)) throw new Usage(`${flag} must be ${what}, got "${v}"`);
  return x;
}

async function guard(name: string, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(`braid ${name}: ${terminalText(e.message)}\n\nUsage:\n${usage}\n`);
      return 2;
    }
    process.stderr.write(`braid ${name}: ${terminalText(String((e as Error).message))}\n`);
    return 1;
  }
}

function emit(text: string, output: string | true | undefined): void {
  if (typeof output === 'string') writeFileSync(output, text.endsWith('\n') ? text : text + '\n');
  else process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

/**
 * Writes one line per pattern (`a b c #SUP: 4`, or SPMF's `a -1 b -1 c -1 #SUP: 4`) to `output`
 * or stdout, in chunks of about 1 MiB: memory stays bounded whatever the number of patterns.
 */
function writePatterns(patterns: MinedPattern[], items: readonly number[], spmf: boolean, output: string | true | undefined): void {
  const fd = typeof output === 'string' ? openSync(output, 'w') : 1;
  const sep = spmf ? ' -1 ' : ' ';
  const last = spmf ? ' -1 #SUP: ' : ' #SUP: ';
  let chunk = '';
  try {
    for (const pt of patterns) {
      const its = pt.items;
      let line = String(items[its[0]]);
      for (let i = 1; i < its.length; i++) line += sep + items[its[i]];
      chunk += line + last + pt.support + '\n';
      if (chunk.length >= 1 << 20) {
        writeAll(fd, chunk);
        chunk = '';
      }
    }
    if (chunk || !patterns.length) writeAll(fd, chunk || '\n');
  } finally {
    if (fd !== 1) closeSync(fd);
  }
}

/** writeSync until every byte is out (a pipe may take a partial write, or be momentarily full). */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

export async function runMineCommand(argv: string[]): Promise<number> {
  return guard('mine', MINE_USAGE, async () => {
    const p = parse(argv, ['--input', '-i', '--minsup', '--closed', '--max-length', '--output', '-o', '--spmf', '--help', '-h']);
    if (p.flags.has('--help') || p.flags.has('-h')) {
      process.stdout.write(MINE_USAGE + '\n');
      return 0;
    }
    const input = (p.flags.get('--input') ?? p.flags.get('-i') ?? p.inputs[0]) as string | undefined;
    if (!input || input === (true as unknown)) throw new Usage('--input FILE is required');
    const minsup = num(p, '--minsup', (x) => x > 0, 'a fraction in (0, 1] or a count > 1');
    if (minsup === undefined) throw new Usage('--minsup is required');
    const maxLength = num(p, '--max-length', (x) => Number.isInteger(x) && x >= 1, 'an integer ≥ 1');
    const t0 = process.hrtime.bigint();
    let bytes: Buffer;
    try {
      bytes = readFileSync(input);
    } catch (e) {
      throw new Error(`cannot read ${input}: ${(e as Error).message}`);
    }
    let db;
    try {
      db = readSpmfDb(bytes, input);
    } catch (e) {
      if (e instanceof SpmfFormatError) throw new Error(e.message);
      throw e;
    }
    const t1 = process.hrtime.bigint();
    const res = db.mine({ minSupport: minsup, closed: p.flags.has('--closed'), maxLength });
    const t2 = process.hrtime.bigint();
    writePatterns(res.patterns, db.items, p.flags.has('--spmf'), p.flags.get('--output') ?? p.flags.get('-o'));
    const ms = (a: bigint, b: bigint) => (Number(b - a) / 1e6).toFixed(1);
    process.stderr.write(
      `braid mine: ${db.size} sequences, min support ${res.minSupportCount}, ${res.patterns.length} ${p.flags.has('--closed') ? 'closed' : 'frequent'} patterns in ${ms(t1, t2)} ms (read ${ms(t0, t1)} ms, write ${ms(t2, process.hrtime.bigint())} ms)${res.truncated ? ' (truncated)' : ''}\n`,
    );
    return 0;
  });
}

export async function runExplainCommand(argv: string[]): Promise<number> {
  return guard('explain', EXPLAIN_USAGE, async () => {
    const p = parse(argv, [
      '--method',
      '--minsup',
      '--good-minsup',
      '--max-length',
      '--min-rel-supp',
      '--break-at',
      '--top',
      '--format',
      '--output',
      '-o',
      '--spin',
      '--simulations',
      '--seed',
      '--help',
      '-h',
    ]);
    if (p.flags.has('--help') || p.flags.has('-h')) {
      process.stdout.write(EXPLAIN_USAGE + '\n');
      return 0;
    }
    const spin = p.flags.get('--spin') as string | undefined;
    const method = (p.flags.get('--method') as string | undefined) ?? (spin ? 'contrast' : 'abstraction');
    if (method !== 'abstraction' && method !== 'contrast') throw new Usage(`--method must be abstraction or contrast, got "${method}"`);
    if (spin && method !== 'contrast') throw new Usage('--spin works with --method contrast (SPIN traces have no memory accesses)');
    if (!spin && !p.inputs.length) throw new Usage('give trace files or folders, or --spin MODEL');
    const format = (p.flags.get('--format') as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json') throw new Usage(`--format must be text or json, got "${format}"`);
    const top = num(p, '--top', (x) => Number.isInteger(x) && x >= 0, 'an integer ≥ 0') ?? 10;
    const maxLength = num(p, '--max-length', (x) => Number.isInteger(x) && x >= 1, 'an integer ≥ 1');
    const out = p.flags.get('--output') ?? p.flags.get('-o');
    const rawMinsup = p.flags.get('--minsup');
    if (method === 'abstraction') {
      const o: AbstractionOptions = { maxLength };
      if (rawMinsup !== undefined && rawMinsup !== 'auto') o.minSupport = num(p, '--minsup', (x) => x > 0 && x <= 1, 'a fraction in (0, 1] or auto');
      o.minRelSupport = num(p, '--min-rel-supp', (x) => x >= 0 && x < 1, 'a number in [0, 1)');
      const res = await explainByMining(p.inputs, o);
      for (const d of res.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
      emit(format === 'json' ? JSON.stringify({ stats: res.stats, groups: res.groups.slice(0, top || undefined) }, null, 2) : abstractionTextReport(res, top), out);
      return res.stats.failing === 0 ? 1 : 0;
    }
    const c: ContrastOptions = { maxLength };
    c.badSupport = num(p, '--minsup', (x) => x > 0 && x <= 1, 'a fraction in (0, 1]');
    c.goodSupport = num(p, '--good-minsup', (x) => x > 0 && x <= 1, 'a fraction in (0, 1]');
    const breakAt = p.flags.get('--break-at');
    if (typeof breakAt === 'string') c.breakAt = breakAt;
    let res;
    if (spin) {
      const simulations = num(p, '--simulations', (x) => Number.isInteger(x) && x >= 0, 'an integer ≥ 0');
      const seed = num(p, '--seed', (x) => Number.isInteger(x) && x >= 0, 'an integer ≥ 0');
      res = await explainSpinModel(spin, { dataset: { simulations, seed }, contrast: c });
    } else {
      const r = await explainByContrastFiles(p.inputs, c);
      for (const d of r.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
      res = r;
    }
    emit(format === 'json' ? JSON.stringify({ stats: res.stats, groups: res.groups.slice(0, top || undefined) }, null, 2) : contrastTextReport(res, top), out);
    return res.stats.bad === 0 ? 1 : 0;
  });
}

