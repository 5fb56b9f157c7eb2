/**
 * Heat decorations from braid/lineScores: a gutter mark and a whole-line
 * background on every source line of a ranked pattern, in three levels by
 * score. Colours are theme colours contributed in package.json
 * (braid.heat*), so light, dark and high-contrast themes each get theirs.
 * Setting braid.heat.enabled turns them off.
 */
import * as vscode from 'vscode';
import type { LineScoresParams } from '../../server/src/lsp/protocol';

const LEVELS = [
  { name: 'High', min: 0.75 },
  { name: 'Medium', min: 0.4 },
  { name: 'Low', min: 0 },
] as const;

export class HeatDecorations implements vscode.Disposable {
  private readonly types: vscode.TextEditorDecorationType[];
  private byUri = new Map<string, LineScoresParams['files'][number]['lines']>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    this.types = LEVELS.map((l, k) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor(`braid.heat${l.name}Background`),
        overviewRulerColor: new vscode.ThemeColor(`braid.heat${l.name}Ruler`),
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        light: { gutterIconPath: context.asAbsolutePath(`media/heat-${k + 1}-light.svg`) },
        dark: { gutterIconPath: context.asAbsolutePath(`media/heat-${k + 1}-dark.svg`) },
        gutterIconSize: 'contain',
      }),
    );
    this.subs.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('braid.heat')) this.paintAll();
      }),
    );
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration('braid').get<boolean>('heat.enabled', true);
  }

  update(p: LineScoresParams): void {
    this.byUri = new Map(p.files.map((f) => [normalize(f.uri), f.lines]));
    this.paintAll();
  }

  /** the line scores of a document (for tests and the status bar) */
  linesOf(uri: vscode.Uri): { line: number; score: number; rank: number }[] {
    return this.byUri.get(normalize(uri.toString())) ?? [];
  }

  paintAll(): void {
    for (const e of vscode.window.visibleTextEditors) this.paint(e);
  }

  private paint(editor: vscode.TextEditor): void {
    const ranges: vscode.DecorationOptions[][] = LEVELS.map(() => []);
    const lines = this.enabled ? this.byUri.get(normalize(editor.document.uri.toString())) ?? [] : [];
    for (const l of lines) {
      if (l.line < 1 || l.line > editor.document.lineCount) continue;
      const k = LEVELS.findIndex((lv) => l.score >= lv.min);
      const range = editor.document.lineAt(l.line - 1).range;
      ranges[k < 0 ? LEVELS.length - 1 : k].push({ range, hoverMessage: undefined });
    }
    this.types.forEach((t, k) => editor.setDecorations(t, ranges[k]));
  }

  dispose(): void {
    for (const t of this.types) t.dispose();
    for (const s of this.subs) s.dispose();
  }
}

/** file URIs from the server (node's pathToFileURL) and from VS Code differ in escaping; compare decoded */
export function normalize(uri: string): string {
  try {
    return decodeURIComponent(uri).replace(/^file:\/\/\/([A-Za-z]):/, (_m, d: string) => `file:///${d.toLowerCase()}:`);
  } catch {
    return uri;
  }
}
