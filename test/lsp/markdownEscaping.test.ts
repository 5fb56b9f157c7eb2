/**
 * Issue 31, N2: trace names in the hover's table (through the real language server). A `|` in a
 * table cell is a cell break unless it follows an odd number of backslashes (marked, which VS
 * Code's hovers use, counts them; markdown-it looks at one), so a variable named
 * ``x\|[click me](https://…)`` used to put the link and a remote image outside its code span.
 * Every row must keep its 5 cells under both rules, and no link but the hover's own may render.
 */
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { FIXTURE_TRACES, traceText } from './fixtureTraces';

const MarkdownIt = createRequire(__filename)('markdown-it');
const md = new MarkdownIt({ html: false, linkify: true });

const SRC = 'src/main/java/shop/Inventory.java';
// the finding's name, and the same with a backslash before the `|`
const STOCK = 'x|[click me](https://2130706433/) ![i](http://2130706433/pixel)';
const SOLD = 'y\\|[click me](https://2130706433/) ![i](http://2130706433/pixel)';

/** marked's splitCells (marked/src/helpers.ts): a `|` after an even number of backslashes splits. */
function markedCells(row: string): string[] {
  const spaced = row.replace(/\|/g, (_m, offset: number, str: string) => {
    let escaped = false;
    let k = offset;
    while (--k >= 0 && str[k] === '\\') escaped = !escaped;
    return escaped ? '|' : ' |';
  });
  const cells = spaced.split(/ \|/);
  if (!cells[0].trim()) cells.shift();
  if (cells.length && !cells[cells.length - 1].trim()) cells.pop();
  return cells.map((c) => c.trim().replace(/\\\|/g, '|'));
}

function allowedHref(h: string, ws: string): boolean {
  return h.startsWith('command:braid.') || h.startsWith('file://' + ws);
}

let ws: string;
let s: LspSession;

before(async () => {
  ws = copyFixture();
  const dir = path.join(ws, '.braid/traces');
  for (const f of readdirSync(dir)) unlinkSync(path.join(dir, f));
  for (const t of FIXTURE_TRACES) {
    const text = traceText(t).replace('"name":"stock"', `"name":${JSON.stringify(STOCK)}`).replace('"name":"sold"', `"name":${JSON.stringify(SOLD)}`);
    writeFileSync(path.join(dir, `${t.execution}.trace.jsonl`), text);
  }
  s = new LspSession(ws, { griffin: { clustering: 'thesis' } });
  await s.initialize();
  await s.analysisDone();
});
after(async () => {
  await s?.close();
  cleanup(ws);
});

test('N2: a `|` in a trace name breaks no table row of the hover, and no link or image renders from it', async () => {
  const uri = await s.open(SRC, readFileSync(path.join(ws, SRC), 'utf8'));
  const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
  assert.ok(h, 'a hover on line 10');
  const value: string = h.contents.value;
  const rows = value.split('\n').filter((l) => l.startsWith('| '));
  assert.ok(rows.length >= 5, value);
  for (const row of rows) {
    // the header, then one row per access: 5 cells under marked's rule
    const cells = markedCells(row);
    assert.equal(cells.length, 5, `marked splits this row into ${cells.length} cells: ${row}`);
    for (const c of cells) {
      const html: string = md.renderInline(c);
      assert.doesNotMatch(html, /<img/, `an image in a cell: ${c}`);
      for (const m of html.matchAll(/href="([^"]*)"/g)) assert.ok(allowedHref(m[1], ws), `a link in a cell: ${m[1]}`);
    }
  }
  // the whole hover, as markdown-it (with linkify) renders it
  const html: string = md.render(value);
  assert.doesNotMatch(html, /<img/);
  for (const m of html.matchAll(/href="([^"]*)"/g)) assert.ok(allowedHref(m[1], ws), `unexpected link in the hover: ${m[1]}`);
  for (const row of html.match(/<tr>[\s\S]*?<\/tr>/g) ?? []) assert.equal((row.match(/<t[dh][ >]/g) ?? []).length, 5, row);
  // the names are still shown, as text
  const plain = html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  assert.ok(plain.includes(STOCK), plain);
  assert.ok(plain.includes(SOLD), plain);
});
