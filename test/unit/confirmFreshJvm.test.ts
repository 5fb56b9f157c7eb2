/**
 * `braid confirm --fresh-jvm` (docs/confirm.md "Repetitions in one JVM"): parsed, and passed on to the
 * confirmation's options (one JVM per run in every group); without it the options ask for none.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { confirmOptionsFor, parseConfirmArgs } from '../../server/src/cli/confirmCommand';
import { tempDir } from '../helpers/traceBuilder';

test('braid confirm --fresh-jvm: one JVM per run in every group; the default leaves the repetitions on', async () => {
  const a = parseConfirmArgs(['traces', '--fresh-jvm', '--', 'java', '-cp', 'out', 'bank.Bank']);
  assert.equal(a.freshJvm, true);
  assert.deepEqual(a.inputs, ['traces']);
  const o = await confirmOptionsFor(['traces'], a, () => {});
  assert.ok(typeof o !== 'string', String(o));
  assert.equal(o.options.freshJvm, true);
  const d = await confirmOptionsFor(['traces'], parseConfirmArgs(['traces', '--', 'java', '-cp', 'out', 'bank.Bank']), () => {});
  assert.ok(typeof d !== 'string' && d.options.freshJvm === undefined);
});

test('braid confirm of a recording made with --fresh-jvm or --shared-libraries: its manifest says so, and the confirmation runs the same way (said in "from recording.json")', async () => {
  const root = tempDir();
  const dir = path.join(root, 'traces');
  mkdirSync(dir, { recursive: true });
  const manifest = { format: 'braid-recording', version: 1, command: ['java', '-jar', 'junit-platform-console-standalone.jar', '--select-method', 'a.B#c'], cwd: root, name: 'a.B', runs: 10, noise: 0.1, seed: 1, include: ['a'], exclude: [], timeoutSeconds: 60, freshJvm: true, sharedLibraries: true, startedAt: '2026-12-01T02:00:00.000Z' };
  writeFileSync(path.join(dir, 'recording.json'), JSON.stringify(manifest));
  const said: string[] = [];
  const o = await confirmOptionsFor([dir], parseConfirmArgs([dir]), (l) => said.push(l));
  assert.ok(typeof o !== 'string', String(o));
  assert.equal(o.options.freshJvm, true);
  assert.equal(o.options.sharedLibraries, true);
  assert.ok(said.some((l) => /one JVM per run \(--fresh-jvm\)/.test(l)), said.join('\n'));
  assert.ok(said.some((l) => /library jars shared between repetitions \(--shared-libraries\)/.test(l)), said.join('\n'));
});
