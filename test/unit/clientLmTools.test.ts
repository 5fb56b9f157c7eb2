/**
 * Braid's language-model tools (issue 44, client/src/lmTools.ts) against a fake language server:
 * registered only when VS Code has `lm.registerTool` (1.95+; engines.vscode ^1.91), the same names
 * and inputs as package.json's languageModelTools, a confirmation showing the exact command (escaped,
 * in a code block) before anything runs, a refusal in an untrusted workspace before any run, and
 * bounded results led by the data note.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  codeBlock,
  languageModelTools,
  LM_TOOL_NAMES,
  lmApi,
  LmToolDeps,
  pickTest,
  registerLanguageModelTools,
  UNTRUSTED_TOOL_MESSAGE,
} from '../../client/src/lmTools';
import type { PatternDto, TestCommandResult, TestItemDto } from '../../server/src/lsp/protocol';
import { DATA_NOTE } from '../../server/src/mcp/recordedText';

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));

const acc = (thread: 1 | 2, type: 'R' | 'W', line: number) => ({ thread, type, variable: 'bank.Bank$Account.balance', file: 'bank/Bank.java', line, method: 'bank.Bank$Account.deposit', stack: [] });
const pattern = (k: number): PatternDto => ({ rank: k, score: 1, id: 'P7', kind: 'RWW', category: 'single-variable atomicity', failed: 57, passed: 0, pValue: 2.6e-29, key: `key-${k}`, accesses: [acc(1, 'R', 11), acc(2, 'W', 13), acc(1, 'W', 13)] });
const item = (className: string, method: string | undefined, label: string): TestItemDto => ({
  id: `${className}#${method}`,
  label,
  uri: 'file:///w/src/AccountTest.java',
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  args: { uri: 'file:///w/src/AccountTest.java', className, ...(method ? { method } : {}), framework: 'junit5' },
  children: [],
});
const plan: TestCommandResult = {
  tool: 'junit-console',
  prepare: [{ command: ['javac', '-d', '.braid/build/classes', 'src/AccountTest.java'], cwd: '/w' }],
  command: ['java', '-cp', 'x', 'org.junit.platform.console.ConsoleLauncher', '--select-method', 'bank.AccountTest#deposits\u001b[2J'],
  cwd: '/w',
  name: 'AccountTest.deposits',
  include: ['bank'],
  commandLine: 'java …',
};

/** `state.edited`: the code changed since the recording — no analysis of the current code (braid/patterns empty), its bugs before the change in braid/runs. */
function fakeServer(trusted = true, state = { edited: false }) {
  const calls: { method: string; params: any }[] = [];
  const deps: LmToolDeps = {
    trusted: () => trusted,
    folder: () => '/w',
    recordParams: (p) => ({ command: p.command, runs: 'auto', prepare: p.prepare, cwd: p.cwd, include: p.include }),
    message: (text) => ({ markdown: text }),
    async request<R>(method: string, params: any): Promise<R> {
      calls.push({ method, params });
      const answers: Record<string, unknown> = {
        'braid/testItems': { files: [{ uri: params?.uri, items: [{ ...item('bank.AccountTest', undefined, 'AccountTest'), children: [item('bank.AccountTest', 'deposits', 'deposits()'), item('bank.AccountTest', 'transfers', 'transfers()')] }] }] },
        'braid/testCommand': plan,
        'braid/record': { runs: 40, failed: 17, passed: 23, outDir: '/w/.braid/traces/x', cancelled: false, stopped: 'evidence', leadPValue: 1e-8 },
        'braid/patterns': state.edited
          ? { summary: { state: 'done', executions: { total: 0, failed: 0, passed: 0 }, topScore: 0, patternCount: 0, bugCount: 0 }, total: 0, patterns: [] }
          : { summary: { state: 'done', executions: { total: 40, failed: 17, passed: 23 }, topScore: 1, patternCount: 2, bugCount: 1 }, total: 2, patterns: [pattern(1), pattern(2)].slice(params?.offset ?? 0, (params?.offset ?? 0) + (params?.limit ?? 2)) },
        'braid/runs': { runs: [], ...(state.edited ? { beforeBugs: [{ bug: 1, pattern: { ...pattern(1), key: 'before-bug-1' } }] } : {}) },
        'braid/confirmCommand': { command: ['java', '-cp', 'out', 'bank.Bank'], cwd: '/w', prepare: [{ command: ['javac', '-d', 'out', 'bank/Bank.java'], cwd: '/w' }], include: ['bank'], manifest: '/w/.braid/traces/x/recording.json' },
        'braid/confirm': {
          key: params?.key,
          mode: params?.mode,
          command: ['java'],
          runs: 60,
          seconds: 12.34,
          confirmation: { verdict: 'confirmed', reason: 'forcing it makes the failure happen', pValue: 1e-10, forced: { runs: 20, failed: 20, forcedOk: 20 } },
          ...(params?.mode === 'checkFix' ? { fix: { verdict: 'not fixed', reason: 'still fails 20 of 20 runs when the interleaving is forced', before: { runs: 40, failed: 17 }, after: { runs: 20, failed: 5 }, pValue: 0.4 } } : {}),
        },
      };
      if (!(method in answers)) throw new Error(`unexpected ${method}`);
      return answers[method] as R;
    },
  };
  return { calls, deps };
}

