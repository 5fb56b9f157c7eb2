/**
 * Confirm, Reproduce and Check the Fix (issue 28, docs/confirm.md): the editor side of braid/confirm.
 * Confirm forces a pattern's interleaving (forced, opposite order, unforced runs) and shows the
 * verdict; Reproduce opens the forced failing run in the Tracer at the pattern's accesses; Check the
 * Fix rebuilds (the recording's compile step), forces the same interleaving on the new build and
 * records again with the recording's noise. Each shows the command it will run and asks first: the
 * command comes from a file in the workspace (recording.json).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  ConfirmCommandRequest,
  ConfirmCommandResult,
  ConfirmParams,
  ConfirmRequest,
  ConfirmResultDto,
  PatternDto,
} from '../../server/src/lsp/protocol';
import { requireTrust } from './recording';
import { requestWithProgress } from './progressRequest';
import { debugConfiguration } from './debugConfiguration';
import { confirmDialogDetail, dialogLine } from './commandDialog';

export const CONFIRM_PATTERN = 'braid.confirmPattern';
export const REPRODUCE_FAILURE = 'braid.reproduceFailure';
export const CHECK_FIX = 'braid.checkFix';
export const DEBUG_INTERLEAVING = 'braid.debugFailingInterleaving';
/** the button of Check the Fix's message that reveals its verdict in the Runs view */
export const SHOW_IN_RUNS = 'Show in Runs';

export interface ConfirmDeps {
  client: LanguageClient;
  /** the pattern of a key (the client's copy of the server's patterns) */
  pattern(key: string): PatternDto | undefined;
  /** the first pattern listed (commands run without an argument) */
  first(): PatternDto | undefined;
  openTracer(run: string, patternKey: string): void;
  /** reveals and selects Check the Fix's verdict of this pattern in the Runs view ("Show in Runs") */
  showFixInRuns(key: string): unknown;
  log: vscode.LogOutputChannel;
  /** absolute path of the extension's braid-agent.jar */
  agentJar(): string;
}

type Register = (id: string, fn: (...args: any[]) => unknown) => void;


/** The key of a command argument: a key, a tree node holding a pattern, or nothing (the first pattern). */
export function patternKeyOf(arg: unknown, d: Pick<ConfirmDeps, 'first'>): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as { kind?: string; pattern?: { key?: unknown }; bug?: { patternKeys?: unknown[] } } | undefined;
  if (n?.pattern && typeof n.pattern.key === 'string') return n.pattern.key;
  if (n?.kind === 'bug' && Array.isArray(n.bug?.patternKeys) && typeof n.bug!.patternKeys[0] === 'string') return n.bug!.patternKeys[0] as string;
  return d.first()?.key;
}

/** "R1 → W2 → W1" */
export function orderText(p: PatternDto): string {
  return p.accesses.map((a) => `${a.type}${a.thread}`).join(' → ');
}

/**
 * The message when there was nothing to compare (issue 39: no verdict without runs): why, and what
 * to do — never a verdict.
 */
export function couldNotCheckMessage(r: ConfirmResultDto): string {
  const c = r.couldNotCheck!;
  const what = r.mode === 'checkFix' ? 'check the fix' : 'confirm the pattern';
  return `Braid could not ${what}: ${c.why}. What to do: ${c.hint}.`;
}

/** The message after a confirmation, in words. */
export function confirmMessage(p: PatternDto, r: ConfirmResultDto): string {
  if (r.couldNotCheck || !r.confirmation) return couldNotCheckMessage(r);
  const c = r.confirmation;
  const rate = (g: { runs: number; failed: number }) => `${g.failed} of ${g.runs}`;
  const what = `${p.id} ${orderText(p)}`;
  if (c.verdict === 'confirmed') {
    return `Braid: confirmed — forcing ${what} made the failure happen in ${rate(c.forced)} runs${c.opposite ? `; the opposite order ${rate(c.opposite)}` : ''}${c.control ? `, unforced ${rate(c.control)}` : ''}. This is the root cause.`;
  }
  if (c.verdict === 'not forced') return `Braid: not forced — ${c.reason}. Something (a lock, a join) orders these accesses: this pattern is likely benign.`;
  if (c.verdict === 'confirms the window') return `Braid: confirms the window — ${c.reason}. Holding a thread here makes the failure, whatever the order: the root cause is the pattern that opens this window.`;
  return `Braid: refuted — ${c.reason}.`;
}

