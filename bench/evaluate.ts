/**
 * `npm run eval`: GRIFFIN and UNICORN measured against written-down ground truth (issue 27).
 *
 * Subjects: the bug set (test/fixtures/bugset/<pkg>/, truth in test/fixtures/java/<pkg>/truth.json and
 * the per-run labels in runs.json), the two-bug program (test/fixtures/traces/twobugs, truth.json), and
 * the 19 single-bug subjects of test/fixtures/recorded (every failing run hit the one bug; the fix
 * methods are the methods holding the `// @bug` lines).
 *
 * Per subject: runs failed/passed, bugs in the truth, bugs found (strong + weak), the clustering
 * F-measure of failing runs (Σ_i |T_i|/Σ|T| · max_j F(T_i, B_j)), and per truth bug: the matched bug,
 * its F, whether its first suspicious method per thread is a method the fix changed, the list
 * position of the first root-cause pattern (all accesses on that bug's `// @bug` lines), and the
 * p-value of the pattern heading the matched bug. Flags a bug headed by a pattern with p ≥ 0.05.
 *
 *   node --import tsx bench/evaluate.ts [subject...] [--merge on|off] [--absence on|off] [--symptoms evidence|last] [--order-ties on|off] [--pair-first on|off] [--json] [--set bugset|recorded|all]
 *   node --import tsx bench/evaluate.ts --set real …   the real corpus (bench/realEval.ts, bench/real/README.md)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisResult } from '../server/src/engine/analysis';
import { explainBugs, Bug } from '../server/src/engine/griffin/griffin';
import { readTrace } from '../server/src/engine/trace/traceReader';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { isRootCause, BugLine } from '../test/helpers/rootCause';
import { main as realMain } from './realEval';

const root = path.resolve(__dirname, '..');
const javaDir = path.join(root, 'test/fixtures/java');

interface Truth {
  /** bug name → methods the fix changes */
  fixMethods: Map<string, Set<string>>;
  /** execution → bug names hit (failing runs only are scored) */
  runs: Map<string, string[]>;
  /** bug name → root-cause lines */
  lines: Map<string, BugLine[]>;
}

export interface BugScore {
  bug: string;
  truthRuns: number;
  /** matched GRIFFIN bug id (0: none) */
  matched: number;
  f: number;
  /** per thread of the matched bug: its first suspicious method is a fixed method */
  methodsOk: boolean[];
  methods: string[];
  /** 1-based list position of the first root-cause pattern of this bug (0: none) */
  rootPosition: number;
  /** p-value of the pattern heading the matched bug */
  leadP: number;
}

export interface SubjectScore {
  subject: string;
  set: 'bugset' | 'recorded' | 'traces';
  failed: number;
  passed: number;
  truthBugs: number;
  strongBugs: number;
  weakBugs: number;
  f: number;
  bugs: BugScore[];
  /** ids of strong bugs headed by a pattern with p ≥ 0.05 */
  unsupported: number[];
  unlabelled: number;
}

/** `// @bug name [file=…]` tags of a subject's sources, by bug name. */
function tagLines(pkg: string): Map<string, BugLine[]> {
  const out = new Map<string, BugLine[]>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.java'))
        readFileSync(p, 'utf8')
          .split('\n')
          .forEach((text, k) => {
            const m = /\/\/\s*@bug\s+(\S+)/.exec(text);
            if (!m) return;
            const l = out.get(m[1]) ?? [];
            l.push({ file: path.relative(javaDir, p).split(path.sep).join('/'), line: k + 1 });
            out.set(m[1], l);
          });
    }
  };
  walk(path.join(javaDir, pkg));
  return out;
}

/** Methods holding each bug's tagged lines, read from the loc definitions of the traces. */
async function methodsAtLines(files: string[], lines: Map<string, BugLine[]>): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>([...lines.keys()].map((k) => [k, new Set<string>()]));
  for (const f of files.slice(0, 10)) {
    const res = await readTrace(f, { event() {} });
    for (const loc of res.symbols.locs.values())
      for (const [name, ls] of lines) if (loc.method && ls.some((b) => b.line === loc.line && (loc.file === b.file || loc.file.endsWith('/' + b.file) || b.file.endsWith('/' + loc.file)))) out.get(name)!.add(loc.method);
  }
  return out;
}

