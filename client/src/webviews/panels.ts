/**
 * Hosts Braid's webview panels (Tracer, UNICORN, GRIFFIN, bug graph,
 * Explanations): strict
 * CSP with a nonce, resources only from dist/webview via asWebviewUri, every
 * message from a webview validated before acting, panels restored after a
 * reload through serializers (the views keep their own state with setState).
 */
import * as vscode from 'vscode';
import * as path from 'path';
import { promises as fs } from 'fs';
import { parseWebviewMessage, isInsideFolder, ValidMessage } from './validate';
import { webviewHtml, makeNonce } from './html';

export interface WebviewDataSource {
  request<R>(method: string, params?: unknown): Promise<R>;
  onDidChange(listener: () => void): vscode.Disposable;
}

export interface BraidWebviews {
  openTracer(run?: string, highlightPatternKey?: string): void;
  openUnicorn(): void;
  openGriffin(): void;
  openBugGraph(bug?: number): void;
  openExplanations(): void;
  /** the Method Ranking comparison (call graph vs GRIFFIN) */
  openMethods(): void;
}

type ViewKind = 'tracer' | 'unicorn' | 'griffin' | 'bugGraph' | 'explanations' | 'methods';
const VIEWS: Record<ViewKind, { viewType: string; title: string; findWidget: boolean }> = {
  tracer: { viewType: 'braid.tracer', title: 'Braid: Tracer', findWidget: false },
  unicorn: { viewType: 'braid.unicorn', title: 'Braid: Ranked Patterns', findWidget: true },
  griffin: { viewType: 'braid.griffin', title: 'Braid: Bugs', findWidget: true },
  bugGraph: { viewType: 'braid.bugGraph', title: 'Braid: Bug Graph', findWidget: false },
  explanations: { viewType: 'braid.explanations', title: 'Braid: Explanations', findWidget: true },
  methods: { viewType: 'braid.methodsCompare', title: 'Braid: Method Ranking vs GRIFFIN', findWidget: true },
};

/** viewType of each panel, for package.json `onWebviewPanel:` activation events */
export const WEBVIEW_VIEW_TYPES = Object.values(VIEWS).map((v) => v.viewType);

interface HostedPanel {
  kind: ViewKind;
  panel: vscode.WebviewPanel;
  ready: boolean;
  queue: unknown[];
}