export function fixMessage(r: ConfirmResultDto): string {
  if (r.couldNotCheck) return couldNotCheckMessage(r);
  const f = r.fix!;
  return f.verdict === 'fixed' ? `Braid: fixed — ${f.reason}.` : `Braid: not fixed — ${f.reason}.`;
}

function withProgress(client: LanguageClient, title: string, params: ConfirmParams): Promise<ConfirmResultDto> {
  return requestWithProgress<ConfirmResultDto>(client, title, ConfirmRequest, params);
}

/**
 * Asks before running: every field taken from the recording.json of the pattern's runs (the command,
 * its folder, include/exclude, time limit, fail-on-output pattern, name…), escaped (commandDialog.ts).
 */
async function askToRun(client: LanguageClient, key: string, what: string, runs: number, withPrepare: boolean): Promise<boolean> {
  const c = await client.sendRequest<ConfirmCommandResult>(ConfirmCommandRequest, { key });
  if (c.problem) {
    void vscode.window.showWarningMessage(`Braid: ${dialogLine(c.problem)}. Record the runs again with Braid, or run \`braid confirm <traces> -- <command>\` in a terminal.`);
    return false;
  }
  if (!c.command) {
    void vscode.window.showWarningMessage(
      'Braid: the traces do not say how to run the program (no recording.json: recorded before Braid kept it, or copied). Record the runs again with Braid (the test code lens or Record Runs), or run `braid confirm <traces> -- <command>` in a terminal.',
    );
    return false;
  }
  const pick = await vscode.window.showInformationMessage(`Braid: ${what}`, { modal: true, detail: confirmDialogDetail(c, runs, withPrepare) }, 'Run');
  return pick === 'Run';
}

