/**
 * Hover text, code lenses and diagnostics computed from an AnalysisState.
 * Pure functions of the state (and the document text), so they are fast:
 * a hover is two map lookups and some string building.
 */
import type { CodeLens, Diagnostic, Hover } from 'vscode-languageserver';
import { DiagnosticSeverity, MarkupKind } from 'vscode-languageserver';
import type { AnalysisState } from './analysisState';
import type { PatternDto } from './protocol';
import { explanationSummary, type ExplanationState } from './explanationState';
import { formatP } from '../engine/ranking/rootCauseOrder';
import { roleNames, shortFile, shortMethod, shortVariable, threadLabel, threadLegend } from '../engine/displayNames';
import { labelText, mdCode, mdHeadline, mdTableCell, mdText } from '../engine/outputEscaping';
import { patternSentence } from '../engine/report/patternSentence';

const GROUP_NOTE = { cause: '', harness: ' · **harness** (test code only)', symptom: ' · **symptom** (after the failure point)' } as const;

export const REVEAL_PATTERN_COMMAND = 'braid.revealPattern';
export const OPEN_TRACER_COMMAND = 'braid.openTracer';
export const OPEN_BUG_GRAPH_COMMAND = 'braid.openBugGraph';
export const REVEAL_BUG_COMMAND = 'braid.revealBug';

export function commandUri(command: string, args: unknown[]): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify(args))}`;
}

/** Inline code of an untrusted trace string (engine/outputEscaping.ts): `mdCode`, or in a table cell `mdTableCell`. */
export function code(s: string, inTable = false): string {
  return inTable ? mdTableCell(s) : mdCode(s);
}

/** Plain Markdown text of an untrusted trace string (engine/outputEscaping.ts `mdText`). */
export const esc = mdText;

export function hoverFor(
  state: AnalysisState,
  fsPath: string,
  line1: number,
  maxPatterns: number,
  formula: string,
  explanations?: ExplanationState,
): Hover | null {
  const idx = state.patternsAt(fsPath, line1);
  const groups = explanations?.groupsAt(fsPath, line1) ?? [];
  if (!idx.length && !groups.length) return null;
  const total = state.totalPatterns;
  const ex = state.result.executions;
  const out: string[] = [];
  // first, in plain words, what goes wrong: the headline of each bug holding a pattern on this line (the
  // ranks, scores and pattern codes follow, as details)
  const heads = bugHeadlines(state, idx.map((k) => state.patterns[k].key));
  if (heads.length) out.push(heads.join('\n\n'));
  const shown = patternsToShow(state, idx, maxPatterns);
  for (const k of shown) out.push(patternMarkdown(state, state.patterns[k], fsPath, line1, total, ex, formula));
  if (idx.length > shown.length) out.push(`_…and ${idx.length - shown.length} more ranked patterns on this line._`);
  if (groups.length) {
    // one line, after the patterns' words (a detail, in the mining's terms): the best explanation group (mining, docs/mining.md) with an event on this line
    const g = groups[0];
    const more = groups.length > 1 ? ` _(+${groups.length - 1} more)_` : '';
    out.push(
      `**Braid** · Explanation rank **${g.rank}** (rel. support ${g.relSupport.toFixed(2)}${g.causal ? '' : ', symptom'}): ${code(explanationSummary(g))}${more}`,
    );
  }
  return { contents: { kind: MarkupKind.Markdown, value: out.join('\n\n---\n\n') } };
}

/**
 * The patterns a hover shows, in rank order: the best `maxPatterns`, and besides them every pattern with a
 * verdict of forcing (braid/confirm). The user asked for that verdict, and the pattern they confirmed need
 * not be among the line's best (a read-then-write ranked below the symmetric write-write on the same
 * line): without this its "confirmed" was said nowhere on the line.
 */
export function patternsToShow(state: AnalysisState, idx: number[], maxPatterns: number): number[] {
  return idx.filter((k, i) => i < maxPatterns || state.patterns[k].confirmation !== undefined);
}

function patternMarkdown(
  state: AnalysisState,
  p: PatternDto,
  fsPath: string,
  line1: number,
  total: number,
  ex: { failed: number; passed: number },
  formula: string,
): string {
  const lines: string[] = [];
  // first, in plain words, what the threads did (issue 30, point 6); the thesis' names follow as details
  lines.push(`**Braid:** ${mdHeadline(patternSentence(p.accesses))}`);
  lines.push('');
  lines.push(
    `in **${p.failed}** of ${ex.failed} failing runs and ${p.passed} of ${ex.passed} passing runs · rank **${p.rank}** of ${total} · score **${p.score.toFixed(3)}**${GROUP_NOTE[p.group ?? 'cause']}`,
  );
  lines.push('');
  const legend = threadLegend(p.accesses);
  if (legend) {
    lines.push(`threads: ${esc(legend)}`);
    lines.push('');
  }
  const names = roleNames(p.accesses);
  lines.push('| | thread | access | variable | where |');
  lines.push('|--:|:--|:--:|:--|:--|');
  p.accesses.forEach((a, k) => {
    const here = a.line === line1 && state.resolver.resolve(a.file) === fsPath;
    const lib = a.library ? `${esc(shortFile(a.library.file))}:${a.library.line}, called from ` : a.call ? `${code(shortMethod(a.call), true)} at ` : '';
    const where = `${lib}${esc(shortFile(a.file))}:${a.line} ${code(shortMethod(a.method), true)}`;
    const link = a.uri ? `[${where}](<${a.uri.replace(/[<>\s|\\]/g, encodeURIComponent)}#L${a.line}>)` : where;
    lines.push(`| ${k + 1} | ${esc(threadLabel(a, names))} | **${esc(a.type)}** | ${code(shortVariable(a.variable), true)} | ${here ? `${lib}**this line** ${code(shortMethod(a.method), true)}` : link} |`);
  });
  lines.push('');
  // the table shows short names (`MyVector.size`); the full ones once here
  const full = [...new Set(p.accesses.map((a) => a.variable))].filter((v) => shortVariable(v) !== v);
  if (full.length) {
    lines.push(`${full.length > 1 ? 'variables' : 'variable'}: ${full.map((v) => code(v)).join(', ')}`);
    lines.push('');
  }
  // the thesis' names: pattern id and kind (Table 1), the formula, the p-value, the tie group
  const tied = (p.tieSize ?? 1) > 1 ? ` · tied with ${p.tieSize! - 1} other pattern${p.tieSize === 2 ? '' : 's'} of this score over the same methods` : '';
  lines.push(
    `_details:_ ${p.id} ${code(p.kind)} (${p.category} pattern) · score = suspiciousness (${esc(formula)})${p.pValue !== undefined ? ` · p = ${formatP(p.pValue)} (Fisher)` : ''}${tied}`,
  );
  lines.push('');
  // GRIFFIN's suspicious methods of the bugs this pattern belongs to (the same methods as the tree, code lens and graph)
  for (const m of suspiciousMethodsOf(state, p.key)) lines.push(m);
  const verdict = confirmationLine(p);
  if (verdict) lines.push(verdict, '');
  const links = [`[Reveal in Ranked Patterns](${commandUri(REVEAL_PATTERN_COMMAND, [p.key])})`];
  links.push(`[${p.confirmation ? 'Confirm again' : 'Confirm by forcing'}](${commandUri(CONFIRM_PATTERN_COMMAND, [p.key])})`);
  const run = state.runWithPattern(p.key);
  if (run) links.push(`[Open run ${esc(run.execution)} in Tracer](${commandUri(OPEN_TRACER_COMMAND, [run.execution, p.key])})`);
  lines.push(links.join(' · '));
  return lines.join('\n');
}

