/**
 * When the language server stops unexpectedly, the client restarts it up to MAX_RESTARTS times
 * within RESTART_WINDOW_MS (docs/extension.md "How it works"); after that it stays stopped.
 */
export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 3 * 60 * 1000;

/** Records a stop at `now` in `stops` (times of the recent stops, oldest first) and says whether to restart. */
export function restartAfterStop(stops: number[], now: number): boolean {
  while (stops.length && now - stops[0] > RESTART_WINDOW_MS) stops.shift();
  stops.push(now);
  return stops.length <= MAX_RESTARTS;
}
