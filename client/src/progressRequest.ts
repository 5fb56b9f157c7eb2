/**
 * A long server request (braid/pinpoint, braid/confirm) with a cancellable progress notification fed
 * by the request's work-done progress ($/progress); Cancel sends $/cancelRequest.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { WorkDoneProgress, type WorkDoneProgressBegin, type WorkDoneProgressEnd, type WorkDoneProgressReport } from 'vscode-languageserver-protocol';

let tokens = 0;

export async function requestWithProgress<R>(client: LanguageClient, title: string, method: string, params: object): Promise<R> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const workDoneToken = `${method.replace(/\W/g, '-')}-${++tokens}-${Date.now()}`;
    let last = 0;
    const sub = client.onProgress(WorkDoneProgress.type, workDoneToken, (v: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
      if (v.kind === 'end') return;
      const pct = v.percentage;
      progress.report({ message: v.message, ...(pct !== undefined ? { increment: pct - last } : {}) });
      if (pct !== undefined) last = pct;
    });
    try {
      return await client.sendRequest<R>(method, { ...params, workDoneToken }, token);
    } finally {
      sub.dispose();
    }
  });
}