export function registerWebviews(context: vscode.ExtensionContext, source: WebviewDataSource): BraidWebviews {
  const root = vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview');
  const panels = new Map<ViewKind, HostedPanel>();

  function send(h: HostedPanel, message: unknown): void {
    if (h.ready) void h.panel.webview.postMessage(message);
    else h.queue.push(message);
  }

  function adopt(kind: ViewKind, panel: vscode.WebviewPanel): HostedPanel {
    const spec = VIEWS[kind];
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [root] };
    const nonce = makeNonce();
    panel.webview.html = webviewHtml({
      cspSource: panel.webview.cspSource,
      nonce,
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, `${kind}.js`)).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, `${kind}.css`)).toString(),
      title: spec.title,
    });
    const hosted: HostedPanel = { kind, panel, ready: false, queue: [] };
    panels.set(kind, hosted);
    const subs: vscode.Disposable[] = [];
    subs.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        const m = parseWebviewMessage(raw);
        if (!m) return; // unknown or malformed: ignored
        void handle(hosted, m).catch((e: unknown) => console.error('[braid] webview message failed', e));
      }),
      panel.onDidChangeViewState(() => {
        // a hidden webview (no retainContextWhenHidden) is torn down and reloads: wait for its next 'ready'
        if (!panel.visible) hosted.ready = false;
      }),
      panel.onDidDispose(() => {
        if (panels.get(kind) === hosted) panels.delete(kind);
        for (const s of subs) s.dispose();
      }),
    );
    return hosted;
  }

  function open(kind: ViewKind): HostedPanel {
    const existing = panels.get(kind);
    if (existing) {
      existing.panel.reveal(undefined, false);
      return existing;
    }
    const spec = VIEWS[kind];
    const panel = vscode.window.createWebviewPanel(
      spec.viewType,
      spec.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, enableCommandUris: false, enableFindWidget: spec.findWidget, localResourceRoots: [root] },
    );
    return adopt(kind, panel);
  }

  async function handle(h: HostedPanel, m: ValidMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        h.ready = true;
        const q = h.queue.splice(0);
        for (const msg of q) void h.panel.webview.postMessage(msg);
        return;
      }
      case 'request': {
        try {
          const result = await source.request<unknown>(m.lspMethod, m.params);
          void h.panel.webview.postMessage({ type: 'response', requestId: m.requestId, result });
        } catch (e) {
          void h.panel.webview.postMessage({ type: 'response', requestId: m.requestId, error: errorText(e) });
        }
        return;
      }
      case 'fetchEvents': {
        try {
          const result = await source.request<unknown>('braid/traceEvents', m.params);
          void h.panel.webview.postMessage({ type: 'events', requestId: m.requestId, result });
        } catch (e) {
          void h.panel.webview.postMessage({ type: 'events', requestId: m.requestId, error: errorText(e) });
        }
        return;
      }
      case 'openLocation': {
        const uri = await resolveWorkspaceFile(m.file, m.uri);
        if (!uri) {
          void vscode.window.showWarningMessage(`Braid: ${m.file} is not a file in this workspace (check the braid source roots setting).`);
          return;
        }
        await openAt(uri, m.line, h.panel.viewColumn);
        return;
      }
      case 'openTracer':
        api.openTracer(m.run, m.patternKey);
        return;
      case 'openBugGraph':
        api.openBugGraph(m.bug);
        return;
      case 'confirmPattern':
        // the command asks before it runs anything (it shows the command from recording.json)
        void vscode.commands.executeCommand(m.reproduce ? 'braid.reproduceFailure' : 'braid.confirmPattern', m.patternKey);
        return;
      case 'saveSvg': {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = await vscode.window.showSaveDialog({
          ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, m.name) } : {}),
          filters: { 'SVG image': ['svg'] },
          saveLabel: 'Export bug graph',
        });
        if (!target) return;
        await vscode.workspace.fs.writeFile(target, Buffer.from(m.svg, 'utf8'));
        void vscode.window.showInformationMessage(`Braid: bug graph saved to ${target.fsPath || target.toString()}`);
        return;
      }
    }
  }

  const api: BraidWebviews = {
    openTracer(run?: string, highlightPatternKey?: string): void {
      const h = open('tracer');
      if (run !== undefined || highlightPatternKey !== undefined) {
        send(h, { type: 'showRun', ...(run ? { run } : {}), ...(highlightPatternKey ? { highlightPatternKey } : {}) });
      }
    },
    openUnicorn(): void {
      open('unicorn');
    },
    openGriffin(): void {
      open('griffin');
    },
    openBugGraph(bug?: number): void {
      const h = open('bugGraph');
      if (bug !== undefined && Number.isSafeInteger(bug) && bug >= 0) send(h, { type: 'showBug', bug });
    },
    openExplanations(): void {
      open('explanations');
    },
    openMethods(): void {
      open('methods');
    },
  };

  for (const kind of Object.keys(VIEWS) as ViewKind[]) {
    context.subscriptions.push(
      vscode.window.registerWebviewPanelSerializer(VIEWS[kind].viewType, {
        async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
          adopt(kind, panel);
        },
      }),
    );
  }
  context.subscriptions.push(
    source.onDidChange(() => {
      for (const h of panels.values()) send(h, { type: 'changed' });
    }),
    { dispose: () => [...panels.values()].forEach((h) => h.panel.dispose()) },
  );
  return api;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Resolves a trace path (or the server's uri for it) to an existing file inside a workspace folder. */
export async function resolveWorkspaceFile(file: string, uriText?: string): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) return undefined;
  const candidates: vscode.Uri[] = [];
  if (uriText) {
    try {
      candidates.push(vscode.Uri.parse(uriText, true));
    } catch {
      /* not a uri: ignore */
    }
  }
  if (path.isAbsolute(file)) candidates.push(vscode.Uri.file(file));
  else for (const f of folders) candidates.push(vscode.Uri.joinPath(f.uri, file));
  for (const c of candidates) {
    const ok = await checkedWorkspaceFile(c);
    if (ok) return ok;
  }
  // trace paths are often relative to a source root (e.g. com/x/Foo.java): match by trailing path
  const norm = file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const base = path.posix.basename(norm);
  if (!base || /[*?[\]{}!]/.test(base) || path.isAbsolute(file)) return undefined;
  const found = await vscode.workspace.findFiles(`**/${base}`, '**/node_modules/**', 50);
  // a unique match only (docs/views.md): with two candidates there is no telling which one the trace means
  const matching = found.filter((u) => u.path.endsWith('/' + norm));
  const best = matching.length === 1 ? matching[0] : matching.length === 0 && found.length === 1 ? found[0] : undefined;
  return best ? checkedWorkspaceFile(best) : undefined;
}

async function checkedWorkspaceFile(u: vscode.Uri): Promise<vscode.Uri | undefined> {
  const normalized = u.with({ path: path.posix.normalize(u.path) });
  const folder = vscode.workspace.getWorkspaceFolder(normalized);
  if (!folder || folder.uri.scheme !== normalized.scheme || folder.uri.authority !== normalized.authority) return undefined;
  if (!isInsideFolder(folder.uri.path, normalized.path)) return undefined;
  try {
    const st = await vscode.workspace.fs.stat(normalized);
    if ((st.type & vscode.FileType.File) === 0) return undefined;
  } catch {
    return undefined;
  }
  if (normalized.scheme === 'file') {
    // a symlink must not lead out of the workspace
    try {
      const [real, realRoot] = await Promise.all([fs.realpath(normalized.fsPath), fs.realpath(folder.uri.fsPath)]);
      if (!isInsideFolder(realRoot, real, path)) return undefined;
    } catch {
      return undefined;
    }
  }
  return normalized;
}

/**
 * Where a click in a webview opens a file: an existing editor group other than the webview's (the
 * first one, normally the main group), else the main group itself. Never a new split: the webview
 * would lose half its width and every later panel would open in the narrow group.
 */
export function sourceColumn(panelColumn: vscode.ViewColumn | undefined): vscode.ViewColumn {
  const others = vscode.window.tabGroups.all.map((g) => g.viewColumn).filter((c) => c !== panelColumn).sort((a, b) => a - b);
  return others[0] ?? vscode.ViewColumn.One;
}

async function openAt(uri: vscode.Uri, line: number, panelColumn: vscode.ViewColumn | undefined): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const l = Math.max(0, Math.min(line - 1, doc.lineCount - 1));
  const text = doc.lineAt(l);
  const range = new vscode.Range(l, text.firstNonWhitespaceCharacterIndex, l, text.range.end.character);
  const editor = await vscode.window.showTextDocument(doc, {
    viewColumn: sourceColumn(panelColumn),
    preserveFocus: false,
    preview: true,
    selection: new vscode.Selection(range.start, range.end),
  });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
