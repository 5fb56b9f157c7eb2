/**
 * The traces of the fixture workspace (test/fixtures/workspace/.braid/traces),
 * in traceBuilder notation. Thread 1 runs Inventory.take (writes stock at
 * line 10, sold at line 11), thread 2 runs Inventory.restock (stock at 16,
 * sold at 17). Interleaving take's two writes with restock's is the bug: the
 * P9 pattern W1(stock) W2(stock) W2(sold) W1(sold) occurs only in failing runs.
 *
 * Regenerate: node --import tsx test/lsp/fixtureTraces.ts
 */
import { writeFileSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { BuiltTrace, buildTraceText } from '../helpers/traceBuilder';

export const SOURCE = 'shop/Inventory.java';
const TAKE = '@method=shop.Inventory.take';
const RESTOCK = '@method=shop.Inventory.restock';
const T1_STOCK = `W1 stock S10 ${TAKE}`;
const T1_SOLD = `W1 sold S11 ${TAKE}`;
const T2_STOCK = `W2 stock S16 ${RESTOCK}`;
const T2_SOLD = `W2 sold S17 ${RESTOCK}`;

export const PASS_T1_FIRST = [T1_STOCK, T2_STOCK, T1_SOLD, T2_SOLD];
export const PASS_T2_FIRST = [T2_STOCK, T1_STOCK, T2_SOLD, T1_SOLD];
export const FAIL = [T1_STOCK, T2_STOCK, T2_SOLD, T1_SOLD];

export const FIXTURE_TRACES: BuiltTrace[] = [
  { execution: 'run-001', outcome: 'pass', events: PASS_T1_FIRST },
  { execution: 'run-002', outcome: 'pass', events: PASS_T2_FIRST },
  { execution: 'run-003', outcome: 'fail', events: FAIL },
  { execution: 'run-004', outcome: 'pass', events: PASS_T1_FIRST },
  { execution: 'run-005', outcome: 'pass', events: PASS_T2_FIRST },
  { execution: 'run-006', outcome: 'fail', events: FAIL },
];

export function traceText(t: BuiltTrace): string {
  return buildTraceText(t, SOURCE);
}

export function writeFixtureTraces(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.trace.jsonl')) unlinkSync(path.join(dir, f));
  for (const t of FIXTURE_TRACES) writeFileSync(path.join(dir, `${t.execution}.trace.jsonl`), traceText(t));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  writeFixtureTraces(path.resolve(__dirname, '../fixtures/workspace/.braid/traces'));
}
