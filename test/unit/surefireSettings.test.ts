/**
 * Surefire's configuration read from Maven's effective POM for the in-JVM runs (issue 41 item 4,
 * server/src/recorder/java/surefireSettings.ts): argLine (late replacement, quotes), system
 * properties, environment, working directory, the module's project in a reactor's effective POM,
 * and what is only named. The real Maven run is test/recorder/braidTestSurefireSettings.test.ts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applySurefireSettings, splitArgLine, surefireRunFrom, SurefireSettingsError } from '../../server/src/recorder/java/surefireSettings';

const surefire = (configuration: string, executionConfiguration = '') => `
  <plugin>
    <groupId>org.apache.maven.plugins</groupId>
    <artifactId>maven-surefire-plugin</artifactId>
    <version>2.22.3</version>
    <executions>
      <execution><id>default-test</id><phase>test</phase><goals><goal>test</goal></goals>${executionConfiguration ? `<configuration>${executionConfiguration}</configuration>` : ''}</execution>
    </executions>
    ${configuration ? `<configuration>${configuration}</configuration>` : ''}
  </plugin>`;

const project = (dir: string, plugins: string, properties = '') => `
<project>
  <artifactId>${path.basename(dir)}</artifactId>
  <properties>${properties}</properties>
  <build>
    <directory>${dir}/target</directory>
    <plugins>
      <plugin><artifactId>maven-compiler-plugin</artifactId><configuration><argLine>-Dnot=surefire</argLine></configuration></plugin>
      ${plugins}
    </plugins>
  </build>
</project>`;

test('argLine: the plugin\'s, @{…} from the properties, quotes as Plexus splits them; system properties after it; env and working directory', () => {
  const xml = project(
    '/w/app',
    surefire(
      '<argLine>@{argLine} -Xss2m\n   -Dmode=${surefire.forkNumber} "-Dspaced=a b"</argLine><systemPropertyVariables><a>1</a><empty/><b>x &amp; y</b></systemPropertyVariables>' +
        '<systemProperties><property><name>a</name><value>0</value></property><property><name>old</name><value>v</value></property></systemProperties>' +
        '<environmentVariables><K>v</K></environmentVariables><workingDirectory>run/${surefire.threadNumber}</workingDirectory>',
    ),
    "<argLine>-Dlate='late value'</argLine>",
  );
  const r = surefireRunFrom(xml, 'eff.xml', '/w/app');
  // systemPropertyVariables win over systemProperties (a=1), each -D after the argLine's options
  assert.deepEqual(r.jvmOptions, ['-Dlate=late value', '-Xss2m', '-Dmode=1', '-Dspaced=a b', '-Da=1', '-Dold=v', '-Dempty=', '-Db=x & y']);
  assert.deepEqual(r.env, { K: 'v' });
  assert.equal(r.workingDirectory, '/w/app/run/1');
  assert.deepEqual(r.applied, ['argLine -Dlate=late value -Xss2m -Dmode=1 -Dspaced=a b', 'system properties a, old, empty, b', 'environment K', 'working directory /w/app/run/1']);
  assert.deepEqual(r.notes, []);
});

test('the default-test execution\'s configuration over the plugin\'s; the argLine property when the plugin has none; the module folder as working directory is no change', () => {
  const xml = project('/w/app', surefire('<systemPropertyVariables><a>plugin</a><b>plugin</b></systemPropertyVariables><workingDirectory>/w/app</workingDirectory>', '<systemPropertyVariables><a>execution</a></systemPropertyVariables>'), '<argLine>-ea</argLine>');
  const r = surefireRunFrom(xml, 'eff.xml', '/w/app');
  assert.deepEqual(r.jvmOptions, ['-ea', '-Da=execution', '-Db=plugin']);
  assert.equal(r.workingDirectory, undefined);
});

test('a reactor\'s effective POM (<projects>): the project whose build folder is in the module\'s folder', () => {
  const xml = `<?xml version="1.0"?>\n<!-- generated -->\n<projects>${project('/w', surefire('<argLine>-Dwho=parent</argLine>'))}${project('/w/core', surefire('<argLine>-Dwho=core</argLine>'))}${project('/w/app', surefire('<argLine>-Dwho=app</argLine>'))}</projects>`;
  assert.deepEqual(surefireRunFrom(xml, 'eff.xml', '/w/app').jvmOptions, ['-Dwho=app']);
  assert.deepEqual(surefireRunFrom(xml, 'eff.xml', '/w/core/').jvmOptions, ['-Dwho=core']);
  assert.throws(() => surefireRunFrom(xml, 'eff.xml', '/elsewhere'), (e: Error) => e instanceof SurefireSettingsError && /eff\.xml has no project whose build folder is in \/elsewhere/.test(e.message));
});

test('an @{…} with no value before Maven runs (jacoco) is left out and said; settings outside the list are named; a project without surefire gets nothing', () => {
  const r = surefireRunFrom(project('/w', surefire('<argLine>@{argLine} -Xmx1g</argLine><classpathDependencyExcludes><e>a:b</e></classpathDependencyExcludes><systemPropertiesFile>p</systemPropertiesFile>')), 'eff.xml', '/w');
  assert.deepEqual(r.jvmOptions, ['-Xmx1g']);
  assert.match(r.notes[0], /^argLine's @\{argLine\} has no value before Maven runs \(a plugin such as jacoco:prepare-agent sets it/);
  assert.match(r.notes[1], /^surefire's systemPropertiesFile, classpathDependencyExcludes are not applied to the runs .*--via-build-tool/);
  const none = surefireRunFrom(project('/w', ''), 'eff.xml', '/w');
  assert.deepEqual([none.jvmOptions, none.env, none.workingDirectory, none.applied, none.notes], [[], {}, undefined, [], []]);
  // another agent in the argLine is kept: the repetitions fall back to a JVM per run (repeatedRuns.ts)
  assert.deepEqual(surefireRunFrom(project('/w', surefire('<argLine>-javaagent:/r/byte-buddy-agent.jar=x</argLine>')), 'eff.xml', '/w').jvmOptions, ['-javaagent:/r/byte-buddy-agent.jar=x']);
});

test('jacoco\'s coverage agent in the argLine (prepare-agent\'s @{argLine}, or written out) is left out of the runs and said once, naming the agent, the plugin\'s version and the pom (issue 38: jacoco 0.8.2\'s agent ended every JDK 17 run unsaid)', () => {
  const jacoco = '<plugin><groupId>org.jacoco</groupId><artifactId>jacoco-maven-plugin</artifactId><version>0.8.2</version></plugin>';
  const agent = '-javaagent:/m2/org/jacoco/org.jacoco.agent/0.8.2/org.jacoco.agent-0.8.2-runtime.jar=destfile=/w/target/jacoco.exec';
  const r = surefireRunFrom(project('/w', surefire('<argLine>@{argLine} -Xmx1g</argLine>') + jacoco, `<argLine>${agent}</argLine>`), 'eff.xml', '/w');
  assert.deepEqual(r.jvmOptions, ['-Xmx1g']);
  assert.deepEqual(r.applied, ['argLine -Xmx1g']);
  assert.equal(r.notes.length, 1, r.notes.join('\n'));
  assert.ok(r.notes[0].startsWith(`surefire's argLine gives the test JVM jacoco's coverage agent (${agent}; set by jacoco-maven-plugin 0.8.2's prepare-agent in the build of /w/pom.xml): left out of the recorded runs`), r.notes[0]);
  // written out, with no plugin in the build; the distribution's jacocoagent.jar too; nothing else left: no argLine applied
  const written = surefireRunFrom(project('/w', surefire('<argLine>-javaagent:/opt/jacoco/lib/jacocoagent.jar=output=none</argLine>')), 'eff.xml', '/w');
  assert.deepEqual([written.jvmOptions, written.applied], [[], []]);
  assert.match(written.notes[0], /coverage agent \(-javaagent:\/opt\/jacoco\/lib\/jacocoagent\.jar=output=none; written in the argLine of \/w\/pom\.xml or its parents\)/);
});

test('bad input: not XML, not an effective POM, a map that holds elements, unbalanced quotes — each names the file and the setting', () => {
  const bad = (xml: string, re: RegExp) => assert.throws(() => surefireRunFrom(xml, 'eff.xml', '/w'), (e: Error) => e instanceof SurefireSettingsError && re.test(e.message));
  bad('<project><build>', /^eff\.xml is not XML/);
  bad('<settings/>', /^eff\.xml holds no <project>: not an effective POM/);
  bad(project('/w', surefire('<environmentVariables><K><x>1</x></K></environmentVariables>')), /^eff\.xml: maven-surefire-plugin's <environmentVariables>: <K> holds elements, not a value/);
  bad(project('/w', surefire('<argLine>-Dx="open</argLine>')), /unbalanced quotes in argLine/);
  bad(project('/w', surefire('<systemProperties><property><value>v</value></property></systemProperties>')), /<systemProperties>: <property> 1 has no <name>/);
});

test('splitArgLine: spaces, tabs and line breaks split; quotes group and are removed; an empty quoted word stays', () => {
  assert.deepEqual(splitArgLine('  -Xmx1g\t-Da="b c"\n-Dd=\'e f\'  ""  x'), ['-Xmx1g', '-Da=b c', '-Dd=e f', '', 'x']);
  assert.deepEqual(splitArgLine(''), []);
});

test('applySurefireSettings: the options after java, the environment added, the working directory created; a missing effective POM is an error naming it', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-surefire-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const eff = path.join(dir, 'eff.xml');
  writeFileSync(eff, project(dir, surefire('<argLine>-Dx=1</argLine><environmentVariables><K>v</K></environmentVariables><workingDirectory>work/here</workingDirectory>')));
  const { run } = applySurefireSettings({ command: ['java', '-jar', 'launcher.jar', '--select-class', 'a.B'], cwd: dir, env: { BRAID: '1' } }, { effectivePom: eff, module: dir });
  assert.deepEqual(run, { command: ['java', '-Dx=1', '-jar', 'launcher.jar', '--select-class', 'a.B'], cwd: path.join(dir, 'work/here'), env: { BRAID: '1', K: 'v' } });
  assert.ok(existsSync(path.join(dir, 'work/here')), 'the working directory is created, as surefire does');
  assert.throws(() => applySurefireSettings({ command: ['java'], cwd: dir }, { effectivePom: path.join(dir, 'none.xml'), module: dir }), /the effective POM .*none\.xml was not written \(ENOENT\)/);
});
