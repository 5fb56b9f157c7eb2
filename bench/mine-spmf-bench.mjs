// `braid mine --closed` vs SPMF's BIDE+ (issue 14 item 7), end to end: each tool is a fresh
// process reading the same SPMF file and writing its closed patterns; wall time (JVM start and
// node start included), max RSS (GNU time), and whether the two pattern sets are identical.
// Figures are printed, never asserted. Runs alternate braid / SPMF (paired); a case takes the best
// of 7 runs under 0.5 s, of 3 under 2 s, else one run.
//
// SPMF (GPL-3) is not part of this repository. The bench compiles only BIDE+ and what it needs
// (ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/*, the Itemset and MemoryLogger classes)
// with javac into bench/out/spmf/ (gitignored), from SPMF_SRC: a source tree holding ca/pfv/spmf,
// or a git directory of it (e.g. a mirror of github.com/philfv9/spmf-software). SPMF's sample
// files are read from there at bench time. Without SPMF_SRC it looks for /work/.mirror/*spmf*,
// and without SPMF it says so and times braid alone.
//   SPMF_SRC=/path/to/spmf node bench/mine-spmf-bench.mjs [--quick]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePatternLines } from '../server/src/engine/mining/sequenceDb.ts';
import { mulberry32 as rng } from '../server/src/engine/seededRandom.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench/out/mine');
mkdirSync(out, { recursive: true });
const quick = process.argv.includes('--quick');
// NODE_EXTRA_CA_CERTS makes node read and parse a CA bundle at every start (~35 ms on the development
// machine, where it is set for every process): a setting of the machine, not of braid, which opens no
// TLS connection. braid runs without it unless --inherit-env is given; the bench says which.
const inheritEnv = process.argv.includes('--inherit-env');
const braidEnv = { ...process.env };
if (!inheritEnv) delete braidEnv.NODE_EXTRA_CA_CERTS;
const braidCli = path.join(root, 'bin/braid.js');
if (!existsSync(path.join(root, 'dist/braid.js'))) {
  console.log('braid is not built: run `npm run build` first');
  process.exit(1);
}

// ---------- SPMF: find, extract what BIDE+ needs, compile ----------
const SPMF_FILES = [
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/AlgoBIDEPlus.java',
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/SequenceDatabase.java',
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/PseudoSequence.java',
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/Pair.java',
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/SequentialPattern.java',
  'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/SequentialPatterns.java',
  'ca/pfv/spmf/patterns/itemset_list_integers_without_support/Itemset.java',
  'ca/pfv/spmf/tools/MemoryLogger.java',
];

/** A reader of files of the SPMF tree (plain folder or git directory), or null. */
function spmfSource() {
  const candidates = [];
  if (process.env.SPMF_SRC) candidates.push(process.env.SPMF_SRC);
  const mirrors = '/work/.mirror';
  if (existsSync(mirrors)) for (const d of readdirSync(mirrors)) if (/spmf/i.test(d)) candidates.push(path.join(mirrors, d, 'repo'), path.join(mirrors, d));
  for (const c of candidates) {
    if (existsSync(path.join(c, SPMF_FILES[0]))) return { where: c, read: (f) => (existsSync(path.join(c, f)) ? readFileSync(path.join(c, f)) : null) };
    const git = spawnSync('git', ['--git-dir', c, 'cat-file', '-e', `HEAD:${SPMF_FILES[0]}`]);
    if (git.status === 0)
      return {
        where: `${c} (git)`,
        read: (f) => {
          const r = spawnSync('git', ['--git-dir', c, 'show', `HEAD:${f}`], { maxBuffer: 1 << 28 });
          return r.status === 0 ? r.stdout : null;
        },
      };
  }
  return null;
}

function hasCommand(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0;
}

