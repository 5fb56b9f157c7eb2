/**
 * Issue 39, partly open from the last round: "plans are bounded per file but not in total (20
 * identical 10 MB plans, one git blob: 3.4 GB server, hover unanswered; 45: nothing loads)". The
 * editor's plan loader (server/src/lsp/triggerPointState.ts, loadPlans) now reads at most 16 MB of
 * plans in all and keeps at most 10,000 trigger points, each file past the budget reported by name.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPlans } from '../../server/src/lsp/triggerPointState';
import { planText, TAKE_TRIGGER } from '../helpers/noisePlanText';

test('plans are bounded per file but not in total (20 identical plans): at most 16 MB of plans are read, the rest named as not read', async () => {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-planbudget-'));
  try {
    const dir = path.join(ws, '.braid', 'plans');
    mkdirSync(dir, { recursive: true });
    // one plan of about 2 MB (10,000 trigger points), 20 copies of it
    const triggers = Array.from({ length: 10_000 }, (_, k) => ({ ...TAKE_TRIGGER, rank: k + 1, line: 10 + (k % 50), method: `shop.Inventory.take${'x'.repeat(60)}` }));
    const text = planText('copy', triggers);
    for (let k = 0; k < 20; k++) writeFileSync(path.join(dir, `p${String(k).padStart(2, '0')}.json`), text);
    const size = statSync(path.join(dir, 'p00.json')).size;
    assert.ok(size > 1.5 * 2 ** 20, `each plan is large: ${size} bytes`);
    const { plans, problems } = await loadPlans([ws]);
    const readBytes = plans.length * size;
    assert.ok(readBytes <= 16 * 2 ** 20, `at most 16 MB read: ${plans.length} plans of ${size} bytes`);
    assert.ok(plans.length >= 1, 'the first plans are read');
    const skipped = problems.filter((p) => /Braid reads at most 16 MB of plans in all/.test(p.message));
    assert.equal(plans.length + skipped.length, 20, 'every plan past the budget is named');
    assert.match(skipped[0].file, /p\d\d\.json$/);
    const shown = plans.reduce((n, p) => n + p.triggers.length, 0);
    assert.ok(shown <= 10_000, `at most 10,000 trigger points kept: ${shown}`);
    if (plans.length > 1) assert.ok(problems.some((p) => /trigger points are not shown: Braid shows at most 10000 trigger points of all plans/.test(p.message)));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
