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
import { InstanceCallersReader } from '../server/src/engine/confirm/instanceCallers';
import { scanFailingTraces } from '../server/src/engine/confirm/failingTraceScan';
import { recordedPatterns } from './realCorpus';

async function main(only: readonly string[]): Promise<void> {
  let found = 0;
  let asked = 0;
  for await (const { id, role, pattern: p, files } of recordedPatterns(only)) {
    asked++;
    const reader = new InstanceCallersReader(p);
    if (reader.active) await scanFailingTraces(files, [reader]);
    const a = reader.active ? reader.answer() : undefined;
    if (a) found++;
    const parts = a
      ? [...a.callers].map(([k, sites]) => {
          const n = a.performances.get(k)!;
          const x = p.accesses[k];
          return `access ${k} (${x.type}${x.thread} :${x.line}) via ${sites.map((s) => `${s.method.slice(s.method.lastIndexOf('.') + 1)}:${s.line}`).join(' < ')} leaves out ${n.leftOut} of ${n.all}`;
        })
      : [];
    console.log(`${id}\t${role} ${p.id}\t${a ? `${parts.join('; ')} (${a.withInstance} of ${a.failingRead} failing runs with an instance)` : '-'}`);
  }
  console.log(`callers for ${found} of ${asked} patterns`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