const src = spmfSource();
const classes = path.join(root, 'bench/out/spmf/classes');
let spmf = null;
if (!src) console.log('SPMF source not found (set SPMF_SRC to a checkout of SPMF): timing braid alone');
else if (!hasCommand('javac', ['-version'])) console.log('javac not found: timing braid alone');
else {
  const srcDir = path.join(root, 'bench/out/spmf/src');
  rmSync(srcDir, { recursive: true, force: true });
  for (const f of SPMF_FILES) {
    const text = src.read(f);
    if (!text) throw new Error(`SPMF source at ${src.where} has no ${f}`);
    mkdirSync(path.dirname(path.join(srcDir, f)), { recursive: true });
    writeFileSync(path.join(srcDir, f), text);
  }
  const driver = path.join(root, 'bench/spmf/BraidBidePlusDriver.java');
  rmSync(classes, { recursive: true, force: true });
  mkdirSync(classes, { recursive: true });
  const r = spawnSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', classes, '-sourcepath', srcDir, driver, ...SPMF_FILES.map((f) => path.join(srcDir, f))], { encoding: 'utf8' });
  if (r.status !== 0) console.log(`javac failed, timing braid alone:\n${r.stderr}`);
  else {
    spmf = true;
    console.log(`SPMF BIDE+ compiled from ${src.where} (${SPMF_FILES.length} files + bench/spmf/BraidBidePlusDriver.java) into bench/out/spmf/classes`);
  }
}
const gnuTime = existsSync('/usr/bin/time') && hasCommand('/usr/bin/time', ['-f', '%M', 'true']) ? '/usr/bin/time' : null;
if (!gnuTime) console.log('GNU time not found (Debian package `time`): max RSS not measured');

// ---------- datasets ----------