export const CONFIRM_PATTERN_COMMAND = 'braid.confirmPattern';

/**
 * The verdict of forcing the pattern (braid/confirm), in words: "**confirmed**: forcing R1 → W2 → W1
 * fails 20/20; the opposite order 0/20, unforced 1/20".
 */
export function confirmationLine(p: PatternDto): string | undefined {
  const c = p.confirmation;
  if (!c) return undefined;
  const order = p.accesses.map((a) => `${a.type}${a.thread}`).join(' → ');
  const rate = (g: { runs: number; failed: number }) => `${g.failed}/${g.runs}`;
  if (c.verdict === 'not forced') return `**Braid · not forced:** ${esc(c.reason)} — a lock or a join may order these accesses, so this pattern is likely benign.`;
  if (c.verdict === 'confirms the window') return `**Braid · confirms the window:** ${esc(c.reason)} — the failure needs this window, not this order: look for the pattern that opens it.`;
  const rest = [c.opposite ? `the opposite order ${rate(c.opposite)}` : '', c.control ? `unforced ${rate(c.control)}` : ''].filter(Boolean).join(', ');
  return `**Braid · ${c.verdict}:** forcing ${esc(order)} fails ${rate(c.forced)}${rest ? `; ${rest}` : ''}${c.verdict === 'confirmed' ? ` (p = ${formatP(c.pValue)})` : ''}.${
    c.failingTrace ? ` [Reproduce](${commandUri(REPRODUCE_COMMAND, [p.key])})` : ''
  }`;
}

export const REPRODUCE_COMMAND = 'braid.reproduceFailure';

/** A fix-advice headline (fixAdvice.ts) as Markdown (engine/outputEscaping.ts `mdHeadline`). */
export const markdownHeadline = mdHeadline;

