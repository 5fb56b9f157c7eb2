/**
 * Peak memory of `braid analyze` on the hostile traces of issue 15 (finding 1:
 * a 6,000-stack cycle, 32,000 nested ENTERs; finding 14: many symbols), each
 * next to the good Table 5 traces, measured with /usr/bin/time -v.
 * Target: peak RSS < 300 MiB, and the good traces are still analyzed.
 *
 *   npm run build && node bench/hostile-memory-bench.mjs [--symbols 2000000]
 * (JSON report of the top 50 patterns: the full JSON of a pattern explosion is itself huge.)
 */
import { mkdtempSync, writeFileSync, cpSync, statSync, existsSync, rmSync, readFileSync } from 'node:fs';
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

// issue 31, N6–N8 (each next to the good Table 5 traces; target < 1 GiB each):
//   N6  the 20,000 sibling 800–1,000-deep stacks in text and SARIF with --top 20 (report size bounded: ties ≤ 100)
//   N7  a summary of 200,000 runs (it failed with "Invalid typed array length"; the good traces were lost too)
//   N8  a summary whose run lists one pattern 1,000 times, and one with a 5,000,000-frame stack (refused, the rest analyzed)
{
  const measure = (name, dir, args) => {
    const out = path.join(dir, 'report.out');
    const cmd = [process.execPath, path.join(root, 'bin/braid.js'), 'analyze', dir, ...args, '-o', out];
    const t0 = Date.now();
    const r = timeBin ? spawnSync(timeBin, ['-v', ...cmd], { encoding: 'utf8', maxBuffer: 1 << 30 }) : spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = Date.now() - t0;
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? '');
    const peakMiB = rss ? Number(rss[1]) / 1024 : undefined;
    const bytes = existsSync(out) ? statSync(out).size : 0;
    const text = existsSync(out) ? readFileSync(out, 'utf8').slice(0, 4000) : '';
    const runs = /analysis of (\d+) runs/.exec(text)?.[1] ?? /"total":\s*(\d+)/.exec(text)?.[1] ?? '?';
    const ok = r.status === 0 && peakMiB !== undefined && peakMiB < 1024;
    console.log(
      `${name.padEnd(28)} report ${(bytes / 1024).toFixed(0).padStart(7)} KB  peak ${peakMiB !== undefined ? peakMiB.toFixed(0).padStart(4) + ' MiB' : '   ?'}  ${(ms / 1000).toFixed(1)} s  exit ${r.status}  runs analyzed ${runs}  ${ok ? '< 1 GiB' : 'OVER TARGET'}`,
    );
  };
  const withTablelog = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'braid-hostile-'));
    cpSync(path.join(root, 'test/fixtures/traces/tablelog'), dir, { recursive: true });
    return dir;
  };
  // N6
  {
    const dir = withTablelog();
    writeFileSync(path.join(dir, 'fanout.trace.jsonl'), deepStackFanout(20000));
    measure('N6 fanout, text --top 20', dir, ['--top', '20']);
    measure('N6 fanout, sarif --top 20', dir, ['--top', '20', '--format', 'sarif']);
    rmSync(dir, { recursive: true, force: true });
  }
  // a summary of the Table 5 traces to grow
  const base = mkdtempSync(path.join(tmpdir(), 'braid-hostile-'));
  spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'summarize', path.join(root, 'test/fixtures/traces/tablelog'), '-o', path.join(base, 's.json')], { encoding: 'utf8' });
  const summary = JSON.parse(readFileSync(path.join(base, 's.json'), 'utf8'));
  rmSync(base, { recursive: true, force: true });
  // N7
  {
    const dir = withTablelog();
    const s = { ...summary, runs: Array.from({ length: 200000 }, (_, k) => ({ ...summary.runs[k % summary.runs.length], execution: `X${k}`, file: `/x/${k}.trace.jsonl` })) };
    writeFileSync(path.join(dir, 'many.braid-summary.json'), JSON.stringify(s));
    measure('N7 summary of 200,000 runs', dir, ['--top', '20']);
    rmSync(dir, { recursive: true, force: true });
  }
  // N8
  {
    const dir = withTablelog();
    const k = summary.runs.findIndex((r) => r.outcome === 'fail');
    const twice = structuredClone(summary);
    twice.runs[k].patterns = Array.from({ length: 1000 }, () => twice.runs[k].patterns[0]);
    writeFileSync(path.join(dir, 'twice.braid-summary.json'), JSON.stringify(twice));
    const deep = structuredClone(summary);
    deep.stacks.push(new Array(5000000).fill(0));
    writeFileSync(path.join(dir, 'deep.braid-summary.json'), JSON.stringify(deep));
    measure('N8 pattern ×1,000, 5 M frames', dir, ['--top', '20']);
    rmSync(dir, { recursive: true, force: true });
  }
}