/** Writes sequences (arrays of items ≥ 1) as SPMF text, in chunks. */
function writeDb(file, count, make) {
  const parts = [];
  let chunk = '';
  for (let k = 0; k < count; k++) {
    chunk += make(k).join(' -1 ') + ' -1 -2\n';
    if (chunk.length > 1 << 20) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  writeFileSync(file, parts.join(''));
}

/** Sparse: uniform items over an alphabet of 5,000, 20 planted patterns of length 5, each in ~30% of the sequences. */
function sparse(file, n, len, seed = 1) {
  const alphabet = 5000;
  const r = rng(seed);
  const planted = Array.from({ length: 20 }, () => Array.from({ length: 5 }, () => 1 + Math.floor(r() * alphabet)));
  writeDb(file, n, () => {
    const s = Array.from({ length: len }, () => 1 + Math.floor(alphabet * r()));
    for (const p of planted) {
      if (r() >= 0.3) continue;
      let at = 0;
      for (const it of p) {
        at = Math.min(s.length - 1, at + Math.floor(r() * (len / 5)));
        s[at] = it;
      }
    }
    return s;
  });
}

/** Dense: uniform items over a small alphabet. */
function dense(file, n, len, alphabet, seed = 7) {
  const r = rng(seed);
  writeDb(file, n, () => Array.from({ length: len }, () => 1 + Math.floor(r() * alphabet)));
}

/** SPMF's sample file, with every itemset of several items flattened to one item per itemset (braid mines single items). */
function flattened(text) {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() && !/^[#%@]/.test(l.trim()))
    .map((l) => l.trim().split(/\s+/).filter((t) => t !== '-1').map((t) => (t === '-2' ? t : `${t} -1`)).join(' '))
    .join('\n') + '\n';
}

/** A transaction file (one line of items per transaction) as sequences in line order. */
function transactionsAsSequences(text) {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() && !/^[#%@]/.test(l.trim()))
    .map((l) => l.trim().split(/\s+/).map((t) => `${t} -1`).join(' ') + ' -2')
    .join('\n') + '\n';
}

const datasets = [];
function fromSpmf(name, f, minsup, transform = (b) => b) {
  if (!src) return;
  const bytes = src.read(f);
  if (!bytes) return console.log(`(SPMF has no ${f})`);
  const file = path.join(out, `spmf-${name}`);
  writeFileSync(file, transform(bytes.toString('utf8')));
  datasets.push({ name: `SPMF ${name}`, file, minsup });
}
fromSpmf('small.txt', 'ca/pfv/spmf/algorithms/sequentialpatterns/prefixspan/small.txt', 2);
fromSpmf('contextPrefixSpan.txt (flattened)', 'ca/pfv/spmf/test/contextPrefixSpan.txt', 2, flattened);
fromSpmf('contextCloSpan.txt (flattened)', 'ca/pfv/spmf/test/contextCloSpan.txt', 2, flattened);
fromSpmf('dataVMSP.txt', 'ca/pfv/spmf/test/dataVMSP.txt', 17);
fromSpmf('kosarak10k.txt (as sequences)', 'ca/pfv/spmf/test/kosarak10k.txt', 100, transactionsAsSequences);
const synth = (name, make, minsup) => {
  const file = path.join(out, name.replace(/[^\w.-]+/g, '_') + '.txt');
  if (!existsSync(file)) make(file);
  datasets.push({ name, file, minsup });
};
synth('sparse 10^5 × 20, 5,000 items', (f) => sparse(f, 100000, 20), 10000);
if (!quick) synth('sparse 10^4 × 100, 5,000 items', (f) => sparse(f, 10000, 100), 1000);
synth('dense 10^4 × 20, 20 items', (f) => dense(f, 10000, 20, 20), 1000);
synth('dense 1,000 × 30, 20 items', (f) => dense(f, 1000, 30, 20), 100);
if (!quick) synth('dense 1,000 × 40, 20 items', (f) => dense(f, 1000, 40, 20), 100);

// ---------- runs ----------
function timed(cmd, args, env = process.env) {
  const full = gnuTime ? [gnuTime, ['-f', '@@RSS %M %U %S', cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', maxBuffer: 1 << 26, env });
  const ms = performance.now() - t0;
  const m = /@@RSS (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  return {
    ms,
    rssMiB: m ? Number(m[1]) / 1024 : NaN,
    cpuMs: m ? (Number(m[2]) + Number(m[3])) * 1000 : NaN,
    ok: r.status === 0,
    err: (r.stderr ?? '').replace(/@@RSS .*\n?/, '').trim(),
  };
}

const key = (file) =>
  parsePatternLines(readFileSync(file, 'utf8'))
    .map((p) => `${p.items.join(' ')}:${p.support}`)
    .sort()
    .join('\n');

console.log('');
console.log('`braid mine --closed --spmf` vs SPMF BIDE+ (java, JVM start included), end to end; minsup as a count for both');
console.log('wall ms = best run; CPU ms = user + sys of that run (less sensitive to a loaded machine)');
if (process.env.NODE_EXTRA_CA_CERTS)
  console.log(
    inheritEnv
      ? `braid runs with this machine's NODE_EXTRA_CA_CERTS (node loads ${process.env.NODE_EXTRA_CA_CERTS} at every start)`
      : `braid runs without this machine's NODE_EXTRA_CA_CERTS (it makes node load ${process.env.NODE_EXTRA_CA_CERTS} at every start, ~35 ms; braid opens no TLS connection); --inherit-env keeps it`,
  );
console.log('dataset                                    MiB   seqs      minsup  patterns   braid ms  SPMF ms  braid/SPMF  braid CPU ms  SPMF CPU ms  braid RSS MiB  SPMF RSS MiB  output');
for (const d of datasets) {
  const mib = statSync(d.file).size / 2 ** 20;
  const seqs = readFileSync(d.file, 'utf8').split('\n').filter((l) => l.trim()).length;
  const bOut = path.join(out, 'braid.out');
  const sOut = path.join(out, 'spmf.out');
  let b;
  let s;
  for (let k = 0; k < 7; k++) {
    const bb = timed(process.execPath, [braidCli, 'mine', '--input', d.file, '--minsup', String(d.minsup), '--closed', '--spmf', '--output', bOut], braidEnv);
    if (!bb.ok) throw new Error(`braid mine failed on ${d.name}: ${bb.err}`);
    if (!b || bb.ms < b.ms) b = bb;
    if (spmf) {
      const ss = timed('java', ['-cp', classes, 'BraidBidePlusDriver', d.file, sOut, String(d.minsup)]);
      if (!ss.ok) throw new Error(`SPMF failed on ${d.name}: ${ss.err}`);
      if (!s || ss.ms < s.ms) s = ss;
    }
    // best of 7 under 0.5 s (start-up dominates), of 3 under 2 s, else one run each
    const slowest = Math.max(b.ms, s ? s.ms : 0);
    if (slowest > 2000 || (k >= 2 && slowest > 500)) break;
  }
  const bKey = key(bOut);
  const patterns = bKey ? bKey.split('\n').length : 0;
  const same = spmf ? (bKey === key(sOut) ? 'identical' : 'DIFFERS') : '-';
  const f = (x, w, dp = 0) => (Number.isFinite(x) ? x.toFixed(dp) : '-').padStart(w);
  console.log(
    `${d.name.padEnd(40)}${f(mib, 6, 1)}  ${String(seqs).padStart(6)}  ${String(d.minsup).padStart(8)}  ${String(patterns).padStart(8)}  ${f(b.ms, 9)}  ${s ? f(s.ms, 7) : '      -'}  ${s ? f(b.ms / s.ms, 10, 2) : '         -'}  ${f(b.cpuMs, 12)}  ${s ? f(s.cpuMs, 11) : '          -'}  ${f(b.rssMiB, 13)}  ${s ? f(s.rssMiB, 12) : '           -'}  ${same}`,
  );
}
