/**
 * When the language server process dies (crash, OOM, SIGKILL), the client
 * restarts it, at most `maxRestarts` times within `windowMs`; after that it
 * stays stopped with a message. Pure (no vscode import) so that it is
 * unit-tested; extension.ts maps the decision to the language client's
 * CloseAction.Restart / DoNotRestart.
 */
export interface RestartDecision {
  restart: boolean;
  /** restarts within the window, this one included */
  count: number;
  /** what to tell the user */
  message: string;
}

export class ServerRestartPolicy {
  private readonly times: number[] = [];

  constructor(
    readonly maxRestarts = 5,
    readonly windowMs = 3 * 60 * 1000,
  ) {}

  /** The server's connection closed unexpectedly at `now` (ms). */
  closed(now: number = Date.now()): RestartDecision {
    while (this.times.length && now - this.times[0] > this.windowMs) this.times.shift();
    this.times.push(now);
    const minutes = Math.round(this.windowMs / 60000);
    if (this.times.length <= this.maxRestarts) {
      return { restart: true, count: this.times.length, message: `the language server stopped unexpectedly; restarting (${this.times.length}/${this.maxRestarts} in ${minutes} minutes)` };
    }
    return {
      restart: false,
      count: this.times.length,
      message: `Braid: the language server crashed ${this.maxRestarts} times in ${minutes} minutes and stays stopped. See the Braid output; run "Developer: Reload Window" to start it again.`,
    };
  }
}
