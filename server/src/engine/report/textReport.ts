/** `braid analyze` default output: a readable ranked table. */
import { AnalysisResult, RankedPattern } from '../analysis';

export function textReport(r: AnalysisResult, top = 20): string {
  const out: string[] = [];
  const e = r.executions;
  out.push(`Braid — ${r.options.strategy.toUpperCase()} analysis of ${e.total} run${e.total === 1 ? '' : 's'} (${e.failed} failed, ${e.passed} passed)`);
  out.push(`access window ${r.options.accessWindow}, pair window ${r.options.pairWindow}, formula ${r.options.formula}; ${r.patterns.length} pattern${r.patterns.length === 1 ? '' : 's'}`);
  if (r.message) out.push('', r.message);
  const shown = r.patterns.slice(0, top);
  if (shown.length) {
    out.push('');
    out.push(`${pad('Rank', 5)}${pad('Score', 8)}${pad('Pattern', 9)}${pad('Kind', 6)}${pad('Fail', 6)}${pad('Pass', 6)}Accesses (thread role, type, variable @ file:line)`);
    for (const p of shown) {
      const lines = accessLines(p);
      out.push(`${pad(String(p.rank), 5)}${pad(p.score.toFixed(3), 8)}${pad(p.id, 9)}${pad(p.kind, 6)}${pad(String(p.failed), 6)}${pad(String(p.passed), 6)}${lines[0]}`);
      for (const l of lines.slice(1)) out.push(' '.repeat(40) + l);
      const values = valueLine(p);
      if (values) out.push(' '.repeat(40) + values);
    }
    if (r.patterns.length > shown.length) out.push('', `… ${r.patterns.length - shown.length} more (use --top N)`);
  }
  const errs = r.diagnostics.filter((d) => d.severity === 'error').length;
  const warns = r.diagnostics.filter((d) => d.severity === 'warning').length;
  if (errs || warns) out.push('', `${errs} error${errs === 1 ? '' : 's'}, ${warns} warning${warns === 1 ? '' : 's'} while reading traces (see above)`);
  return out.join('\n');
}

function accessLines(p: RankedPattern): string[] {
  return p.accesses.map((a) => `T${a.thread} ${a.type} ${a.variable} @ ${a.file}:${a.line}${a.method ? ` (${shortMethod(a.method)})` : ''}`);
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
