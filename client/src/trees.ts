/**
 * The native tree views of the Braid activity-bar container: Runs, Ranked
 * Patterns (UNICORN), Bugs (GRIFFIN) and Explanations (mining). Clicking an
 * access or a method opens the source at its line.
 */
import * as vscode from 'vscode';
import { runLabel, shortProgramName, splitExecution } from './runLabel';
import { fileLine, roleNames, shortFile, shortMethod, shortVariable, threadLabel, threadLegend } from '../../server/src/engine/displayNames';
import { runPlanNote } from './triggerPointText';
import { CachedRequest } from './cachedRequest';
import {
  ExplainedEventDto,
  ExplanationDependencyDto,
  ExplanationGroupDto,
  ExplanationPatternDto,
  ExplanationsRequest,
  ExplanationsResult,
  PatternAccessDto,
  PatternDto,
  RunDto,
  type BugFixDto,
  type OlderRecordingDto,
  type RunsResult,
} from '../../server/src/lsp/protocol';
import { recordingFolder, type BraidModel, type BugDto, type BugMethodDto, type RecordingInfo } from './model';
import { SHAPE_LABELS, type AdviceShape } from '../../server/src/engine/griffin/fixAdvice';
import { mdCode, mdHeadline as markdownHeadline, mdText, plainHeadline } from '../../server/src/engine/outputEscaping';
import { shortFailureMessage } from '../../server/src/engine/runFailure';
import { patternSentence } from '../../server/src/engine/report/patternSentence';
import { distinctExplanations, explanationSteps } from '../../server/src/engine/mining/distinctExplanations';
import { fitNames, INDENT_CHARS, ROW_CHARS, wrapWords } from './treeText';

export type Node =
  | { kind: 'run'; run: RunDto; peers?: readonly RunDto[]; /** inside its recording's group: the label starts with the run number */ inGroup?: boolean }
  | { kind: 'recording'; dir: string; runs: RunDto[]; info: RecordingInfo }
  | { kind: 'excluded'; files: { file: string; uri: string }[] }
  /** a recording of the code before the last change (issue 43): not analyzed; `dir` lets Delete Recording take it */
  | { kind: 'older'; dir: string; older: OlderRecordingDto; info: RecordingInfo; /** the code's bugs before the change (the newest older recording only) */ bugs?: NonNullable<RunsResult['beforeBugs']> }
  /** a recording folder without any run (its recording failed) */
  | { kind: 'emptyRecording'; dir: string; info: RecordingInfo }
  | { kind: 'excludedRun'; file: string; uri: string }
  | { kind: 'pattern'; pattern: PatternDto; parentBug?: number; parentTie?: Node & { kind: 'tie' }; parentWeak?: Node & { kind: 'weak' } }
  | { kind: 'tie'; tie: number; leader: PatternDto; patterns: PatternDto[] }
  | { kind: 'weak'; section: string; patterns: PatternDto[] }
  | { kind: 'access'; access: PatternAccessDto; pattern: PatternDto; index: number; parentBug?: number }
  | { kind: 'bug'; bug: BugDto; /** the verdict of forcing its lead pattern (braid/confirm) */ verdict?: PatternDto['confirmation'] }
  | { kind: 'group'; bug: BugDto; group: 'methods' | 'advice' | 'patterns' | 'runs' }
  | { kind: 'method'; bug: BugDto; method: BugMethodDto }
  | { kind: 'text'; id: string; label: string; tooltip?: string; icon?: string; command?: vscode.Command; /** the row it is listed under (revealing it needs the chain) */ parent?: Node }
  | { kind: 'message'; label: string }
  | { kind: 'explanation'; group: ExplanationGroupDto; /** groups showing the same, folded into this row */ alike?: ExplanationGroupDto[]; tied?: boolean; /** position among the rows */ index?: number }
  | { kind: 'xpattern'; group: ExplanationGroupDto; pattern: ExplanationPatternDto; index: number }
  | { kind: 'xmacro'; id: string; macro: ExplanationPatternDto['macros'][number]; index: number }
  | { kind: 'xevent'; id: string; event: ExplainedEventDto }
  | { kind: 'xdependency'; id: string; dependency: ExplanationDependencyDto };

/**
 * The variables of a pattern, short and distinguishing: `MyVector.size, data` (the class once,
 * then the other fields of the same class), in access order.
 */
/** The verdict of forcing a pattern (braid/confirm) as a badge in the trees. */
export const VERDICT_BADGE: Record<'confirmed' | 'confirms the window' | 'refuted' | 'not forced', string> = { confirmed: '✔ confirmed', 'confirms the window': '◐ confirms the window', refuted: '✗ refuted', 'not forced': '– not forced' };

export function patternVariables(p: PatternDto): string {
  const vars = [...new Set(p.accesses.map((a) => shortVariable(a.variable)))];
  let cls = '';
  return vars
    .map((v) => {
      const dot = v.lastIndexOf('.');
      const c = dot >= 0 ? v.slice(0, dot) : '';
      const out = c && c === cls ? v.slice(dot + 1) : v;
      cls = c;
      return out;
    })
    .join(', ');
}

export function openAccessCommand(uri: string | undefined, line: number, title = 'Open Source'): vscode.Command | undefined {
  if (!uri) return undefined;
  return { command: 'braid.openAccess', title, arguments: [uri, line] };
}

/** "W1 W2 W2 W1": the kind with the thread role of each access */
export function kindWithThreads(p: PatternDto): string {
  return p.accesses.map((a) => `${a.type}${a.thread}`).join(' ');
}

const SECTION_LABELS: Record<string, string> = {
  cause: 'Causes',
  harness: 'Harness — test code only',
  symptom: 'Symptoms — after the failure point',
};

function formatPValue(p: number): string {
  return p === 0 ? '0' : p < 0.001 ? p.toExponential(1) : p < 0.01 ? p.toFixed(4) : p.toFixed(3);
}

function tieMethods(p: PatternDto): string {
  const m = (role: number) => [...new Set(p.accesses.filter((a) => a.thread === role).map((a) => shortMethod(a.method)))].join(', ');
  return `${m(1)} | ${m(2)}`;
}

abstract class BaseTree implements vscode.TreeDataProvider<Node> {
  protected readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  constructor(protected readonly model: BraidModel) {
    model.onDidChange(() => this.changed());
  }
  protected changed(): void {
    this.emitter.fire();
  }
  abstract getChildren(element?: Node): Node[];
  getParent(_e: Node): Node | undefined {
    return undefined;
  }
  getTreeItem(n: Node): vscode.TreeItem {
    return treeItem(n);
  }
}