export function registerConfirmCommands(d: ConfirmDeps, reg: Register): void {
  const runsSetting = () => vscode.workspace.getConfiguration('braid.confirm').get<number>('runs', 20);

  reg(CONFIRM_PATTERN, async (arg?: unknown) => {
    if (!(await requireTrust())) return undefined;
    const key = patternKeyOf(arg, d);
    const p = key ? d.pattern(key) : undefined;
    if (!p) {
      void vscode.window.showInformationMessage('Braid: no pattern to confirm yet. Record runs of the failing test first (the "Braid: find the root cause" code lens).');
      return undefined;
    }
    const runs = runsSetting();
    if (!(await askToRun(d.client, p.key, `Confirm ${p.id} ${orderText(p)} by forcing its interleaving? (${runs} runs forced, ${runs} in the opposite order, ${runs} unforced)`, 3 * runs, false))) return undefined;
    const r = await withProgress(d.client, `Braid: confirming ${p.id} ${orderText(p)}`, { key: p.key, runs });
    if (r.couldNotCheck || !r.confirmation) {
      d.log.warn(`confirm ${p.id} ${p.key}: could not check — ${r.couldNotCheck?.why} (${r.runs} runs, ${r.seconds.toFixed(1)} s)`);
      void vscode.window.showWarningMessage(couldNotCheckMessage(r));
      return r;
    }
    d.log.info(`confirm ${p.id} ${p.key}: ${r.confirmation.verdict} — ${r.confirmation.reason} (${r.runs} runs, ${r.seconds.toFixed(1)} s)`);
    const buttons = r.failingRun ? ['Reproduce'] : [];
    const show = r.confirmation.verdict === 'confirmed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const pick = await show(confirmMessage(p, r), ...buttons);
    if (pick === 'Reproduce' && r.failingRun) d.openTracer(vscode.Uri.parse(r.failingRun.uri).fsPath, p.key);
    return r;
  });

  reg(REPRODUCE_FAILURE, async (arg?: unknown) => {
    const key = patternKeyOf(arg, d);
    const p = key ? d.pattern(key) : undefined;
    const trace = p?.confirmation?.failingTrace;
    if (p && trace) {
      d.openTracer(trace, p.key);
      return trace;
    }
    if (!p) return undefined;
    // no forced failing run yet: confirm first (it keeps one)
    const pick = await vscode.window.showInformationMessage(`Braid: ${p.id} has no forced failing run yet. Confirm it by forcing its interleaving first.`, 'Confirm');
    if (pick === 'Confirm') return vscode.commands.executeCommand(CONFIRM_PATTERN, p.key);
    return undefined;
  });

  reg(DEBUG_INTERLEAVING, async (arg?: unknown) => {
    const key = patternKeyOf(arg, d);
    const p = key ? d.pattern(key) : undefined;
    if (!p) return undefined;
    const plan = p.confirmation?.verdict === 'confirmed' ? p.confirmation.plan : undefined;
    if (!plan) {
      const pick = await vscode.window.showInformationMessage(`Braid: debugging the failing interleaving needs ${p.id} confirmed by forcing first (its forcing plan).`, 'Confirm');
      if (pick === 'Confirm') await vscode.commands.executeCommand(CONFIRM_PATTERN, p.key);
      return undefined;
    }
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return undefined;
    const c = await d.client.sendRequest<ConfirmCommandResult>(ConfirmCommandRequest, { key: p.key });
    if (!c.command) {
      void vscode.window.showWarningMessage('Braid: the traces do not say how the program was run (no recording.json). See docs/confirm.md, "Debugging the failing interleaving", to write the configuration by hand.');
      return undefined;
    }
    const cfg = debugConfiguration({
      command: c.command,
      agentJar: d.agentJar(),
      plan,
      trace: vscode.Uri.joinPath(folder.uri, '.braid', 'confirm', 'debug.trace.jsonl').fsPath,
      include: c.include ?? [],
      patternName: `${p.id} ${orderText(p)}`,
    });
    if (typeof cfg === 'string') {
      void vscode.window.showWarningMessage(`Braid: cannot write a debug configuration: ${cfg}`);
      return undefined;
    }
    const launch = vscode.workspace.getConfiguration('launch', folder.uri);
    const configs = (launch.get<{ name?: string }[]>('configurations') ?? []).filter((x) => x?.name !== cfg.name);
    await launch.update('configurations', [...configs, { ...cfg, ...(c.cwd ? { cwd: c.cwd } : {}) }], vscode.ConfigurationTarget.WorkspaceFolder);
    // breakpoints at the pattern's lines (in the user's code)
    const seen = new Set<string>();
    const bps = p.accesses
      .filter((a) => a.uri && !seen.has(`${a.uri}:${a.line}`) && seen.add(`${a.uri}:${a.line}`))
      .map((a) => new vscode.SourceBreakpoint(new vscode.Location(vscode.Uri.parse(a.uri!), new vscode.Position(Math.max(0, a.line - 1), 0))));
    if (bps.length) vscode.debug.addBreakpoints(bps);
    d.log.info(`debug configuration "${cfg.name}": ${JSON.stringify(cfg)}`);
    void vscode.window.showInformationMessage(
      `Braid: added "${cfg.name}" to launch.json${bps.length ? ` and ${bps.length} breakpoint${bps.length === 1 ? '' : 's'} on the pattern's lines` : ''}. Start it from Run and Debug (needs a Java debugger extension).`,
    );
    return cfg;
  });

    reg(CHECK_FIX, async (arg?: unknown) => {
    if (!(await requireTrust())) return undefined;
    const key = patternKeyOf(arg, d);
    const p = key ? d.pattern(key) : undefined;
    if (!p) {
      void vscode.window.showInformationMessage('Braid: no pattern to check. Record runs of the failing test first, then confirm its root cause.');
      return undefined;
    }
    await vscode.workspace.saveAll(false);
    const runs = runsSetting();
    if (!(await askToRun(d.client, p.key, `Check the fix of ${p.id} ${orderText(p)}? Braid rebuilds, forces the interleaving ${runs} times and records ${runs} runs with the recording's noise.`, 2 * runs, true))) return undefined;
    const r = await withProgress(d.client, 'Braid: checking the fix', { key: p.key, runs, mode: 'checkFix' });
    d.log.info(`check fix ${p.id} ${p.key}: ${r.fix?.verdict} — ${r.fix?.reason}`);
    // a verdict is kept beside the recording it judged and listed in the Runs view: "Show in Runs" goes there
    const kept = !r.couldNotCheck && (r.fix?.verdict === 'fixed' || r.fix?.verdict === 'not fixed');
    const show = r.fix?.verdict === 'fixed' && !r.couldNotCheck ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void Promise.resolve(show(fixMessage(r), ...(kept ? [SHOW_IN_RUNS] : []))).then((pick) => {
      if (pick === SHOW_IN_RUNS) return d.showFixInRuns(p.key);
      return undefined;
    });
    return r;
  });
}
