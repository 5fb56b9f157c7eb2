/**
 * A JUnit test project recorded as `braid test` records it, for the recorder tests that run real JVMs
 * (repeatedRuns, freshStatic, confirmRepetitions): what they need here (Debian's junit5 console
 * launcher, the built agent and launcher jars), a fixture's copy with extra sources (removed after the
 * test file), and its test's command with the build steps run.
 */
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './traceBuilder';
import { inferTestCommand, type TestPlan } from '../../server/src/recorder/java/testCommand';
import { locateTest } from '../../server/src/recorder/java/testLocate';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { RecordProgress, recordRuns } from '../../server/src/recorder/runs/recordRuns';

export const ROOT = path.resolve(__dirname, '..', '..');
export const JUNIT_CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';

/**
 * Why these tests cannot run here, or false. Missing tools skip the file's tests outside CI; under
 * CI=true (.ci/run installs junit5 and builds the jars) one failing test says what is missing.
 */
export function junitToolsSkip(): string | false {
  const missing =
    (!existsSync(JUNIT_CONSOLE) && `the JUnit console launcher ${JUNIT_CONSOLE} is missing (install Debian's junit5 package)`) ||
    (!existsSync(path.join(ROOT, 'dist/braid-agent.jar')) && 'dist/braid-agent.jar is missing (npm run build)') ||
    (!existsSync(path.join(ROOT, 'dist/braid-launcher.jar')) && 'dist/braid-launcher.jar is missing (node scripts/build-agent.mjs with junit5 installed)');
  if (missing && process.env.CI) test('junit5 and the launcher jar are there (CI=true)', () => assert.fail(missing));
  return missing && !process.env.CI ? missing : false;
}

const made: string[] = [];
after(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of test/fixtures/<fixture> in a temp folder (removed after the test file), `extra` sources (path → text) added. */
export function fixtureCopy(fixture: string, extra: Record<string, string> = {}): string {
  const ws = tempDir(`braid-${fixture}-`);
  made.push(ws);
  cpSync(path.join(ROOT, 'test/fixtures', fixture), ws, { recursive: true });
  for (const [rel, text] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    writeFileSync(path.join(ws, rel), text);
  }
  return ws;
}

/** The command `braid test <spec>` runs in `ws`, its build steps (javac, Maven) run: each must succeed. */
export function preparedTestPlan(ws: string, spec: string): TestPlan {
  const plan = inferTestCommand(ws, locateTest(ws, spec));
  for (const step of plan.prepare) {
    const r = spawnSync(step.command[0], step.command.slice(1), { cwd: step.cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, `${step.command.join(' ')}: ${r.stderr}`);
  }
  return plan;
}

/** Records `spec`'s command as `braid record` would with `args` (runs, seed, noise, …) into `ws`/traces. */
export async function recordTest(ws: string, spec: string, args: string[], onProgress?: (p: RecordProgress) => void) {
  const plan = preparedTestPlan(ws, spec);
  const o = parseRecordArgs([...args, '--include', ...plan.include, '--name', plan.name, '--out', path.join(ws, 'traces'), '--', ...plan.command], ws);
  return { plan, summary: await recordRuns({ ...o, cwd: plan.cwd }, onProgress) };
}
