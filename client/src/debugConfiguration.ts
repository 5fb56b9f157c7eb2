/**
 * "Debug with the failing interleaving" (issue 28, docs/confirm.md): a launch.json configuration of
 * type `java` (for a Java debugger extension) that runs the recording's Java command with Braid's
 * agent and the confirmed pattern's forcing plan in `vmArgs`, so the program runs with the pattern's
 * order forced and stops at breakpoints on the pattern's lines. Pure: the command line in, the
 * configuration out (or why not).
 */
import { includePatternProblem } from '../../server/src/recorder/runs/includePattern';

export interface DebugConfigurationInput {
  /** the recording's command (recording.json), e.g. ["java", "-cp", "out", "bank.Bank"] */
  command: string[];
  /** absolute path of braid-agent.jar */
  agentJar: string;
  /** absolute path of the forcing plan (a confirmation's plans/pattern.json) */
  plan: string;
  /** the trace the debugged run writes */
  trace: string;
  /** packages the agent instruments (the recording's include list) */
  include: string[];
  /** the pattern, for the configuration's name */
  patternName: string;
}

export interface JavaLaunch {
  type: 'java';
  name: string;
  request: 'launch';
  mainClass: string;
  classPaths?: string[];
  args?: string[];
  vmArgs: string;
}

const CLASS_PATH_FLAGS = new Set(['-cp', '-classpath', '--class-path']);
/** JVM options that take the next word as their value */
const WITH_VALUE = new Set(['-p', '--module-path', '--add-modules', '--add-opens', '--add-exports', '--add-reads']);
/** the JUnit console launcher's main class (the test lens runs `java -jar junit-platform-console-standalone.jar …`) */
const JUNIT_CONSOLE = 'org.junit.platform.console.ConsoleLauncher';

/** Quotes one vmArgs word for the Java debugger's splitting (whitespace separates words; "…" groups). */
function word(w: string): string {
  return /[\s"]/.test(w) ? `"${w.replace(/"/g, '\\"')}"` : w;
}

/** The launch configuration, or a sentence saying why the command cannot be debugged this way. */
export function debugConfiguration(i: DebugConfigurationInput): JavaLaunch | string {
  const [exe, ...rest] = i.command;
  if (!exe || !/(^|[\\/])java(\.exe)?$/.test(exe)) {
    return `the recording runs "${exe ?? ''}", not java: run the test under the debugger with the agent yourself (docs/confirm.md, "Debugging the failing interleaving")`;
  }
  const vm: string[] = [];
  let classPaths: string[] | undefined;
  let mainClass: string | undefined;
  let k = 0;
  for (; k < rest.length; k++) {
    const a = rest[k];
    if (CLASS_PATH_FLAGS.has(a)) {
      classPaths = (rest[++k] ?? '').split(/[:;]/).filter(Boolean);
    } else if (a === '-jar') {
      const jar = rest[++k];
      if (!jar) return 'the recording\'s command has -jar without a jar';
      if (!/junit-platform-console-standalone[^/\\]*\.jar$/.test(jar)) return `the recording runs the jar ${jar}: put its main class in a launch configuration with the vmArgs of docs/confirm.md`;
      classPaths = [jar];
      mainClass = JUNIT_CONSOLE;
      k++;
      break;
    } else if (WITH_VALUE.has(a)) {
      vm.push(a, rest[++k] ?? '');
    } else if (a.startsWith('-')) {
      // the agent of the debugged run is Braid's; a -javaagent already in the command stays
      vm.push(a);
    } else {
      mainClass = a;
      k++;
      break;
    }
  }
  if (!mainClass) return 'the recording\'s java command names no main class';
  const args = rest.slice(k);
  // the agent's command-line form is key=value,key=value and its include list splits at ; and :, so
  // a value holding a separator would add options (`out=` elsewhere): such values are refused (issue 39)
  for (const [what, v] of [['the agent jar path', i.agentJar], ['the forcing plan path', i.plan], ['the trace path', i.trace]] as const) {
    if (/[,\x00-\x1f\x7f]/.test(v) || (what === 'the agent jar path' && v.includes('='))) {
      return `${what} ${JSON.stringify(v)} holds a character the agent's options are split at (a comma${what === 'the agent jar path' ? ", '='" : ''} or a control character): move it, or write the configuration by hand with an options file (docs/confirm.md)`;
    }
  }
  for (const p of i.include) {
    const why = includePatternProblem(p);
    if (why) return `the recording's include entry ${JSON.stringify(p)}: ${why}`;
  }
  const options = [`out=${i.trace}`, ...(i.include.length ? [`include=${i.include.join(';')}`] : []), `plan=${i.plan}`];
  const agent = `-javaagent:${i.agentJar}=${options.join(',')}`;
  return {
    type: 'java',
    name: `Debug with the failing interleaving (Braid: ${i.patternName})`,
    request: 'launch',
    mainClass,
    ...(classPaths ? { classPaths } : {}),
    ...(args.length ? { args } : {}),
    vmArgs: [agent, ...vm].map(word).join(' '),
  };
}