async function truthOf(pkg: string, set: SubjectScore['set'], dir: string, result: AnalysisResult): Promise<Truth> {
  const lines = tagLines(pkg);
  const failing = result.runs.filter((r) => r.outcome === 'fail').map((r) => r.execution);
  if (set === 'bugset') {
    const t = JSON.parse(readFileSync(path.join(javaDir, pkg, 'truth.json'), 'utf8')) as { bugs: Record<string, { fixMethods: string[] }> };
    const labels = JSON.parse(readFileSync(path.join(dir, 'runs.json'), 'utf8')).runs as Record<string, string[]>;
    return {
      fixMethods: new Map(Object.entries(t.bugs).map(([k, v]) => [k, new Set(v.fixMethods)])),
      runs: new Map(failing.map((e) => [e, labels[e] ?? []])),
      lines,
    };
  }
  const { files } = await findTraceFiles([dir]);
  if (set === 'traces') {
    // twobugs: truth.json names the failed check (stock / ledger) of each failing run; tags oversell / lost-post
    const failed = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8')).failing as Record<string, string>;
    const tagOf: Record<string, string> = { stock: 'oversell', ledger: 'lost-post' };
    return { fixMethods: await methodsAtLines(files, lines), runs: new Map(failing.map((e) => [e, failed[e] ? [tagOf[failed[e]] ?? failed[e]] : []])), lines };
  }
  // single-bug subjects: one bug, every tag name together
  const all: BugLine[] = [...lines.values()].flat();
  const one = new Map([['bug', all]]);
  return { fixMethods: await methodsAtLines(files, one), runs: new Map(failing.map((e) => [e, ['bug']])), lines: one };
}

function fOf(a: ReadonlySet<string>, b: readonly string[]): number {
  if (!a.size || !b.length) return 0;
  let n = 0;
  for (const x of b) if (a.has(x)) n++;
  return (2 * n) / (a.size + b.length);
}

export async function evaluateSubject(pkg: string, set: SubjectScore['set'], dir: string, options: { merge?: boolean; testCode?: string[]; absence?: boolean; symptomsLast?: boolean; discovery?: boolean; orderTies?: boolean; pairFirst?: boolean } = {}): Promise<SubjectScore> {
  const result = await analyzeTraceFiles([dir], {
    testCode: options.testCode ?? [],
    ...(options.absence !== undefined ? { absence: options.absence } : {}),
    ...(options.symptomsLast !== undefined ? { symptomsLast: options.symptomsLast } : {}),
    ...(options.discovery !== undefined ? { discovery: options.discovery } : {}),
    ...(options.orderTies !== undefined ? { orderTies: options.orderTies } : {}),
    ...(options.pairFirst !== undefined ? { pairFirst: options.pairFirst } : {}),
  });
  const truth = await truthOf(pkg, set, dir, result);
  const bugs: Bug[] = explainBugs(undefined, result, { merge: options.merge });
  const strong = bugs.filter((b) => !b.evidence.weak);
  const names = [...truth.fixMethods.keys()];
  const byBug = new Map(names.map((n) => [n, new Set<string>()]));
  let unlabelled = 0;
  for (const [e, hit] of truth.runs) {
    if (!hit.length) unlabelled++;
    for (const h of hit) byBug.get(h)?.add(e);
  }
  const total = [...byBug.values()].reduce((s, x) => s + x.size, 0);
  const scores: BugScore[] = [];
  let f = 0;
  for (const name of names) {
    const runs = byBug.get(name)!;
    let best: Bug | undefined;
    let bestF = 0;
    for (const b of strong) {
      const x = fOf(runs, b.failingRuns);
      if (x > bestF + 1e-12) {
        bestF = x;
        best = b;
      }
    }
    f += total ? (runs.size / total) * bestF : 0;
    const fix = truth.fixMethods.get(name)!;
    const methods = best ? best.suspiciousMethods.map((m) => m.method) : [];
    const bugLines = truth.lines.get(name) ?? [];
    const pos = result.patterns.findIndex((p) => isRootCause(p, bugLines)) + 1;
    scores.push({
      bug: name,
      truthRuns: runs.size,
      matched: best?.id ?? 0,
      f: bestF,
      methodsOk: methods.map((m) => fix.has(m)),
      methods,
      rootPosition: pos,
      leadP: best ? best.evidence.pValue : NaN,
    });
  }
  return {
    subject: pkg,
    set,
    failed: result.executions.failed,
    passed: result.executions.passed,
    truthBugs: names.filter((n) => byBug.get(n)!.size > 0).length,
    strongBugs: strong.length,
    weakBugs: bugs.length - strong.length,
    f,
    bugs: scores,
    unsupported: strong.filter((b) => !(b.evidence.pValue < 0.05)).map((b) => b.id),
    unlabelled,
  };
}

