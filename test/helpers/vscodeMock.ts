/**
 * The few `vscode` APIs that client code under unit test uses: for panels.ts's file resolution
 * (Uri, workspace folders, workspace.fs.stat, findFiles, FileType, backed by the real file
 * system) and for heat.ts (decoration types, visible editors that record setDecorations, the
 * `braid` configuration, change events). Install with `useVscodeMock(folders)` before requiring
 * the module under test.
 */
import Module from 'node:module';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', path.resolve(p).split(path.sep).join('/'));
  }
  static parse(text: string, strict?: boolean): Uri {
    const u = new URL(text);
    if (strict && !u.protocol) throw new Error('no scheme');
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...parts));
  }
  with(change: { path?: string }): Uri {
    return new Uri(this.scheme, this.authority, change.path ?? this.path);
  }
  get fsPath(): string {
    return this.scheme === 'file' ? fileURLToPath(pathToFileURL(this.path)) : this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}`;
  }
}

/** paths given to workspace.fs.delete, in order */
export const fsDeletes: string[] = [];
export const FileType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 };

export interface WorkspaceFolder {
  uri: Uri;
  name: string;
  index: number;
}

const state: { folders: WorkspaceFolder[] } = { folders: [] };

type Listener = (e: unknown) => void;
const listeners = { editors: [] as Listener[], config: [] as Listener[] };
/** the `braid` settings getConfiguration('braid') answers from (keys like 'heat.enabled') */
export const settings: Record<string, unknown> = {};

/** Tree items (client/src/trees.ts): plain records of what the tree shows. */
export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 };
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  command?: unknown;
  contextValue?: string;
  constructor(
    readonly label: string,
    readonly collapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class MarkdownString {
  value = '';
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}
export const OverviewRulerLane = { Left: 1, Center: 2, Right: 4, Full: 7 };

export interface MockEditor {
  document: { uri: Uri; lineCount: number; lineAt(l: number): { range: { line: number } } };
  /** decoration type id → the 1-based lines last set */
  decorations: Map<string, number[]>;
  /** decoration type id → the text after each line last set (renderOptions.after.contentText) */
  decorationTexts: Map<string, (string | undefined)[]>;
  setDecorations(type: { id: string }, ranges: { range: { line: number }; renderOptions?: { after?: { contentText?: string } } }[]): void;
}

/** A visible editor on `file` with `lineCount` lines. */
export function mockEditor(file: string, lineCount: number): MockEditor {
  const decorations = new Map<string, number[]>();
  const decorationTexts = new Map<string, (string | undefined)[]>();
  return {
    document: { uri: Uri.file(file), lineCount, lineAt: (l: number) => ({ range: { line: l } }) },
    decorations,
    decorationTexts,
    setDecorations: (type, ranges) => {
      decorations.set(type.id, ranges.map((r) => r.range.line + 1));
      decorationTexts.set(type.id, ranges.map((r) => r.renderOptions?.after?.contentText));
    },
  };
}

/**
 * What the user answers and what the extension showed: dialogs and messages return the queued
 * answers (undefined when none), every call is recorded in `ui.calls`.
 */
export const ui = {
  calls: [] as { fn: string; args: unknown[] }[],
  answers: new Map<string, unknown[]>(),
  answer(fn: string, value: unknown): void {
    if (!this.answers.has(fn)) this.answers.set(fn, []);
    this.answers.get(fn)!.push(value);
  },
  reset(): void {
    this.calls = [];
    this.answers.clear();
  },
};
const asked = (fn: string) => async (...args: unknown[]) => {
  ui.calls.push({ fn, args });
  return ui.answers.get(fn)?.shift();
};

/** commands registered through vscode.commands.registerCommand, and the ones executed */
export const commands = {
  registered: new Map<string, (...a: unknown[]) => unknown>(),
  executed: [] as unknown[][],
  registerCommand(id: string, fn: (...a: unknown[]) => unknown) {
    this.registered.set(id, fn);
    return { dispose() {} };
  },
  async executeCommand(...args: unknown[]) {
    this.executed.push(args);
  },
};

export class EventEmitter<T> {
  private listeners: ((x: T) => void)[] = [];
  readonly event = (l: (x: T) => void) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(x: T): void {
    for (const l of this.listeners) l(x);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };

export const ViewColumn = { Active: -1, Beside: -2, One: 1, Two: 2 };

/** A webview panel that records what the host posts and lets a test send the view's messages. */
export class MockPanel {
  visible = true;
  viewColumn = 1;
  posted: unknown[] = [];
  revealed = 0;
  private readonly on = { message: [] as Listener[], state: [] as Listener[], dispose: [] as Listener[] };
  readonly webview = {
    options: {} as unknown,
    html: '',
    cspSource: 'vscode-resource:',
    asWebviewUri: (u: Uri) => u,
    postMessage: async (m: unknown) => {
      this.posted.push(m);
      return true;
    },
    onDidReceiveMessage: (l: Listener) => this.listen(this.on.message, l),
  };
  constructor(
    readonly viewType: string,
    readonly title: string,
  ) {}
  private listen(list: Listener[], l: Listener) {
    list.push(l);
    return { dispose: () => list.splice(list.indexOf(l), 1) };
  }
  onDidChangeViewState = (l: Listener) => this.listen(this.on.state, l);
  onDidDispose = (l: Listener) => this.listen(this.on.dispose, l);
  reveal(): void {
    this.revealed++;
  }
  /** the view posts a message to the host */
  fromView(m: unknown): void {
    for (const l of [...this.on.message]) l(m);
  }
  setVisible(v: boolean): void {
    this.visible = v;
    for (const l of [...this.on.state]) l({ webviewPanel: this });
  }
  dispose(): void {
    for (const l of [...this.on.dispose]) l(undefined);
  }
}

let decorationTypes = 0;
export const window = {
  panels: [] as MockPanel[],
  createWebviewPanel(viewType: string, title: string) {
    const p = new MockPanel(viewType, title);
    window.panels.push(p);
    return p;
  },
  registerWebviewPanelSerializer() {
    return { dispose() {} };
  },
  /** tree views: the ids created, and the elements revealed */
  treeViews: [] as string[],
  createTreeView(id: string) {
    window.treeViews.push(id);
    return {
      reveal: async (element: unknown) => {
        ui.calls.push({ fn: 'reveal', args: [id, element] });
      },
      dispose() {},
    };
  },
  showSaveDialog: asked('showSaveDialog'),
  showOpenDialog: asked('showOpenDialog'),
  showInformationMessage: asked('showInformationMessage'),
  showWarningMessage: asked('showWarningMessage'),
  showErrorMessage: asked('showErrorMessage'),
  showInputBox: asked('showInputBox'),
  showQuickPick: asked('showQuickPick'),
  showTextDocument: asked('showTextDocument'),
  async withProgress<T>(options: unknown, task: (p: { report(x: unknown): void }, token: unknown) => Promise<T>): Promise<T> {
    ui.calls.push({ fn: 'withProgress', args: [options] });
    return task({ report: (x) => ui.calls.push({ fn: 'progress', args: [x] }) }, { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) });
  },
  visibleTextEditors: [] as MockEditor[],
  createTextEditorDecorationType(options: { backgroundColor?: ThemeColor }) {
    return { id: `${++decorationTypes}:${options.backgroundColor?.id ?? ''}`, dispose() {} };
  },
  onDidChangeVisibleTextEditors(l: Listener) {
    listeners.editors.push(l);
    return { dispose() {} };
  },
};

/** Fires onDidChangeConfiguration for a changed `braid.*` section. */
export function changeConfiguration(section: string): void {
  for (const l of listeners.config) l({ affectsConfiguration: (s: string) => section.startsWith(s) || s.startsWith(section) });
}

function walk(dir: string, base: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, base, out);
    else if (e.name === base) out.push(p);
  }
}

export const workspace = {
  /** workspace trust (Restricted Mode when false) */
  isTrusted: true,
  /** configuration updates: [section.key, value, target] */
  updates: [] as unknown[][],
  /** Save All (Check the Fix saves the edited files first) */
  async saveAll(_includeUntitled?: boolean): Promise<boolean> {
    return true;
  },
  getConfiguration(section: string) {
    const full = (key: string) => (section === 'braid' ? key : `${section.replace(/^braid\./, '')}.${key}`);
    return {
      get: <T>(key: string, def: T): T => (section.startsWith('braid') && full(key) in settings ? (settings[full(key)] as T) : def),
      update: async (key: string, value: unknown, target: unknown) => {
        workspace.updates.push([`${section}.${key}`, value, target]);
      },
    };
  },
  onDidChangeConfiguration(l: Listener) {
    listeners.config.push(l);
    return { dispose() {} };
  },
  get workspaceFolders(): WorkspaceFolder[] | undefined {
    return state.folders.length ? state.folders : undefined;
  },
  asRelativePath(p: Uri | string, _includeFolder?: boolean): string {
    const fsPath = typeof p === 'string' ? p : p.fsPath;
    const f = state.folders.find((w) => fsPath === w.uri.fsPath || fsPath.startsWith(w.uri.fsPath + '/'));
    return f ? path.relative(f.uri.fsPath, fsPath) : fsPath;
  },
  getWorkspaceFolder(u: Uri): WorkspaceFolder | undefined {
    return state.folders.find((f) => f.uri.scheme === u.scheme && (u.path === f.uri.path || u.path.startsWith(f.uri.path + '/')));
  },
  fs: {
    async writeFile(u: Uri, data: Uint8Array): Promise<void> {
      writeFileSync(u.fsPath, data);
    },
    async createDirectory(u: Uri): Promise<void> {
      mkdirSync(u.fsPath, { recursive: true });
    },
    async copy(from: Uri, to: Uri): Promise<void> {
      copyFileSync(from.fsPath, to.fsPath);
    },
    async readDirectory(u: Uri): Promise<[string, number][]> {
      return readdirSync(u.fsPath, { withFileTypes: true }).map((e) => [e.name, e.isDirectory() ? FileType.Directory : FileType.File]);
    },
    /** every call is counted in `fsDeletes` (a recording is deleted in one call, issue 43) */
    async delete(u: Uri, o?: { recursive?: boolean }): Promise<void> {
      fsDeletes.push(u.fsPath);
      rmSync(u.fsPath, { recursive: o?.recursive === true });
    },
    async stat(u: Uri): Promise<{ type: number }> {
      const st = statSync(u.fsPath); // follows symlinks, as VS Code's stat reports the target's type
      return { type: st.isFile() ? FileType.File : st.isDirectory() ? FileType.Directory : FileType.Unknown };
    },
  },
  /** only the `**\/<name>` form panels.ts uses */
  async findFiles(glob: string, _exclude?: string, max = Infinity): Promise<Uri[]> {
    const m = /^\*\*\/([^/*]+)$/.exec(glob);
    if (!m) throw new Error(`vscode mock: unsupported glob ${glob}`);
    const out: string[] = [];
    for (const f of state.folders) walk(f.uri.fsPath, m[1], out);
    return out.slice(0, max).map((p) => Uri.file(p));
  },
};

/** Makes `require('vscode')` return this mock, with these workspace folders. */
export function useVscodeMock(folders: string[]): void {
  state.folders = folders.map((f, index) => ({ uri: Uri.file(f), name: path.basename(f), index }));
  const M = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string; __braidVscodeMock?: boolean };
  if (M.__braidVscodeMock) return;
  const orig = M._resolveFilename;
  M._resolveFilename = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') return __filename;
    return orig.call(this, request, ...rest);
  };
  M.__braidVscodeMock = true;
}
