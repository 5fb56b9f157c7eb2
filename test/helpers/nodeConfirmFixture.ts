/**
 * Confirm by Forcing on a committed recording of a Node.js fixture (test/fixtures/node/<name>/recorded),
 * through the CLI: the set-up the forcing tests share (nodePassForcing, nodeSyncForcing,
 * nodeChainForcing). Each confirmation runs in a fresh copy of the fixture (its own .braid/confirm) under
 * test-output/recorder/<work>-<pid>. Needs dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
export const cli = path.join(root, 'dist', 'braid.js');

export interface PatternAccess {
  thread: number;
  type: string;
  variable: string;
  file: string;
  line: number;
}

export interface RecordedPattern {
  key: string;
  accesses: PatternAccess[];
}

/** The key of the two-access pattern `a` then `b` among `patterns` (asserted to be there). */
export function keyOf(patterns: RecordedPattern[], a: Partial<PatternAccess>, b: Partial<PatternAccess>): string {
  const is = (x: PatternAccess, y: Partial<PatternAccess>) => Object.entries(y).every(([k, v]) => x[k as keyof PatternAccess] === v);
  const p = patterns.find((q) => q.accesses.length === 2 && is(q.accesses[0], a) && is(q.accesses[1], b));
  assert.ok(p, `the recording has the pattern ${JSON.stringify([a, b])}: ${patterns.map((q) => q.key).join(', ')}`);
  return p.key;
}

export interface NodeConfirmFixture {
  /** the patterns of `braid analyze recorded --format json` in the fixture */
  patterns(): RecordedPattern[];
  /** `braid confirm recorded --pattern key` with the fixture's command, in a fresh copy named `name`, `runs` per group (default 10); its JSON */
  confirm(name: string, key: string, env?: Record<string, string>, runs?: number): { verdict: string; forced: { runs: number; failed: number; forcedOk: number }; opposite: { runs: number; failed: number; forcedOk: number } | null } & Record<string, unknown>;
  /** removes the copies */
  cleanUp(): void;
}

/**
 * The fixture test/fixtures/node/<name>, run as `command` (from the fixture's folder) with the confirm
 * options every forcing test uses: 10 runs per group (unless a test asks for more), 2 jobs, waits of 2 s.
 */
export function nodeConfirmFixture(name: string, work: string, command: string[]): NodeConfirmFixture {
  const fixture = path.join(root, 'test', 'fixtures', 'node', name);
  const dir = path.join(root, 'test-output', 'recorder', `${work}-${process.pid}`);
  let patterns: RecordedPattern[] | null = null;
  return {
    patterns() {
      if (patterns !== null) return patterns;
      assert.ok(existsSync(cli), 'dist/braid.js is built (node scripts/build.mjs)');
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const r = spawnSync(process.execPath, [cli, 'analyze', 'recorded', '--format', 'json'], { cwd: fixture, encoding: 'utf8', timeout: 300_000 });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      patterns = JSON.parse(r.stdout).patterns as RecordedPattern[];
      return patterns;
    },
    confirm(copyName, key, env = {}, runs = 10) {
      const cwd = path.join(dir, copyName);
      cpSync(fixture, cwd, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
      const r = spawnSync(process.execPath, [cli, 'confirm', 'recorded', '--pattern', key, '--runs', String(runs), '--jobs', '2', '--wait-ms', '2000', '--format', 'json', '--', ...command], {
        cwd,
        encoding: 'utf8',
        timeout: 900_000,
        env: { ...process.env, ...env },
      });
      assert.ok(r.status === 0 || r.status === 1, r.stdout + r.stderr);
      return JSON.parse(r.stdout);
    },
    cleanUp() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
