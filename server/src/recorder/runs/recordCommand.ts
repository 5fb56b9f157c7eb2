/**
 * `braid record ...` (argv = the arguments after `record`): records runs of a Java command and
 * prints progress and a summary. Exit code: 0 when the runs were recorded, 2 on a usage error,
 * 1 on another error, 3 when a trace or log could not be written (a full disk: the recording
 * stops, finished traces are kept), 130 when stopped with Ctrl-C (finished traces are kept), 143
 * with SIGTERM and 129 with SIGHUP (the same stop: every run's process group is stopped, stopSignals.ts).
 */
import { neverFailedAdvice, nextText } from './neverFailedAdvice';
import { adaptiveExposureFor } from './adaptiveExposure';
import { commandLine } from '../java/testCommand';
import { pctBoundText } from './pctNoise';
import path from 'node:path';
import { ProgressPrinter } from './progressPrinter';
import { keepsNoTrace, parseRecordArgs, RecordOptions, RECORD_USAGE, shardRange, UsageError } from './recordOptions';
import { withTraceFolder, recordRuns } from './recordRuns';
import { droppedRuns } from './notReached';
import { EXIT_WRITE_FAILURE, RecordWriteError } from './writeFailure';
import { onStopSignals } from './stopSignals';
import { failureSummary, runFailure } from '../../engine/runFailure';
import { terminalLine, terminalText } from '../../engine/outputEscaping';

export { RECORD_USAGE } from './recordOptions';
export { recordRuns } from './recordRuns';
export type { RecordProgress, RecordSummary } from './recordRuns';
export type { RecordOptions } from './recordOptions';

