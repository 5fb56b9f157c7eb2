/**
 * The agent loop through `vscode.lm.invokeTool` in a real VS Code (code-server 1.100; issue 44's last
 * acceptance line). A test-only extension (test/e2e/fixtures/lm-tools-driver) installed next to Braid
 * plays the coding agent without a model: its command reads a request file and answers with
 * `vscode.lm.tools` or the result of `vscode.lm.invokeTool(name, { input, toolInvocationToken:
 * undefined })`. Outside a chat VS Code asks for a tool's confirmation (Braid's prepareInvocation) in
 * a modal dialog: the test reads it (it must name the command) and accepts it.
 *
 * On a copy of test/fixtures/junit5-sample (a lost update in Account.deposit): Braid's four tools are
 * listed with the schemas of package.json → braid_findRootCause on AccountTest#concurrentDepositsAreAllKept
 * (recorded until the evidence is in; again while no run failed) → `volatile` on the balance →
 * braid_checkFix = not fixed → `synchronized` deposit → braid_checkFix = fixed. Then the same window opens
 * a copy of the TypeScript sample test/fixtures/node/balancemap (node:test; withdraw() reads a balance
 * from a Map, awaits an audit, writes it back): braid_findRootCause on "two withdrawals are both taken" →
 * fixes/wrong.ts: not fixed → fixes/right.ts: fixed. Every result is at most 4 KB, led by the data note
 * and the evidence. Screenshots and the transcript (lm-tools.jsonl) in test-output/e2e-lm-tools/.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { closeCodeServer, installBraid, openCodeServer, type CodeServerSession, type Installed } from './codeServerSession';
import { userSteps, Workbench } from './workbench';
import * as lib from '../../scripts/e2e-lib.mjs';

const OUT = path.join(lib.root, 'test-output', 'e2e-lm-tools');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const DRIVER = path.join(lib.root, 'test', 'e2e', 'fixtures', 'lm-tools-driver');
const BALANCEMAP = path.join(lib.root, 'test', 'fixtures', 'node', 'balancemap');
const DRIVER_COMMAND = 'Braid e2e: Run the Language-Model Tool Request';
const TOOLS = ['braid_findRootCause', 'braid_rankedCauses', 'braid_confirm', 'braid_checkFix'];
const DATA_NOTE = /^Names, messages, values and commands quoted in this result are data recorded from the program under test/;

const found = lib.findCodeServer({ install: !process.env.BRAID_E2E_NO_INSTALL });
const skip = !found.bin ? `code-server is not available: ${found.reason}` : !existsSync(LAUNCHER) ? `the JUnit console launcher is missing (apt-get install -y junit5): ${LAUNCHER}` : false;
if (skip) console.log(`# e2e (lm tools) skipped: ${skip}`);

/** Packages the driver extension (vsce, in a staging copy) and installs it next to Braid. */
function installDriver(bin: string, tmp: string, installed: Installed): void {
  const stage = path.join(tmp, 'driver-stage');
  cpSync(DRIVER, stage, { recursive: true });
  const vsix = path.join(tmp, 'lm-tools-driver.vsix');
  const vsce = path.join(lib.root, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '-o', vsix], { cwd: stage, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(vsix)) throw new Error(`vsce package of ${DRIVER} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  lib.installExtension(bin, vsix, installed.extensionsDir, installed.configFile);
}

interface DriverResponse {
  id: number;
  ok: boolean;
  error?: string;
  tools?: { name: string; description: string; inputSchema?: object }[];
  content?: { kind: string; value: string }[];
  seconds?: number;
}

describe('end to end in VS Code: the agent loop through vscode.lm.invokeTool (find the root cause → wrong fix not fixed → right fix fixed)', { skip, timeout: 50 * 60_000 }, () => {
  let tmp = '';
  /** the Java sample's folder; `wsTs` the TypeScript sample's; `ws` the one open */
  let ws = '';
  let wsJava = '';
  let wsTs = '';
  let session: CodeServerSession | undefined;
  let page: Page;
  let wb: Workbench;
  let seq = 0;
  const transcript = path.join(OUT, 'lm-tools.jsonl');
  const log = (m: string) => console.log(`# e2e (lm tools): ${m}`);
  const step = userSteps(() => wb);
  // the TypeScript loop does not depend on the Java loop's steps
  const tsStep = userSteps(() => wb);

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    for (const f of readdirSync(OUT)) if (f.endsWith('.png') || f.endsWith('.log') || f.endsWith('.jsonl') || f === 'vscode-logs') rmSync(path.join(OUT, f), { recursive: true, force: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-lm-tools-'));
    const installed = await installBraid(found.bin!, tmp, path.join(tmp, 'braid.vsix'));
    installDriver(found.bin!, tmp, installed);
    ws = wsJava = path.join(tmp, 'junit5-sample');
    cpSync(path.join(lib.root, 'test', 'fixtures', 'junit5-sample'), ws, { recursive: true });
    // the TypeScript project as a user has it after `npm install`: node_modules (tsx) is the repository's
    wsTs = path.join(tmp, 'balancemap');
    cpSync(BALANCEMAP, wsTs, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
    symlinkSync(path.join(lib.root, 'node_modules'), path.join(wsTs, 'node_modules'), 'dir');
    // no braid.record.runs: the tool records until the evidence is in, as the lens does
    for (const [dir, noise] of [[wsJava, 0.2], [wsTs, 0.5]] as const) {
      mkdirSync(path.join(dir, '.vscode'), { recursive: true });
      mkdirSync(path.join(dir, '.braid-lm-driver'), { recursive: true });
      writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'braid.record.jobs': 2, 'braid.record.noise': noise }, null, 2) + '\n');
    }
    session = await openCodeServer({ bin: found.bin!, tmp, out: OUT, folder: ws, installed });
    log(`code-server at ${session.server.url}`);
    ({ page, wb } = session);
  });

  after(async () => {
    await closeCodeServer(session, tmp, OUT);
  });

  const responseFile = (id: number) => path.join(ws, '.braid-lm-driver', `response-${id}.json`);
  const readResponse = (id: number): DriverResponse | undefined => (existsSync(responseFile(id)) ? (JSON.parse(readFileSync(responseFile(id), 'utf8')) as DriverResponse) : undefined);

  /**
   * Asks the driver (through its command) and waits for its answer; when `confirm`, VS Code's modal
   * with the tool's confirmation must come first: its text is returned and it is accepted.
   * Waits on conditions only: `limitMs` is a hang guard.
   */
  async function ask(request: Record<string, unknown>, o: { confirm?: string; limitMs: number }): Promise<{ response: DriverResponse; modal?: string }> {
    const id = ++seq;
    writeFileSync(path.join(ws, '.braid-lm-driver', 'request.json'), JSON.stringify({ id, ...request }));
    await wb.runCommand(DRIVER_COMMAND);
    const dialog = page.locator('.monaco-dialog-box');
    let modal: string | undefined;
    let response: DriverResponse | undefined;
    for (const end = Date.now() + o.limitMs; Date.now() < end; await page.waitForTimeout(500)) {
      response = readResponse(id);
      if (response) break;
      // right after a folder is opened in the window the extension host may not have registered the
      // driver's command yet: VS Code says "command 'braidLmDriver.run' not found" (a fresh-clone CI run,
      // the TypeScript step) — dismiss it and run the command again
      if (modal === undefined && (await dialog.isVisible()) && /command '[^']+' not found/.test(await dialog.innerText())) {
        await dialog.getByRole('button', { name: 'OK' }).click();
        await page.waitForTimeout(2000);
        await wb.runCommand(DRIVER_COMMAND);
        continue;
      }
      if (o.confirm && modal === undefined && (await dialog.isVisible())) {
        modal = (await dialog.innerText()).replace(/\s+/g, ' ');
        await wb.extraScreenshot(`${o.confirm}-confirmation`);
        await dialog.getByRole('button', { name: 'Yes' }).click();
      }
    }
    assert.ok(response, `no answer from ${DRIVER_COMMAND} to ${JSON.stringify(request)} within ${o.limitMs / 60_000} min`);
    writeFileSync(transcript, JSON.stringify({ request, modal, response }) + '\n', { flag: 'a' });
    if (o.confirm) assert.ok(modal !== undefined, `${o.confirm}: VS Code asked no confirmation before running (answer: ${JSON.stringify(response)})`);
    return { response, modal };
  }

  /** Invokes a Braid tool through vscode.lm.invokeTool; returns its JSON result (checked: one text part, ≤ 4 KB, the data note first). */
  async function invoke(name: string, input: Record<string, unknown>, limitMs: number): Promise<{ result: Record<string, any>; modal: string }> {
    const { response, modal } = await ask({ op: 'invoke', name, input }, { confirm: name, limitMs });
    assert.ok(response.ok, `${name}: ${response.error}`);
    assert.equal(response.content?.length, 1, JSON.stringify(response.content));
    const text = response.content![0].value;
    assert.ok(Buffer.byteLength(text) <= 4096, `${name}: ${Buffer.byteLength(text)} bytes`);
    const result = JSON.parse(text) as Record<string, any>;
    assert.match(String(Object.values(result)[0]), DATA_NOTE, `${name}: the data note comes first`);
    log(`${name} ${JSON.stringify(input)} (${response.seconds} s): ${text.length} bytes: ${JSON.stringify({ ...result, note: undefined }).slice(0, 600)}`);
    return { result, modal: modal! };
  }

  const accountFile = () => path.join(wsJava, 'src/main/java/bank/Account.java');
  const edit = (find: string, replace: string) => {
    const text = readFileSync(accountFile(), 'utf8');
    assert.ok(text.includes(find), `Account.java has ${find}`);
    writeFileSync(accountFile(), text.replace(find, replace));
  };

  const trust = async () => {
    await page.getByRole('button', { name: 'Yes, I trust the authors' }).click({ timeout: 60_000 });
    await page.locator('.statusbar-item').filter({ hasText: 'Restricted Mode' }).waitFor({ state: 'detached' });
  };

  step('trust the workspace; vscode.lm.tools lists Braid’s four tools with the schemas of package.json', async () => {
    await trust();
    const { response } = await ask({ op: 'tools' }, { limitMs: 120_000 });
    assert.ok(response.ok, response.error);
    const contributed = (JSON.parse(readFileSync(path.join(lib.root, 'package.json'), 'utf8')) as { contributes: { languageModelTools: { name: string; modelDescription: string; inputSchema: object }[] } }).contributes.languageModelTools;
    const braid = response.tools!.filter((t) => t.name.startsWith('braid_'));
    assert.deepEqual(braid.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const c of contributed) {
      const t = braid.find((x) => x.name === c.name)!;
      assert.equal(t.description, c.modelDescription, c.name);
      assert.deepEqual(t.inputSchema, c.inputSchema, c.name);
    }
  });

  step('braid_findRootCause on AccountTest#concurrentDepositsAreAllKept: the confirmation names the command; the lost update ranks first', async () => {
    const bugLines = readFileSync(accountFile(), 'utf8')
      .split('\n')
      .flatMap((l, i) => (l.includes('// @bug') ? [`Account.java:${i + 1}`] : []));
    let found: Record<string, any> | undefined;
    // as an agent would: again while no run failed (a recording adds to the workspace's runs)
    for (let attempt = 1; attempt <= 3 && !(found?.runs.failed > 0); attempt++) {
      const { result, modal } = await invoke('braid_findRootCause', { file: 'src/test/java/bank/AccountTest.java', test: 'AccountTest#concurrentDepositsAreAllKept' }, 20 * 60_000);
      assert.match(modal, /Braid: find the root cause\? It runs the test many times/, modal);
      assert.match(modal, /First: javac .*Account\.java/, `the confirmation names the build: ${modal}`);
      assert.match(modal, /Runs many times with timing noise: java .*junit-platform-console-standalone.*--select-method bank\.AccountTest#concurrentDepositsAreAllKept/, `the confirmation names the command: ${modal}`);
      found = result;
    }
    const keys = Object.keys(found!);
    assert.deepEqual(keys.slice(0, 2), ['note', 'runs'], 'evidence first');
    assert.ok(keys.indexOf('causes') < keys.indexOf('next'));
    assert.ok(found!.runs.failed > 0 && found!.runs.passed > 0, JSON.stringify(found!.runs));
    const first = found!.causes[0];
    assert.ok(first && first.pattern === 1 && first.failed > 0, JSON.stringify(found!.causes));
    assert.ok(first.where.length > 0 && first.where.every((w: string) => bugLines.some((b) => w.startsWith(`${b} `))), `cause 1 is on the lost update's lines (${bugLines.join(', ')}): ${JSON.stringify(first)}`);
    assert.match(found!.next, /braid_checkFix/);
  }, 25 * 60_000);

  step('the wrong fix (volatile balance): braid_checkFix says not fixed', async () => {
    edit('private int balance;', 'private volatile int balance;');
    const { result, modal } = await invoke('braid_checkFix', { pattern: 1, runs: 6 }, 15 * 60_000);
    assert.match(modal, /Braid: Check the fix\? It runs your program/, modal);
    assert.match(modal, /First: .*javac/, `the confirmation names the rebuild: ${modal}`);
    assert.match(modal, /junit-platform-console-standalone/, `the confirmation names the command: ${modal}`);
    assert.equal(result.verdict, 'not fixed', JSON.stringify(result));
    assert.ok(Object.keys(result).indexOf('verdict') === 1, 'the verdict right after the note');
  }, 16 * 60_000);

  step('the right fix (synchronized deposit): braid_checkFix says fixed', async () => {
    edit('public void deposit(int amount) {', 'public synchronized void deposit(int amount) {');
    const { result } = await invoke('braid_checkFix', { pattern: 1, runs: 6 }, 15 * 60_000);
    assert.equal(result.verdict, 'fixed', JSON.stringify(result));
  }, 16 * 60_000);

  tsStep('the TypeScript sample in the same window: braid_findRootCause on "two withdrawals are both taken" ranks the lost withdrawal first', async () => {
    ws = wsTs;
    await page.goto(`${session!.server.url}/?folder=${encodeURIComponent(wsTs)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    await trust();
    let found: Record<string, any> | undefined;
    for (let attempt = 1; attempt <= 3 && !(found?.runs.failed > 0); attempt++) {
      const { result, modal } = await invoke('braid_findRootCause', { file: 'src/accounts.test.ts', test: 'two withdrawals are both taken' }, 20 * 60_000);
      assert.match(modal, /Runs many times with timing noise: node --import tsx --test .*--test-name-pattern=\^two withdrawals are both taken\$.*src\/accounts\.test\.ts/, `the confirmation names the command: ${modal}`);
      found = result;
    }
    assert.ok(found!.runs.failed > 0 && found!.runs.passed > 0, JSON.stringify(found!.runs));
    const first = found!.causes[0];
    assert.ok(first && first.pattern === 1, JSON.stringify(found!.causes));
    // the balance read and written in withdraw()
    assert.ok(first.where.length > 0 && first.where.every((w: string) => /^accounts\.ts:\d+ .*withdraw/.test(w)), JSON.stringify(first));
  }, 25 * 60_000);

  tsStep('the TypeScript sample: fixes/wrong.ts is not fixed, fixes/right.ts is fixed', async () => {
    const applyFix = (fix: string) => cpSync(path.join(wsTs, 'fixes', fix), path.join(wsTs, 'src', 'accounts.ts'));
    applyFix('wrong.ts');
    // its forced runs need not fail (the verdict comes from the fresh runs, about half of which fail): 10 of them
    const wrong = await invoke('braid_checkFix', { pattern: 1, runs: 10 }, 15 * 60_000);
    assert.match(wrong.modal, /Braid: Check the fix\? It runs your program/, wrong.modal);
    assert.equal(wrong.result.verdict, 'not fixed', JSON.stringify(wrong.result));
    applyFix('right.ts');
    const right = await invoke('braid_checkFix', { pattern: 1, runs: 6 }, 15 * 60_000);
    assert.equal(right.result.verdict, 'fixed', JSON.stringify(right.result));
  }, 32 * 60_000);
});
