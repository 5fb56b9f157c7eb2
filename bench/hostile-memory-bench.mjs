/**
 * Peak memory of `braid analyze` on the hostile traces of issue 15 (finding 1:
 * a 6,000-stack cycle, 32,000 nested ENTERs; finding 14: many symbols), each
 * next to the good Table 5 traces, measured with /usr/bin/time -v.
 * Target: peak RSS < 300 MiB, and the good traces are still analyzed.
 *
 *   npm run build && node bench/hostile-memory-bench.mjs [--symbols 2000000]
 * (JSON report of the top 50 patterns: the full JSON of a pattern explosion is itself huge.)
 */
import { mkdtempSync, writeFileSync, cpSync, statSync, existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackCycle, nestedEnter, manySymbols, deepStackFanout } from './hostileTraces.mjs';
import { hugeArrayValues } from './hostileValues.mjs';
import { planHover } from './hostilePlanHover.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const symbols = Number(argv[argv.indexOf('--symbols') + 1]) || 200000;
const cases = [
  ['stack cycle of 6,000', 'cycle.trace.jsonl', () => stackCycle(6000)],
  ['32,000 nested ENTERs', 'nested.trace.jsonl', () => nestedEnter(32000)],
  ['20,000 stacks 800–1,000 deep', 'fanout.trace.jsonl', () => deepStackFanout(20000)],
  [`${symbols.toLocaleString('en')} distinct symbols`, 'symbols.trace.jsonl', () => manySymbols(symbols)],
];
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
console.log(`hostile-memory: peak RSS of braid analyze (target < 300 MiB)${timeBin ? '' : ' — /usr/bin/time missing, apt-get install time'}`);
for (const [name, file, make] of cases) {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-hostile-'));
  cpSync(path.join(root, 'test/fixtures/traces/tablelog'), dir, { recursive: true });
  writeFileSync(path.join(dir, file), make());
  const size = statSync(path.join(dir, file)).size;
  const cmd = [process.execPath, path.join(root, 'bin/braid.js'), 'analyze', dir, '--format', 'json', '--top', '50'];
  const t0 = Date.now();
  const r = timeBin ? spawnSync(timeBin, ['-v', ...cmd], { encoding: 'utf8', maxBuffer: 1 << 30 }) : spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Date.now() - t0;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? '');
  let executions = '?';
  try {
    executions = JSON.parse(r.stdout).executions.total;
  } catch {}
  const diags = (r.stderr ?? '').split('\n').filter((l) => l.includes(file));
  const diag = (diags.find((l) => l.includes(': error: ')) ?? diags[0] ?? '').replace(dir + path.sep, '');
  console.log(
    `${name.padEnd(28)} ${(size / 1024).toFixed(0).padStart(7)} KB  peak ${rss ? (Number(rss[1]) / 1024).toFixed(0).padStart(4) + ' MiB' : '   ?'}  ${(ms / 1000).toFixed(1)} s  exit ${r.status}  executions analyzed ${executions}  ${diag.slice(0, 160)}`,
  );
}

// issue 31, N1: a plan trigger with "together": 100000000, hovered in the language server (target < 1 GiB; it died of OOM at 2.27 GB)
{
  const r = await planHover({ root, timeBin });
  const ok = r.answered && r.peakMiB !== undefined && r.peakMiB < 1024;
  console.log(
    `${'N1 plan together 100,000,000'.padEnd(28)} ${'(hover)'.padStart(10)}  peak ${r.peakMiB !== undefined ? r.peakMiB.toFixed(0).padStart(4) + ' MiB' : '   ?'}  ${(r.ms / 1000).toFixed(1)} s  exit ${r.exit}  ${r.answered ? 'hover answered' : 'no answer'}${r.crashed ? ' (out of memory)' : ''}  ${ok ? '< 1 GiB' : 'OVER TARGET'}  ${r.problem.slice(0, 120)}`,
  );
}

// issue 31, N13: 8 accesses whose values are 8,388,000-element arrays (134 MB); the reader keeps a
// value bounded by what it can be shown as (docs/trace-format.md, `value`). Target < 1 GiB (it took 3.4 GB).
{
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-hostile-'));
  cpSync(path.join(root, 'test/fixtures/traces/tablelog'), dir, { recursive: true });
  writeFileSync(path.join(dir, 'values.trace.jsonl'), hugeArrayValues());
  const size = statSync(path.join(dir, 'values.trace.jsonl')).size;
  const cmd = [process.execPath, path.join(root, 'bin/braid.js'), 'analyze', dir, '--format', 'json', '--top', '50'];
  const t0 = Date.now();
  const r = timeBin ? spawnSync(timeBin, ['-v', ...cmd], { encoding: 'utf8', maxBuffer: 1 << 30 }) : spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Date.now() - t0;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? '');
  const peakMiB = rss ? Number(rss[1]) / 1024 : undefined;
  let executions = '?';
  let value = '?';
  try {
    const report = JSON.parse(r.stdout);
    executions = report.executions.total;
    value = JSON.stringify(report.patterns.flatMap((p) => p.accesses.map((a) => a.value)).find((v) => v !== undefined && String(v).includes('numbers')) ?? null);
  } catch {}
  const ok = r.status === 0 && peakMiB !== undefined && peakMiB < 1024;
  console.log(
    `${'N13 8 values × 8.4 M elements'.padEnd(28)} ${(size / 1024).toFixed(0).padStart(7)} KB  peak ${peakMiB !== undefined ? peakMiB.toFixed(0).padStart(4) + ' MiB' : '   ?'}  ${(ms / 1000).toFixed(1)} s  exit ${r.status}  executions analyzed ${executions}  value kept ${value}  ${ok ? '< 1 GiB' : 'OVER TARGET'}`,
  );
  rmSync(dir, { recursive: true, force: true });
}