/** One line per bug holding one of the patterns `keys`: "**Bug 1** · <headline> · [Open bug graph](…)". */
function bugHeadlines(state: AnalysisState, keys: readonly string[]): string[] {
  const out: string[] = [];
  const wanted = new Set(keys);
  for (const b of state.bugs) {
    if (!Array.isArray(b.patternKeys) || !b.patternKeys.some((k) => wanted.has(k as string))) continue;
    const advice = b.advice as { headline?: unknown; summary?: unknown } | undefined;
    const text = typeof advice?.headline === 'string' ? advice.headline : undefined;
    if (!text) continue;
    const id = typeof b.id === 'number' ? b.id : state.bugs.indexOf(b) + 1;
    out.push(`**Braid · Bug ${id}:** ${markdownHeadline(text)}${weakNote(b)} · [Open bug graph](${commandUri(OPEN_BUG_GRAPH_COMMAND, [id])})`);
  }
  return out;
}

/**
 * " · weak evidence" for a bug that rests on one or two failing runs, and what it rests on for one made
 * from the first pattern in every failing run (GRIFFIN's inEveryRun): nobody reads either as a full bug.
 */
function weakNote(b: Record<string, unknown>): string {
  const ev = b.evidence as { weak?: unknown; inEveryRun?: unknown } | undefined;
  if (ev?.inEveryRun === true) return ' · weak evidence: its pattern is in every failing run and in passing runs too';
  return ev?.weak === true ? ' · weak evidence' : '';
}

/** Hover lines naming GRIFFIN's suspicious methods of the bugs holding pattern `key`, with the methods holding the accesses. */
function suspiciousMethodsOf(state: AnalysisState, key: string): string[] {
  const out: string[] = [];
  for (const b of state.bugs) {
    if (!Array.isArray(b.patternKeys) || !b.patternKeys.includes(key)) continue;
    const id = typeof b.id === 'number' ? b.id : state.bugs.indexOf(b) + 1;
    const ms = state.methods.filter((m) => m.bug === id);
    if (!ms.length) continue;
    const one = (m: (typeof ms)[number]) =>
      `${code(shortMethod(m.method))} (${esc(m.threadName ?? `thread ${m.thread}`)}${m.accessing.length ? `; accesses in ${m.accessing.map((x) => code(shortMethod(x))).join(', ')}` : ''})`;
    out.push(`Bug ${id}${weakNote(b)} · suspicious method${ms.length > 1 ? 's' : ''} ${ms.map(one).join(' ⇄ ')} · [Open bug graph](${commandUri(OPEN_BUG_GRAPH_COMMAND, [id])})`);
    out.push('');
  }
  return out;
}

/** The 0-based line of the declaration of `method` at or above `line0`, when the text shows it. */
export function findMethodDeclaration(text: string, method: string, line0: number): number | undefined {
  const simple = method.split(/[.$]/).pop() ?? '';
  if (!simple || simple.startsWith('lambda') || /^\d+$/.test(simple)) return undefined;
  let name = simple;
  if (simple === '<init>') {
    const parts = method.split('.');
    name = (parts[parts.length - 2] ?? '').split('$').pop() ?? '';
    if (!name) return undefined;
  }
  if (simple === '<clinit>') return undefined;
  const lines = text.split(/\r?\n/);
  const re = new RegExp(`\\b${name.replace(/[^\w$]/g, '\\$&')}\\s*\\(`);
  for (let l = Math.min(line0, lines.length - 1); l >= 0 && l >= line0 - 400; l--) {
    const s = lines[l];
    if (!re.test(s)) continue;
    const trimmed = s.trim();
    if (/;\s*$/.test(trimmed) || /^(return|if|while|for|switch|new)\b/.test(trimmed) || /=\s*[^=]/.test(trimmed.split('(')[0])) continue;
    return l;
  }
  return undefined;
}