const token = { isCancellationRequested: false };

test('registered only where VS Code has lm.registerTool (1.95+): nothing on a 1.91 API, the four tools on 1.95', () => {
  assert.equal(lmApi({ window: {} }), undefined, 'VS Code 1.91: no vscode.lm');
  assert.equal(lmApi({ lm: {} }), undefined, 'vscode.lm without registerTool');
  assert.deepEqual(registerLanguageModelTools(undefined, fakeServer().deps), []);
  const registered: string[] = [];
  class Text {
    constructor(readonly value: string) {}
  }
  class Result {
    constructor(readonly content: unknown[]) {}
  }
  const api = lmApi({ lm: { registerTool: (name: string) => (registered.push(name), { dispose() {} }) }, LanguageModelToolResult: Result, LanguageModelTextPart: Text });
  assert.ok(api);
  assert.equal(registerLanguageModelTools(api, fakeServer().deps).length, 4);
  assert.deepEqual(registered, [...LM_TOOL_NAMES]);
  assert.deepEqual(((api.result('x') as Result).content[0] as Text).value, 'x');
});

test('package.json contributes the same tools, with model descriptions and the inputs the tools read', () => {
  const tools = pkg.contributes.languageModelTools as { name: string; modelDescription: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }[];
  assert.deepEqual(tools.map((t) => t.name), [...LM_TOOL_NAMES]);
  const props = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties).sort()]));
  assert.deepEqual(props, { braid_findRootCause: ['file', 'test'], braid_rankedCauses: ['top'], braid_confirm: ['pattern', 'runs'], braid_checkFix: ['pattern', 'runs'] });
  for (const t of tools) assert.ok(t.modelDescription.length > 150, t.name);
  assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === 'braid.addMcpServer'));
  assert.match(pkg.engines.vscode, /^\^1\.(9[1-9]|100)\.0$/, 'engines.vscode stays within ^1.91…^1.100');
});

test('find the root cause: the confirmation shows the build step and the exact command, escaped, before anything runs', async () => {
  const { calls, deps } = fakeServer();
  const t = languageModelTools(deps).braid_findRootCause;
  const prepared = await t.prepareInvocation!({ input: { file: 'src/AccountTest.java', test: 'AccountTest#deposits' } }, token);
  assert.deepEqual(calls.map((c) => c.method), ['braid/testItems', 'braid/testCommand'], 'nothing runs before the user agrees');
  assert.equal(calls[0].params.uri, 'file:///w/src/AccountTest.java');
  assert.equal(calls[1].params.method, 'deposits');
  assert.match(prepared!.confirmationMessages!.title, /It runs the test many times/);
  const text = (prepared!.confirmationMessages!.message as { markdown: string }).markdown;
  assert.match(text, /^```text\nFirst: javac -d \.braid\/build\/classes src\/AccountTest\.java \(in \/w\)\nRuns many times with timing noise: java -cp x org\.junit\.platform\.console\.ConsoleLauncher --select-method bank\.AccountTest#deposits\\x1b\[2J\nin \/w\nRecords: bank\n```$/);
  const out = JSON.parse(String(await t.invoke({ input: { file: 'src/AccountTest.java', test: 'AccountTest#deposits' } }, token)));
  assert.equal(out.note, DATA_NOTE);
  assert.deepEqual(out.runs, { total: 40, failed: 17, passed: 23 });
  assert.equal(out.causes[0].pattern, 1);
  assert.match(out.causes[0].sentence, /read balance/);
  assert.deepEqual(out.causes[0].where, ['Bank.java:11 bank.Bank$Account.deposit', 'Bank.java:13 bank.Bank$Account.deposit', 'Bank.java:13 bank.Bank$Account.deposit']);
  const record = calls.find((c) => c.method === 'braid/record')!;
  assert.deepEqual(record.params.command, plan.command);
  assert.equal(record.params.runs, 'auto');
  // the ranking read after the recording waits for the analysis of its runs (a CI run once got the one from before)
  const ranked = calls.slice(calls.indexOf(record)).find((c) => c.method === 'braid/patterns')!;
  assert.equal(ranked.params.fresh, true);
});

