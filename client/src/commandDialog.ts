/**
 * What the editor shows before it runs a command that comes from a file of the workspace (a
 * recording's manifest, a noise plan): every field it takes, each on its own line, with control and
 * bidirectional characters shown escaped (`\x1b`, `\u202e`) — the escaping of terminal output
 * (engine/outputEscaping.ts, terminalLine), so a dialog never renders a hidden or reordered command
 * (issue 39). Pure: the fields in, the dialog's text out.
 */
import { terminalLine } from '../../server/src/engine/outputEscaping';
import { commandText } from '../../server/src/recorder/runs/commandText';
import type { ConfirmCommandResult } from '../../server/src/lsp/protocol';

/** One line of text for a dialog: control and bidirectional characters shown escaped, line breaks too. */
export function dialogLine(s: string): string {
  return terminalLine(s);
}

/** A command line for a dialog: words with spaces or quotes JSON-quoted, then escaped as dialogLine. */
export function dialogCommand(words: readonly string[]): string {
  return dialogLine(commandText(words));
}

/**
 * The detail of the Confirm / Check the Fix dialog: the command and its folder, the preparation steps
 * (Check the Fix), and every other field braid/confirm takes from the manifest.
 */
export function confirmDialogDetail(c: ConfirmCommandResult, runs: number, checkFix: boolean): string {
  const lines: string[] = [];
  if (checkFix) for (const s of c.prepare) lines.push(`First: ${dialogCommand(s.command)} (in ${dialogLine(s.cwd)})`);
  lines.push(`Runs up to ${runs} times: ${dialogCommand(c.command ?? [])}`);
  lines.push(`in ${c.cwd !== undefined ? dialogLine(c.cwd) : 'the workspace folder'}`);
  if (c.include?.length) lines.push(`Records: ${dialogLine(c.include.join(' '))}`);
  if (c.exclude?.length) lines.push(`Not: ${dialogLine(c.exclude.join(' '))}`);
  if (c.timeoutSeconds !== undefined) lines.push(`Time limit: ${c.timeoutSeconds} s per run`);
  if (c.failOnOutput !== undefined) lines.push(`A run fails when its output matches: /${dialogLine(c.failOnOutput)}/`);
  if (c.name) lines.push(`Name: ${dialogLine(c.name)}`);
  if (checkFix && c.noise !== undefined) lines.push(`Noise of the new recording: ${c.noise}`);
  if (c.manifest) lines.push(`From ${dialogLine(c.manifest)} (a file of the workspace: check it before running)`);
  return lines.join('\n');
}
