/**
 * docs/extension.md "In the editor": a hover names the best explanation group (mining) with an
 * event on the line, but only groups of rank ≤ 3. Traces (lost update, by hand): T1 and T2 read
 * line 11 and write line 13, T3 reads line 17; failing runs interleave the read-modify-writes,
 * read 17 twice and T4 reads line 30. The 4 causal groups (rank 1) cover lines 11, 13, 17; line
 * 30 is only in the symptom groups, ranked 5 (after the four tied causes).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { traceText } from './fixtureTraces';
import type { ExplanationsResult } from '../../server/src/lsp/protocol';

const SRC = 'src/main/java/shop/Inventory.java';
const pass1 = ['R1 bal S11', 'W1 bal S13', 'R2 bal S11', 'W2 bal S13', 'R3 bal S17'];
const pass2 = ['R2 bal S11', 'W2 bal S13', 'R1 bal S11', 'W1 bal S13', 'R3 bal S17'];
const fail1 = ['R1 bal S11', 'R2 bal S11', 'W1 bal S13', 'W2 bal S13', 'R3 bal S17', 'R3 bal S17', 'R4 bal S30'];
const fail2 = ['R1 bal S11', 'R2 bal S11', 'W2 bal S13', 'W1 bal S13', 'R3 bal S17', 'R3 bal S17', 'R4 bal S30'];

test('hovers name explanation groups of rank ≤ 3 only', async () => {
  const ws = copyFixture();
  const dir = path.join(ws, '.braid/traces');
  for (const f of readdirSync(dir)) if (f.endsWith('.trace.jsonl')) unlinkSync(path.join(dir, f));
  for (let k = 0; k < 6; k++) writeFileSync(path.join(dir, `p${k}.trace.jsonl`), traceText({ execution: `p${k}`, outcome: 'pass', events: k % 2 ? pass1 : pass2 }));
  for (let k = 0; k < 4; k++) writeFileSync(path.join(dir, `f${k}.trace.jsonl`), traceText({ execution: `f${k}`, outcome: 'fail', events: k % 2 ? fail1 : fail2 }));
  const s = new LspSession(ws);
  try {
    await s.initialize();
    await s.analysisDone();
    const uri = await s.open(SRC, readFileSync(path.join(ws, SRC), 'utf8'));
    const r: ExplanationsResult = await s.connection.sendRequest('braid/explanations', {});
    const ranksWith = (line: number) => [...new Set(r.groups.filter((g) => g.lines.some((l) => l.line === line)).map((g) => g.rank))].sort((a, b) => a - b);
    assert.deepEqual(ranksWith(13), [1, 5]);
    assert.deepEqual(ranksWith(30), [5], 'line 30 is only in groups ranked below 3');
    const hover = async (line1: number): Promise<string> =>
      ((await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: line1 - 1, character: 4 } })) as any)?.contents.value ?? '';
    const h13 = await hover(13);
    assert.match(h13, /Explanation rank \*\*1\*\*/);
    // issue 30: the patterns' words first; the explanation (the mining's terms) after them
    assert.ok(h13.indexOf('**Braid:** ') >= 0 && h13.indexOf('**Braid:** ') < h13.indexOf('Explanation rank'), `the pattern's sentence before the explanation:\n${h13}`);
    const h30 = await hover(30);
    assert.match(h30, /rank \*\*\d+\*\* of \d+/, 'line 30 has ranked patterns (the hover exists)');
    assert.doesNotMatch(h30, /Explanation rank/);
  } finally {
    await s.close();
    cleanup(ws);
  }
});
