/**
 * Maven from Maven Central for the tests, as a user has it (issue 38, item 1): a local repository
 * shared by the test files of a run and kept between runs in the temp folder (BRAID_TEST_M2 names
 * another), never the user's ~/.m2; a project copy points its `.mvn/maven.config` at it, and at a
 * settings file with a mirror of Central (a common setup that must keep working).
 */
import { spawnSync } from 'node:child_process';
import { after } from 'node:test';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CENTRAL = 'https://repo.maven.apache.org/maven2';

/**
 * The tests' local repository: one per `name`, because Maven 3.8's resolver does not lock a local
 * repository between processes and the test files run two at a time (a fresh CI machine downloads
 * the same plugins into both at once).
 */
export function testMavenRepo(name = ''): string {
  const base = process.env.BRAID_TEST_M2 || path.join(os.tmpdir(), 'braid-test-m2');
  const dir = name ? `${base}-${name}` : base;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Why Maven from Central cannot be used here (mvn missing, Central not reachable), or false. */
export function centralMissing(): string | false {
  const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
  if (mvn.error || mvn.status !== 0) return 'mvn is not installed (Debian package maven)';
  // one HEAD request (any answer means reachable: the root itself is a 404), in a child so that the test file's loading stays synchronous
  const probe = spawnSync(process.execPath, ['-e', `fetch(${JSON.stringify(CENTRAL + '/')}, { method: 'HEAD', signal: AbortSignal.timeout(15000) }).then(() => process.exit(0), () => process.exit(1))`], { encoding: 'utf8' });
  if (probe.status !== 0) return `Maven Central (${CENTRAL}) is not reachable`;
  return false;
}

/**
 * Points the Maven project in `ws` at the tests' local repository (`repoName`: testMavenRepo) and, through a settings file
 * written to `settingsDir`, at a mirror of Central (`.mvn/maven.config`: `-s <settings>`,
 * `-Dmaven.repo.local=<repo>`).
 */
export function useCentral(ws: string, settingsDir: string, repoName = ''): { repo: string; settings: string } {
  const repo = testMavenRepo(repoName);
  const settings = path.join(settingsDir, 'settings.xml');
  writeFileSync(settings, `<settings>\n  <mirrors>\n    <mirror><id>central-mirror</id><mirrorOf>*</mirrorOf><url>${CENTRAL}</url></mirror>\n  </mirrors>\n</settings>\n`);
  mkdirSync(path.join(ws, '.mvn'), { recursive: true });
  writeFileSync(path.join(ws, '.mvn', 'maven.config'), `-s ${settings}\n-Dmaven.repo.local=${repo}\n`);
  return { repo, settings };
}

/**
 * What a `braid test` under Maven from Central needs here, as the reason it cannot run (mvn or Central
 * missing, Debian's JUnit console launcher missing, dist/braid-launcher.jar not built), or false.
 */
export function mavenCentralTestMissing(root: string): string | false {
  return (
    centralMissing() ||
    (!existsSync('/usr/share/java/junit-platform-console-standalone.jar') && 'the JUnit console launcher is missing (Debian package junit5)') ||
    (!existsSync(path.join(root, 'dist/braid-launcher.jar')) && 'dist/braid-launcher.jar is missing (npm run build)')
  );
}

/**
 * A copy of a fixture Maven project in a temp folder of its own (removed after the test file), pointed
 * at Central through `useCentral` with the local repository `repoName` (one per test file that may
 * download at the same moment as another).
 */
export function mavenCentralProject(fixture: string, repoName = ''): { top: string; ws: string } {
  const top = mkdtempSync(path.join(os.tmpdir(), `braid-central-${path.basename(fixture)}-`));
  madeProjects.push(top);
  const ws = path.join(top, path.basename(fixture));
  cpSync(fixture, ws, { recursive: true });
  useCentral(ws, top, repoName);
  return { top, ws };
}

const madeProjects: string[] = [];
after(() => {
  for (const d of madeProjects.splice(0)) rmSync(d, { recursive: true, force: true });
});
