/**
 * Braid's language-model tools for agent mode in the editor (issue 44): `contributes.languageModelTools`
 * in package.json, registered here with `vscode.lm.registerTool`, each calling the language server's
 * `braid/…` requests — the same ones the lens, Confirm and Check the Fix use:
 *
 * - braid_findRootCause: braid/testItems (the test in its file) → braid/testCommand → braid/record
 *   (runs "auto": until the evidence is in) → braid/patterns;
 * - braid_rankedCauses: braid/patterns (runs nothing);
 * - braid_confirm, braid_checkFix: braid/confirmCommand (what will run) → braid/confirm.
 *
 * A tool that runs the program says so first: its `prepareInvocation` answers confirmation messages
 * with the exact command, folder and build steps (commandDialog.ts escaping), so VS Code asks the
 * user before anything runs; in an untrusted workspace it refuses. Results are JSON led by the note
 * that recorded strings are data (server/src/mcp/recordedText.ts), bounded like the MCP server's.
 *
 * `vscode.lm.registerTool` was finalized in VS Code 1.95; engines.vscode is ^1.91.0, so `lmApi` looks
 * for it at run time and the tools are simply not registered in an older editor (the MCP server,
 * mcpConfig.ts, works there). The module takes the API as an argument: no `vscode` import.
 */
import type { Disposable } from 'vscode';
import type {
  ConfirmCommandResult,
  ConfirmParams,
  ConfirmResultDto,
  PatternDto,
  PatternsResult,
  RecordParams,
  RecordResult,
  RecordTestArgs,
  RunsResult,
  TestCommandResult,
  TestItemDto,
  TestItemsResult,
} from '../../server/src/lsp/protocol';
import { ConfirmCommandRequest, ConfirmRequest, PatternsRequest, RecordRequest, RunsRequest, TestCommandRequest, TestItemsRequest } from '../../server/src/lsp/protocol';
import { confirmDialogDetail, dialogCommand, dialogLine } from './commandDialog';
import { patternSentence } from '../../server/src/engine/report/patternSentence';
import { plainHeadline } from '../../server/src/engine/outputEscaping';
import { DATA_NOTE, fitJson, MAX_RESULT_BYTES, recordedText } from '../../server/src/mcp/recordedText';

/** A cancellation token, as VS Code passes one (and the language client forwards as $/cancelRequest). */
export interface Token {
  isCancellationRequested: boolean;
  onCancellationRequested?: unknown;
}

/** The subset of `vscode.lm` and its classes the tools use (VS Code ≥ 1.95). */
export interface LmApi {
  registerTool(name: string, tool: LmTool<any>): Disposable;
  result(text: string): unknown;
}

export interface LmTool<T> {
  prepareInvocation?(options: { input: T }, token: Token): Promise<{ invocationMessage?: string; confirmationMessages?: { title: string; message: unknown } } | undefined>;
  invoke(options: { input: T }, token: Token): Promise<unknown>;
}

/** `vscode.lm.registerTool` and the result classes, when this VS Code has them (1.95+); else undefined. */
export function lmApi(vscode: unknown): LmApi | undefined {
  const v = vscode as {
    lm?: { registerTool?: (name: string, tool: unknown) => Disposable };
    LanguageModelToolResult?: new (parts: unknown[]) => unknown;
    LanguageModelTextPart?: new (text: string) => unknown;
  };
  const register = v.lm?.registerTool;
  const Result = v.LanguageModelToolResult;
  const Text = v.LanguageModelTextPart;
  if (typeof register !== 'function' || typeof Result !== 'function' || typeof Text !== 'function') return undefined;
  return { registerTool: (name, tool) => register.call(v.lm, name, tool), result: (text) => new Result([new Text(text)]) };
}

export interface LmToolDeps {
  request<R>(method: string, params: unknown, token?: Token): Promise<R>;
  /** the workspace is trusted (running the program needs it) */
  trusted(): boolean;
  /** the workspace folder a relative file is in */
  folder(): string | undefined;
  /** the braid/record parameters of a test's command (recording.ts testRecordParams: the lens' settings) */
  recordParams(plan: TestCommandResult): RecordParams;
  /** a confirmation message: the text shown as a code block (a MarkdownString in the editor) */
  message(text: string): unknown;
}

