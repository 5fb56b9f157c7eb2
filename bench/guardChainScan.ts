/**
 * Which patterns of the committed real recordings get a guard (a check the held thread made before its
 * access, engine/confirm/guardChain.ts; docs/confirm.md "A check the held access depends on"): for each
 * subject of test/fixtures/real, its rank 1 and its decoy, the guard read from its failing traces, or "-".
 *
 *   node --import tsx bench/guardChainScan.ts [id...]
 *
 * Figures are printed, never asserted. Analysis only: nothing is run.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../server/src/engine/analysis';
import { GuardChainReader } from '../server/src/engine/confirm/guardChain';
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
      const reader = new GuardChainReader(p);
      if (reader.active) await scanFailingTraces(files, [reader]);
      const a = reader.active ? reader.answer() : undefined;
      if (a) found++;
      const g = a?.guard;
      console.log(`${id}\t${role} ${p.id}\t${g ? `${g.kind === 'publication' ? 'publication ' : ''}${g.variable}: read ${g.read.file}:${g.read.line}, write ${g.write.file}:${g.write.line} (${a!.withGuard} of ${a!.withInstance} failing runs)` : '-'}`);
    }
  }
  console.log(`a guard for ${found} of ${asked} patterns`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
