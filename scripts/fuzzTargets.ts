/**
 * The structured targets of the fuzz campaign (scripts/fuzz.ts; issue 31, and issue 39 item 7):
 * each target has an unmutated input, a mutation (a pure function of the random numbers given) and
 * an oracle that uses the input the way Braid does. An input is either refused with a message that
 * says why, or used — and then nothing throws, nothing grows past what the input can hold, and
 * discovery stays within its linear step budget. A check that finds a problem throws an Error whose
 * message says what is wrong; that is a crash of the campaign.
 *
 * Targets: summaries (shards), workspace snapshots, noise plans (as the hover reads them), recording
 * manifests (recording.json), verdict files (.braid/confirm/verdicts.json), excluded-runs files
 * (.braid/excluded-runs.json), forcing plans (a plan's `force` section, as braid record --plan reads
 * it), Java and JS/TS test sources (test discovery, the lenses, the Testing view) and inline source
 * maps (the Node.js recorder's transform). test/unit/fuzzTargets.test.ts runs each for a fixed
 * number of inputs at a fixed seed, so `npm test` exercises every oracle.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as zlib from 'node:zlib';
import { transformSync } from 'esbuild';
import { Analyzer, type PatternAccess, type RankedPattern } from '../server/src/engine/analysis';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { analyzeInputsRanked } from '../server/src/engine/summary/workspaceAnalysis';
import { decodeWorkspaceSnapshot, encodeWorkspaceSnapshot } from '../server/src/engine/summary/workspaceSnapshot';
import { parsePlan, triggerHoverLine } from '../server/src/lsp/triggerPointState';
import { parseNoisePlan } from '../server/src/engine/noise/noisePlanFile';
import { forcingPlan } from '../server/src/engine/confirm/forcingPlan';
import { manifestFailOnOutput, readRecordingManifest, RECORDING_MANIFEST } from '../server/src/recorder/runs/recordingManifest';
import { checkedConfirmation, ConfirmationStore, VERDICTS_FILE } from '../server/src/lsp/confirmState';
import { parseExcludedRuns } from '../server/src/workspace/excludedRuns';
import { findTests } from '../server/src/recorder/java/testDiscovery';
import { findJsTests, scanJs } from '../server/src/recorder/node/jsTestDiscovery';
import { DiscoveryBudget, STEPS_PER_CHAR, BASE_STEPS } from '../server/src/recorder/discovery/discoveryBudget';
import { testItemsOfText } from '../server/src/lsp/testItems';
import { testCodeLenses } from '../server/src/lsp/testLenses';
import { InlineSourceMap } from '../server/src/recorder/node/inlineSourceMap';
import { instrument } from '../server/src/recorder/node/transform';
import { mutateJson } from '../test/helpers/jsonMutator';

const root = path.resolve(__dirname, '..');

export const TARGETS = ['summary', 'snapshot', 'plan', 'manifest', 'verdicts', 'excludedRuns', 'forcingPlan', 'javaTests', 'jsTests', 'sourceMap'] as const;
export type Target = (typeof TARGETS)[number];

export interface TargetInput {
  /** a file name for the input (its extension says what it is) */
  name: string;
  data: Buffer;
}

/** A secret the manifest and verdict bases carry: a message about a broken file must never quote it. */
const SECRET = 'tok3n-5ecret-d0-not-print';

/** The unmutated inputs (made once). */
interface Bases {
  summary: string;
  snapshot: Buffer;
  plan: string;
  manifest: string;
  verdicts: string;
  excludedRuns: string;
  forcingPlan: string;
  javaTests: string[];
  jsTests: { name: string; text: string }[];
  sourceMap: string;
}
let bases: Bases | undefined;

