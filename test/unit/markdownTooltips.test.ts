/**
 * Issue 31, N2: trace names in the tree tooltips (client/src/trees.ts, against the vscode mock)
 * and the Markdown escaping functions (server/src/engine/outputEscaping.ts). A variable named
 * `a\n\n[x](https://e)` used to end the tooltip's code span with the blank line, so the link rendered.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useVscodeMock } from '../helpers/vscodeMock';
import type { PatternAccessDto, PatternDto } from '../../server/src/lsp/protocol';
import { mdCode, mdHeadline, mdTableCell, mdText, labelText } from '../../server/src/engine/outputEscaping';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');
const MarkdownIt = createRequire(__filename)('markdown-it');
const md = new MarkdownIt({ html: false, linkify: true });

const HOSTILE = [
  'a\n\n[x](https://e.example)',
  'x|[click me](https://2130706433/) ![i](http://2130706433/pixel)',
  'y\\|[click me](https://2130706433/) ![i](http://2130706433/pixel)',
  '`a`\n\n![i](http://2130706433/pixel)',
  'b\r\n\r\n<img src=http://2130706433/pixel>',
  'c\u2028\u2028[x](https://e.example) www.e.example',
];

function access(thread: 1 | 2, type: 'R' | 'W', variable: string): PatternAccessDto {
  return { thread, type, variable, file: 'A.java', line: 3, method: 'A.m', stack: [] };
}

function assertNoLinkOrImage(html: string, where: string): void {
  assert.doesNotMatch(html, /<a\b|<img\b/, `${where}: ${html}`);
}

test('N2: a variable name with a blank line renders no link or image in the Ranked Patterns tooltip', () => {
  for (const v of HOSTILE) {
    const p: PatternDto = { rank: 1, score: 1, id: 'P3', kind: 'WW', category: 'order', failed: 2, passed: 0, key: 'k', accesses: [access(1, 'W', v), access(2, 'W', v)] };
    const item = trees.treeItem({ kind: 'pattern', pattern: p } as never) as unknown as { tooltip: { value: string } };
    const html: string = md.render(item.tooltip.value);
    assertNoLinkOrImage(html, JSON.stringify(v));
  }
});

test('N2: a bug tooltip (headline, shape, summary) renders no link or image from trace names', () => {
  for (const v of HOSTILE) {
    const bug = {
      id: 1,
      kind: 'order-violation',
      score: 1,
      failingRuns: ['r1'],
      patterns: [0],
      patternKeys: ['k'],
      suspiciousMethods: [],
      advice: { kind: 'order-violation', shape: v, headline: `Thread A wrote \`${v}\` before ${v}`, summary: v },
    };
    const item = trees.treeItem({ kind: 'bug', bug } as never) as unknown as { tooltip: { value: string } };
    assertNoLinkOrImage(md.render(item.tooltip.value), JSON.stringify(v));
  }
});

test('N2: mdText, mdCode, mdTableCell and mdHeadline keep any string as text', () => {
  for (const v of [...HOSTILE, '', ' ', '`', '``x``', ' lead', '\\', 'a\\', '**b**', '$(zap)']) {
    for (const out of [mdText(v), mdCode(v), mdHeadline(v), mdHeadline('`' + v + '`')]) assertNoLinkOrImage(md.render(out), JSON.stringify(v));
    // one table row: 3 cells, whatever the name
    const row = `| a | ${mdTableCell(v)} | b |`;
    const html: string = md.render(`| 1 | 2 | 3 |\n|--|--|--|\n${row}`);
    assertNoLinkOrImage(html, JSON.stringify(v));
    const body = html.match(/<tbody>[\s\S]*<\/tbody>/)?.[0] ?? '';
    assert.equal((body.match(/<td>/g) ?? []).length, 3, `${JSON.stringify(v)}: ${html}`);
    // plain text shows the name as written (line breaks as spaces)
    const plain = md.renderInline(mdText(v)).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    assert.equal(plain, v.replace(/[\r\n\u2028\u2029\u0085]+/g, ' '));
  }
  assert.equal(mdTableCell('a|b'), 'a\\|b', 'a `|` never goes inside a code span in a table');
  assert.equal(labelText('Bug $(zap)\nx'), 'Bug \\$(zap) x', 'code lens titles: no theme icon, one line');
});