export const LM_TOOL_NAMES = ['braid_findRootCause', 'braid_rankedCauses', 'braid_confirm', 'braid_checkFix'] as const;

export const UNTRUSTED_TOOL_MESSAGE = 'Braid runs your program only in a trusted workspace: trust the workspace first (Manage Workspace Trust), then ask again.';

interface FindInput {
  file: string;
  test?: string;
}
interface PatternInput {
  pattern?: number;
  runs?: number;
}

/** A code block of `text` for a confirmation message: the fence is longer than any backtick run inside. */
export function codeBlock(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/** A ranked pattern for the model: position, counts, p, the interleaving in words, where. */
export function patternSummary(p: PatternDto, position: number) {
  return {
    pattern: position,
    kind: p.kind,
    failed: p.failed,
    passed: p.passed,
    ...(p.pValue !== undefined ? { pValue: Number(p.pValue.toPrecision(3)) } : {}),
    sentence: recordedText(plainHeadline(patternSentence(p.accesses)), 300),
    where: p.accesses.map((a) => `${recordedText(a.file.replace(/^.*[\\/]/, ''), 80)}:${a.line} ${recordedText(a.method, 100)}`).slice(0, 4),
    ...(p.confirmation ? { confirmation: p.confirmation.verdict } : {}),
  };
}

/** JSON text of a result, led by the data note, at most MAX_RESULT_BYTES (the later causes go first). */
export function resultText(value: Record<string, unknown> & { causes?: unknown[] }): string {
  const v = { note: DATA_NOTE, ...value };
  return fitJson(v, [(x) => (x.causes?.length ?? 0) > 1 && x.causes!.pop() !== undefined], MAX_RESULT_BYTES).json;
}

/** The test item of `file` named by `test` (Class#method, Class, or a method/test name); the first test of the file without. */
export function pickTest(files: TestItemsResult['files'], test: string | undefined): RecordTestArgs | string {
  const all: TestItemDto[] = [];
  const walk = (items: TestItemDto[]) => {
    for (const i of items) {
      all.push(i);
      walk(i.children);
    }
  };
  for (const f of files) walk(f.items);
  if (!all.length) return 'the file has no test Braid recognizes (JUnit 4/5, TestNG, node:test, mocha, jest, vitest)';
  if (test === undefined || test === '') return all[0].args;
  const [cls, method] = test.includes('#') ? test.split('#', 2) : [undefined, test];
  const simple = (c: string) => c.replace(/^.*[.$]/, '');
  const hit = all.find((i) => {
    const a = i.args;
    if (cls !== undefined) return (a.className === cls || simple(a.className) === simple(cls)) && (method ? a.method === method : !a.method);
    return a.method === method || i.label === method || (!a.method && (a.className === method || simple(a.className) === method));
  });
  return hit ? hit.args : `no test "${recordedText(test, 120)}" in the file (its tests: ${all.slice(0, 8).map((i) => recordedText(i.label, 60)).join(', ')}${all.length > 8 ? ', …' : ''})`;
}

function fileUri(folder: string | undefined, file: string): string | string[] {
  if (typeof file !== 'string' || !file) return ['"file": give the test file, relative to the workspace folder'];
  const abs = /^([A-Za-z]:)?[\\/]/.test(file) ? file : folder ? `${folder.replace(/[\\/]$/, '')}/${file}` : undefined;
  if (!abs) return ['"file": a relative path needs an open workspace folder'];
  return 'file://' + encodeURI(abs.replace(/\\/g, '/').replace(/^(?=[A-Za-z]:)/, '/'));
}

/**
 * The pattern at ranking position `position` (1 = first). After the agent edits the code the current
 * code has no analysis yet (the recording is one of older code, issue 43: braid/patterns is empty), so
 * the position means the ranking the model was shown (`shown`, by braid_findRootCause or
 * braid_rankedCauses), whose keys the server still resolves in the analysis before the change; without
 * one, position 1 is the first bug's lead pattern of the code before the change (as Check the Fix from
 * the palette).
 */
async function patternAt(deps: LmToolDeps, position: number | undefined, shown: readonly PatternDto[], token?: Token): Promise<PatternDto> {
  const k = position ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new Error(`"pattern" must be a position in the ranking, 1 = first; got ${JSON.stringify(position)}`);
  const r = await deps.request<PatternsResult>(PatternsRequest, { offset: k - 1, limit: 1 }, token);
  const p = r.patterns[0];
  if (p) return p;
  if (r.total) throw new Error(`"pattern": ${k} is past the ranking (${r.total} patterns)`);
  const before = shown[k - 1] ?? (k === 1 ? (await deps.request<RunsResult>(RunsRequest, undefined, token)).beforeBugs?.[0]?.pattern : undefined);
  if (before) return before;
  throw new Error(shown.length ? `"pattern": ${k} is past the ranking shown (${shown.length} causes)` : 'No ranked pattern yet: find the root cause first (braid_findRootCause).');
}

function requireTrust(deps: LmToolDeps): void {
  if (!deps.trusted()) throw new Error(UNTRUSTED_TOOL_MESSAGE);
}

/** The tools, by name (registered by registerLanguageModelTools; exported for tests). */
export function languageModelTools(deps: LmToolDeps): Record<(typeof LM_TOOL_NAMES)[number], LmTool<any>> {
  /** the test's args and plan, resolved once per input (prepare, then invoke) */
  const plans = new Map<string, Promise<{ args: RecordTestArgs; plan: TestCommandResult }>>();
  const planOf = (input: FindInput, token?: Token) => {
    const key = JSON.stringify([input.file, input.test]);
    let p = plans.get(key);
    if (!p) {
      p = (async () => {
        const uri = fileUri(deps.folder(), input.file);
        if (Array.isArray(uri)) throw new Error(uri[0]);
        const items = await deps.request<TestItemsResult>(TestItemsRequest, { uri }, token);
        const args = pickTest(items.files, input.test);
        if (typeof args === 'string') throw new Error(`"test": ${args}`);
        const plan = await deps.request<TestCommandResult>(TestCommandRequest, args, token);
        return { args, plan };
      })();
      plans.set(key, p);
      p.catch(() => plans.delete(key));
      if (plans.size > 8) plans.delete(plans.keys().next().value!);
    }
    return p;
  };
  /** the ranking the model was shown last (braid_findRootCause, braid_rankedCauses), by position: what "pattern" means after an edit */
  let shown: PatternDto[] = [];
  const confirmLike = (mode: 'confirm' | 'checkFix'): LmTool<PatternInput> => ({
    async prepareInvocation({ input }, token) {
      const p = await patternAt(deps, input.pattern, shown, token);
      const c = await deps.request<ConfirmCommandResult>(ConfirmCommandRequest, { key: p.key }, token);
      const runs = input.runs ?? 20;
      const what = mode === 'checkFix' ? 'Check the fix' : `Confirm pattern ${input.pattern ?? 1} (${p.id} ${p.kind})`;
      const detail = c.command ? confirmDialogDetail(c, mode === 'checkFix' ? 2 * runs : 3 * runs, mode === 'checkFix') : dialogLine(c.problem ?? 'The traces do not say how to run the program (no recording.json).');
      return {
        invocationMessage: mode === 'checkFix' ? 'Braid: checking the fix by forcing the interleaving…' : `Braid: confirming ${p.id} by forcing its interleaving…`,
        confirmationMessages: { title: `Braid: ${what}? It runs your program`, message: deps.message(codeBlock(detail)) },
      };
    },
    async invoke({ input }, token) {
      requireTrust(deps);
      const p = await patternAt(deps, input.pattern, shown, token);
      const params: ConfirmParams = { key: p.key, mode, ...(input.runs !== undefined ? { runs: input.runs } : {}) };
      const r = await deps.request<ConfirmResultDto>(ConfirmRequest, params, token);
      const c = r.confirmation;
      const out: Record<string, unknown> =
        mode === 'checkFix'
          ? { verdict: r.fix?.verdict ?? 'could not check', reason: recordedText(r.fix?.reason ?? r.couldNotCheck?.why ?? '', 600), before: r.fix?.before, after: r.fix?.after }
          : { verdict: c?.verdict ?? 'could not check', ...(c ? { reason: recordedText(c.reason, 600), forced: c.forced, opposite: c.opposite, unforced: c.control, pValue: Number(c.pValue.toPrecision(3)) } : {}) };
      if (r.couldNotCheck) Object.assign(out, { why: recordedText(r.couldNotCheck.why, 600), hint: recordedText(r.couldNotCheck.hint, 400) });
      return resultText({ ...out, pattern: patternSummary(p, input.pattern ?? 1), runs: r.runs, seconds: Math.round(r.seconds * 10) / 10 });
    },
  });
  return {
    braid_findRootCause: {
      async prepareInvocation({ input }, token) {
        const { args, plan } = await planOf(input, token);
        const lines = [...plan.prepare.map((s) => `First: ${dialogCommand(s.command)} (in ${dialogLine(s.cwd)})`), `Runs many times with timing noise: ${dialogCommand(plan.command)}`, ...(plan.prepare.some((s) => s.surefire) ? [`with surefire's argLine, system properties, environment variables and working directory from Maven's effective POM (written by the first step)`] : []), `in ${dialogLine(plan.cwd)}`, `Records: ${dialogLine(plan.include.join(' ') || (args.framework === 'js' ? '(the project’s files and its runtime dependencies, not node_modules’ other code)' : '(the test’s package)'))}`];
        return {
          invocationMessage: `Braid: recording ${recordedText(args.method ?? args.className, 80)} until the evidence is in…`,
          confirmationMessages: { title: 'Braid: find the root cause? It runs the test many times', message: deps.message(codeBlock(lines.join('\n'))) },
        };
      },
      async invoke({ input }, token) {
        requireTrust(deps);
        const { plan } = await planOf(input, token);
        const rec = await deps.request<RecordResult>(RecordRequest, deps.recordParams(plan), token);
        // fresh: the recording's last traces are analyzed before the answer (not the analysis from before it)
        const patterns = await deps.request<PatternsResult>(PatternsRequest, { offset: 0, limit: 3, fresh: true }, token);
        shown = patterns.patterns;
        return resultText({
          runs: { total: rec.runs, failed: rec.failed, passed: rec.passed },
          ...(rec.stopped ? { stopped: rec.stopped } : {}),
          causes: patterns.patterns.map((p, k) => [p, k + 1] as const).filter(([p]) => p.group !== 'harness' && p.group !== 'symptom' && p.evidence !== false).map(([p, k]) => patternSummary(p, k)),
          totalPatterns: patterns.total,
          ...(patterns.summary.message ? { message: recordedText(patterns.summary.message, 400) } : {}),
          next: rec.failed === 0 ? 'The test never failed: nothing to explain yet (Braid: Find Trigger Points, or more noise).' : 'Prove the first cause before fixing: braid_confirm {pattern: 1}; after editing the code: braid_checkFix {pattern: 1}.',
        });
      },
    },
    braid_rankedCauses: {
      async invoke({ input }, token) {
        const limit = Math.max(1, Math.min(10, Number((input as { top?: number }).top ?? 5)));
        // fresh: traces written since the last analysis (a recording made with the CLI, another window) are
        // analyzed first; the watcher's rescan would come later and the agent would read the ranking before them
        const r = await deps.request<PatternsResult>(PatternsRequest, { offset: 0, limit, fresh: true }, token);
        if (r.patterns.length) shown = r.patterns;
        return resultText({ runs: r.summary.executions, causes: r.patterns.map((p, k) => patternSummary(p, k + 1)), totalPatterns: r.total, ...(r.summary.confidence ? { confidence: recordedText(r.summary.confidence, 300) } : {}) });
      },
    },
    braid_confirm: confirmLike('confirm'),
    braid_checkFix: confirmLike('checkFix'),
  };
}

/** Registers the tools with `api` (lmApi); nothing in a VS Code without the API. Results as LanguageModelToolResult. */
export function registerLanguageModelTools(api: LmApi | undefined, deps: LmToolDeps): Disposable[] {
  if (!api) return [];
  const tools = languageModelTools(deps);
  return LM_TOOL_NAMES.map((name) => {
    const t = tools[name];
    return api.registerTool(name, {
      ...(t.prepareInvocation ? { prepareInvocation: (o: { input: unknown }, token: Token) => t.prepareInvocation!(o, token) } : {}),
      invoke: async (o: { input: unknown }, token: Token) => api.result(String(await t.invoke(o, token))),
    });
  });
}
