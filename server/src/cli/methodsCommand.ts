/**
 * `braid methods`: the call-graph method ranking of seed 003 (server/src/engine/callgraph,
 * docs/callgraph.md). Exit codes: 0 ok, 1 no run could be read, 2 usage error.
 */
import { once } from 'node:events';
import { streamSink, writeJson } from '../engine/report/jsonStream';
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../engine/trace/traceFormat';
import { rankMethodsOfTraceFiles } from '../engine/callgraph/localizationProcess';
import { CLASS_BALANCES, ClassBalance, GRAPH_REPRESENTATIONS, GraphRepresentation } from '../engine/callgraph/methodRanking';
import type { InterThreadReading } from '../engine/callgraph/temporalEdges';
import { methodsJsonReport, methodsSarifReport, methodsTextReport } from '../engine/callgraph/methodsReport';
import { droppedLocationsWarning } from '../engine/report/sarifReport';
import { openOutputFile, outputPathProblem } from './outputPath';
import { terminalText } from '../engine/outputEscaping';

export const METHODS_USAGE = `  braid methods <trace files or folders...> [--format text|json|sarif] [--top N]
        [--graph call|next|inter|intra|all] [--balance weights|subsample|none] [--seed S]
        [--inter-thread interrupting|adjacent] [--source-root DIR]... [--output FILE]
      ranks methods by call-graph mining (seed 003): InfoGain of each call / temporal edge's weight
      w.r.t. pass/fail, a method's score is its best outgoing edge, ties by lines of code.
      --graph: temporal edges added to the call graph (default inter); --inter-thread adjacent:
      Definition 3 as written (default: only when the first call has not returned); --source-root: where the
      sources named in the traces are, for lines of code (default: the current folder).`;

class Usage extends Error {}

const VALUE_FLAGS = new Set(['--format', '--top', '--graph', '--balance', '--seed', '--inter-thread', '--source-root', '--output', '-o']);

export interface MethodsArgs {
  inputs: string[];
  format: 'text' | 'json' | 'sarif';
  top?: number;
  representation?: GraphRepresentation;
  balance?: ClassBalance;
  seed?: number;
  interThread?: InterThreadReading;
  sourceRoots: string[];
  output?: string;
}

export function parseMethodsArgs(argv: string[]): MethodsArgs {
  const a: MethodsArgs = { inputs: [], format: 'text', sourceRoots: [] };
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    if (!arg.startsWith('-') || arg === '-') {
      a.inputs.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(flag)) throw new Usage(`unknown option ${arg}`);
    const v = eq > 0 ? arg.slice(eq + 1) : argv[++k];
    if (v === undefined) throw new Usage(`${flag} needs a value`);
    const int = (min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Usage(`${flag} must be an integer ≥ ${min}, got "${v}"`);
      return n;
    };
    switch (flag) {
      case '--format':
        if (v !== 'text' && v !== 'json' && v !== 'sarif') throw new Usage(`--format must be text, json or sarif, got "${v}"`);
        a.format = v;
        break;
      case '--top':
        a.top = int(0);
        break;
      case '--graph':
        if (!GRAPH_REPRESENTATIONS.includes(v as GraphRepresentation)) throw new Usage(`--graph must be ${GRAPH_REPRESENTATIONS.join(', ')}, got "${v}"`);
        a.representation = v as GraphRepresentation;
        break;
      case '--balance':
        if (!CLASS_BALANCES.includes(v as ClassBalance)) throw new Usage(`--balance must be ${CLASS_BALANCES.join(', ')}, got "${v}"`);
        a.balance = v as ClassBalance;
        break;
      case '--inter-thread':
        if (v !== 'interrupting' && v !== 'adjacent') throw new Usage(`--inter-thread must be interrupting or adjacent, got "${v}"`);
        a.interThread = v;
        break;
      case '--seed':
        a.seed = int(0);
        break;
      case '--source-root':
        a.sourceRoots.push(v);
        break;
      default:
        a.output = v;
    }
  }
  if (!a.inputs.length) throw new Usage('give at least one trace file or folder');
  return a;
}

/** Reads a source file named in a trace from the first source root that has it. */
export function sourceReader(roots: string[]): (file: string) => string | undefined {
  return (file) => {
    const candidates = path.isAbsolute(file) ? [file] : roots.map((r) => path.join(r, file));
    for (const c of candidates) {
      try {
        if (existsSync(c) && statSync(c).isFile()) return readFileSync(c, 'utf8');
      } catch {
        // unreadable: try the next root
      }
    }
    return undefined;
  };
}

export async function runMethodsCommand(argv: string[]): Promise<number> {
  let a: MethodsArgs;
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(METHODS_USAGE + '\n');
      return 0;
    }
    a = parseMethodsArgs(argv);
    const problem = a.output ? outputPathProblem(a.output) : undefined;
    if (problem) throw new Usage(`--output: ${problem}`);
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(`braid methods: ${terminalText(e.message)}\n\nUsage:\n${METHODS_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  const roots = a.sourceRoots.length ? a.sourceRoots : [process.cwd()];
  const r = await rankMethodsOfTraceFiles(a.inputs, { representation: a.representation, balance: a.balance, seed: a.seed, interThread: a.interThread, readSource: sourceReader(roots) });
  for (const d of r.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  // JSON and SARIF are streamed (report/jsonStream.ts): one method at a time, never one huge string
  const dropped = { count: 0 };
  const report = a.format === 'json' ? methodsJsonReport(r, a.top) : a.format === 'sarif' ? methodsSarifReport(r, a.top ?? 20, { dropped }) : undefined;
  if (dropped.count) process.stderr.write(droppedLocationsWarning(dropped.count) + '\n');
  const fd = a.output ? openOutputFile('--output', a.output) : undefined;
  const stream = fd !== undefined ? createWriteStream('', { fd }) : process.stdout;
  const sink = streamSink(stream);
  if (report) await writeJson(report, sink);
  else await sink(methodsTextReport(r, a.top ?? 20));
  await sink('\n');
  if (fd !== undefined) {
    stream.end();
    await once(stream, 'finish');
  }
  return r.executions.total === 0 ? 1 : 0;
}
