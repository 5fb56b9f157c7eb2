/**
 * Escaping of trace-derived strings, one function per output context (issue 31, N2 and N5).
 *
 * Every name in a trace (variable, method, file, thread, value, diagnostic) is attacker-controlled
 * when a repository is cloned, so whatever puts one into an output goes through the function of
 * that output's context, and through nothing else:
 *
 * - Markdown (hovers, tree tooltips): `mdText` (inline text), `mdCode` (a code span), `mdTableCell`
 *   (a cell of a GFM table), `mdHeadline` (a fix-advice headline with its `code spans`);
 * - one-line plain labels that VS Code renders with `$(icon)` syntax (code lens titles): `labelText`;
 * - terminals and CI logs (the CLI's text output and stderr): `terminalLine` (one line) and
 *   `terminalText` (lines joined by `\n`).
 *
 * JSON output needs none of this (JSON escaping); SARIF locations: report/sarifReport.ts.
 */

/** Line breaks (CommonMark's, plus Unicode's) become one space in one-line Markdown. */
const MD_BREAKS = /[\r\n\u2028\u2029\u0085]+/g;

/**
 * Markdown inline text (a tooltip, a hover line): every ASCII punctuation mark backslash-escaped,
 * so no markup, link, image, autolink, HTML or table-cell break survives; line breaks become spaces.
 */
export function mdText(s: string): string {
  return s.replace(MD_BREAKS, ' ').replace(/[!-/:-@[-`{-~]/g, (c) => '\\' + c);
}

/**
 * A Markdown code span of s (a code span renders no link, autolink or markup): the fence is one
 * backtick longer than the longest run of backticks inside; line breaks become spaces (a blank
 * line would end the paragraph, and the span with it). Blank text: `mdText`.
 */
export function mdCode(s: string): string {
  const t = s.replace(MD_BREAKS, ' ');
  if (t.trim() === '') return mdText(t);
  let longest = 0;
  for (const run of t.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || t.startsWith(' ') || t.endsWith(' ') ? ' ' : '';
  return fence + pad + t + pad + fence;
}

/**
 * The content of a GFM table cell: a code span, or, when s holds a `|`, escaped text. Renderers
 * split a row into cells before they see code spans, and they disagree on a `\|` after a backslash
 * (marked counts the backslashes, markdown-it looks at one), so a `|` is never put inside a code
 * span: in `mdText` every `\` and `|` is escaped, so every `|` follows an odd number of backslashes.
 */
export function mdTableCell(s: string): string {
  return s.includes('|') ? mdText(s) : mdCode(s);
}

/**
 * A fix-advice headline (griffin/fixAdvice.ts: plain words with `code spans` around trace names)
 * as Markdown: its code spans as `mdCode`, the rest as `mdText`; an unpaired backtick makes it all text.
 */
export function mdHeadline(s: string): string {
  const t = s.replace(MD_BREAKS, ' ');
  const parts = t.split('`');
  if (parts.length % 2 === 0) return mdText(t);
  return parts.map((p, k) => (k % 2 === 1 && p.trim() !== '' ? mdCode(p) : mdText(p))).join('');
}

/** A fix-advice headline as one line of plain text (a tree label): its code spans' backticks dropped. */
export function plainHeadline(s: string): string {
  return s.replace(MD_BREAKS, ' ').replace(/`/g, '');
}

/**
 * One line of plain text that VS Code renders with theme icons (code lens titles): line breaks and
 * control characters become spaces, and `$(name)` is escaped as `\$(name)` so it shows as written.
 */
export function labelText(s: string): string {
  return s.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, ' ').replace(/\$\(/g, '\\$(');
}

/**
 * Characters a terminal or a CI log must not get raw: C0 controls (ESC starts colour, cursor and
 * OSC-8 hyperlink sequences; \r and \n start lines), DEL, C1 controls (CSI/OSC/NEL), the Unicode
 * line and paragraph separators and the bidirectional controls ("Trojan Source").
 */
const TERMINAL_UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/**
 * One line of terminal/CI text: every control character shown escaped (`\x1b`, `\n`, `\u202e`),
 * and a line that would be a GitHub Actions workflow command, `::` after any leading whitespace
 * (`::warning file=…::`, `::add-mask::`, `::stop-commands::`), starts `\x3a:` instead; the legacy
 * `##[` command prefix is broken the same way (`#\x23[`).
 */
export function terminalLine(s: string): string {
  let t = s.replace(TERMINAL_UNSAFE, escapeChar);
  const lead = /^\s*::/.exec(t);
  if (lead) t = t.slice(0, lead[0].length - 2) + '\\x3a:' + t.slice(lead[0].length);
  return t.replace(/##\[/g, '#\\x23[');
}

/** Lines of terminal/CI text: the `\n`s of s are kept as line ends, each line is `terminalLine`. */
export function terminalText(s: string): string {
  return s.split('\n').map(terminalLine).join('\n');
}
