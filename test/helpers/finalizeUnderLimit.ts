// Child of traceFinalizerHardening.test.ts: runs finalizeTrace under `ulimit -f` (a full disk) and
// prints the outcome as JSON.
import { finalizeTrace } from '../../server/src/recorder/runs/traceFinalizer';

const file = process.argv[2];
finalizeTrace(file, { outcome: 'fail', reason: 'exit-code', detail: 'exit code 1 '.repeat(20) }, { execution: 'e', noise: 0, seed: '1', include: [], exclude: [], startedAt: '' }).then(
  () => console.log(JSON.stringify({ ok: true })),
  (e: Error) => console.log(JSON.stringify({ ok: false, message: e.message })),
);
