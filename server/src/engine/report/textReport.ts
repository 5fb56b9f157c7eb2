/**
 * `braid analyze` default output: a readable ranked table, one section per
 * pattern group (causes, then harness and symptom patterns), then the patterns
 * without evidence (rootCauseOrder.hasEvidence) in one last section. A tie group
 * (same section and score, same methods) is one row with its size; the
 * patterns tied with the first are always all printed. Each row ends with the pattern in plain words
 * (patternSentence: "Thread copier read size (3), then thread adder wrote it (4) …").
 */
import { AnalysisResult, PatternAccess, RankedPattern } from '../analysis';
import { formatP, PATTERN_GROUPS, PatternGroup } from '../ranking/rootCauseOrder';
import { rankedRows, TIE_CAP } from '../ranking/rankedList';
import { plainHeadline, terminalLine } from '../outputEscaping';
import { patternSentence } from './patternSentence';

const SECTION_TITLES: Record<PatternGroup, string> = {
  cause: 'Causes',
  harness: 'Harness — patterns made only of test code',
  symptom: 'Symptoms — seen in failing runs only after the failure point',
};

const NO_EVIDENCE_TITLE = 'Without evidence — p ≥ 0.05, or seen in nearly every passing run (listed for completeness; not a root cause on this evidence)';

export function textReport(r: AnalysisResult, top = 20): string {
  return [...textReportLines(r, top)].join('\n');
}

/**
 * The text report line by line (a long report is written as it is made: `--top` can be large).
 * Trace names reach terminals and CI logs: each line is `terminalLine` (control characters
 * escaped, no workflow command), so a name's line break cannot start a line.
 */
export function* textReportLines(r: AnalysisResult, top = 20): Generator<string> {
  for (const line of reportLines(r, top)) yield terminalLine(line);
}

function* reportLines(r: AnalysisResult, top: number): Generator<string> {
  const e = r.executions;
  const rows = rankedRows(r);
  yield `Braid — ${r.options.strategy.toUpperCase()} analysis of ${e.total} run${e.total === 1 ? '' : 's'} (${e.failed} failed, ${e.passed} passed)`;
  yield `access window ${r.options.accessWindow}, pair window ${r.options.pairWindow}, formula ${r.options.formula}, happens-before ${r.options.happensBefore === false ? 'none' : 'on'}${r.options.windowWrites === 'latest' ? ', window writes latest (the thesis)' : ''}${r.options.absence ? ', evidence by absence' : ''}${r.options.symptomsLast ? ', symptoms last' : ''}; ${rows.length} pattern${rows.length === 1 ? '' : 's'}`;
  if (r.message) yield* ['', r.message];
  if (r.confidence) yield* ['', r.confidence];
  const grouping = r.options.grouping !== false;
  // a pattern confirmed by forcing (braid analyze --confirm: the list is then described, no compact
  // ranking) is listed with the patterns with evidence: a forced failure is evidence (confirmedRanking.ts)
  const forced = (k: number) => !r.ranking && (r.patterns[k] as { confirmation?: { verdict: string } } | undefined)?.confirmation?.verdict === 'confirmed';
  const evidence = (k: number) => rows.hasEvidence(k) || forced(k);
  // with grouping: the three groups of patterns with evidence, then every pattern without evidence
  const sections: (PatternGroup | 'none')[] = grouping ? [...PATTERN_GROUPS, 'none'] : ['cause'];
  for (const g of sections) {
    // the section's rows (contiguous in the listed order, but not assumed to be)
    const all: number[] = [];
    for (let k = 0; k < rows.length; k++) if (!grouping || (g === 'none' ? !evidence(k) : evidence(k) && rows.group(k) === g)) all.push(k);
    if (!all.length) continue;
    if (grouping) yield* ['', `${g === 'none' ? NO_EVIDENCE_TITLE : SECTION_TITLES[g]} (${all.length})`];
    yield '';
    yield `${pad('Rank', 5)}${pad('Score', 8)}${pad('Pattern', 9)}${pad('Kind', 6)}${pad('Fail', 6)}${pad('Pass', 6)}${pad('p', 9)}Accesses (thread role, type, variable @ file:line)`;
    let shownRows = 0;
    // patterns tied with the first: printed in full past --top, up to TIE_CAP in all (then counted, not printed)
    let tiedPrinted = 0;
    let tiedHidden = 0;
    const tiedCap = Math.max(top, TIE_CAP);
    let k = 0;
    while (k < all.length) {
      const tie = rows.tie(all[k]);
      let end = k + 1;
      while (end < all.length && rows.tie(all[end]) === tie) end++;
      const tiedWithFirst = rows.tiedWithFirst(all[k]);
      if (shownRows >= top && !tiedWithFirst) break;
      const members = end - k;
      if (tiedWithFirst && tiedPrinted >= tiedCap) {
        tiedHidden += members;
        k = end;
        continue;
      }
      const p = rows.describe(all[k]);
      if (members > 1) yield `${' '.repeat(5)}┌ ${members} tied patterns over ${methodsOf(p)}${tiedWithFirst ? '' : ' (the first shown; --format json lists all)'}`;
      // the first rank's tie groups are printed in full; other groups as one row with their size
      yield* row(p);
      if (tiedWithFirst) {
        tiedPrinted++;
        for (let j = k + 1; j < end; j++) {
          if (tiedPrinted >= tiedCap) {
            tiedHidden += end - j;
            break;
          }
          yield* row(rows.describe(all[j]));
          tiedPrinted++;
        }
      }
      shownRows++;
      k = end;
    }
    if (tiedHidden > 0) yield* ['', `… ${tiedHidden} more pattern${tiedHidden === 1 ? '' : 's'} tied with the first left out (${TIE_CAP} at most are printed; --format json --top N lists more)`];
    const hidden = all.length - k;
    if (hidden > 0) yield* ['', `… ${hidden} more (use --top N)`];
  }
  const errs = r.diagnostics.filter((d) => d.severity === 'error').length;
  const warns = r.diagnostics.filter((d) => d.severity === 'warning').length;
  if (errs || warns) yield* ['', `${errs} error${errs === 1 ? '' : 's'}, ${warns} warning${warns === 1 ? '' : 's'} while reading traces (see above)`];
}

