// Mutation check: does the test suite bite? (`npm run mutation`; not part of `npm test`)
//
// Copies the repository (tracked and untracked, non-ignored files; node_modules linked) into a
// scratch folder once, checks that the selected tests pass there, then for each deliberate fault:
// applies it to the scratch copy, runs the tests that cover that part of the engine, and restores
// the file (in a finally block). The working tree is never modified. Prints a table
// fault → caught yes/no and exits 1 when a fault is not caught (or the baseline fails).
//
// Usage: node scripts/mutation.mjs [--keep] [fault-name...]
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const only = args.filter((a) => !a.startsWith('--'));

/** Engine unit tests that hold the thesis examples (Table 1, 5, 9, Figure 6, Algorithm 3/4) and the tie order. */
const ENGINE_TESTS = ['test/unit/unicornThesisExamples', 'test/unit/unicornPatterns', 'test/unit/rankingTieOrder', 'test/unit/griffin.test'];

/** The faults: a file, the exact text to replace (must occur once) and its faulty replacement. */
const FAULTS = [
  {
    name: 'access window off by one (full at capacity + 1)',
    file: 'server/src/engine/unicorn/accessWindow.ts',
    find: 'if (n >= this.capacity) {',
    replace: 'if (n > this.capacity) {',
    tests: ENGINE_TESTS,
  },
  {
    name: 'pattern combination: thread roles swapped (p2 must run T1 → T2 instead of T2 → T1)',
    file: 'server/src/engine/unicorn/pairWindow.ts',
    find: 'let pa = this.latest(t2, t1, x);\n    let pb = this.latest(t2, t1, 2 + x);',
    replace: 'let pa = this.latest(t1, t2, x);\n    let pb = this.latest(t1, t2, 2 + x);',
    tests: ENGINE_TESTS,
  },
  {
    name: 'pair window: the chain of the other access type skipped (P4-P8 whose first access differs in type from the second pair\'s second access lost)',
    file: 'server/src/engine/unicorn/pairWindow.ts',
    find: 'if (!full && (a2 !== qFirst || rWin[e] !== qWin)) continue;',
    replace: 'if (!full) continue;',
    tests: ENGINE_TESTS,
  },
  {
    name: 'pair window: chains by the type of the wrong access (second access of q instead of its first)',
    file: 'server/src/engine/unicorn/pairWindow.ts',
    find: 'const x = kind >> 1;',
    replace: 'const x = kind & 1;',
    tests: ENGINE_TESTS,
  },
  {
    name: 'Table 1 mis-transcribed: P16 and P17 swapped',
    file: 'server/src/engine/unicorn/patternCatalog.ts',
    find: '[11, 17, 16],',
    replace: '[11, 16, 17],',
    tests: ENGINE_TESTS,
  },
  {
    name: 'pair window off by one (one pair fewer combined)',
    file: 'server/src/engine/unicorn/pairWindow.ts',
    find: 'const min = position - this.size;',
    replace: 'const min = position - this.size + 1;',
    tests: ENGINE_TESTS,
  },
  {
    name: 'pair ordering releases the bucket the watermark is in',
    file: 'server/src/engine/unicorn/pairOrdering.ts',
    find: 'this.releaseBuckets(wm === Infinity ? Infinity : Math.floor(wm / BUCKET));',
    replace: 'this.releaseBuckets(wm === Infinity ? Infinity : Math.floor(wm / BUCKET) + 1);',
    tests: [...ENGINE_TESTS, 'test/unit/pairOrdering'],
  },
  {
    name: 'Jaccard denominator failed(p) + passed(p) instead of totalFailed + passed(p)',
    file: 'server/src/engine/ranking/suspiciousness.ts',
    find: 'const d = totalFailed + passed;',
    replace: 'const d = failed + passed;',
    tests: ENGINE_TESTS,
  },
  {
    name: 'tie ranking dense (1,1,2) instead of competition (1,1,3)',
    file: 'server/src/engine/ranking/competitionRanking.ts',
    find: 'else ranks[k] = k + 1;',
    replace: 'else ranks[k] = k > 0 ? ranks[k - 1] + 1 : 1;',
    tests: ENGINE_TESTS,
  },
  {
    name: 'tie order (thesis order, grouping off): fewer failing runs first',
    file: 'server/src/engine/ranking/rootCauseOrder.ts',
    find: '(a, b) => b.score - a.score || b.f - a.f || a.p - b.p',
    replace: '(a, b) => b.score - a.score || a.f - b.f || a.p - b.p',
    tests: ENGINE_TESTS,
  },
  {
    name: 'GRIFFIN threshold: merge only above s (> instead of ≥)',
    file: 'server/src/engine/griffin/clusterFailingExecutions.ts',
    find: 'if (ci < 0 || best < s) break;',
    replace: 'if (ci < 0 || best <= s) break;',
    tests: ENGINE_TESTS,
  },
];