/** An explained event's variable as the other views name it (`MyVector.size`; the full name in the tooltip). */
function eventTarget(e: ExplainedEventDto): string {
  return e.kind === 'R' || e.kind === 'W' ? shortVariable(e.target) : e.target;
}

export function treeItem(n: Node): vscode.TreeItem {
  switch (n.kind) {
    case 'run': {
      const r = n.run;
      const item = new vscode.TreeItem(n.inGroup ? runLabel(r, undefined, true) : runLabel(r, n.peers), vscode.TreeItemCollapsibleState.None);
      item.id = `run:${r.file}`;
      // the plan first: the sidebar cuts long descriptions
      item.description = `${r.failure?.location ? `${shortFile(r.failure.location.file)}:${r.failure.location.line} · ` : ''}${r.plan ? `${runPlanNote(r)} · ` : ''}${r.events.toLocaleString()} events · ${r.patterns} patterns`;
      item.iconPath = r.outcome === 'fail' ? new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')) : new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
      const md = new vscode.MarkdownString();
      md.appendMarkdown(`**${escapeMd(r.execution)}** — ${r.outcome === 'fail' ? 'failed' : 'passed'}`);
      if (r.failure?.message) md.appendMarkdown(`\n\n${mdCode(r.failure.message)}`);
      if (r.failure?.location) md.appendMarkdown(`\n\nat ${escapeMd(fileLine(r.failure.location.file, r.failure.location.line))}${r.failure.location.method ? ` in ${escapeMd(shortMethod(r.failure.location.method))}` : ''}`);
      if (r.detail && r.detail !== r.failure?.message) md.appendMarkdown(`\n\n${escapeMd(r.detail)}`);
      if (r.reason) md.appendMarkdown(`\n\nrunner's outcome: ${escapeMd(r.reason)}`);
      if (r.seed) md.appendMarkdown(`\n\nnoise seed ${escapeMd(r.seed)}`);
      if (r.plan) md.appendMarkdown(`\n\nnoise plan ${escapeMd(r.plan.name)}${r.plan.file ? ` (${escapeMd(r.plan.file)})` : ''}`);
      md.appendMarkdown(`\n\n${escapeMd(r.file)}`);
      item.tooltip = md;
      item.contextValue = 'braid.run';
      item.command = { command: 'braid.openTracer', title: 'Open in Tracer', arguments: [r.execution] };
      return item;
    }
    case 'recording': {
      // counts first (they stay visible at the default width), then what was recorded and how
      const failed = n.runs.filter((r) => r.outcome === 'fail').length;
      const item = new vscode.TreeItem(recordingLabel(n), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `recording:${n.dir}`;
      const how = n.info.plan ? `plan ${n.info.plan}` : n.info.noise !== undefined ? `noise ${n.info.noise}` : '';
      item.description = [`${failed}/${n.runs.length} failed`, how, n.info.command?.join(' ') ?? ''].filter(Boolean).join(' · ');
      const md = new vscode.MarkdownString();
      md.appendMarkdown(`**Recording** — ${failed} of ${n.runs.length} runs failed`);
      if (n.info.command) md.appendMarkdown(`\n\n${mdCode(n.info.command.join(' '))}`);
      if (how) md.appendMarkdown(`\n\n${escapeMd(how)}`);
      if (n.info.startedAt) md.appendMarkdown(`\n\nstarted ${escapeMd(n.info.startedAt)}`);
      md.appendMarkdown(`\n\n${escapeMd(n.dir)}\n\n_Right-click: Delete Recording._`);
      item.tooltip = md;
      item.iconPath = new vscode.ThemeIcon('folder');
      item.contextValue = 'braid.recording';
      return item;
    }
    case 'older': {
      const o = n.older;
      const name = recordingLabel({ info: n.info, runs: [], dir: n.dir });
      const item = new vscode.TreeItem(`Before the change · ${name}`, n.bugs?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.id = `older:${n.dir}`;
      const counts = o.runs !== undefined && o.failed !== undefined ? `${o.failed}/${o.runs} failed` : `${o.files.length} runs`;
      item.description = [counts, `changed ${o.changed.map((c) => c.split('/').pop()).join(', ')}`].join(' · ');
      const md = new vscode.MarkdownString();
      md.appendMarkdown(`**Recording of the code before the change** — ${escapeMd(counts)}; not analyzed with the current code.`);
      md.appendMarkdown(`\n\nChanged since: ${o.changed.map((c) => mdCode(c)).join(', ')}`);
      if (n.info.command) md.appendMarkdown(`\n\n${mdCode(n.info.command.join(' '))}`);
      md.appendMarkdown(`\n\n${escapeMd(n.dir)}\n\n_Right-click: Delete Recording._`);
      item.tooltip = md;
      item.iconPath = new vscode.ThemeIcon('history');
      item.contextValue = 'braid.recording';
      return item;
    }
    case 'emptyRecording': {
      const name = recordingLabel({ info: n.info, runs: [], dir: n.dir });
      const item = new vscode.TreeItem(`${name} · no run recorded`, vscode.TreeItemCollapsibleState.None);
      item.id = `empty:${n.dir}`;
      item.description = n.info.command?.join(' ') ?? '';
      const md = new vscode.MarkdownString();
      md.appendMarkdown('**Recording without any run** — its command failed or it was cancelled before a run finished (the Braid output says why).');
      if (n.info.command) md.appendMarkdown(`\n\n${mdCode(n.info.command.join(' '))}`);
      md.appendMarkdown(`\n\n${escapeMd(n.dir)}\n\n_Right-click: Delete Recording._`);
      item.tooltip = md;
      item.iconPath = new vscode.ThemeIcon('circle-slash');
      item.contextValue = 'braid.recording';
      return item;
    }
    case 'excluded': {
      const item = new vscode.TreeItem(`Excluded runs (${n.files.length})`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'excluded-runs';
      item.tooltip = 'Runs you left out of the analysis (Exclude Run); kept in .braid/excluded-runs.json. Include Run brings one back.';
      item.iconPath = new vscode.ThemeIcon('eye-closed');
      return item;
    }
    case 'excludedRun': {
      const name = n.file.replace(/\\/g, '/').split('/').pop()!.replace(/\.trace\.jsonl(\.gz)?$/, '');
      const item = new vscode.TreeItem(`${name} ⊘ excluded`, vscode.TreeItemCollapsibleState.None);
      item.id = `excluded:${n.file}`;
      item.tooltip = `${n.file}\n\nLeft out of the analysis. Include Run brings it back.`;
      item.contextValue = 'braid.excludedRun';
      item.iconPath = new vscode.ThemeIcon('circle-slash');
      return item;
    }
    case 'pattern': {
      const p = n.pattern;
      // label: rank and the short variable names (what tells two patterns apart); description: the
      // failed/passed counts first, so they stay visible at the default sidebar width, then the score;
      // full names in the tooltip
      const pv = p.pValue !== undefined ? ` · p ${formatPValue(p.pValue)}` : '';
      const tied = n.parentTie === undefined && n.parentWeak === undefined && (p.tieSize ?? 1) > 1 ? ` · ${p.tieSize} tied` : '';
      // a pattern without evidence (p ≥ 0.05 or in nearly every passing run) says so right after its counts and
      // score (it is listed after those with evidence; before them, it pushed the score out of a default-width row)
      const noEvidence = p.evidence === false ? ' · no evidence' : '';
      // the verdict of forcing it (braid/confirm) comes first: it outweighs the statistics
      const verdict = p.confirmation ? `${VERDICT_BADGE[p.confirmation.verdict]} · ` : '';
      const head = `${verdict}${p.failed} ✗ ${p.passed} ✓ · ${p.score.toFixed(3)}${noEvidence}`;
      // the names get what the row has left once the counts and the score are visible (issue 30, point 4)
      const depth = n.parentBug !== undefined ? 2 : n.parentTie !== undefined || n.parentWeak !== undefined ? 1 : 0;
      const rank = `#${p.rank} `;
      const item = new vscode.TreeItem(`${rank}${fitNames(patternVariables(p), ROW_CHARS - depth * INDENT_CHARS - rank.length - head.length - 1)}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${n.parentBug !== undefined ? `bug${n.parentBug}:` : ''}pattern:${p.key}`;
      item.description = `${head} · ${p.id} ${kindWithThreads(p)}${tied}`;
      const legend = threadLegend(p.accesses);
      const vars = [...new Set(p.accesses.map((a) => a.variable))];
      // first, in plain words, what the threads did (issue 30, point 6); the thesis' names last
      item.tooltip = new vscode.MarkdownString(
        `${markdownHeadline(patternSentence(p.accesses))}\n\nin **${p.failed}** failing (✗) and **${p.passed}** passing (✓) runs · rank ${p.rank} · score **${p.score.toFixed(3)}**${pv}\n\n${vars.map(mdCode).join(', ')}${
          legend ? `\n\nthreads: ${escapeMd(legend)}` : ''
        }${p.weak ? `\n\n_${WEAK_PATTERN_NOTE}_` : ''}${
          p.evidence === false ? '\n\n_No evidence that it goes with failing (Fisher p ≥ 0.05, or seen in nearly every passing run): listed after the patterns with evidence._' : ''
        }${p.confirmation ? `\n\n**${VERDICT_BADGE[p.confirmation.verdict]}** by forcing its interleaving: ${escapeMd(p.confirmation.reason)}` : ''}\n\n_details:_ ${p.id} \`${p.kind}\` (${p.category} pattern${
          p.group && p.group !== 'cause' ? `, ${p.group}` : ''
        }) · score = suspiciousness${(p.tieSize ?? 1) > 1 ? ` · tied with ${p.tieSize! - 1} other pattern${p.tieSize === 2 ? '' : 's'} of this score over the same methods` : ''}`,
      );
      // weak patterns: no icon (nor heat, code lens or hover); the others the editor's heat level (a dot in the
      // heat's ruler colour: ⚠/🔥 read as warnings about the user's setup, issue 43)
      if (p.confirmation?.verdict === 'confirmed') item.iconPath = new vscode.ThemeIcon('verified-filled', new vscode.ThemeColor('testing.iconFailed'));
      else if (!p.weak) item.iconPath = new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor(p.score >= 0.75 ? 'braid.heatHighRuler' : p.score >= 0.4 ? 'braid.heatMediumRuler' : 'braid.heatLowRuler'));
      // a click opens the pattern's code (its first access in the code under test); the twistie shows its accesses
      const at = p.accesses.find((a) => a.uri && !a.harness && !a.library) ?? p.accesses.find((a) => a.uri);
      if (at?.uri) item.command = openAccessCommand(at.uri, at.line, "Open the Pattern's Code");
      item.contextValue = 'braid.pattern';
      return item;
    }
    case 'weak': {
      const item = new vscode.TreeItem(`${n.patterns.length} weaker pattern${n.patterns.length === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `weak:${n.section}`;
      item.description = 'do not separate failing from passing runs';
      item.tooltip = WEAK_PATTERNS_TOOLTIP;
      item.contextValue = 'braid.weakPatterns';
      return item;
    }
    case 'tie': {
      const p = n.leader;
      const item = new vscode.TreeItem(`${n.patterns.length} more tied pattern${n.patterns.length === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `tie:${p.key}`;
      item.description = `score ${p.score.toFixed(3)} · same methods`;
      item.tooltip = `${n.patterns.length + 1} patterns of rank ${p.rank} with the same score over the same methods (${tieMethods(p)})`;
      item.iconPath = new vscode.ThemeIcon('layers');
      item.contextValue = 'braid.tie';
      return item;
    }
    case 'access': {
      const a = n.access;
      const who = threadLabel(a, roleNames(n.pattern.accesses));
      const item = new vscode.TreeItem(`${n.index + 1}. ${who} ${a.type === 'W' ? 'W' : 'R'} ${shortVariable(a.variable)}`, vscode.TreeItemCollapsibleState.None);
      item.id = `${n.parentBug !== undefined ? `bug${n.parentBug}:` : ''}access:${n.pattern.key}:${n.index}`;
      item.description = `${a.library ? `${fileLine(a.library.file, a.library.line)}, called from ` : a.call ? `${shortMethod(a.call)} at ` : ''}${fileLine(a.file, a.line)} · ${shortMethod(a.method)}`;
      item.iconPath = new vscode.ThemeIcon(a.type === 'W' ? 'edit' : 'eye', new vscode.ThemeColor(a.type === 'W' ? 'charts.red' : 'charts.blue'));
      item.tooltip = `${who === `T${a.thread}` ? `Thread T${a.thread}` : `Thread ${who} (T${a.thread})`} ${a.type === 'W' ? 'writes' : 'reads'} ${a.variable}\n${
        a.library ? `${shortFile(a.library.file)}:${a.library.line} in ${a.library.method}, called from ` : a.call ? `${shortMethod(a.call)} at ` : ''
      }${a.file}:${a.line} in ${a.method}${a.uri ? '' : '\n(source not found in the workspace; see braid.sourceRoots)'}`;
      item.command = openAccessCommand(a.uri, a.line);
      item.contextValue = 'braid.access';
      return item;
    }
    case 'bug': {
      const b = n.bug;
      const weak = b.evidence?.weak === true;
      const kind = (b.kind ?? b.advice?.kind ?? 'concurrency bug').replace(/-/g, ' ');
      const shape = b.advice?.shape ? (SHAPE_LABELS[b.advice.shape as AdviceShape] ?? b.advice.shape.replace(/-/g, ' ')) : undefined;
      const headline = b.advice?.headline;
      const ev = b.evidence;
      const pText = ev ? (ev.pValue >= 0.001 ? String(Number(ev.pValue.toPrecision(2))) : ev.pValue.toExponential(1)) : undefined;
      // the row: the bug and its count of failing runs, which the sidebar never cuts (issue 30, point 4); the
      // headline (what each thread did) follows, wrapped over the first rows inside it; older results without
      // one: the kind. The verdict of forcing, then the shape, in the description; statistics in the tooltip
      const runs = ev ? `${ev.failingRuns} of ${ev.totalFailing} failing runs` : `${b.failingRuns.length} failing run${b.failingRuns.length === 1 ? '' : 's'}`;
      const item = new vscode.TreeItem(`Bug ${b.id} · ${runs}`, weak ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
      item.id = `bug:${b.id}`;
      item.description = [n.verdict ? VERDICT_BADGE[n.verdict.verdict] : '', weak ? 'weak evidence' : '', shape ?? (headline ? '' : kind)].filter(Boolean).join(' · ');
      const md = new vscode.MarkdownString();
      // first, in plain words, what goes wrong (issue 30, point 6); the kind and shape after it
      if (headline) md.appendMarkdown(`${markdownHeadline(headline)}\n\n`);
      md.appendMarkdown(`**Bug ${b.id}**${shape ? ` · ${escapeMd(shape)}` : ''} · ${escapeMd(kind)}`);
      for (const f of (b.failures ?? []).slice(0, 3))
        md.appendMarkdown(`\n\nFails with ${f.message ? mdCode(shortFailureMessage(f.message)) : escapeMd(f.reason)}${f.location ? ` at ${escapeMd(fileLine(f.location.file, f.location.line))}` : ''} (${f.runs} run${f.runs === 1 ? '' : 's'})`);
      if (b.advice?.summary) md.appendMarkdown(`\n\n${escapeMd(b.advice.summary)}`);
      const stats = [ev ? `explains ${ev.failingRuns} of ${ev.totalFailing} failing runs` : '', pText ? `p = ${escapeMd(pText)} (one-sided Fisher exact test of its best pattern)` : '', b.score !== undefined ? `score ${escapeMd(b.score.toFixed(3))}` : ''].filter(Boolean);
      if (stats.length) md.appendMarkdown(`\n\n${stats.join(' · ')}${weak ? ' · weak evidence' : ''}`);
      if (n.verdict) md.appendMarkdown(`\n\n**${VERDICT_BADGE[n.verdict.verdict]}** by forcing its lead pattern: ${escapeMd(n.verdict.reason)}`);
      item.tooltip = md;
      item.iconPath = new vscode.ThemeIcon('bug', new vscode.ThemeColor('errorForeground'));
      item.contextValue = 'braid.bug';
      return item;
    }
    case 'group': {
      const labels = { methods: 'Suspicious methods', advice: 'How to fix it', patterns: 'Patterns', runs: 'Failing runs' };
      const item = new vscode.TreeItem(labels[n.group], n.group === 'runs' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
      item.id = `bug:${n.bug.id}:${n.group}`;
      item.iconPath = new vscode.ThemeIcon({ methods: 'symbol-method', advice: 'lightbulb', patterns: 'list-ordered', runs: 'error' }[n.group]);
      return item;
    }
    case 'method': {
      const m = n.method;
      // GRIFFIN's suspicious method, with the methods holding the lane's accesses as its contents
      const item = new vscode.TreeItem(
        `${m.threadName ?? `Thread ${m.thread}`}: ${shortMethod(m.method)}`,
        m.accessing?.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `bug:${n.bug.id}:method:${m.thread}:${m.method}`;
      item.description = `${shortFile(m.file)}:${m.lines?.length ? m.lines.join(', ') : m.line}`;
      item.tooltip = `Suspicious method of ${m.threadName ? `thread ${m.threadName} (T${m.thread})` : `thread T${m.thread}`} (GRIFFIN: top of the common call stack)\n${m.method}\n${m.file}${
        m.accessing?.length ? `\naccesses in ${m.accessing.join(', ')}` : ''
      }`;
      item.iconPath = new vscode.ThemeIcon('symbol-method');
      item.command = openAccessCommand(m.uri, m.line);
      return item;
    }
    case 'text': {
      const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
      item.id = n.id;
      item.tooltip = n.tooltip ?? n.label;
      if (n.icon) item.iconPath = new vscode.ThemeIcon(n.icon);
      item.command = n.command;
      return item;
    }
    case 'message': {
      const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('info');
      return item;
    }
    case 'explanation': {
      const g = n.group;
      // the rank and the relative support first (never cut at the sidebar width); the steps are the first rows inside,
      // wrapped; the three best rows open
      const item = new vscode.TreeItem(`#${g.rank} · ${g.relSupport.toFixed(2)}${n.tied ? ' · tied' : ''}`, (n.index ?? 0) < 3 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `explanation:${g.order}`;
      const deps = [...new Set(g.dependencies.map((d) => d.kind))].join('/');
      const alike = n.alike?.length ?? 0;
      item.description = [g.causal ? '' : 'symptom', `${(g.failingSupport * 100).toFixed(0)}% failing · ${(g.passingSupport * 100).toFixed(0)}% passing`, deps, alike ? `+${alike} alike` : ''].filter(Boolean).join(' · ');
      const steps = explanationSteps(g).join(' → ');
      item.tooltip = new vscode.MarkdownString(
        `${mdCode(steps)}\n\n**Explanation rank ${g.rank}**${g.causal ? '' : ' (symptom)'}${n.tied ? ' (tied with another explanation)' : ''}\n\nrelative support **${g.relSupport.toFixed(3)}** · in ${(g.failingSupport * 100).toFixed(0)}% of failing and ${(g.passingSupport * 100).toFixed(0)}% of passing runs\n\n${g.patterns.length} pattern${g.patterns.length === 1 ? '' : 's'}, ${g.dependencies.length} dependenc${g.dependencies.length === 1 ? 'y' : 'ies'}${
          alike ? `\n\n${alike} more group${alike === 1 ? '' : 's'} (rank ${n.alike!.map((x) => x.rank).join(', ')}) show${alike === 1 ? 's' : ''} the same events and dependencies` : ''
        }`,
      );
      item.iconPath = new vscode.ThemeIcon(g.causal ? 'lightbulb' : 'debug-hint', g.causal && g.rank === 1 ? new vscode.ThemeColor('errorForeground') : undefined);
      item.contextValue = 'braid.explanation';
      return item;
    }
    case 'xpattern': {
      const p = n.pattern;
      const item = new vscode.TreeItem(`Pattern ${n.index + 1}: ${p.macros.map((m) => m.thread).join(' → ')}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `explanation:${n.group.order}:pattern:${n.index}`;
      item.description = `${p.failing} failed / ${p.passing} passed · rel. support ${p.relSupport.toFixed(2)}`;
      item.iconPath = new vscode.ThemeIcon('list-ordered');
      return item;
    }
    case 'xmacro': {
      const m = n.macro;
      const item = new vscode.TreeItem(`${n.index + 1}. ${m.thread}`, vscode.TreeItemCollapsibleState.Expanded);
      item.id = n.id;
      item.description = `${m.events.length} event${m.events.length === 1 ? '' : 's'}${m.context ? ' · context' : ''}`;
      item.tooltip = m.context ? 'Context: no dependency with another macro of the pattern' : `Macro of thread ${m.thread}`;
      item.iconPath = new vscode.ThemeIcon(m.context ? 'circle-outline' : 'debug-stackframe');
      return item;
    }
    case 'xevent': {
      const e = n.event;
      const item = new vscode.TreeItem(`${e.kind} ${eventTarget(e)}`, vscode.TreeItemCollapsibleState.None);
      item.id = n.id;
      item.description = `${e.file ? shortFile(e.file) : ''}${e.line !== undefined ? `:${e.line}` : ''}${e.method ? ` · ${shortMethod(e.method)}` : ''}`;
      item.tooltip = `${e.label}${e.method ? `\nin ${e.method}` : ''}${e.file && !e.uri ? '\n(source not found in the workspace; see braid.sourceRoots)' : ''}`;
      item.iconPath = new vscode.ThemeIcon(e.kind === 'W' ? 'edit' : e.kind === 'R' ? 'eye' : 'symbol-event', e.kind === 'W' || e.kind === 'R' ? new vscode.ThemeColor(e.kind === 'W' ? 'charts.red' : 'charts.blue') : undefined);
      item.command = e.line !== undefined ? openAccessCommand(e.uri, e.line) : undefined;
      item.contextValue = 'braid.access';
      return item;
    }
    case 'xdependency': {
      const d = n.dependency;
      // the short names of the other rows (MyVector.size); the full ones in the tooltip
      const end = (e: ExplainedEventDto) => `${e.kind} ${e.thread} ${eventTarget(e)}${e.line !== undefined ? ` :${e.line}` : ''}`;
      const item = new vscode.TreeItem(`${d.kind} ${end(d.from)} → ${end(d.to)}`, vscode.TreeItemCollapsibleState.None);
      item.id = n.id;
      item.tooltip = `${d.kind} dependency on ${d.variable}\n${d.from.label}\n→ ${d.to.label}`;
      item.iconPath = new vscode.ThemeIcon('arrow-right');
      item.command = d.to.line !== undefined ? openAccessCommand(d.to.uri, d.to.line) : undefined;
      return item;
    }
  }
}

/**
 * What the threads did, in words (patternSentence.ts), wrapped over rows at the default sidebar width
 * (issue 30, points 4 and 6): the first row with an icon, the others aligned with it; each row's
 * tooltip is the whole sentence.
 */
function sentenceRows(p: PatternDto, depth: number, idPrefix: string): Node[] {
  const sentence = plainHeadline(patternSentence(p.accesses));
  return wrapWords(sentence, ROW_CHARS - depth * INDENT_CHARS).map((label, k) => ({
    kind: 'text' as const,
    id: `${idPrefix}sentence:${p.key}:${k}`,
    label,
    tooltip: sentence,
    icon: k === 0 ? 'comment' : 'blank',
  }));
}

/**
 * The rule of server/src/lsp/weakPatterns.ts (isWeakPattern) in words: a pattern is folded as weaker when it
 * has no evidence and scores below braid.views.minScore or occurs in every passing run, or when it scores 0;
 * a pattern with evidence (issue 43, d0b399fd) is never folded, whatever its score.
 */
export const WEAK_PATTERNS_TOOLTIP =
  'Patterns without evidence that they go with failing runs that score below braid.views.minScore (default 0.3) or occur in every passing run, and patterns scoring 0: they do not tell failing runs from passing ones, so they get no heat, icon, code lens or hover. A pattern with evidence (Fisher p < 0.05 and missing from some passing runs) is never folded here, whatever its score.';
/** A weaker pattern's own tooltip line (the same rule). */
export const WEAK_PATTERN_NOTE =
  'Weaker pattern: it does not separate failing from passing runs — no evidence that it goes with failing, and a score below braid.views.minScore or present in every passing run (or a score of 0). A pattern with evidence is never weaker.';

/** Trace strings in tooltips: engine/outputEscaping.ts (one function per Markdown context). */
const escapeMd = mdText;
export { plainHeadline, markdownHeadline };

export type RunsSort = 'run' | 'failing';

/** Runs in the order asked: by program and run number (`run`), or failing runs first (`failing`). */
export function sortRuns<R extends { execution: string; outcome: 'pass' | 'fail' }>(runs: readonly R[], sort: RunsSort): R[] {
  const key = (r: R) => splitExecution(r.execution);
  return [...runs].sort((a, b) => {
    if (sort === 'failing' && a.outcome !== b.outcome) return a.outcome === 'fail' ? -1 : 1;
    const ka = key(a);
    const kb = key(b);
    return ka.name < kb.name ? -1 : ka.name > kb.name ? 1 : (ka.index ?? 0) - (kb.index ?? 0) || (a.execution < b.execution ? -1 : a.execution > b.execution ? 1 : 0);
  });
}

/** A bug's last Check the Fix in words: "fixed · failed 15/30 before, 0/20 after". */
export function fixVerdictText(f: BugFixDto): string {
  const rate = (r: { runs: number; failed: number }) => `${r.failed}/${r.runs}`;
  return `${f.verdict} · failed ${rate(f.before)} before, ${rate(f.after)} after`;
}

export class RunsTree extends BaseTree {
  /** only failing runs (the "Show Failing Runs Only" toggle of the view's title bar) */
  failingOnly = false;
  sort: RunsSort = 'run';
  setFilter(failingOnly: boolean, sort: RunsSort = this.sort): void {
    this.failingOnly = failingOnly;
    this.sort = sort;
    this.changed();
  }
  getChildren(element?: Node): Node[] {
    if (element?.kind === 'recording') return sortRuns(element.runs, this.sort).filter((r) => !this.failingOnly || r.outcome === 'fail').map((run) => ({ kind: 'run', run, inGroup: true }));
    if (element?.kind === 'excluded') return element.files.map((f) => ({ kind: 'excludedRun', ...f }));
    // a bug of the code before the change: Check the Fix (forces its interleaving on the changed code)
    if (element?.kind === 'older') return olderBugRows(element);
    if (element) return [];
    const shown = sortRuns(this.model.runs, this.sort).filter((r) => !this.failingOnly || r.outcome === 'fail');
    // several recordings: one group each (newest first), so their runs do not interleave by run number
    const byDir = new Map<string, RunDto[]>();
    for (const r of this.model.runs) {
      const dir = recordingFolder(r.file);
      byDir.get(dir)?.push(r) ?? byDir.set(dir, [r]);
    }
    const runs: Node[] =
      byDir.size > 1
        ? [...byDir]
            .map(([dir, rs]): Node & { kind: 'recording' } => ({ kind: 'recording', dir, runs: rs, info: this.model.recordings?.get(dir) ?? {} }))
            .filter((g) => !this.failingOnly || g.runs.some((r) => r.outcome === 'fail'))
            .sort((a, b) => recordingOrder(b) - recordingOrder(a) || (a.dir < b.dir ? 1 : -1))
        : shown.map((run) => ({ kind: 'run', run, peers: this.model.runs }));
    if (this.failingOnly && !shown.length && this.model.runs.length) runs.push({ kind: 'message', label: `No failing run among ${this.model.runs.length}.` });
    // a corrupted trace's run stays visible, with its error (click: the trace at the bad line)
    for (const u of this.model.unreadable) {
      const name = u.file.replace(/\\/g, '/').split('/').pop() ?? u.file;
      runs.push({
        kind: 'text',
        id: `unreadable:${u.file}`,
        label: `${name.replace(/\.trace\.jsonl(\.gz)?$/, '')} ⚠ unreadable trace`,
        tooltip: `${u.file}${u.line !== undefined ? `:${u.line}` : ''}: ${u.message}`,
        icon: 'warning',
        command: openAccessCommand(u.uri, u.line ?? 1, 'Open Trace'),
      });
    }
    if (this.model.excluded?.length) runs.push({ kind: 'excluded', files: this.model.excluded });
    // recordings of older code (issue 43) and recordings that failed: apart, after the analyzed runs
    runs.push(...this.olderRows());
    for (const e of this.model.empty ?? []) runs.push({ kind: 'emptyRecording', dir: e.dir, info: this.model.recordings?.get(e.dir) ?? {} });
    return runs;
  }

  /**
   * The recordings of the code before the change, newest first; the bugs of the code version just
   * before it (the server's beforeBugs) under the first recording of that version.
   */
  private olderRows(): (Node & { kind: 'older' })[] {
    const older = this.model.older ?? [];
    const first = Math.max(0, older.findIndex((o) => o.justBefore));
    return older.map((o, k) => ({ kind: 'older', dir: o.dir, older: o, info: this.model.recordings?.get(o.dir) ?? {}, ...(k === first && this.model.beforeBugs?.length ? { bugs: this.model.beforeBugs } : {}) }));
  }

  /** The row of the recordings of the code just before the change (the one holding their bugs), or undefined. */
  beforeRow(): (Node & { kind: 'older' }) | undefined {
    const rows = this.olderRows();
    return rows.find((o) => o.bugs) ?? rows[0];
  }

  /** The row of a bug of the code before the change whose lead pattern is `key` (Check the Fix's verdict), or undefined. */
  fixRow(key: string): (Node & { kind: 'text' }) | undefined {
    for (const o of this.olderRows()) {
      // the bug whose lead is the pattern, else one of whose other patterns it is (its row shows that check too)
      let k = (o.bugs ?? []).findIndex((b) => b.pattern.key === key);
      if (k < 0) k = (o.bugs ?? []).findIndex((b) => b.otherKeys?.includes(key));
      if (k >= 0) return olderBugRows(o)[k];
    }
    return undefined;
  }

  override getParent(e: Node): Node | undefined {
    return e.kind === 'text' ? e.parent : undefined;
  }
}

/** The bugs of the code before the change under their recording's row: a click checks the fix (or again). */
function olderBugRows(o: Node & { kind: 'older' }): (Node & { kind: 'text' })[] {
  return (o.bugs ?? []).map((b) => ({
    kind: 'text',
    id: `older-bug:${o.dir}:${b.bug}`,
    label: `Bug ${b.bug}${b.shape ? ` · ${SHAPE_LABELS[b.shape as AdviceShape] ?? b.shape}` : ''} — ${b.fix ? fixVerdictText(b.fix) : 'Check the Fix'}`,
    tooltip: `${b.headline ? `${b.headline}\n\n` : ''}${b.fix ? `Check the Fix said ${b.fix.verdict}: ${fixVerdictText(b.fix)}. Click to check again.\n\n` : ''}Check the Fix: rebuilds, forces this bug's interleaving on the changed code and records again with the recording's noise — fixed or not, with the failure rates before and after.`,
    icon: b.fix?.verdict === 'fixed' ? 'pass' : b.fix ? 'error' : 'beaker',
    command: { command: 'braid.checkFix', title: 'Check the Fix', arguments: [b.pattern.key] },
    parent: o,
  }));
}

/** Newest recording first: its start (manifest), else the time in its runs' execution ids. */
function recordingOrder(g: { info: RecordingInfo; runs: RunDto[] }): number {
  const t = g.info.startedAt ? Date.parse(g.info.startedAt) : NaN;
  if (Number.isFinite(t)) return t;
  const m = /-(\d{8})-(\d{6})-\d+$/.exec(g.runs[0]?.execution ?? '');
  return m ? Number(m[1] + m[2]) : 0;
}

/** `AccountTest · 14:18:12`: what ran (the runs' program) and when. */
export function recordingLabel(g: { info: RecordingInfo; runs: RunDto[]; dir: string }): string {
  const first = g.runs[0];
  const name = first ? shortProgramName(splitExecution(first.execution).name) : g.dir.replace(/\\/g, '/').split('/').pop() ?? g.dir;
  const time = g.info.startedAt && /T(\d\d:\d\d:\d\d)/.exec(g.info.startedAt)?.[1];
  const fromId = /-\d{8}-(\d\d)(\d\d)(\d\d)-\d+$/.exec(first?.execution ?? '');
  return `${name}${fromId ? ` · ${fromId[1]}:${fromId[2]}:${fromId[3]}` : time ? ` · ${time} UTC` : ''}`;
}

export class PatternsTree extends BaseTree {
  private roots = new Map<string, Node & { kind: 'pattern' }>();
  private ties = new Map<string, Node & { kind: 'tie' }>();
  getChildren(element?: Node): Node[] {
    if (!element) {
      // sections (causes, then harness and symptom patterns) and tie groups (same score over the same methods)
      this.roots = new Map();
      this.ties = new Map();
      const list: Node[] = [];
      // weak patterns (do not separate failing from passing runs) are folded under "n weaker patterns" at the end of their section
      const all = this.model.patterns;
      const ps = all.filter((p) => !p.weak);
      const weakBySection = new Map<string, PatternDto[]>();
      for (const p of all) if (p.weak) weakBySection.set(p.group ?? 'cause', [...(weakBySection.get(p.group ?? 'cause') ?? []), p]);
      const sections = new Set(all.map((p) => p.group ?? 'cause'));
      const order = [...new Set(all.map((p) => p.group ?? 'cause'))];
      let section: string | undefined;
      const closeSection = (g: string | undefined) => {
        const weak = g !== undefined ? weakBySection.get(g) : undefined;
        if (!weak?.length || g === undefined) return;
        const node: Node & { kind: 'weak' } = { kind: 'weak', section: g, patterns: weak };
        for (const q of weak) this.roots.set(q.key, { kind: 'pattern', pattern: q, parentWeak: node });
        list.push(node);
        weakBySection.delete(g);
      };
      const header = (g: string) => {
        if (sections.size > 1 || g !== 'cause') {
          const count = all.filter((q) => (q.group ?? 'cause') === g).length;
          list.push({ kind: 'text', id: `section:${g}`, label: `${SECTION_LABELS[g]} (${count})`, icon: g === 'cause' ? 'flame' : g === 'harness' ? 'beaker' : 'debug-disconnect' });
        }
      };
      for (let k = 0; k < ps.length; ) {
        const p = ps[k];
        const g = p.group ?? 'cause';
        if (g !== section) {
          // sections with only weak patterns before this one
          for (const h of order.slice(section === undefined ? 0 : order.indexOf(section as (typeof order)[number]) + 1, order.indexOf(g))) {
            header(h);
            closeSection(h);
          }
          closeSection(section);
          header(g);
        }
        section = g;
        let end = k + 1;
        while (end < ps.length && p.tie !== undefined && ps[end].tie === p.tie) end++;
        // a tie group is its first pattern, with the others under "N more tied patterns"
        const node: Node & { kind: 'pattern' } = { kind: 'pattern', pattern: p };
        this.roots.set(p.key, node);
        list.push(node);
        if (end - k > 1) {
          const tie = { kind: 'tie' as const, tie: p.tie!, leader: p, patterns: ps.slice(k + 1, end) };
          this.ties.set(p.key, tie);
          for (const q of tie.patterns) this.roots.set(q.key, { kind: 'pattern', pattern: q, parentTie: tie });
        }
        k = end;
      }
      closeSection(section);
      for (const g of order) {
        if (!weakBySection.has(g)) continue;
        header(g);
        closeSection(g);
      }
      if (this.model.patternTotal > this.model.patterns.length) {
        list.push({ kind: 'message', label: `${this.model.patternTotal - this.model.patterns.length} more patterns (raise braid.views.maxPatterns, or use the UNICORN view)` });
      }
      return list;
    }
    if (element.kind === 'tie') return element.patterns.map((p) => this.roots.get(p.key)!);
    if (element.kind === 'weak') return element.patterns.map((p) => this.roots.get(p.key)!);
    if (element.kind === 'pattern') {
      const out: Node[] = sentenceRows(element.pattern, 1, '');
      const legend = threadLegend(element.pattern.accesses);
      if (legend) out.push({ kind: 'text', id: `legend:${element.pattern.key}`, label: legend, tooltip: `Thread roles of this pattern: ${legend} (T1 = the thread of the first access)`, icon: 'account' });
      out.push(...element.pattern.accesses.map((access, index) => ({ kind: 'access' as const, access, pattern: element.pattern, index })));
      const tie = element.parentTie === undefined && element.parentBug === undefined ? this.ties.get(element.pattern.key) : undefined;
      if (tie) out.push(tie);
      return out;
    }
    return [];
  }
  override getParent(e: Node): Node | undefined {
    if (e.kind === 'access') return this.roots.get(e.pattern.key);
    if (e.kind === 'pattern') return e.parentTie ?? e.parentWeak;
    if (e.kind === 'tie') return this.roots.get(e.leader.key);
    return undefined;
  }
  node(key: string): Node | undefined {
    if (!this.roots.size) this.getChildren();
    return this.roots.get(key);
  }
}

export class BugsTree extends BaseTree {
  private roots = new Map<number, Node & { kind: 'bug' }>();
  getChildren(element?: Node): Node[] {
    if (!element) {
      this.roots = new Map(
        this.model.bugs.map((bug) => {
          const lead = typeof bug.patternKeys?.[0] === 'string' ? this.model.patternByKey(bug.patternKeys[0]) : undefined;
          return [bug.id, { kind: 'bug' as const, bug, ...(lead?.confirmation ? { verdict: lead.confirmation } : {}) }];
        }),
      );
      if (!this.roots.size && this.model.summary.state === 'done' && this.model.summary.executions.failed > 0) {
        // evidence clustering: no pattern separates failing from passing runs well enough to head a bug yet
        return [{ kind: 'message', label: 'No bug yet: no pattern has evidence (p < 0.05 after correction) — record more runs.' }];
      }
      return [...this.roots.values()];
    }
    if (element.kind === 'bug') {
      const b = element.bug;
      const groups: Node[] = [];
      // first, what goes wrong in plain words (the headline), wrapped at the sidebar width
      const headline = b.advice?.headline ? plainHeadline(b.advice.headline) : undefined;
      if (headline)
        wrapWords(headline, ROW_CHARS - INDENT_CHARS).forEach((label, k) =>
          groups.push({ kind: 'text', id: `bug:${b.id}:headline:${k}`, label, tooltip: headline, icon: k === 0 ? 'comment' : 'blank' }),
        );
      if (b.suspiciousMethods?.length) groups.push({ kind: 'group', bug: b, group: 'methods' });
      if (b.advice) groups.push({ kind: 'group', bug: b, group: 'advice' });
      groups.push({ kind: 'group', bug: b, group: 'patterns' });
      groups.push({ kind: 'group', bug: b, group: 'runs' });
      groups.push({
        kind: 'text',
        id: `bug:${b.id}:graph`,
        label: 'Open bug graph',
        icon: 'type-hierarchy',
        command: { command: 'braid.openBugGraph', title: 'Open Bug Graph', arguments: [b.id] },
      });
      return groups;
    }
    if (element.kind === 'group') {
      const b = element.bug;
      if (element.group === 'methods') return b.suspiciousMethods.map((method) => ({ kind: 'method', bug: b, method }));
      if (element.group === 'advice') {
        const out: Node[] = [];
        if (b.advice?.summary) out.push({ kind: 'text', id: `bug:${b.id}:summary`, label: b.advice.summary, icon: 'info' });
        if (b.advice?.interleaving) out.push({ kind: 'text', id: `bug:${b.id}:interleaving`, label: b.advice.interleaving, icon: 'debug-step-over' });
        // each step wrapped over rows at the sidebar width, never cut (issue 30, point 4; seen cut on the screenshots)
        (b.advice?.steps ?? []).forEach((s, k) => {
          const step = `${k + 1}. ${s}`;
          wrapWords(step, ROW_CHARS - 2 * INDENT_CHARS).forEach((label, j) =>
            out.push({ kind: 'text', id: `bug:${b.id}:step${k}${j ? `:${j}` : ''}`, label, tooltip: step, icon: j === 0 ? 'lightbulb' : 'blank' }),
          );
        });
        return out;
      }
      if (element.group === 'patterns') {
        return (b.patternKeys ?? [])
          .map((k) => this.model.patternByKey(k))
          .filter((p): p is PatternDto => !!p)
          .map((pattern) => ({ kind: 'pattern', pattern, parentBug: b.id }));
      }
      if (element.group === 'runs') {
        return b.failingRuns.map((r) => ({
          kind: 'text',
          id: `bug:${b.id}:run:${r}`,
          label: ((run) => (run ? runLabel(run, this.model.runs) : r))(this.model.runs.find((x) => x.execution === r)),
          tooltip: r,
          icon: 'error',
          command: { command: 'braid.openTracer', title: 'Open in Tracer', arguments: [r] },
        }));
      }
    }
    if (element.kind === 'method') {
      const m = element.method;
      return (m.accessing ?? []).map((x) => ({
        kind: 'text' as const,
        id: `bug:${element.bug.id}:method:${m.thread}:${m.method}:holds:${x}`,
        label: shortMethod(x),
        tooltip: `${x}: holds accesses of ${m.threadName ?? `thread T${m.thread}`} inside ${m.method}`,
        icon: 'symbol-field',
      }));
    }
    if (element.kind === 'pattern') {
      return [
        ...sentenceRows(element.pattern, 3, `bug${element.parentBug}:`),
        ...element.pattern.accesses.map((access, index) => ({ kind: 'access' as const, access, pattern: element.pattern, index, parentBug: element.parentBug })),
      ];
    }
    return [];
  }
  node(id: number): Node | undefined {
    if (!this.roots.size) this.getChildren();
    return this.roots.get(id);
  }
}

/**
 * Explanations (mining, docs/mining.md): groups → patterns → macros per thread → accesses.
 * Fetched from the server only while the view is shown (the server computes them on the first
 * braid/explanations request and caches them until the traces change).
 */
export class ExplanationsTree implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly cache: CachedRequest<ExplanationsResult>;

  constructor(model: BraidModel) {
    this.cache = new CachedRequest(() => model.request<ExplanationsResult>(ExplanationsRequest, {}));
    model.onDidChange(() => this.refresh());
  }

  /** Fetches the explanations again the next time the view asks for them. */
  refresh(): void {
    this.cache.invalidate();
    this.emitter.fire();
  }

  private load(): Promise<ExplanationsResult | undefined> {
    return this.cache.get();
  }

  getTreeItem(n: Node): vscode.TreeItem {
    return treeItem(n);
  }

  async getChildren(element?: Node): Promise<Node[]> {
    if (!element) {
      const r = await this.load();
      if (!r) return [{ kind: 'message', label: `Could not compute explanations: ${this.cache.error ?? 'no result'}` }];
      if (!r.groups.length) return [{ kind: 'message', label: r.message ?? 'No explanation found.' }];
      // one row per distinct explanation (issue 30, point 5): groups showing the same events and dependencies are one
      return distinctExplanations(r.groups).map((d, index) => ({ kind: 'explanation', group: d.group, alike: d.alike, tied: d.tied, index }));
    }
    if (element.kind === 'explanation') {
      const g = element.group;
      // first, its events as steps, wrapped at the sidebar width (not cut)
      const steps = explanationSteps(g).join(' → ');
      const out: Node[] = wrapWords(steps, ROW_CHARS - INDENT_CHARS).map((label, k) => ({
        kind: 'text' as const,
        id: `explanation:${g.order}:steps:${k}`,
        label,
        tooltip: steps,
        icon: k === 0 ? 'list-flat' : 'blank',
      }));
      out.push(...g.patterns.map((pattern, index) => ({ kind: 'xpattern' as const, group: g, pattern, index })));
      g.dependencies.forEach((dependency, k) => out.push({ kind: 'xdependency', id: `explanation:${g.order}:dep:${k}`, dependency }));
      return out;
    }
    if (element.kind === 'xpattern') {
      const base = `explanation:${element.group.order}:pattern:${element.index}`;
      return element.pattern.macros.map((macro, index) => ({ kind: 'xmacro', id: `${base}:macro:${index}`, macro, index }));
    }
    if (element.kind === 'xmacro') {
      return element.macro.events.map((event, k) => ({ kind: 'xevent', id: `${element.id}:event:${k}`, event }));
    }
    return [];
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