function row(p: RankedPattern): string[] {
  const out: string[] = [];
  const lines = p.accesses.map(accessText);
  out.push(
    `${pad(String(p.rank), 5)}${pad(p.score.toFixed(3), 8)}${pad(p.id, 9)}${pad(p.kind, 6)}${pad(String(p.failed), 6)}${pad(String(p.passed), 6)}${pad(formatP(p.pValue), 9)}${lines[0]}`,
  );
  for (const l of lines.slice(1)) out.push(' '.repeat(49) + l);
  const values = valueLine(p);
  if (values) out.push(' '.repeat(49) + values);
  // what the threads did, in words (issue 30, point 6), under the row's numbers and accesses
  const words = plainHeadline(patternSentence(p.accesses));
  if (words) out.push(' '.repeat(5) + words);
  // evidence by absence (docs/algorithms.md): what its score and place rest on
  if (p.absence)
    out.push(`${' '.repeat(5)}Evidence by absence: seen in ${p.passed} passing and ${p.failed} failing run${p.failed === 1 ? '' : 's'} — the order the passing runs took, missing where the program failed (p = ${formatP(p.absence.pValue)}).`);
  // evidence by order (docs/algorithms.md): in passing runs too, but its order goes with failing
  // evidence by start order: which of its threads came first — the one started later, or the one started first
  if (p.order?.start)
    out.push(
      `${' '.repeat(5)}Evidence by start order: seen in ${p.failed} failing and ${p.passed} passing runs; the thread that started ${p.order.start.overtaken ? 'later' : 'first'} made the pattern's first access in ${p.order.failing} of the ${p.order.failingAll} failing runs and ${p.order.passing} of the ${p.order.passingAll} passing runs (p = ${formatP(p.order.pValue)}).`,
    );
  else if (p.order)
    out.push(
      `${' '.repeat(5)}Evidence by order: seen in ${p.failed} failing and ${p.passed} passing runs; this order is ${p.order.failing} of ${p.order.failingAll} occurrences of these accesses in the failing runs, ${p.order.passing} of ${p.order.passingAll} in the passing runs (p = ${formatP(p.order.pValue)}).`,
    );
  return out;
}

function methodsOf(p: RankedPattern): string {
  const m = (role: number) => [...new Set(p.accesses.filter((a) => a.thread === role).map((a) => shortMethod(a.method)))].join(', ');
  return `${m(1)} | ${m(2)}`;
}

/** `T1 W balance @ Bank.java:12 (Bank.deposit)`; library accesses name both places. */
export function accessText(a: PatternAccess): string {
  const head = `T${a.thread} ${a.type} ${a.variable}`;
  if (a.library) {
    return `${head} @ ${baseName(a.library.file)}:${a.library.line}, called from ${a.file}:${a.line}${a.method ? ` (${shortMethod(a.method)})` : ''}`;
  }
  if (a.call) return `${head} @ ${a.file}:${a.line}${a.method ? ` (${shortMethod(a.method)})` : ''}, call ${shortMethod(a.call)}`;
  return `${head} @ ${a.file}:${a.line}${a.method ? ` (${shortMethod(a.method)})` : ''}`;
}

function baseName(file: string): string {
  return file.replace(/^.*[\\/]/, '');
}

/** "values: T1 read size = 3; T2 wrote size = 4" (first occurrence), or '' when the trace has no values. */
export function valueLine(p: RankedPattern): string {
  if (!p.accesses.some((a) => a.value !== undefined)) return '';
  const parts = p.accesses.map((a) => {
    const name = a.variable.slice(a.variable.lastIndexOf('.', a.variable.endsWith('[]') ? a.variable.length - 3 : a.variable.length) + 1);
    const verb = a.type === 'W' ? 'wrote' : 'read';
    return a.value === undefined ? `T${a.thread} ${verb} ${name}` : `T${a.thread} ${verb} ${name} = ${JSON.stringify(a.value)}`;
  });
  return `values: ${parts.join('; ')}`;
}

function shortMethod(m: string): string {
  const parts = m.split('.');
  return parts.length > 2 ? parts.slice(-2).join('.') : m;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s + ' ' : s + ' '.repeat(n - s.length);
}
