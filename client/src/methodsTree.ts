/**
 * The "Method Ranking" view: the call-graph method ranking (seed 003, braid/methods) — method,
 * score, the edge that gave the score, runs — and the command that opens the comparison with
 * GRIFFIN's suspicious methods of the same traces (webview/src/methods).
 */
import * as vscode from 'vscode';
import { MethodDto, MethodsRequest, MethodsResult } from '../../server/src/lsp/protocol';
import type { BraidModel } from './model';
import { CachedRequest } from './cachedRequest';
import { mdText } from '../../server/src/engine/outputEscaping';
import { shortMethod } from '../../server/src/engine/displayNames';
import { fitNames, ROW_CHARS } from './treeText';

type MethodNode = { kind: 'method'; method: MethodDto } | { kind: 'detail'; id: string; label: string; description?: string; tooltip?: string } | { kind: 'message'; label: string };

/** Escapes text for Markdown (and the HTML it may contain): engine/outputEscaping.ts `mdText`. */
export const escapeMarkdown = mdText;

/** `MyVector.toArray`, `main (lambda 1)`: the names of the other views (engine/displayNames.ts), the full one in the tooltip */
function shortName(m: string): string {
  return shortMethod(m);
}

export class MethodsTree implements vscode.TreeDataProvider<MethodNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<MethodNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly cache: CachedRequest<MethodsResult>;
  private readonly subscription: vscode.Disposable;

  constructor(model: BraidModel) {
    this.cache = new CachedRequest(() => model.request<MethodsResult>(MethodsRequest, {}));
    this.subscription = model.onDidChange(() => this.refresh());
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }

  refresh(): void {
    this.cache.invalidate();
    this.emitter.fire();
  }

  load(): Promise<MethodsResult | undefined> {
    return this.cache.get();
  }

  getTreeItem(n: MethodNode): vscode.TreeItem {
    if (n.kind === 'message') return new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    if (n.kind === 'detail') {
      const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
      item.id = n.id;
      item.description = n.description;
      item.tooltip = n.tooltip;
      return item;
    }
    const m = n.method;
    // the score first in the description; the name gives way so that it stays visible at the default width (issue 30, point 4)
    const rank = `#${m.rank} `;
    const score = m.score.toFixed(3);
    const item = new vscode.TreeItem(`${rank}${fitNames(shortName(m.method), ROW_CHARS - rank.length - score.length - 1)}`, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `method:${m.method}`;
    const edge = m.edge ? ` · ${m.edge.kind} → ${shortName(m.edge.target)}` : '';
    item.description = `${score}${edge} · ${m.runs.failed} failed / ${m.runs.passed} passed runs`;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**Rank ${m.rank}**, score **${m.score.toFixed(3)}** (InfoGain of its best outgoing edge)\n\n`);
    md.appendMarkdown(`${escapeMarkdown(m.method)}\n\n${escapeMarkdown(m.file)}:${m.line} · ${m.loc} lines of code${m.locSource === 'span' ? ' (span of recorded lines)' : ''}`);
    if (m.edge) md.appendMarkdown(`\n\nedge ${escapeMarkdown(m.edge.text)}: ${m.edge.meanFailed.toFixed(2)} per failed vs ${m.edge.meanPassed.toFixed(2)} per passed run`);
    item.tooltip = md;
    item.iconPath = new vscode.ThemeIcon(m.score >= 0.5 ? 'flame' : m.score > 0 ? 'warning' : 'circle-outline', m.score > 0 ? new vscode.ThemeColor(m.score >= 0.5 ? 'errorForeground' : 'editorWarning.foreground') : undefined);
    item.contextValue = 'braid.method';
    if (m.uri) item.command = { command: 'braid.openAccess', title: 'Open Method', arguments: [m.uri, m.line] };
    return item;
  }

  getParent(): MethodNode | undefined {
    return undefined;
  }

  async getChildren(element?: MethodNode): Promise<MethodNode[]> {
    if (!element) {
      const r = await this.load();
      if (!r) return [{ kind: 'message', label: `Could not rank methods: ${this.cache.error ?? 'no result'}` }];
      if (!r.methods.length) return [{ kind: 'message', label: r.message ?? 'No methods.' }];
      // zero scores tell nothing (issue 30, point 5): hidden, counted in a note
      const scored = r.methods.filter((m) => m.score > 0);
      const out: MethodNode[] = scored.slice(0, 200).map((method) => ({ kind: 'method', method }));
      const zero = r.methods.length - scored.length;
      if (zero > 0) out.push({ kind: 'message', label: `${zero} method${zero === 1 ? '' : 's'} with score 0 not shown` });
      if (!scored.length && r.methods.length) out.unshift({ kind: 'message', label: 'No method separates failing from passing runs (every score is 0): record more runs.' });
      if (r.message) out.unshift({ kind: 'message', label: r.message });
      return out;
    }
    if (element.kind !== 'method') return [];
    const m = element.method;
    const id = `method:${m.method}`;
    const out: MethodNode[] = [];
    if (m.edge) {
      out.push({
        kind: 'detail',
        id: `${id}:edge`,
        label: `edge ${m.edge.text}`,
        description: `${m.edge.kind} · ${m.edge.meanFailed.toFixed(2)} per failed vs ${m.edge.meanPassed.toFixed(2)} per passed run`,
      });
      out.push({ kind: 'detail', id: `${id}:edgeRuns`, label: `edge in ${m.edge.failedRuns} failed, ${m.edge.passedRuns} passed runs` });
    } else out.push({ kind: 'detail', id: `${id}:edge`, label: 'calls nothing (score 0)' });
    out.push({ kind: 'detail', id: `${id}:where`, label: `${m.file}:${m.line}`, description: `${m.loc} LOC${m.locSource === 'span' ? ' (recorded span)' : ''}` });
    return out;
  }
}

/** Registers the view and its commands; `openComparison` opens the comparison webview. */
export function registerMethodsView(context: vscode.ExtensionContext, model: BraidModel, openComparison: () => void): MethodsTree {
  const tree = new MethodsTree(model);
  const view = vscode.window.createTreeView('braid.methods', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(
    tree,
    view,
    vscode.commands.registerCommand('braid.refreshMethods', () => tree.refresh()),
    vscode.commands.registerCommand('braid.revealMethod', async (name: unknown) => {
      await vscode.commands.executeCommand('braid.methods.focus');
      const r = await tree.load();
      const m = r?.methods.find((x) => x.method === name);
      if (m) await view.reveal({ kind: 'method', method: m }, { select: true, focus: true });
    }),
    vscode.commands.registerCommand('braid.compareSuspiciousMethods', () => openComparison()),
  );
  return tree;
}
