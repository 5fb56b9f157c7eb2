// `npm run bench` part: runs and seconds per confirmation (braid confirm, issue 28) on three committed
// subjects (bench/confirmEval.ts measures all of them, with decoys and fix checks). Printed, never asserted.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
console.log('Confirmation by forcing (20 runs per group: forced, opposite order, unforced)');
const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/confirmEval.ts', 'bank', 'shop', 'startpublish', '--runs', '20'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
process.stdout.write(r.stdout);
if (r.status !== 0) process.stdout.write(`confirmEval failed:\n${r.stderr}\n`);