test('an untrusted workspace: every running tool refuses before any run', async () => {
  const { calls, deps } = fakeServer(false);
  const tools = languageModelTools(deps);
  await assert.rejects(tools.braid_findRootCause.invoke({ input: { file: 'src/AccountTest.java' } }, token), new RegExp(UNTRUSTED_TOOL_MESSAGE.slice(0, 30)));
  await assert.rejects(tools.braid_confirm.invoke({ input: { pattern: 1 } }, token), /trusted workspace/);
  await assert.rejects(tools.braid_checkFix.invoke({ input: {} }, token), /trusted workspace/);
  assert.ok(!calls.some((c) => c.method === 'braid/record' || c.method === 'braid/confirm'), calls.map((c) => c.method).join(' '));
  // reading the ranking runs nothing: allowed
  const ranked = JSON.parse(String(await tools.braid_rankedCauses.invoke({ input: { top: 1 } }, token)));
  assert.equal(ranked.causes.length, 1);
  // and it reads the analysis of every trace on disk (one recorded by the CLI, not yet rescanned)
  assert.equal(calls.find((c) => c.method === 'braid/patterns')!.params.fresh, true);
});

test('confirm and check the fix: the dialog says what runs; the verdicts come back in words', async () => {
  const { calls, deps } = fakeServer();
  const tools = languageModelTools(deps);
  const prep = await tools.braid_checkFix.prepareInvocation!({ input: { pattern: 2, runs: 10 } }, token);
  const text = (prep!.confirmationMessages!.message as { markdown: string }).markdown;
  assert.match(text, /First: javac -d out bank\/Bank\.java \(in \/w\)\nRuns up to 20 times: java -cp out bank\.Bank\nin \/w/);
  assert.match(text, /From \/w\/\.braid\/traces\/x\/recording\.json \(a file of the workspace: check it before running\)/);
  assert.deepEqual(calls.find((c) => c.method === 'braid/confirmCommand')!.params, { key: 'key-2' });
  const fix = JSON.parse(String(await tools.braid_checkFix.invoke({ input: { pattern: 2, runs: 10 } }, token)));
  assert.equal(fix.verdict, 'not fixed');
  assert.deepEqual(calls.find((c) => c.method === 'braid/confirm')!.params, { key: 'key-2', mode: 'checkFix', runs: 10 });
  const ok = JSON.parse(String(await tools.braid_confirm.invoke({ input: {} }, token)));
  assert.equal(ok.verdict, 'confirmed');
  assert.equal(ok.pattern.pattern, 1);
  await assert.rejects(tools.braid_confirm.invoke({ input: { pattern: 9 } }, token), /"pattern": 9 is past the ranking \(2 patterns\)/);
  await assert.rejects(tools.braid_confirm.invoke({ input: { pattern: 0 } }, token), /"pattern" must be a position in the ranking/);
});

test('after the agent edits the code (no analysis of the current code yet) a pattern position means the ranking it was shown', async () => {
  const state = { edited: false };
  const { calls, deps } = fakeServer(true, state);
  const tools = languageModelTools(deps);
  await tools.braid_findRootCause.invoke({ input: { file: 'src/AccountTest.java', test: 'deposits' } }, token);
  state.edited = true;
  await tools.braid_checkFix.prepareInvocation!({ input: { pattern: 2 } }, token);
  assert.deepEqual(calls.filter((c) => c.method === 'braid/confirmCommand').at(-1)!.params, { key: 'key-2' });
  const fix = JSON.parse(String(await tools.braid_checkFix.invoke({ input: { pattern: 2, runs: 6 } }, token)));
  assert.equal(fix.verdict, 'not fixed');
  assert.deepEqual(calls.filter((c) => c.method === 'braid/confirm').at(-1)!.params, { key: 'key-2', mode: 'checkFix', runs: 6 });
  await assert.rejects(tools.braid_checkFix.invoke({ input: { pattern: 3 } }, token), /"pattern": 3 is past the ranking shown \(2 causes\)/);
  // nothing shown in this session (e.g. the window was reloaded): pattern 1 is the first bug's lead pattern before the change
  const fresh = languageModelTools(deps);
  await fresh.braid_checkFix.invoke({ input: {} }, token);
  assert.deepEqual(calls.filter((c) => c.method === 'braid/confirm').at(-1)!.params, { key: 'before-bug-1', mode: 'checkFix' });
  await assert.rejects(fresh.braid_checkFix.invoke({ input: { pattern: 2 } }, token), /No ranked pattern yet/);
});