async function basesOf(): Promise<Bases> {
  if (bases) return bases;
  const a = new Analyzer();
  const dir = path.join(root, 'test/fixtures/traces/tablelog');
  for (const f of readdirSync(dir).sort()) await a.addTrace(path.join(dir, f));
  const trigger = { rank: 1, id: 'p/A.run()V@5', file: 'A.java', line: 10, method: 'p.A.run', failWith: 0.61, failWithout: 0.02, pValue: 3e-9, score: 12.5 };
  const plan = {
    format: 'braid-noise-plan',
    version: 1,
    name: 'fuzz',
    command: ['java', '-cp', 'out', 'p.A'],
    noise: { kind: 'sleep', ms: 5 },
    points: [{ id: trigger.id, probability: 1 }],
    triggers: [trigger, { ...trigger, rank: 2, line: 11, together: 2 }],
    origin: { tool: 'braid pinpoint', created: '2026-11-27T00:00:00Z', runs: 100 },
  };
  const manifest = {
    format: 'braid-recording',
    version: 1,
    command: ['java', '-cp', 'out', 'bank.BankTest'],
    cwd: root,
    name: 'bank',
    runs: 30,
    noise: 0.1,
    seed: 7,
    include: ['bank.*'],
    exclude: ['bank.util.*'],
    timeoutSeconds: 60,
    failOnOutput: 'Exception in thread',
    plan: { name: SECRET, file: path.join(root, 'plans/p.json') },
    prepare: [{ command: ['javac', '-d', 'out', 'Bank.java'], cwd: root }],
    startedAt: '2026-11-28T10:00:00.000Z',
  };
  const group = { runs: 30, failed: 21, forcedOk: 28 };
  const verdicts = {
    format: 'braid-verdicts',
    version: 1,
    verdicts: {
      'k-P1': { verdict: 'confirmed', reason: `forcing the order made 21 of 30 runs fail ${SECRET}`, pValue: 1e-6, forced: group, opposite: { runs: 30, failed: 0, forcedOk: 30 }, control: { runs: 30, failed: 3 }, failingTrace: 'traces/run-3.trace.jsonl', plan: 'p.json', at: '2026-11-28T10:00:00Z' },
      'k-P2': { verdict: 'not forced', reason: 'the order could not be imposed', pValue: 1, forced: { runs: 30, failed: 0, forcedOk: 0 } },
    },
  };
  const access = (thread: 1 | 2, type: 'R' | 'W', line: number): PatternAccess => ({ thread, type, variable: 'bank.Bank$Account.balance', file: 'bank/Bank.java', line, method: 'bank.Bank$Account.deposit', stack: [] });
  const pattern: RankedPattern = { rank: 1, score: 1, id: 'P7', kind: 'RWW', category: 'order', failed: 10, passed: 0, accesses: [access(1, 'R', 11), access(2, 'W', 13), access(1, 'W', 13)], key: 'k-P7', pValue: 0, group: 'cause', tie: 1, tieSize: 1, index: 0 };
  const javaTests = [
    `package bank;\n\nimport org.junit.jupiter.api.Nested;\nimport org.junit.jupiter.api.Test;\nimport org.junit.jupiter.params.ParameterizedTest;\n\nclass AccountTest {\n  @Test\n  void transfers() { String s = "class X { @Test void no() {} }"; char c = '{'; }\n  // @Test void commented() {}\n  @ParameterizedTest @ValueSource(ints = {1, 2})\n  public <T extends Comparable<T>> void each(int n) {}\n  @Nested\n  class Deposits {\n    @Test\n    void concurrent() { Runnable r = () -> { }; }\n    /* } */\n  }\n  static String text = """\n    @Test void inText() {}\n    """;\n}\n`,
    `package p;\nimport org.testng.annotations.Test;\n@Test\npublic class AllTests {\n  public void a() {}\n  @Test(groups = {"x"}) public void b() {}\n  enum E { A, B; }\n  record R(int x) {}\n}\n`,
    `import org.junit.Test;\npublic class Old {\n  @org.junit.Test public void one() {}\n  @Test(expected = IllegalStateException.class)\n  public void two() throws Exception { if (x) { for (;;) {} } }\n  interface I { void m(); }\n}\n`,
  ];
  const jsTests = [
    { name: 'test/inventory.test.ts', text: "import { describe, test, it } from 'node:test';\nimport assert from 'node:assert';\n\ndescribe('inventory', () => {\n  test('adds `twice`', async (t) => {\n    const re = /[/]\\/(x)/g; const x = a / b / c;\n    await t.test('sub', () => {});\n    assert.equal(`${1 + 2}`, '3');\n  });\n  it.only(\"removes\", () => {});\n  test.skip('skipped', () => {});\n  describe.each([[1]])('each %s', () => { it('in each', () => {}); });\n});\n" },
    { name: 'src/view.spec.tsx', text: "import { describe, it, expect } from 'vitest';\nconst C = () => <p>Don't {'}'}</p>;\ndescribe('view', () => {\n  it.concurrent('renders', () => { expect(<C />).toBeTruthy(); });\n  it(`template ${'x'}`, () => {});\n  // it('commented', () => {})\n});\n" },
    { name: 'test/legacy.js', text: "const { suite, test } = require('mocha');\nsuite('legacy', function () {\n  test('works', function (done) { done(); });\n  specify('also', () => {});\n  context('inner', () => { it('deep', () => {}); });\n});\n" },
  ];
  const ts = "interface Account { balance: number }\nexport function deposit(a: Account, n: number): void {\n  const before: number = a.balance;\n  a.balance = before + n;\n}\nexport const accounts: Map<string, Account> = new Map();\naccounts.set('x', { balance: 0 });\n";
  const sourceMap = transformSync(ts, { loader: 'ts', sourcemap: 'inline', sourcefile: 'src/bank.ts', format: 'cjs' }).code;
  bases = {
    summary: JSON.stringify(a.toSummary()),
    snapshot: Buffer.concat(encodeWorkspaceSnapshot(a, [])),
    plan: JSON.stringify(plan),
    manifest: JSON.stringify(manifest),
    verdicts: JSON.stringify(verdicts),
    excludedRuns: JSON.stringify({ format: 'braid-excluded-runs', version: 1, runs: ['traces/run-1.trace.jsonl', 'traces/run-2.trace.jsonl.gz', 'sub/dir/run-3.trace.jsonl'] }),
    forcingPlan: JSON.stringify(forcingPlan('BankTest P7 pattern', pattern, 'pattern', {}, ['java', 'bank.BankTest'])),
    javaTests,
    jsTests,
    sourceMap,
  };
  return bases;
}

