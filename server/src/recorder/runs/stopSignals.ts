/**
 * Stopping a recording from outside: Ctrl-C (SIGINT), `kill` (SIGTERM) and a closed terminal
 * (SIGHUP). The runs' commands run in process groups of their own (processTree.ts), so a signal to
 * braid alone never reaches them: each signal aborts the recording, which stops every run's group
 * and deletes the unfinished runs' files; a second one exits at once. The exit code is 128 + the
 * signal's number (130, 143, 129), as a shell reports a process the signal ended.
 */
const EXIT: Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
type StopSignal = keyof typeof EXIT;

export interface StopSignals {
  /** the first signal received, if any */
  readonly received: StopSignal | undefined;
  /** its exit code (128 + its number), or undefined */
  readonly exitCode: number | undefined;
  dispose(): void;
}

/** Listens for the stop signals until dispose(); `onStop(signal)` on the first (e.g. abort and say so). */
export function onStopSignals(onStop: (signal: StopSignal) => void): StopSignals {
  let received: StopSignal | undefined;
  const handlers = (Object.keys(EXIT) as StopSignal[]).map((sig) => {
    const h = () => {
      if (received) process.exit(EXIT[received]);
      received = sig;
      onStop(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return {
    get received() {
      return received;
    },
    get exitCode() {
      return received ? EXIT[received] : undefined;
    },
    dispose() {
      for (const [sig, h] of handlers) process.off(sig, h);
    },
  };
}