/** The subjects with committed recordings: [pkg, set, dir, testCode]. */
export function subjects(set: 'bugset' | 'recorded' | 'all' = 'all'): [string, SubjectScore['set'], string, string[]][] {
  const out: [string, SubjectScore['set'], string, string[]][] = [];
  const add = (folder: string, s: 'bugset' | 'recorded') => {
    const m = path.join(root, 'test/fixtures', folder, 'manifest.json');
    if (!existsSync(m)) return;
    const manifest = JSON.parse(readFileSync(m, 'utf8')) as Record<string, { testCode?: string[] }>;
    for (const pkg of Object.keys(manifest).sort()) out.push([pkg, s, path.join(root, 'test/fixtures', folder, pkg), manifest[pkg].testCode ?? []]);
  };
  if (set !== 'recorded') add('bugset', 'bugset');
  if (set !== 'bugset') {
    out.push(['twobugs', 'traces', path.join(root, 'test/fixtures/traces/twobugs'), []]);
    add('recorded', 'recorded');
  }
  return out;
}

const fmtP = (p: number) => (Number.isNaN(p) ? '—' : p >= 0.001 ? String(Number(p.toPrecision(2))) : p.toExponential(1));

export function table(rows: readonly SubjectScore[]): string {
  const out: string[][] = [['subject', 'runs F/P', 'bugs truth', 'found (+weak)', 'F', 'truth bug', 'runs', '→ bug', 'F(bug)', 'methods = fix', 'root pos', 'lead p', 'flags']];
  for (const s of rows) {
    s.bugs.forEach((b, k) => {
      const flags: string[] = [];
      if (k === 0 && s.unsupported.length) flags.push(`bug ${s.unsupported.join(',')} p≥0.05`);
      if (k === 0 && s.unlabelled) flags.push(`${s.unlabelled} unlabelled`);
      out.push([
        k === 0 ? s.subject : '',
        k === 0 ? `${s.failed}/${s.passed}` : '',
        k === 0 ? String(s.truthBugs) : '',
        k === 0 ? `${s.strongBugs}${s.weakBugs ? ` (+${s.weakBugs})` : ''}` : '',
        k === 0 ? s.f.toFixed(2) : '',
        b.bug,
        String(b.truthRuns),
        b.matched ? `#${b.matched}` : '—',
        b.f.toFixed(2),
        b.methodsOk.length ? `${b.methodsOk.filter(Boolean).length}/${b.methodsOk.length} ${b.methods.map((m, i) => (b.methodsOk[i] ? '✓' : '✗') + m.split('.').slice(-2).join('.')).join(' ')}` : '—',
        b.rootPosition ? String(b.rootPosition) : '—',
        fmtP(b.leadP),
        flags.join('; '),
      ]);
    });
  }
  const widths = out[0].map((_, c) => Math.max(...out.map((r) => [...r[c]].length)));
  return out.map((r) => r.map((x, c) => x + ' '.repeat(widths[c] - [...x].length)).join('  ').trimEnd()).join('\n');
}

