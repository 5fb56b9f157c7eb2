/**
 * Finds the Java agent jar: next to the CLI bundle (dist/braid.js → dist/braid-agent.jar), or,
 * when running from sources (tsx), in the repository's dist/ folder. BRAID_AGENT_JAR overrides.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function agentJarCandidates(): string[] {
  const list: string[] = [];
  if (process.env.BRAID_AGENT_JAR) list.push(process.env.BRAID_AGENT_JAR);
  list.push(path.join(__dirname, 'braid-agent.jar'));
  // server/src/recorder/java → repository root
  list.push(path.resolve(__dirname, '..', '..', '..', '..', 'dist', 'braid-agent.jar'));
  return list;
}

export function findAgentJar(explicit?: string): string {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`agent jar ${explicit} does not exist`);
    return path.resolve(explicit);
  }
  const candidates = agentJarCandidates();
  for (const c of candidates) if (existsSync(c)) return path.resolve(c);
  throw new Error(
    `the Braid Java agent (braid-agent.jar) was not found; looked in:\n  ${candidates.join('\n  ')}\n` +
      'Build it with `npm run build` (needs a JDK 17–23, or any JDK 11+ with Debian\'s ASM: apt-get install libasm-java).',
  );
}
