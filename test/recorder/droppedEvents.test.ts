/**
 * The dropped-events marker (issue 12, item 2): `{"dropped":N}` lines are summed per trace, the
 * analysis reports them for that run, and the runner's counter (used to tell "recorder blocked"
 * from a plain timeout) finds them.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Analyzer } from '../../server/src/engine/analysis';
import { countDroppedEvents } from '../../server/src/recorder/runs/droppedEvents';

const TRACE = [
  '{"braid":"trace","version":1,"execution":"d1"}',
  '{"def":"thread","id":1,"name":"main"}',
  '{"def":"var","id":0,"name":"a.A.x"}',
  '{"def":"loc","id":0,"file":"a/A.java","line":3,"method":"a.A.run"}',
  '[1,1,"W",0,0]',
  '{"dropped":1200}',
  '[2,1,"R",0,0]',
  '{"dropped":34}',
  '{"outcome":"fail","reason":"recorder-blocked"}',
  '',
].join('\n');

test('dropped markers: summed by the runner and reported by the analysis for that run', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-dropped-'));
  const file = path.join(dir, 'd1.trace.jsonl');
  writeFileSync(file, TRACE);
  assert.equal(await countDroppedEvents(file), 1234);
  const a = new Analyzer();
  const run = await a.addTrace(file);
  assert.ok(run, 'the trace is analyzed');
  assert.equal(run.droppedEvents, 1234);
  assert.equal(run.events, 2);
  const warnings = a.diagnostics().filter((d) => d.file === file && d.severity === 'warning');
  assert.ok(
    warnings.some((d) => d.message.includes('dropped 1234 events')),
    `warning expected, got ${JSON.stringify(warnings)}`,
  );
});

test('a trace without markers has no dropped events', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-dropped-'));
  const file = path.join(dir, 'd2.trace.jsonl');
  writeFileSync(file, TRACE.split('\n').filter((l) => !l.startsWith('{"dropped"')).join('\n'));
  assert.equal(await countDroppedEvents(file), 0);
  const a = new Analyzer();
  const run = await a.addTrace(file);
  assert.equal(run?.droppedEvents, 0);
});
