/**
 * Runs view actions (issue 30, point 3): Exclude Run / Include Run (kept in
 * `<workspace folder>/.braid/excluded-runs.json`, which the language server reads and watches:
 * server/src/workspace/excludedRuns.ts) and Delete Recording (its trace files, their logs and its
 * recording.json; never a file outside a workspace folder). The analysis updates through the
 * server's file watching.
 */
import * as vscode from 'vscode';
import { excludedRunsText, parseExcludedRuns } from '../../server/src/workspace/excludedRuns';

const EXCLUDED_RUNS = '.braid/excluded-runs.json';
import { recordingFolder, type BraidModel } from './model';
import type { RunDto } from '../../server/src/lsp/protocol';

/** The workspace folder holding `file`, and the file's `/`-separated path relative to it. */
function inWorkspace(file: string): { folder: vscode.WorkspaceFolder; rel: string } | undefined {
  const uri = vscode.Uri.file(file);
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return undefined;
  const rel = vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
  if (!rel || rel.startsWith('../') || rel === file) return undefined;
  return { folder, rel };
}

async function readExcluded(folder: vscode.WorkspaceFolder): Promise<string[]> {
  try {
    return parseExcludedRuns(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, ...EXCLUDED_RUNS.split('/')))));
  } catch {
    return [];
  }
}

async function writeExcluded(folder: vscode.WorkspaceFolder, runs: string[]): Promise<void> {
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.braid'));
  await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder.uri, ...EXCLUDED_RUNS.split('/')), new TextEncoder().encode(excludedRunsText(runs)));
}

/** Adds (exclude) or removes (include) a trace in its folder's excluded-runs.json. */
export async function setExcluded(file: string, exclude: boolean): Promise<void> {
  const at = inWorkspace(file);
  if (!at) throw new Error(`${file} is not inside a workspace folder`);
  const runs = await readExcluded(at.folder);
  const next = exclude ? [...runs, at.rel] : runs.filter((r) => r !== at.rel);
  await writeExcluded(at.folder, next);
}

/** The trace file of a Runs view node (a run or an excluded run). */
export function nodeFile(node: unknown): string | undefined {
  const n = node as { run?: RunDto; file?: unknown } | undefined;
  if (n?.run && typeof n.run.file === 'string') return n.run.file;
  return typeof n?.file === 'string' ? n.file : undefined;
}

/** Deletes a recording (the folder of a run, or a group's folder): its traces, their logs and recording.json, after asking. */
export async function deleteRecording(node: unknown, model: BraidModel, log: vscode.LogOutputChannel): Promise<void> {
  const n = node as { dir?: unknown; run?: RunDto } | undefined;
  const dir = typeof n?.dir === 'string' ? n.dir : n?.run ? recordingFolder(n.run.file) : undefined;
  if (!dir) throw new Error('no recording selected: right-click a recording or a run in the Runs view');
  const runs = model.runs.filter((r) => recordingFolder(r.file) === dir);
  const excluded = model.excluded.filter((x) => recordingFolder(x.file) === dir).map((x) => x.file);
  const traces = [...runs.map((r) => r.file), ...excluded];
  if (!traces.length) return;
  if (!inWorkspace(traces[0])) throw new Error(`the recording ${dir} is not inside a workspace folder; Braid deletes only recordings of the workspace`);
  const failed = runs.filter((r) => r.outcome === 'fail').length;
  const rel = vscode.workspace.asRelativePath(dir, false);
  const DELETE = 'Delete';
  const ok = await vscode.window.showWarningMessage(
    `Delete the recording ${rel}?`,
    { modal: true, detail: `${traces.length} runs (${failed} failed): their traces and logs are deleted and the analysis no longer counts them.` },
    DELETE,
  );
  if (ok !== DELETE) return;
  const files = new Set<string>();
  for (const t of traces) {
    if (!inWorkspace(t)) continue;
    files.add(t);
    files.add(t.replace(/\.trace\.jsonl(\.gz)?$/, '.log'));
  }
  files.add(`${dir}/recording.json`);
  let deleted = 0;
  for (const f of files) {
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(f), { recursive: false, useTrash: false });
      deleted++;
    } catch {
      // already gone (a log that was never written)
    }
  }
  // the folder itself, when nothing else is left in it
  try {
    await vscode.workspace.fs.delete(vscode.Uri.file(dir), { recursive: false, useTrash: false });
  } catch {
    // not empty: other files stay
  }
  // an excluded run of it is no longer worth remembering
  for (const t of excluded) await setExcluded(t, false).catch(() => undefined);
  log.info(`deleted the recording ${dir} (${deleted} files)`);
  void vscode.window.showInformationMessage(`Braid: deleted the recording ${rel} (${traces.length} runs); the analysis is updated.`);
}