/** Makes the unmutated inputs (an analysis of the Table 5 traces, an esbuild transform) before the first case. */
export async function prepareTargets(): Promise<void> {
  await basesOf();
}

/** A snapshot with its header JSON mutated (kept within the header's room) and the checksum recomputed, or bytes flipped. */
function mutateSnapshot(good: Buffer, r: () => number): Buffer {
  const b = Buffer.from(good);
  const room = b.readUInt32LE(8);
  if (r() < 0.7) {
    const header = b.toString('utf8', 16, 16 + room).trimEnd();
    const mutated = mutateJson(header, r);
    if (Buffer.byteLength(mutated) <= room) {
      b.fill(0x20, 16, 16 + room);
      b.write(mutated, 16, 'utf8');
    }
  } else {
    const flips = 1 + Math.floor(r() * 8);
    for (let k = 0; k < flips; k++) b[16 + room + Math.floor(r() * (b.length - 16 - room))] ^= 1 << Math.floor(r() * 8);
  }
  const crc = (zlib as unknown as { crc32: (d: Uint8Array, v?: number) => number }).crc32(b.subarray(16), 0);
  b.writeUInt32LE(crc >>> 0, 12);
  return b;
}

/** A JSON file mutated as a document (mostly), or as text: cut off, bytes flipped, or a piece repeated (a syntax error). */
function mutateJsonFile(text: string, r: () => number): string {
  const x = r();
  if (x < 0.75) return mutateJson(text, r);
  if (x < 0.85) return text.slice(0, Math.floor(r() * text.length));
  const chars = text.split('');
  if (x < 0.93) {
    for (let k = 0, n = 1 + Math.floor(r() * 6); k < n; k++) chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 128));
    return chars.join('');
  }
  const at = Math.floor(r() * text.length);
  return text.slice(0, at) + text.slice(at, at + 1 + Math.floor(r() * 20)).repeat(1 + Math.floor(r() * 5000)) + text.slice(at);
}

/** Tokens that stress a lexical scan: nesting, literals left open, annotations, test calls. */
const SOURCE_TOKENS = ['{', '}', '(', ')', '[', ']', 'class A{', 'class B { ', '@Test ', '@Nested ', '@ParameterizedTest(', 'void t() {}', "describe('a', () => {", "it('b', () => {});", 'test(`${', '`', '${', '"', "'", '/*', '*/', '//', '/[', '/', '\\', '\n', '\r', '\u2028', '<p>', "'\n", ' ', 'org.junit.jupiter ', ';', '=', '.only', '.skip', 'record R', 'enum E {', '"""', '#!', '\0', '\uFFFF'];