export async function runRecordCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    const dash = argv.indexOf('--');
    if (dash < 0 || argv.indexOf('--help') < dash) {
      console.log(RECORD_USAGE);
      return 0;
    }
  }
  let options: RecordOptions;
  try {
    options = parseRecordArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      // the message may quote a plan's fields or file name: escaped for the terminal and CI log
      console.error(`braid record: ${terminalText(e.message)}\n\n${RECORD_USAGE}`);
      return 2;
    }
    throw e;
  }
  try {
    // the real folder (a default one taken by a recording started in the same second gets `-2`…)
    options = await withTraceFolder(options);
  } catch (e) {
    console.error(`braid record: ${terminalText((e as Error).message)}`);
    return 1;
  }
  const controller = new AbortController();
  // Ctrl-C, kill (SIGTERM), a closed terminal (SIGHUP): stop the runs' process groups, keep finished traces
  const stops = onStopSignals((sig) => {
    process.stderr.write(`\nbraid record: stopping (${sig === 'SIGINT' ? 'Ctrl-C again' : `${sig} again`} to quit at once); finished traces are kept\n`);
    controller.abort();
  });
  const printer = new ProgressPrinter();
  const rel = path.relative(process.cwd(), options.outDir) || '.';
  for (const note of options.notes ?? []) console.error(terminalText(`note: ${note}`));
  // --noise-mode adaptive: the noise widens while the runs do not fail, deciding when a level's 20th run finishes (adaptiveExposure.ts)
  const exposure = options.adaptive
    ? adaptiveExposureFor(options, 'adaptive', (_step, text) => {
        printer.endLine();
        console.error(terminalLine(`note: ${text}`));
      })
    : undefined;
  const noise = options.plan
    ? `noise plan "${options.plan.plan.name}" (${path.relative(process.cwd(), options.plan.file) || options.plan.file}, ${options.plan.plan.points.length} point(s)${options.plan.plan.force ? `, forcing the ${options.plan.plan.force.order} order` : ''})`
    : options.pct
      ? `pct scheduling (depth ${options.pct.depth})`
      : `noise ${options.noise}${options.noiseAt && options.noiseAt !== 'accesses' ? ` at ${options.noiseAt}` : ''}${exposure ? ' (adaptive: widened while runs do not fail)' : ''}`;
  // the plan's name, the command and the include list are the user's or a plan file's text: escaped
  console.error(terminalLine(
    `braid record: ${options.shard ? `shard ${options.shard.index}/${options.shard.count} (runs ${shardRange(options).from + 1}–${shardRange(options).to} of ${options.runs})` : `${options.runs} run(s)`} of \`${options.command.join(' ')}\`, ${noise}, seed ${options.seed}, jobs ${options.jobs}` +
      `${options.include.length ? `, include ${options.include.join(' ')}` : ''} → ${rel}`,
  ));
  try {
    const summary = await recordRuns(
      options,
      (p) => {
        exposure?.runFinished(p);
        printer.update(p);
      },
      controller.signal,
      exposure,
    );
    printer.endLine();
    const nr = summary.notReached;
    if (nr?.stopped && summary.total === 0) {
      // not an empty result: the program never ran, or its test did not (docs/recorder.md)
      if (nr.testDidNotRun) console.error(`braid record: the test did not run: ${terminalLine(nr.reason)}; recording stopped after ${nr.runs} run(s), nothing recorded (no failing run).`);
      else console.error(`braid record: the command never reached the program: ${terminalLine(nr.reason)}; recording stopped, nothing recorded.`);
      console.error(`  ${terminalLine(nr.hint)}`);
      if (nr.output.trim()) console.error(`output of the run:\n${nr.output.trimEnd().split('\n').map((l) => `  | ${terminalLine(l)}`).join('\n')}`);
      return 1;
    }
    if (nr) console.error(`warning: ${nr.runs} run(s) ${nr.testDidNotRun ? 'in which the test did not run' : 'never reached the program'} (${terminalLine(nr.reason)}): ${terminalLine(droppedRuns(nr.executions))}; not counted, traces not kept`);
    const secs = (summary.durationMs / 1000).toFixed(1);
    if (summary.writeFailure) console.error(`braid record: ${terminalText(summary.writeFailure.message)}; recording stopped: the unfinished run's files are deleted, the ${summary.total} finished run(s) are kept`);
    console.log(
      `${summary.writeFailure ? 'stopped: ' : summary.interrupted ? 'interrupted: ' : ''}recorded ${summary.total} run(s) in ${secs} s: ${summary.passed} passed, ${summary.failed} failed → ${rel}`,
    );
    // the Node.js recorder: repetitions in one process (node/nodeRepetitions.ts), or why not
    const reps = summary.nodeRepetitions;
    if (reps && reps.processes > 0) console.log(`repetitions: ${reps.processes} Node.js process(es), each run in a worker thread with fresh module state${reps.because ? `; then one process per run: ${terminalLine(reps.because)}` : ''}`);
    else if (reps?.because) console.error(`note: each run was a Node.js process of its own: ${terminalLine(reps.because)}`);
    const reasons = new Map<string, number>();
    for (const r of summary.runs) if (r.outcome === 'fail') reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
    if (reasons.size) console.log(`failures by reason: ${[...reasons].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    // what the failing runs reported (the assertion or exception and where), most frequent first
    const said = new Map<string, number>();
    for (const r of summary.runs) {
      if (r.outcome !== 'fail') continue;
      const f = runFailure({ outcome: 'fail', reason: r.reason, detail: r.detail, message: r.message, location: r.location });
      if (f && (f.message || f.location)) said.set(failureSummary(f), (said.get(failureSummary(f)) ?? 0) + 1);
    }
    for (const [text, n] of [...said].sort((a, b) => b[1] - a[1]).slice(0, 3)) console.log(`  ${n} × ${terminalLine(text)}`);
    // a forcing plan (docs/noise.md "Forcing plans"): in how many runs every wait was met, and why not in the others
    if (options.plan?.plan.force && !keepsNoTrace(options)) {
      const forced = summary.runs.filter((r) => r.forcing);
      const ok = forced.filter((r) => r.forcing?.ok).length;
      const why = forced.find((r) => !r.forcing?.ok && r.forcing?.reason)?.forcing?.reason;
      console.log(`forcing: every wait met in ${ok} of ${summary.total} run(s)${forced.length < summary.total ? ` (${summary.total - forced.length} without a forcing report)` : ''}${why ? `; e.g. ${terminalLine(why)}` : ''}`);
    }
    // --noise-mode pct: waits the scheduler's bounds ended (docs/noise.md "PCT")
    const bounded = options.pct ? pctBoundText(summary.runs.map((r) => r.pct)) : undefined;
    if (bounded) console.log(terminalLine(bounded));
    if (keepsNoTrace(options)) console.log('no traces kept (agent option record=false): outcomes only, see the per-run logs');
    else if (summary.empty > 0) {
      console.error(
        `warning: ${summary.empty} run(s) recorded no event: no instrumented class ran. Check --include ` +
          `(package or class names, e.g. --include com.example) and that the command runs a JVM.`,
      );
    }
    if (summary.total > 0 && summary.failed === 0 && !summary.interrupted) {
      // what was tried and what was not (neverFailedAdvice.ts): more noise or wide noise, PCT for Java, more runs, --fail-on-output
      const advice = neverFailedAdvice({ runs: summary.total, recorder: options.recorder ?? 'java', noise: options.noise, noiseAt: options.noiseAt, pct: !!options.pct, plan: !!options.plan, failOnOutput: !!options.failOnOutput, exposure, where: 'record' });
      console.error(`note: no run failed with ${advice.tried}; try ${nextText([...advice.next, `the points where noise makes it fail: braid pinpoint -- ${terminalLine(commandLine(options.command))}`])}`);
    }
    if (summary.total > 0 && summary.passed === 0) console.error('note: every run failed; the analysis needs passing runs too (check the command, or use less noise)');
    if (summary.total > 0 && !keepsNoTrace(options)) console.log(`next: braid analyze ${rel}`);
    if (summary.writeFailure) return EXIT_WRITE_FAILURE;
    return summary.interrupted ? (stops.exitCode ?? 130) : 0;
  } catch (e) {
    printer.endLine();
    if (e instanceof RecordWriteError) {
      console.error(`braid record: ${terminalText(e.message)}; recording stopped, no run was recorded`);
      return EXIT_WRITE_FAILURE;
    }
    console.error(`braid record: ${terminalText((e as Error).message)}`);
    return 1;
  } finally {
    stops.dispose();
  }
}
