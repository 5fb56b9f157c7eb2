/**
 * The command "Braid: Add MCP Server to Workspace" (braid.addMcpServer, issue 44): writes or merges
 * the `braid` entry of the workspace folder's `.vscode/mcp.json` (mcpConfig.ts) so that agent mode —
 * or any MCP client reading the file — can start `braid mcp` with the folder as its only root. A
 * broken file is left alone with an error naming the file, line and column; other servers are kept.
 */
import * as vscode from 'vscode';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { braidServerEntry, McpConfigError, withBraidServer } from './mcpConfig';

export const ADD_MCP_SERVER = 'braid.addMcpServer';

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Adds the entry to `folder`'s .vscode/mcp.json; the message for the user (or throws McpConfigError). */
export async function addMcpServer(folder: string, cliPath: string): Promise<{ file: string; message: string }> {
  const file = path.join(folder, '.vscode', 'mcp.json');
  const shown = path.join('.vscode', 'mcp.json');
  const st = await fs.lstat(file).catch(() => undefined);
  if (st && !st.isFile()) throw new McpConfigError(`${shown} is not a regular file (${st.isSymbolicLink() ? 'a symbolic link' : 'a folder'}); nothing was written`);
  const r = withBraidServer(await readIfThere(file), braidServerEntry(cliPath), shown);
  if (!r.changed) return { file, message: `Braid: ${shown} already has Braid's MCP server.` };
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, r.text);
  return {
    file,
    message: `Braid: ${r.replaced ? 'updated' : 'added'} the MCP server "braid" in ${shown}. It runs programs only in ${folder}; start it from the MCP view or agent mode's tools.`,
  };
}

export function registerAddMcpServer(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand(ADD_MCP_SERVER, async () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!folders.length) {
      void vscode.window.showErrorMessage('Braid: open a folder first — the MCP server runs programs only in the workspace folder it is given.');
      return;
    }
    let folder = folders[0];
    if (folders.length > 1) {
      const pick = await vscode.window.showQuickPick(
        folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
        { placeHolder: 'Add Braid’s MCP server to which workspace folder?' },
      );
      if (!pick) return;
      folder = pick.folder;
    }
    try {
      const r = await addMcpServer(folder.uri.fsPath, context.asAbsolutePath(path.join('dist', 'braid.js')));
      const open = await vscode.window.showInformationMessage(r.message, 'Open mcp.json');
      if (open) await vscode.window.showTextDocument(vscode.Uri.file(r.file));
    } catch (e) {
      if (!(e instanceof McpConfigError)) throw e;
      const open = await vscode.window.showErrorMessage(`Braid: ${e.message}`, 'Open mcp.json');
      if (open) await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder.uri.fsPath, '.vscode', 'mcp.json')));
    }
  });
}
