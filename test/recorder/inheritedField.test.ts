/**
 * A field reached through a subclass is one variable (issue 38, FieldOwners.java): javac names the
 * class of the reference in the instruction (`putfield Pool.closed` in the subclass, `getfield
 * BasePool.closed` in the base class), and the agent records the declaring class, so the subclass's
 * write and the base class's read of one object's flag are accesses of one variable and pair.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { prepare, record } from './recorderHarness';

before(() => prepare());

test('the subclass\'s putfield and the base class\'s getfield of an inherited field are one variable, named after the declaring class', async () => {
  const summary = await record('inheritedfield', 'inheritedfield.Pool', { runs: 1, noise: 0, include: ['inheritedfield'] });
  assert.equal(summary.traces.length, 1);
  const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n');
  const vars = new Map<number, string>();
  const accesses: { type: string; var: string }[] = [];
  for (const l of lines) {
    if (l.startsWith('{"def":"var"')) {
      const d = JSON.parse(l);
      vars.set(d.id, d.name);
    } else if (l.startsWith('[')) {
      const e = JSON.parse(l);
      if (e[2] === 'R' || e[2] === 'W') accesses.push({ type: e[2], var: vars.get(e[3]) ?? '?' });
    }
  }
  const closed = accesses.filter((a) => a.var.endsWith('.closed'));
  assert.ok(closed.some((a) => a.type === 'W') && closed.some((a) => a.type === 'R'), JSON.stringify(accesses));
  assert.deepEqual([...new Set(closed.map((a) => a.var))], ['inheritedfield.BasePool.closed'], 'one variable, of the declaring class');
  assert.ok(![...vars.values()].includes('inheritedfield.Pool.closed'), [...vars.values()].join(', '));
});
