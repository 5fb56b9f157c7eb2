/**
 * Where the noise goes (issue 29, point 6; docs/noise.md "Where uniform noise goes"): failure rates of
 * the samples and evaluation subjects (test/recorder/recorderHarness.ts, each at its catalogue noise)
 * and of the lost-notification fixture, recorded with `--noise-at accesses`, `sync` and `all`.
 *
 *   node --import tsx bench/noiseAtEval.ts [subject...] [--runs N] [--set samples|all]
 *
 * Prints a markdown table (failing runs of N per mode); figures are printed, never asserted.
 */
import { ALL_SUBJECTS, prepare, record, SAMPLE_PROGRAMS, SampleProgram } from '../test/recorder/recorderHarness';

const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = Number(value('--runs', '30'));
const set = value('--set', 'samples');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--set'].includes(args[k - 1]));
const LOSTNOTIFY: SampleProgram = { pkg: 'lostnotify', main: 'lostnotify.HandOff', include: ['lostnotify'], noise: 0.3 };
const subjects = [...(set === 'all' ? ALL_SUBJECTS : SAMPLE_PROGRAMS), LOSTNOTIFY].filter((s) => !named.length || named.includes(s.pkg));
const MODES = ['accesses', 'sync', 'all'] as const;

async function main() {
  prepare();
  console.log(`| subject (noise) | ${MODES.map((m) => `\`--noise-at ${m}\``).join(' | ')} |`);
  console.log(`|---|${MODES.map(() => '---:').join('|')}|`);
  for (const s of subjects) {
    const cells: string[] = [];
    for (const noiseAt of MODES) {
      const r = await record(`noiseat-${s.pkg}-${noiseAt}`, s.main, {
        runs,
        noise: s.noise,
        noiseAt,
        include: s.include,
        seed: 1000,
        ...(s.testCode ? { agentOptions: [`testCode=${s.testCode.join(',')}`] } : {}),
      });
      cells.push(`${r.failed}/${r.total}`);
    }
    console.log(`| ${s.pkg} (${s.noise}) | ${cells.join(' | ')} |`);
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
