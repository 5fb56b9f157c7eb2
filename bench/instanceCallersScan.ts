/**
 * Which patterns of the committed real recordings get the callers of their failing runs' instance
 * (engine/confirm/instanceCallers.ts; docs/confirm.md "The callers the failing runs had"): for each
 * subject of test/fixtures/real, its rank 1 and its decoy, the call sites per access and how many of
 * the access's performances in the failing traces they leave out, or "-".
 *
 *   node --import tsx bench/instanceCallersScan.ts [id...]
 *
 * Figures are printed, never asserted. Analysis only: nothing is run.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../server/src/engine/analysis';
import { InstanceCallersReader } from '../server/src/engine/confirm/instanceCallers';
import { scanFailingTraces } from '../server/src/engine/confirm/failingTraceScan';
import { decoyOf, recordedRoot } from './realCorpus';

async function main(only: readonly string[]): Promise<void> {
  let found = 0;
  let asked = 0;
  for (const id of readdirSync(recordedRoot).sort()) {
    const dir = path.join(recordedRoot, id);
    if ((only.length && !only.includes(id)) || !statSync(dir).isDirectory()) continue;
    const files = readdirSync(dir)
      .filter((f) => /\.trace\.jsonl(\.gz)?$/.test(f))
      .map((f) => path.join(dir, f));
    if (!files.length) continue;
    const result = await analyzeTraceFiles([dir]);
    const roles: [string, (typeof result.patterns)[number] | undefined][] = [
      ['rank 1', result.patterns[0]],
      ['decoy', decoyOf(result)],
    ];
    for (const [role, p] of roles) {
      if (!p) continue;
      asked++;
      const reader = new InstanceCallersReader(p);
      if (reader.active) await scanFailingTraces(files, [reader], 40);
      const a = reader.active ? reader.answer() : undefined;
      if (a) found++;
      const parts = a
        ? [...a.callers].map(([k, sites]) => {
            const n = a.performances.get(k)!;
            return `access ${k} (${p.accesses[k].type}${p.accesses[k].thread} :${p.accesses[k].line}) via ${sites.map((s) => `${s.method.slice(s.method.lastIndexOf('.') + 1)}:${s.line}`).join(' < ')} leaves out ${n.leftOut} of ${n.all}`;
          })
        : [];
      console.log(`${id}\t${role} ${p.id}\t${a ? `${parts.join('; ')} (${a.withInstance} of ${a.failingRead} failing runs with an instance)` : '-'}`);
    }
  }
  console.log(`callers for ${found} of ${asked} patterns`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
