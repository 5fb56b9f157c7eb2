// Runs every test/**/*.test.ts with node's built-in test runner (TypeScript via tsx).
import { readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'fixtures' || name === 'node_modules') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(path.relative(root, p));
  }
  return out;
}
let files = walk(path.join(root, 'test'), []).sort();
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