test('a JS/TS test: the confirmation says which files the Node.js recorder records (no include list)', async () => {
  const { deps } = fakeServer();
  const request = deps.request;
  deps.request = async <R>(method: string, params: any): Promise<R> => {
    if (method === 'braid/testItems') return { files: [{ uri: params.uri, items: [{ ...item('src/accounts.test.ts', undefined, 'two withdrawals'), args: { uri: params.uri, className: 'src/accounts.test.ts', titles: ['two withdrawals'], framework: 'js' } }] }] } as R;
    if (method === 'braid/testCommand') return { ...plan, tool: 'node-test', command: ['node', '--test', 'src/accounts.test.ts'], include: [] } as R;
    return request<R>(method, params);
  };
  const prep = await languageModelTools(deps).braid_findRootCause.prepareInvocation!({ input: { file: 'src/accounts.test.ts' } }, token);
  assert.match((prep!.confirmationMessages!.message as { markdown: string }).markdown, /Records: \(the project’s files and its runtime dependencies, not node_modules’ other code\)/);
});

test('a Maven test whose poms configure surefire settings: the confirmation says the runs get them from the effective POM', async () => {
  const { deps } = fakeServer();
  const request = deps.request;
  const maven: TestCommandResult = {
    ...plan,
    tool: 'maven',
    prepare: [{ command: ['mvn', '-q', 'test-compile', 'org.apache.maven.plugins:maven-help-plugin:3.5.2:effective-pom'], cwd: '/w', orElse: { command: ['mvn', '-o', 'test'], classPathFile: '/w/.braid/build/maven/root.test-classpath' }, surefire: { effectivePom: '/w/.braid/build/maven/root.effective-pom.xml', module: '/w' } }],
    command: ['java', '-jar', 'junit-platform-console-standalone.jar', '--select-method', 'bank.AccountTest#deposits'],
  };
  deps.request = async <R>(method: string, params: any): Promise<R> => (method === 'braid/testCommand' ? (maven as R) : request<R>(method, params));
  const text = ((await languageModelTools(deps).braid_findRootCause.prepareInvocation!({ input: { file: 'src/AccountTest.java' } }, token))!.confirmationMessages!.message as { markdown: string }).markdown;
  assert.match(text, /Runs many times with timing noise: java -jar junit-platform-console-standalone\.jar --select-method bank\.AccountTest#deposits\nwith surefire's argLine, system properties, environment variables and working directory from Maven's effective POM \(written by the first step\)\nin \/w\n/);
  // without them, no such line (the plain plan above)
  const plain = ((await languageModelTools(fakeServer().deps).braid_findRootCause.prepareInvocation!({ input: { file: 'src/AccountTest.java' } }, token))!.confirmationMessages!.message as { markdown: string }).markdown;
  assert.doesNotMatch(plain, /surefire/);
});

test('the test is found by Class#method, by its name, or the file’s first; an unknown one lists the file’s tests', () => {
  const files = [{ uri: 'u', items: [{ ...item('bank.AccountTest', undefined, 'AccountTest'), children: [item('bank.AccountTest', 'deposits', 'deposits()'), item('bank.AccountTest', 'transfers', 'transfers()')] }] }];
  assert.equal((pickTest(files, 'bank.AccountTest#transfers') as { method: string }).method, 'transfers');
  assert.equal((pickTest(files, 'transfers') as { method: string }).method, 'transfers');
  assert.equal((pickTest(files, undefined) as { method?: string }).method, undefined, 'the class: all its tests');
  assert.equal(pickTest(files, 'nope'), 'no test "nope" in the file (its tests: AccountTest, deposits(), transfers())');
  assert.match(String(pickTest([], 'x')), /the file has no test Braid recognizes/);
});

test('a code block is never closed by the text inside it', () => {
  assert.equal(codeBlock('a ``` b'), '````text\na ``` b\n````');
});
