/** The language server restart policy (client/src/restartPolicy.ts): up to 5 restarts within 3 minutes. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { restartAfterStop } from '../../client/src/restartPolicy';

test('5 restarts in 3 minutes, then the server stays stopped; older stops age out', () => {
  const stops: number[] = [];
  const min = 60_000;
  // five stops within a minute: restarted each time; the sixth is refused
  assert.deepEqual([0, 10, 20, 30, 40].map((s) => restartAfterStop(stops, s * 1000)), [true, true, true, true, true]);
  assert.equal(restartAfterStop(stops, 50_000), false);
  // 3 minutes after the first stops, they no longer count
  const fresh: number[] = [];
  for (const t of [0, 1, 2, 3, 4].map((k) => k * min * 0.5)) assert.equal(restartAfterStop(fresh, t), true);
  assert.equal(restartAfterStop(fresh, 3 * min + 1), true, 'the stop at 0 min aged out: 5 in the window');
  assert.equal(restartAfterStop(fresh, 3 * min + 2), false, '6 within 3 minutes');
});