function listFiles() {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  return r.stdout.split('\0').filter((f) => f && f !== 'node_modules' && !f.startsWith('node_modules/') && existsSync(path.join(root, f)));
}

function runTests(dir, tests) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts/test.mjs'), ...tests], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '' }, maxBuffer: 64 << 20 });
  const out = `${r.stdout}${r.stderr}`;
  const failed = /^ℹ fail (\d+)/m.exec(out)?.[1];
  return { ok: r.status === 0, failedTests: failed ? Number(failed) : undefined, secs: (Date.now() - t0) / 1000, out };
}

const faults = only.length ? FAULTS.filter((f) => only.some((o) => f.name.includes(o) || f.file.includes(o))) : FAULTS;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'braid-mutation-'));
let exit = 0;
try {
  for (const f of listFiles()) {
    mkdirSync(path.dirname(path.join(scratch, f)), { recursive: true });
    cpSync(path.join(root, f), path.join(scratch, f));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  console.log(`mutation: scratch copy ${scratch}`);

  const tests = [...new Set(faults.flatMap((f) => f.tests))];
  const base = runTests(scratch, tests);
  console.log(`baseline (no fault): ${base.ok ? 'tests pass' : 'TESTS FAIL'} in ${base.secs.toFixed(1)} s`);
  if (!base.ok) {
    console.log(base.out.slice(-4000));
    process.exit(1);
  }

  const rows = [];
  for (const fault of faults) {
    const file = path.join(scratch, fault.file);
    const original = readFileSync(file, 'utf8');
    const count = original.split(fault.find).length - 1;
    if (count !== 1) {
      rows.push({ fault, caught: 'n/a', detail: `the text to replace occurs ${count} times in ${fault.file}` });
      exit = 1;
      continue;
    }
    try {
      writeFileSync(file, original.replace(fault.find, fault.replace));
      const r = runTests(scratch, fault.tests);
      rows.push({ fault, caught: r.ok ? 'no' : 'yes', detail: r.ok ? 'all tests pass' : `${r.failedTests ?? '?'} failing test(s)`, secs: r.secs });
      if (r.ok) exit = 1;
    } finally {
      writeFileSync(file, original);
    }
  }

  const w = Math.max(...rows.map((r) => r.fault.name.length), 5);
  console.log('');
  console.log(`| ${'fault'.padEnd(w)} | file | caught | tests |`);
  console.log(`|${'-'.repeat(w + 2)}|---|---|---|`);
  for (const r of rows) console.log(`| ${r.fault.name.padEnd(w)} | ${r.fault.file.replace('server/src/engine/', '')} | ${r.caught} | ${r.detail} |`);
  const caught = rows.filter((r) => r.caught === 'yes').length;
  console.log(`\n${caught} of ${rows.length} faults caught (tests: ${tests.map((t) => path.basename(t)).join(', ')})`);
} finally {
  if (keep) console.log(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
process.exit(exit);