/** A source text mutated: a token repeated (up to 5,000 times), a piece deleted, duplicated or moved, characters replaced. */
export function mutateSource(text: string, r: () => number): string {
  let t = text;
  const edits = 1 + Math.floor(r() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(r() * (t.length + 1));
    const op = Math.floor(r() * 5);
    if (op <= 1) {
      const tok = SOURCE_TOKENS[Math.floor(r() * SOURCE_TOKENS.length)];
      const times = r() < 0.5 ? 1 + Math.floor(r() * 5) : 1 + Math.floor(r() * 5000);
      t = t.slice(0, at) + tok.repeat(times) + t.slice(at);
    } else if (op === 2) t = t.slice(0, at) + t.slice(at + Math.floor(r() * 40));
    else if (op === 3) {
      const piece = t.slice(at, at + 1 + Math.floor(r() * 60));
      t = t.slice(0, at) + piece.repeat(1 + Math.floor(r() * (r() < 0.5 ? 3 : 2000))) + t.slice(at);
    } else {
      const chars = t.split('');
      for (let k = 0, n = 1 + Math.floor(r() * 8); k < n && chars.length; k++) chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 0x3000));
      t = chars.join('');
    }
  }
  return t;
}

/** An inline source map with its JSON mutated (or its base64 cut or flipped), the code around it kept. */
function mutateSourceMap(code: string, r: () => number): string {
  const m = /(\/\/# sourceMappingURL=data:application\/json;base64,)([A-Za-z0-9+/=]+)\s*$/.exec(code);
  if (!m) throw new Error('the source-map base has no inline map');
  const before = code.slice(0, m.index);
  if (r() < 0.8) {
    const json = Buffer.from(m[2], 'base64').toString('utf8');
    const doc = JSON.parse(json) as { mappings?: unknown };
    let mutated: string;
    if (r() < 0.4 && typeof doc.mappings === 'string') {
      // the mappings themselves: VLQ characters replaced, repeated or cut
      doc.mappings = mutateSource(doc.mappings, r).replace(/[^A-Za-z0-9+/,;]/g, ';');
      mutated = JSON.stringify(doc);
    } else mutated = mutateJson(json, r);
    return `${before}${m[1]}${Buffer.from(mutated).toString('base64')}\n`;
  }
  const b64 = m[2].split('');
  for (let k = 0, n = 1 + Math.floor(r() * 6); k < n; k++) b64[Math.floor(r() * b64.length)] = 'ABCxyz09+/='[Math.floor(r() * 11)];
  return `${before}${m[1]}${b64.join('').slice(0, r() < 0.3 ? Math.floor(r() * b64.length) : undefined)}\n`;
}

/** The mutated input of a target. */
export async function targetInput(target: Target, r: () => number): Promise<TargetInput> {
  const b = await basesOf();
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  switch (target) {
    case 'summary':
      return { name: 'f.braid-summary.json', data: Buffer.from(mutateJson(b.summary, r)) };
    case 'snapshot':
      return { name: 'f.braid-snapshot', data: mutateSnapshot(b.snapshot, r) };
    case 'plan':
      return { name: 'f.plan.json', data: Buffer.from(mutateJson(b.plan, r)) };
    case 'manifest':
      return { name: RECORDING_MANIFEST, data: Buffer.from(mutateJsonFile(b.manifest, r)) };
    case 'verdicts':
      return { name: 'verdicts.json', data: Buffer.from(mutateJsonFile(b.verdicts, r)) };
    case 'excludedRuns':
      return { name: 'excluded-runs.json', data: Buffer.from(mutateJsonFile(b.excludedRuns, r)) };
    case 'forcingPlan':
      return { name: 'f.force.plan.json', data: Buffer.from(mutateJsonFile(b.forcingPlan, r)) };
    case 'javaTests':
      return { name: 'FuzzTest.java', data: Buffer.from(mutateSource(pick(b.javaTests), r)) };
    case 'jsTests': {
      const base = pick(b.jsTests);
      return { name: base.name, data: Buffer.from(mutateSource(base.text, r)) };
    }
    case 'sourceMap':
      return { name: 'bank.js', data: Buffer.from(mutateSourceMap(b.sourceMap, r)) };
  }
}

const fail = (what: string): never => {
  throw new Error(what);
};

/** The discovery of a test source: every entry inside the text, the default budget enough, the lenses and the Testing view's items made. */
function checkDiscovery(uri: string, text: string): 'accepted' | 'rejected' {
  const lines = text.split(/\r\n|\r|\n/).length;
  const budget = new DiscoveryBudget(Infinity);
  const found = uri.endsWith('.java') ? findTests(text, budget) : findJsTests(text, scanJs(text, budget), budget);
  const limit = BASE_STEPS + STEPS_PER_CHAR * text.length;
  if (budget.steps > limit) fail(`discovery took ${budget.steps} steps on ${text.length} characters (the budget is ${limit})`);
  for (const f of found) if (!(f.line >= 0 && f.line < lines + 1 && f.character >= 0)) fail(`an entry at line ${f.line}, character ${f.character} of a text of ${lines} lines`);
  const logged: string[] = [];
  const items = testItemsOfText(uri, text);
  const lenses = testCodeLenses(uri, text, (m) => logged.push(m));
  if (logged.length) fail(`a lens request logged: ${logged[0]}`);
  const size = JSON.stringify(items).length + JSON.stringify(lenses).length;
  if (size > 200 * text.length + 100_000) fail(`${size} characters of items and lenses from a text of ${text.length}`);
  return found.length ? 'accepted' : 'rejected';
}

/**
 * Uses one input as Braid does (see the file's comment). `dir` is a scratch folder of the caller's
 * (emptied here). Throws an Error saying what is wrong when the input finds a problem.
 */
export async function checkTarget(target: Target, input: TargetInput, dir: string): Promise<'accepted' | 'rejected'> {
  const { data } = input;
  const text = data.toString('utf8');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  switch (target) {
    case 'summary': {
      const at = path.join(dir, input.name);
      writeFileSync(at, data);
      const { result } = await analyzeInputsRanked([at]);
      if (result.executions.total === 0) {
        // refused with an error — or a valid summary of no runs
        let empty = false;
        try {
          const v = JSON.parse(text);
          empty = Array.isArray(v.runs) && v.runs.length === 0;
        } catch {
          empty = false;
        }
        if (!empty && !result.diagnostics.some((d) => d.severity === 'error')) fail('summary skipped without an error');
        return 'rejected';
      }
      explainBugs(undefined, result);
      JSON.stringify(result.patterns.slice(0, 50));
      return 'accepted';
    }
    case 'snapshot': {
      let analyzer: Analyzer;
      try {
        analyzer = decodeWorkspaceSnapshot(data, {}).analyzer;
      } catch (e) {
        if (!(e instanceof Error) || !e.message) fail(`snapshot refused without a message: ${String(e)}`);
        return 'rejected';
      }
      const result = analyzer.rank();
      explainBugs(analyzer, result);
      JSON.stringify(result.patterns.slice(0, 50));
      return 'accepted';
    }
    case 'plan': {
      let parsed: ReturnType<typeof parsePlan>;
      try {
        parsed = parsePlan(input.name, text);
      } catch (e) {
        if (!(e instanceof Error) || !e.message) fail(`plan refused without a message: ${String(e)}`);
        return 'rejected';
      }
      const { plan, problems } = parsed;
      for (const t of plan.triggers) {
        const line = triggerHoverLine(t, plan);
        if (line.length > 100_000) fail(`a hover line of ${line.length} characters from a plan of ${data.length} bytes`);
      }
      return plan.triggers.length || !problems.length ? 'accepted' : 'rejected';
    }
    case 'manifest': {
      writeFileSync(path.join(dir, RECORDING_MANIFEST), data);
      const { manifest, problem } = await readRecordingManifest(dir);
      if (!manifest) {
        if (!problem) fail('a manifest refused without a problem');
        if (!problem!.includes(RECORDING_MANIFEST)) fail(`the problem does not name the file: ${problem}`);
        if (problem!.includes('5ecret')) fail(`the problem quotes the file's text: ${problem}`);
        return 'rejected';
      }
      if (!Array.isArray(manifest.command) || !manifest.command.length || !manifest.command.every((c) => typeof c === 'string')) fail('an accepted manifest without a command of strings');
      if (!(Number.isFinite(manifest.timeoutSeconds) && manifest.timeoutSeconds >= 0)) fail(`an accepted manifest with timeoutSeconds ${manifest.timeoutSeconds}`);
      for (const p of [...manifest.include, ...manifest.exclude]) if (typeof p !== 'string') fail('an include/exclude pattern that is not a string');
      // the output pattern is used on every run's output: it compiles (or was refused) and runs on hostile output
      const re = manifestFailOnOutput(manifest);
      re?.test(`${'a'.repeat(20_000)}!${'('.repeat(5_000)}\n`.repeat(2));
      return 'accepted';
    }
    case 'verdicts': {
      const folder = path.join(dir, 'ws');
      mkdirSync(path.join(folder, path.dirname(VERDICTS_FILE)), { recursive: true });
      writeFileSync(path.join(folder, VERDICTS_FILE), data);
      const store = new ConfirmationStore(folder);
      const problem = await store.load();
      if (problem !== undefined) {
        if (!problem.includes('verdicts.json')) fail(`the problem does not name the file: ${problem}`);
        if (problem.includes('5ecret')) fail(`the problem quotes the file's text: ${problem}`);
      }
      for (const key of ['k-P1', 'k-P2']) {
        const v = store.get(key);
        if (!v) continue;
        const again = checkedConfirmation(JSON.parse(JSON.stringify(v)));
        if (!again || JSON.stringify(again) !== JSON.stringify(v)) fail(`a verdict kept that does not check again: ${JSON.stringify(v).slice(0, 300)}`);
        if (v.reason.length > 4096) fail(`a reason of ${v.reason.length} characters kept`);
      }
      for (const t of store.failingTraces()) if (typeof t !== 'string') fail('a failing trace that is not a string');
      return store.size > 0 ? 'accepted' : 'rejected';
    }
    case 'excludedRuns': {
      const runs = parseExcludedRuns(text);
      for (const r of runs) {
        if (typeof r !== 'string' || r.startsWith('../') || r === '..' || path.posix.isAbsolute(r) || /^[A-Za-z]:/.test(r) || r.includes('\0')) fail(`an excluded run outside its folder kept: ${JSON.stringify(r).slice(0, 200)}`);
      }
      if (runs.length > 100_000) fail(`${runs.length} excluded runs kept`);
      return runs.length ? 'accepted' : 'rejected';
    }
    case 'forcingPlan': {
      let plan;
      try {
        plan = parseNoisePlan(text, input.name);
      } catch (e) {
        if (!(e instanceof Error) || !e.message) fail(`a forcing plan refused without a message: ${String(e)}`);
        if (!(e as Error).message.includes(input.name)) fail(`the refusal does not name the file: ${(e as Error).message}`);
        if ((e as Error).message.length > 2000) fail(`a refusal of ${(e as Error).message.length} characters`);
        return 'rejected';
      }
      const force = plan.force;
      if (force) {
        const n = force.accesses.length;
        for (const w of force.waits) {
          for (const x of [w.at, w.for, ...(w.since !== undefined ? [w.since] : []), ...(w.needs ?? [])]) if (!(Number.isInteger(x) && x >= 0 && x < n)) fail(`an accepted wait names access ${x} of ${n}`);
        }
      }
      // the editor reads the same file for its hover
      try {
        parsePlan(input.name, text);
      } catch (e) {
        if (!(e instanceof Error) || !e.message) fail(`the hover refused a plan without a message: ${String(e)}`);
      }
      return 'accepted';
    }
    case 'javaTests':
      return checkDiscovery('file:///ws/src/test/java/FuzzTest.java', text);
    case 'jsTests':
      return checkDiscovery(`file:///ws/${input.name}`, text);
    case 'sourceMap': {
      const map = new InlineSourceMap(text);
      const lines = text.split('\n').length;
      for (let l = 0; l < lines + 2; l++) {
        for (const c of [0, 3, 17, 1000]) {
          const at = map.map(l, c);
          if (!(Number.isInteger(at.line) && at.line >= 0)) fail(`line ${l} column ${c} maps to line ${at.line}`);
          if (at.source !== undefined && typeof at.source !== 'string') fail('a source that is not a string');
        }
      }
      let result;
      try {
        result = instrument(text, { file: 'src/bank.js', module: false });
      } catch (e) {
        if (e instanceof SyntaxError) return 'rejected';
        throw e;
      }
      if (typeof result.code !== 'string' || !result.code.length) fail('the transform gave no code');
      return map.active ? 'accepted' : 'rejected';
    }
  }
}
