/**
 * Recording until the evidence is in (`braid test --runs auto`, the test lens' `runs: "auto"`):
 * a `RecordControl` for recordRuns that, at the end of each round, adds the runs finished since the
 * last round to one Analyzer (Analyzer.addTrace: only the new traces are read), ranks them, and
 * applies the stopping rule (engine/ranking/evidenceStop.ts): the evidence is in when the lead
 * pattern's is and each GRIFFIN bug with evidence has its lead settled (issue 40 item 5: GRIFFIN runs
 * on each round's analysis). The recording's budget of runs is RecordOptions.runs (the CLI gives
 * noSeparationMaxRuns: the rule stops at rule.maxRuns unless no pattern separates); the budget of
 * seconds is checked before each run.
 */
import path from 'node:path';
import { Analyzer, AnalysisResult } from '../../engine/analysis';
import { explainBugs } from '../../engine/griffin/griffin';
import { EvidenceSnapshot, evidenceSnapshot, EvidenceStopRule, nextRoundEnd, noSeparation, StopReason, stopReason } from '../../engine/ranking/evidenceStop';
import { findTraceFiles } from '../../engine/traceDiscovery';
import type { RecordControl, RecordProgress } from './recordRuns';
import type { AdaptiveExposure, ExposureStep, NoiseLevel } from './adaptiveExposure';

export class EvidenceRounds implements RecordControl {
  readonly analyzer = new Analyzer();
  /** the analysis after each round (the last one replaced when a later analysis has the same runs) */
  readonly history: EvidenceSnapshot[] = [];
  /** why the rounds stopped the recording, once they did */
  reason: StopReason | undefined;
  private readonly added: string[] = [];
  private readonly pending: string[] = [];
  private roundEnd: number;
  private gate: Promise<boolean> = Promise.resolve(true);
  /** runs allowed to start so far */
  private started = 0;
  private readonly startedAt = Date.now();

  /** adaptive exposure's steps since the last round's callback */
  private readonly steps: ExposureStep[] = [];

  /**
   * `onRound(history, finished, steps)` after each round's analysis (progress; `steps`: the steps
   * adaptive exposure took since the last round, in order, for the caller to print). `exposure`
   * (`--noise-mode adaptive`) decides each run's noise and is asked to widen it before the next run
   * once a decision is due (the current level's 20th run finished: AdaptiveExposure.due), and at a
   * round's end only when the round does not stop the recording.
   */
  constructor(
    readonly rule: EvidenceStopRule,
    private readonly onRound?: (history: readonly EvidenceSnapshot[], finished: number, steps: readonly ExposureStep[]) => void,
    readonly exposure?: AdaptiveExposure,
  ) {
    this.roundEnd = nextRoundEnd(0, rule);
  }

  /** recordRuns' onProgress: the finished run's traces join the next analysis. */
  runFinished(p: RecordProgress): void {
    this.pending.push(...p.run.traces);
    this.exposure?.runFinished(p);
  }

  /** RecordControl: the noise of run `index` (adaptive exposure), else the recording's. */
  runNoise(index: number): NoiseLevel | undefined {
    return this.exposure?.runNoise(index);
  }

  /** RecordControl: at a round's end analyze and decide; serialized, so parallel jobs wait for one analysis. */
  beforeRun(finished: number): Promise<boolean> {
    this.gate = this.gate.then(async () => {
      if (this.reason || this.pastBudget()) return false;
      const elapsed = (Date.now() - this.startedAt) / 1000;
      if (finished >= this.roundEnd) {
        await this.round();
        this.reason = stopReason(this.history, elapsed, this.rule);
        const step = this.reason ? undefined : await this.exposure?.consider();
        if (step) this.steps.push(step);
        this.onRound?.(this.history, finished, this.steps.splice(0));
        // asked again: the round's analysis is now the latest
        if (this.reason || this.pastBudget()) return false;
        this.roundEnd = nextRoundEnd(finished, this.rule);
        this.started++;
        return true;
      }
      if (elapsed >= this.rule.maxSeconds) {
        this.reason = 'max-seconds';
        return false;
      }
      // the current level's runs are in (2 jobs: mid-round): widen now, said at the next round
      if (this.exposure?.due) {
        const step = await this.exposure.consider();
        if (step) this.steps.push(step);
      }
      this.started++;
      return true;
    });
    return this.gate;
  }

  /**
   * No run may start past the run budget (rule.maxRuns) unless no pattern separates (the latest
   * analysis says so): the recording's own limit is higher (noSeparationMaxRuns), and parallel jobs
   * would otherwise start runs past --max-runs before its round is analyzed.
   */
  private pastBudget(): boolean {
    return this.started >= this.rule.maxRuns && !noSeparation(this.history[this.history.length - 1]);
  }

  /** Adds the runs finished since the last analysis, ranks, and keeps the snapshot. */
  async round(): Promise<AnalysisResult> {
    for (const f of this.pending.splice(0)) {
      try {
        await this.analyzer.addTrace(f);
      } catch (err) {
        this.analyzer.addUnreadable(f, [{ severity: 'error', file: f, message: `the trace could not be analyzed: ${(err as Error)?.message ?? err}` }]);
      }
      this.added.push(f);
    }
    const result = this.analyzer.rank();
    // every GRIFFIN bug with evidence must have its lead settled, not only the first pattern's
    let bugs: ReturnType<typeof explainBugs> | undefined;
    if (result.executions.failed > 0 && result.executions.passed > 0) {
      try {
        bugs = explainBugs(undefined, result, {});
      } catch {
        bugs = undefined; // no bugs this round: the lead's rule alone decides
      }
    }
    const snap = evidenceSnapshot(result, this.rule.top, bugs);
    const last = this.history[this.history.length - 1];
    if (last && last.runs === snap.runs) this.history[this.history.length - 1] = snap;
    else this.history.push(snap);
    return result;
  }

  /**
   * After the recording: the last round (runs finished after the last analysis) and why it stopped
   * (`reason`, else what the rule says now, else the budget of runs: recordRuns ran them all).
   */
  async finish(recordSeconds: number): Promise<{ result: AnalysisResult; reason: StopReason }> {
    const result = await this.round();
    return { result, reason: this.reason ?? stopReason(this.history, recordSeconds, this.rule) ?? 'max-runs' };
  }

  /**
   * The analysis of the folder as `braid analyze` makes it: this one when its runs were added in the
   * folder's order (with the folder's discovery diagnostics), else undefined (read the folder again).
   */
  async asFolderAnalysis(outDir: string): Promise<AnalysisResult | undefined> {
    const listed = await findTraceFiles([outDir]);
    if (listed.files.length !== this.added.length || !listed.files.every((f, k) => path.resolve(f) === path.resolve(this.added[k]))) return undefined;
    const result = this.analyzer.rank();
    result.diagnostics.unshift(...listed.diagnostics);
    return result;
  }
}