export function summaryLine(rows: readonly SubjectScore[]): string {
  const bugset = rows.filter((r) => r.set !== 'recorded');
  const single = rows.filter((r) => r.set === 'recorded');
  const bugs = bugset.flatMap((r) => r.bugs.filter((b) => b.truthRuns > 0));
  const methodOk = bugs.filter((b) => b.methodsOk.length > 0 && b.methodsOk[0]).length;
  const allOk = bugs.filter((b) => b.methodsOk.length > 0 && b.methodsOk.every(Boolean)).length;
  const lines = [
    `multi-bug set: ${bugset.length} subjects, ${bugset.filter((r) => r.f >= 0.9).length} with F ≥ 0.9 (mean F ${(bugset.reduce((s, r) => s + r.f, 0) / Math.max(1, bugset.length)).toFixed(3)}), ` +
      `${bugset.filter((r) => r.strongBugs === r.truthBugs).length} with as many bugs as the truth; ` +
      `first suspicious method a fixed method: ${methodOk} of ${bugs.length} bugs (every thread: ${allOk}); bugs headed by p ≥ 0.05: ${bugset.reduce((s, r) => s + r.unsupported.length, 0)}; root cause ranked first: ${bugs.filter((b) => b.rootPosition === 1).length} of ${bugs.length}`,
  ];
  if (single.length)
    lines.push(
      `single-bug subjects: ${single.length}, root cause at position 1: ${single.filter((r) => r.bugs[0]?.rootPosition === 1).length}, exactly one bug: ${single.filter((r) => r.strongBugs === 1).length}, methods = fix on every thread: ${single.filter((r) => r.bugs[0]?.methodsOk.length && r.bugs[0].methodsOk.every(Boolean)).length}`,
    );
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  // the real corpus (issue 38): bench/realEval.ts
  const setAt = args.indexOf('--set');
  if (setAt >= 0 && args[setAt + 1] === 'real') {
    process.exitCode = await realMain(args.filter((_, k) => k !== setAt && k !== setAt + 1));
    return;
  }
  let merge: boolean | undefined;
  let absence: boolean | undefined;
  let symptomsLast: boolean | undefined;
  let discovery: boolean | undefined;
  let orderTies: boolean | undefined;
  let pairFirst: boolean | undefined;
  let json = false;
  let set: 'bugset' | 'recorded' | 'all' = 'all';
  const only: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === '--merge') merge = args[++k] !== 'off';
    else if (a === '--absence') {
      const v = args[++k];
      if (v !== 'on' && v !== 'off') throw new Error(`--absence must be on or off, got ${JSON.stringify(v)}`);
      absence = v === 'on';
    } else if (a === '--symptoms') {
      const v = args[++k];
      if (v !== 'last' && v !== 'evidence') throw new Error(`--symptoms must be last or evidence, got ${JSON.stringify(v)}`);
      symptomsLast = v === 'last';
    } else if (a === '--discovery') {
      const v = args[++k];
      if (v !== 'on' && v !== 'off') throw new Error(`--discovery must be on or off, got ${JSON.stringify(v)}`);
      discovery = v === 'on';
    } else if (a === '--order-ties') {
      const v = args[++k];
      if (v !== 'on' && v !== 'off') throw new Error(`--order-ties must be on or off, got ${JSON.stringify(v)}`);
      orderTies = v === 'on';
    } else if (a === '--pair-first') {
      const v = args[++k];
      if (v !== 'on' && v !== 'off') throw new Error(`--pair-first must be on or off, got ${JSON.stringify(v)}`);
      pairFirst = v === 'on';
    }
    else if (a === '--json') json = true;
    else if (a === '--set') set = args[++k] as typeof set;
    else if (a === '-h' || a === '--help') {
      console.log('node --import tsx bench/evaluate.ts [subject...] [--merge on|off] [--absence on|off] [--symptoms evidence|last] [--discovery on|off] [--order-ties on|off] [--pair-first on|off] [--json] [--set bugset|recorded|all]\n       node --import tsx bench/evaluate.ts --set real [id...] [--live|--record] [--plain N] [--confirm] [--seed S] [--json]   (bench/realEval.ts)');
      return;
    } else only.push(a);
  }
  const rows: SubjectScore[] = [];
  for (const [pkg, s, dir, testCode] of subjects(set)) {
    if (only.length && !only.includes(pkg)) continue;
    rows.push(await evaluateSubject(pkg, s, dir, { merge, testCode, absence, symptomsLast, discovery, orderTies, pairFirst }));
  }
  if (json) console.log(JSON.stringify(rows, null, 1));
  else console.log(`${table(rows)}\n\n${summaryLine(rows)}`);
}

if (require.main === module) main().catch((e) => {
  console.error(e);
  process.exit(1);
});
