/**
 * Issue 39 (LOW): "Debug with the Failing Interleaving joins `include`/`plan` into `-javaagent:`
 * options unescaped (`out=` injected; needs no trust)" — client/src/debugConfiguration.ts refuses a
 * value the agent's option list would split (a comma, a path-list separator in an include entry).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { debugConfiguration } from '../../client/src/debugConfiguration';

const base = {
  command: ['java', '-cp', 'out', 'bank.Bank'],
  agentJar: '/ext/dist/braid-agent.jar',
  plan: '/ws/.braid/confirm/bank-P1/plans/pattern.json',
  trace: '/ws/.braid/confirm/debug.trace.jsonl',
  include: ['bank'],
  patternName: 'P1 R1 → W2 → W1',
};

/** The agent's options as the agent splits them (AgentOptions.parse: `,`, then the first `=`). */
function agentOptions(vmArgs: string): string[] {
  const m = /-javaagent:[^=]+=(\S+)/.exec(vmArgs);
  return m ? m[1].split(',') : [];
}

test('debug configuration: "`out=` injected" through the include list is refused, not joined into -javaagent', () => {
  const r = debugConfiguration({ ...base, include: ['bank,out=/home/u/.ssh/authorized_keys'] });
  assert.equal(typeof r, 'string', `a configuration was made: ${JSON.stringify(r)}`);
  assert.match(String(r), /include entry .*bank,out=.*contains ","/);
  for (const bad of ['bank;java', 'bank:java', 'bank\nout=/x']) assert.equal(typeof debugConfiguration({ ...base, include: [bad] }), 'string', bad);
});

test('debug configuration: a plan or trace path with a comma (another agent option) is refused', () => {
  const r = debugConfiguration({ ...base, plan: '/ws/x,out=/tmp/evil.trace.jsonl/plan.json' });
  assert.equal(typeof r, 'string');
  assert.match(String(r), /the forcing plan path .*split at \(a comma/);
  assert.equal(typeof debugConfiguration({ ...base, trace: '/ws/a,plan=/tmp/p.json' }), 'string');
  assert.equal(typeof debugConfiguration({ ...base, agentJar: '/ext/a=b/braid-agent.jar' }), 'string');
});

test('debug configuration: ordinary values give exactly out, include and plan', () => {
  const r = debugConfiguration(base);
  assert.notEqual(typeof r, 'string');
  const opts = agentOptions((r as { vmArgs: string }).vmArgs);
  assert.deepEqual(opts.map((o) => o.slice(0, o.indexOf('='))), ['out', 'include', 'plan']);
  assert.equal(opts[2], `plan=${base.plan}`);
});
