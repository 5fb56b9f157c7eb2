// Records subjects of the real corpus (bench/real/README.md) as a user would and commits-ready
// copies their traces into test/fixtures/real/<id>/ (gzip), with runs.json labels and manifest.json.
//   node scripts/record-real.mjs <id...> [--seed S]
// The same as: node --import tsx bench/realEval.ts --record <id...>
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/realEval.ts'), '--record', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
