/**
 * Which patterns of the committed real recordings get a guard (a check the held thread made before its
 * access, or a publication the other thread needs, engine/confirm/guardChain.ts; docs/confirm.md "A check
 * the held access depends on"): for each subject of test/fixtures/real, its rank 1 and its decoy, the
 * guard read from its failing traces, or "-".
 *
 *   node --import tsx bench/guardChainScan.ts [id...]
 *
 * Figures are printed, never asserted. Analysis only: nothing is run.
 */
import { GuardChainReader } from '../server/src/engine/confirm/guardChain';
import { scanFailingTraces } from '../server/src/engine/confirm/failingTraceScan';
import { recordedPatterns } from './realCorpus';

async function main(only: readonly string[]): Promise<void> {
  let found = 0;
  let asked = 0;
  for await (const { id, role, pattern: p, files } of recordedPatterns(only)) {
    asked++;
    const reader = new GuardChainReader(p);
    if (reader.active) await scanFailingTraces(files, [reader]);
    const a = reader.active ? reader.answer() : undefined;
    if (a) found++;
    const g = a?.guard;
    console.log(`${id}\t${role} ${p.id}\t${g ? `${g.kind === 'publication' ? 'publication ' : ''}${g.variable}: read ${g.read.file}:${g.read.line}, write ${g.write.file}:${g.write.line} (${a!.withGuard} of ${a!.withInstance} failing runs)${g.callers ? `; the other thread's access only via ${g.callers.map((c) => `${c.method.slice(c.method.lastIndexOf('.') + 1)}:${c.line}`).join(' < ')}` : ''}` : '-'}`);
  }
  console.log(`a guard for ${found} of ${asked} patterns`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
