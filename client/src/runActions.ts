/**
 * Runs view actions (issue 30, point 3): Exclude Run / Include Run (kept in
 * `<workspace folder>/.braid/excluded-runs.json`, which the language server reads and watches:
 * server/src/workspace/excludedRuns.ts) and Delete Recording (its trace files, their logs and its
 * recording.json, sources.json and fix-checks.json; never a file outside a workspace folder). The analysis updates through the
 * server's file watching.
 */
import * as vscode from 'vscode';
import { excludedRunsText, parseExcludedRuns } from '../../server/src/workspace/excludedRuns';

const EXCLUDED_RUNS = '.braid/excluded-runs.json';
/** the files a recording folder holds: traces, run logs, recording.json, sources.json and fix-checks.json (Check the Fix's verdicts) */
const RECORDING_FILE = /\.(?:trace\.jsonl(?:\.gz)?|log|json)$/;
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

/**
 * Deletes a recording (the folder of a run, a group's folder, a recording of older code or one
 * without runs): after asking, with a progress notification. A folder that holds only this
 * recording (no sub-folder: no other recording inside it) goes in one recursive delete — one call,
 * not one per file (80 runs took ~40 s file by file); a folder that also holds other recordings
 * (traces directly in `.braid/traces`) loses only this recording's files. Never a folder outside
 * a workspace folder, nor a workspace folder itself; a folder with other files than a recording's
 * also loses only the recording's files.
 */
export async function deleteRecording(node: unknown, model: BraidModel, log: vscode.LogOutputChannel): Promise<void> {
  const n = node as { dir?: unknown; run?: RunDto } | undefined;
  const dir = typeof n?.dir === 'string' ? n.dir : n?.run ? recordingFolder(n.run.file) : undefined;
  if (!dir) throw new Error('no recording selected: right-click a recording or a run in the Runs view');
  const runs = model.runs.filter((r) => recordingFolder(r.file) === dir);
  const excluded = model.excluded.filter((x) => recordingFolder(x.file) === dir).map((x) => x.file);
  const older = (model.older ?? []).filter((o) => o.dir === dir).flatMap((o) => o.files);
  const traces = [...runs.map((r) => r.file), ...excluded, ...older];
  const empty = (model.empty ?? []).some((e) => e.dir === dir);
  if (!traces.length && !empty) return;
  const at = inWorkspace(`${dir}/recording.json`);
  if (!at || !at.rel.includes('/')) throw new Error(`the recording ${dir} is not inside a workspace folder; Braid deletes only recordings of the workspace`);
  const failed = runs.filter((r) => r.outcome === 'fail').length + (model.older ?? []).filter((o) => o.dir === dir).reduce((k, o) => k + (o.failed ?? 0), 0);
  const rel = vscode.workspace.asRelativePath(dir, false);
  const DELETE = 'Delete';
  const ok = await vscode.window.showWarningMessage(
    `Delete the recording ${rel}?`,
    { modal: true, detail: traces.length ? `${traces.length} runs (${failed} failed): their traces and logs are deleted and the analysis no longer counts them.` : 'It holds no run: its manifest and logs are deleted.' },
    DELETE,
  );
  if (ok !== DELETE) return;
  const uri = vscode.Uri.file(dir);
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Braid: deleting the recording ${rel}`, cancellable: false }, async (progress) => {
    let entries: [string, vscode.FileType][] = [];
    try {
      entries = await vscode.workspace.fs.readDirectory(uri);
    } catch {
      // already gone
    }
    if (entries.every(([name, type]) => !(type & vscode.FileType.Directory) && RECORDING_FILE.test(name))) {
      // the folder is this recording alone (only its traces, logs and manifests): one delete
      progress.report({ message: `${traces.length} runs` });
      await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false });
    } else {
      // other recordings inside: this recording's files only
      const files = new Set<string>();
      for (const t of traces) {
        if (!inWorkspace(t)) continue;
        files.add(t);
        files.add(t.replace(/\.trace\.jsonl(\.gz)?$/, '.log'));
      }
      for (const m of ['recording.json', 'sources.json', 'fix-checks.json']) if (traces.every((t) => recordingFolder(t) === dir)) files.add(`${dir}/${m}`);
      let done = 0;
      for (const f of files) {
        await vscode.workspace.fs.delete(vscode.Uri.file(f), { recursive: false, useTrash: false }).then(undefined, () => undefined);
        if (++done % 20 === 0) progress.report({ message: `${done} of ${files.size} files`, increment: (20 / files.size) * 100 });
      }
    }
  });
  // an excluded run of it is no longer worth remembering
  for (const t of excluded) await setExcluded(t, false).catch(() => undefined);
  log.info(`deleted the recording ${dir} (${traces.length} runs)`);
  void vscode.window.showInformationMessage(`Braid: deleted the recording ${rel} (${traces.length} runs); the analysis is updated.`);
}
