/**
 * A weak pattern (weakPatterns.ts: it does not separate failing from passing runs by the ranking's
 * evidence) that the user confirmed by forcing is weak no more: the forced runs that made the failure
 * are its evidence. Before, a confirmed lost update seen in 5 of 17 failing runs and no passing run —
 * no evidence among many patterns (Benjamini–Hochberg) — stayed folded under "weaker patterns" and its
 * line's hover never said "confirmed" (the fresh-clone CI's e2e/confirm on a recording where that
 * happened). Over the real language server: the pattern is folded and has no hover; with a confirmed
 * verdict in `.braid/confirm/verdicts.json` (as Confirm by Forcing writes it) it is not folded, and the
 * hover on its line says confirmed; a refuted verdict leaves it folded.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, cleanup } from './lspHarness';
import { VERDICTS_FILE } from '../../server/src/lsp/confirmState';
import type { PatternDto, PatternsResult } from '../../server/src/lsp/protocol';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const SOURCE = Array.from({ length: 40 }, (_, k) => `  // line ${k + 1}`).join('\n');

/** 10 failing runs with a check-then-act on `a` (10/11); on `b` (30/31) a pair in every run: weak */
function workspace(): string {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-lsp-confirmed-weak-'));
  const dir = path.join(ws, '.braid/traces/rec');
  mkdirSync(dir, { recursive: true });
  mkdirSync(path.join(ws, 'src'));
  writeFileSync(path.join(ws, 'src/Fixture.java'), SOURCE);
  const every = ['R1 b S30', 'W2 b S31'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: [...every] });
  for (let k = 0; k < 10; k++) traces.push({ execution: `F${k}`, outcome: 'fail', events: ['R1 a S10', 'W2 a S11', ...every] });
  writeTraces(traces, dir);
  return ws;
}

async function look(ws: string) {
  const s = new LspSession(ws);
  await s.initialize();
  await s.analysisDone();
  const uri = await s.open('src/Fixture.java', SOURCE);
  const { patterns } = (await s.connection.sendRequest('braid/patterns', {})) as PatternsResult;
  const onB = patterns.find((p) => p.accesses.every((a) => a.variable === 'b'))!;
  const hover = (await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 30, character: 4 } })) as { contents: { value: string } } | null;
  await s.close();
  return { onB, hover: hover?.contents.value ?? '' };
}

function writeVerdict(ws: string, p: PatternDto, verdict: 'confirmed' | 'refuted'): void {
  mkdirSync(path.join(ws, '.braid/confirm'), { recursive: true });
  const v = { verdict, reason: `forced ${verdict === 'confirmed' ? 10 : 1} of 10 failed`, pValue: 0.001, forced: { runs: 10, failed: verdict === 'confirmed' ? 10 : 1, forcedOk: 10 }, opposite: { runs: 10, failed: 0, forcedOk: 10 } };
  writeFileSync(path.join(ws, VERDICTS_FILE), JSON.stringify({ format: 'braid-verdicts', version: 1, verdicts: { [p.key]: v } }));
}

test('a weak pattern confirmed by forcing is not folded and its line has a hover that says confirmed; refuted, it stays folded', async () => {
  const ws = workspace();
  try {
    const before = await look(ws);
    assert.ok(before.onB, 'the pair on b is ranked');
    assert.equal(before.onB.weak, true, 'in every passing run and without evidence: weak');
    assert.equal(before.hover, '', 'a weak pattern has no hover');

    writeVerdict(ws, before.onB, 'refuted');
    const refuted = await look(ws);
    assert.equal(refuted.onB.confirmation?.verdict, 'refuted');
    assert.equal(refuted.onB.weak, true, 'refuted: still weak');
    assert.equal(refuted.hover, '');

    writeVerdict(ws, before.onB, 'confirmed');
    const confirmed = await look(ws);
    assert.equal(confirmed.onB.confirmation?.verdict, 'confirmed');
    assert.equal(confirmed.onB.weak, undefined, 'confirmed: not weak');
    assert.match(confirmed.hover, /Braid · confirmed:/);
  } finally {
    cleanup(ws);
  }
});

/**
 * hover.maxPatterns shows a line's best patterns; a pattern with a verdict of forcing is shown besides
 * them. The fresh-clone CI of 9686a7bd: the confirmed read-then-write on `balance = updated` ranked below
 * three other patterns on that line, and the hover never said "confirmed".
 */
test('the hover on a line shows the verdict of a confirmed pattern ranked below hover.maxPatterns', async () => {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-lsp-confirmed-below-'));
  try {
    const dir = path.join(ws, '.braid/traces/rec');
    mkdirSync(dir, { recursive: true });
    mkdirSync(path.join(ws, 'src'));
    writeFileSync(path.join(ws, 'src/Fixture.java'), SOURCE);
    // line 11 is in two patterns: on `a` in all 10 failing runs (rank 1), on `c` in 5 of them (rank 2)
    const traces: BuiltTrace[] = [];
    for (let k = 0; k < 10; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: ['R1 b S30'] });
    for (let k = 0; k < 10; k++) traces.push({ execution: `F${k}`, outcome: 'fail', events: ['R1 a S10', 'W2 a S11', ...(k < 5 ? ['R1 c S20', 'W2 c S11'] : [])] });
    writeTraces(traces, dir);
    const hoverOn11 = async () => {
      const s = new LspSession(ws, { hover: { maxPatterns: 1 }, views: { minScore: 0 } });
      await s.initialize();
      await s.analysisDone();
      const uri = await s.open('src/Fixture.java', SOURCE);
      const { patterns } = (await s.connection.sendRequest('braid/patterns', {})) as PatternsResult;
      const h = (await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 10, character: 4 } })) as { contents: { value: string } } | null;
      await s.close();
      return { onC: patterns.find((p) => p.accesses.every((a) => a.variable === 'c'))!, hover: h?.contents.value ?? '' };
    };
    const before = await hoverOn11();
    assert.ok(before.onC, 'the pair on c is ranked');
    assert.match(before.hover, /…and 1 more ranked patterns on this line/);
    assert.doesNotMatch(before.hover, /Braid · confirmed:/);

    writeVerdict(ws, before.onC, 'confirmed');
    const after = await hoverOn11();
    assert.match(after.hover, /Braid · confirmed:/, after.hover);
    assert.match(after.hover, /rank \*\*1\*\*/, 'the best pattern still comes first');
    assert.doesNotMatch(after.hover, /more ranked patterns on this line/, 'both patterns are shown');
  } finally {
    cleanup(ws);
  }
});
