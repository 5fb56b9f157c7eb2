/**
 * The comparison table of docs/callgraph.md: for every sample program of test/fixtures/java, the
 * position of the first `// @bug` method in the call-graph method ranking (seed 003; every graph
 * representation, and Definition 3 as written), in GRIFFIN's suspicious methods and in the methods
 * of UNICORN's ranked patterns.
 *
 *   node --import tsx scripts/callgraph-compare.ts <trace root>   # <trace root>/<pkg>/*.trace.jsonl
 *
 * Record the traces first, e.g. for bank (as test/recorder/recorderHarness.ts does):
 *   npm run build && node dist/braid.js record --runs 50 --noise 0.3 --include bank \
 *     --out <trace root>/bank -- java -cp <classes> bank.Bank
 */
import path from 'node:path';
import { analyzeTraceFiles } from '../server/src/engine/analysis';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { rankMethodsOfTraceFiles } from '../server/src/engine/callgraph/localizationProcess';
import type { GraphRepresentation } from '../server/src/engine/callgraph/methodRanking';
import { sourceReader } from '../server/src/cli/methodsCommand';
import { fixturesDir, SAMPLE_PROGRAMS } from '../test/recorder/recorderHarness';
import { bugMethods } from '../test/helpers/bugMethods';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node --import tsx scripts/callgraph-compare.ts <trace root>\n');
  process.exit(2);
}

function position(list: string[], bug: Set<string>): string {
  const k = list.findIndex((m) => bug.has(m));
  return k < 0 ? '—' : String(k + 1);
}

const REPS: GraphRepresentation[] = ['inter', 'call', 'next', 'intra', 'all'];

async function main(): Promise<void> {
const rows: string[] = [];
rows.push(`| sample | runs (failed) | @bug methods | methods | ${REPS.map((r) => `CG ${r}`).join(' | ')} | CG inter, Def. 3 as written | GRIFFIN | UNICORN |`);
rows.push(`|:--|--:|:--|--:|${REPS.map(() => '--:').join('|')}|--:|--:|--:|`);
for (const s of SAMPLE_PROGRAMS) {
  const dir = path.join(root, s.pkg);
  const bug = await bugMethods(s.pkg, (await findTraceFiles([dir])).files);
  const read = sourceReader([fixturesDir]);
  const cg: string[] = [];
  let methods = 0;
  let runs = '';
  for (const rep of REPS) {
    const r = await rankMethodsOfTraceFiles([dir], { representation: rep, readSource: read });
    methods = r.methods.length;
    runs = `${r.executions.total} (${r.executions.failed})`;
    const pos = position(r.methods.map((m) => m.method), bug);
    const m = r.methods.find((x) => bug.has(x.method));
    cg.push(m ? `${pos} (${m.score.toFixed(2)})` : pos);
  }
  const lit = await rankMethodsOfTraceFiles([dir], { representation: 'inter', interThread: 'adjacent', readSource: read });
  const litM = lit.methods.find((x) => bug.has(x.method));
  const literal = litM ? `${litM.rank} (${litM.score.toFixed(2)})` : '—';
  const analysis = await analyzeTraceFiles([dir]);
  const bugs = explainBugs(undefined, analysis, {});
  const griffinList: string[] = [];
  for (const b of bugs) for (const sm of b.suspiciousMethods) if (!griffinList.includes(sm.method)) griffinList.push(sm.method);
  const unicornList: string[] = [];
  for (const p of analysis.patterns) for (const a of p.accesses) if (a.method && !unicornList.includes(a.method)) unicornList.push(a.method);
  const short = [...bug].map((m) => m.split('.').slice(-2).join('.')).join(', ');
  rows.push(`| ${s.main} | ${runs} | ${short} | ${methods} | ${cg.join(' | ')} | ${literal} | ${position(griffinList, bug)} of ${griffinList.length} | ${position(unicornList, bug)} |`);
}
process.stdout.write(rows.join('\n') + '\n');
}

void main();