export function codeLensesFor(state: AnalysisState, fsPath: string, text: string | undefined): CodeLens[] {
  const lenses: CodeLens[] = [];
  const placed = new Set<string>();
  const at = (line1: number, method: string) => {
    const l0 = Math.max(0, line1 - 1);
    const decl = text !== undefined ? findMethodDeclaration(text, method, l0) : undefined;
    return decl ?? l0;
  };
  for (const m of state.methods) {
    if (m.fsPath !== fsPath) continue;
    const line = at(m.line, m.method);
    const id = `bug${m.bug}:${line}`;
    if (placed.has(id)) continue;
    placed.add(id);
    const rank = m.rank !== undefined ? ` · top pattern rank ${m.rank}` : '';
    const holds = m.accessing.length ? ` (accesses in ${m.accessing.map(shortMethod).join(', ')})` : '';
    lenses.push({
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      command: {
        title: labelText(`Braid: Bug ${m.bug} — suspicious method ${shortMethod(m.method)} of thread ${m.threadName ?? m.thread}${holds}${rank}`),
        command: OPEN_BUG_GRAPH_COMMAND,
        arguments: [m.bug],
      },
    });
    // next to it: confirm the bug's lead pattern by forcing it, or its verdict (Reproduce when confirmed)
    const lead = leadPattern(state, m.bug);
    if (lead) lenses.push(confirmLens(line, lead));
  }
  {
    // Without GRIFFIN's bugs: a lens above each method holding an access of a top-ranked pattern;
    // with them, still one at the user's call line of a race inside library code (GRIFFIN names the library method).
    const top = state.patterns[0];
    if (top && top.score > 0) {
      for (const p of state.patterns) {
        if (p.score < top.score || p.group !== top.group) break;
        if (p.weak) continue;
        for (const a of p.accesses) {
          if (state.bugs.length > 0 && !a.library && a.call === undefined) continue;
          if (state.resolver.resolve(a.file) !== fsPath) continue;
          const line = at(a.line, a.method);
          const id = `${p.key}:${line}`;
          if (placed.has(id)) continue;
          placed.add(id);
          lenses.push({
            range: { start: { line, character: 0 }, end: { line, character: 0 } },
            command: {
              title: labelText(`Braid: rank ${p.rank} ${p.id} ${p.kind} pattern (score ${p.score.toFixed(3)}) — ${a.threadName ?? `thread ${a.thread}`} ${a.type === 'W' ? 'writes' : 'reads'} ${shortVariable(a.variable)}`),
              command: REVEAL_PATTERN_COMMAND,
              arguments: [p.key],
            },
          });
          if (!placed.has(`confirm:${p.key}`)) {
            placed.add(`confirm:${p.key}`);
            lenses.push(confirmLens(line, p));
          }
        }
      }
    }
  }
  return lenses.sort((a, b) => a.range.start.line - b.range.start.line);
}

/** Beside a pattern's lens: Confirm by forcing, or the verdict (Reproduce when confirmed with a forced failing run). */
function confirmLens(line: number, p: PatternDto): CodeLens {
  const c = p.confirmation;
  const rate = c ? `${c.forced.failed}/${c.forced.runs}` : '';
  return {
    range: { start: { line, character: 0 }, end: { line, character: 0 } },
    command: !c
      ? { title: 'Confirm by forcing', command: CONFIRM_PATTERN_COMMAND, arguments: [p.key] }
      : c.verdict === 'confirmed' && c.failingTrace
        ? { title: labelText(`✔ confirmed (forced: ${rate} failed) — Reproduce`), command: REPRODUCE_COMMAND, arguments: [p.key] }
        : { title: labelText(`${c.verdict === 'confirmed' ? '✔ confirmed' : c.verdict === 'refuted' ? '✗ refuted' : '– not forced'} by forcing — confirm again`), command: CONFIRM_PATTERN_COMMAND, arguments: [p.key] },
  };
}

/** The lead pattern of GRIFFIN's bug `id` (its first pattern key), when the analysis lists it. */
function leadPattern(state: AnalysisState, id: number): PatternDto | undefined {
  const b = state.bugs.find((x) => x.id === id);
  const key = Array.isArray(b?.patternKeys) ? b!.patternKeys[0] : undefined;
  return typeof key === 'string' ? state.patternByKey(key) : undefined;
}

/** Information diagnostics at the accesses of the top patterns, grouped by file path. */
export function diagnosticsFor(state: AnalysisState, maxRank: number): Map<string, Diagnostic[]> {
  const out = new Map<string, Diagnostic[]>();
  for (const p of state.patterns) {
    if (p.rank > maxRank || p.score <= 0 || p.weak) continue;
    p.accesses.forEach((a, k) => {
      const fsPath = state.resolver.resolve(a.file);
      if (!fsPath) return;
      let l = out.get(fsPath);
      if (!l) out.set(fsPath, (l = []));
      const line = Math.max(0, a.line - 1);
      l.push({
        range: { start: { line, character: 0 }, end: { line, character: 2147483647 } },
        severity: DiagnosticSeverity.Information,
        source: 'braid',
        code: p.id,
        message: `Rank ${p.rank} ${p.id} ${p.kind} ${p.category} pattern (score ${p.score.toFixed(3)}), access ${k + 1} of ${p.accesses.length}: ${a.threadName ?? `thread ${a.thread}`} ${a.type === 'W' ? 'writes' : 'reads'} ${shortVariable(a.variable)}`,
      });
    });
  }
  return out;
}
