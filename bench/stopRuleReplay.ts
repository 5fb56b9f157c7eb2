/**
 * The stop rule of `braid test --runs auto` replayed on recorded trace folders (issue 40 item 5):
 * each folder's runs are added in the folder's order, in rounds of 10, to one Analyzer, ranked, GRIFFIN
 * run, and the rule asked after each round — with the failing runs no bug explains holding the
 * recording (unexplainedShare 0.05, the default) and without (unexplainedShare 1, the rule before).
 * Prints per folder the runs each rule stops at (or "—": the folder ran out first), the bugs with
 * evidence at that point and the failing runs no bug explains. Prints, never asserts. Offline.
 *   node --import tsx bench/stopRuleReplay.ts [folder...]   (default: every folder of test/fixtures/recorded and test/fixtures/real)
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Analyzer } from '../server/src/engine/analysis';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { DEFAULT_EVIDENCE_STOP, EvidenceSnapshot, evidenceSnapshot, EvidenceStopRule, stopReason } from '../server/src/engine/ranking/evidenceStop';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';

const root = path.resolve(__dirname, '..');
const folders = process.argv.length > 2
  ? process.argv.slice(2)
  : ['test/fixtures/recorded', 'test/fixtures/real'].flatMap((d) => readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)).filter((f) => statSync(f).isDirectory()));

const rules: [string, EvidenceStopRule][] = [
  ['before', { ...DEFAULT_EVIDENCE_STOP, unexplainedShare: 1 }],
  ['now', { ...DEFAULT_EVIDENCE_STOP }],
];

async function main(): Promise<void> {
  console.log('folder  runs  | before: stop at (bugs with evidence, unexplained) | now: stop at (bugs, unexplained)');
  for (const folder of folders) {
    const files = (await findTraceFiles([folder])).files;
    const analyzer = new Analyzer();
    const history: EvidenceSnapshot[] = [];
    const stops = new Map<string, string>();
    for (let k = 0; k < files.length; k++) {
      await analyzer.addTrace(files[k]);
      if ((k + 1) % DEFAULT_EVIDENCE_STOP.roundRuns !== 0 && k + 1 !== files.length) continue;
      const result = analyzer.rank();
      let bugs: ReturnType<typeof explainBugs> | undefined;
      if (result.executions.failed > 0 && result.executions.passed > 0) {
        try {
          bugs = explainBugs(undefined, result, {});
        } catch {
          bugs = undefined;
        }
      }
      history.push(evidenceSnapshot(result, DEFAULT_EVIDENCE_STOP.top, bugs));
      const s = history[history.length - 1];
      for (const [name, rule] of rules)
        if (!stops.has(name) && stopReason(history, 0, rule) === 'evidence')
          stops.set(name, `${s.runs} (${s.bugs?.filter((b) => b.pValue < 0.05).length ?? 0} bugs, ${s.unexplained ?? '?'} unexplained of ${s.failed})`);
    }
    const last = history[history.length - 1];
    console.log(`${path.basename(folder).padEnd(24)} ${String(files.length).padStart(4)} | ${(stops.get('before') ?? '—').padEnd(36)} | ${stops.get('now') ?? `— (at ${last?.runs}: ${last?.unexplained ?? '?'} unexplained of ${last?.failed})`}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
