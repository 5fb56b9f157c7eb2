/**
 * Issue 45, item 1: the Java agent's filter (agent option filter, on by default) leaves out a read
 * whose location's last recorded access is the same thread's and that thread wrote the location
 * since another thread last touched it. On every committed recording (test/fixtures/recorded, the
 * bug set in test/fixtures/bugset) the traces without those reads rank exactly as the traces with
 * them: the same patterns in the same order with the same failed/passed counts, and the same bugs.
 * test/recorder/recorderFilter.test.ts checks that the agent leaves out exactly such reads.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisOptions, AnalysisResult } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { traceText, withoutShadowedReads } from '../helpers/shadowedReads';

const fixtures = path.resolve(__dirname, '../fixtures');
const SETS = ['recorded', 'bugset'];

function subjects(): string[] {
  const out: string[] = [];
  for (const set of SETS) {
    for (const e of readdirSync(path.join(fixtures, set), { withFileTypes: true })) {
      if (e.isDirectory()) out.push(`${set}/${e.name}`);
    }
  }
  return out.sort();
}

function traces(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.trace.jsonl.gz') || f.endsWith('.trace.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The ranking as it is compared: every pattern in list order, and the bugs. */
function ranking(r: AnalysisResult): { patterns: string[]; bugs: string[] } {
  return {
    patterns: r.patterns.map((p) => `${p.rank} ${p.key} ${p.failed}/${p.passed} ${p.group}`),
    bugs: explainBugs(undefined, r).map((b) => `${b.evidence.weak ? 'weak ' : ''}${b.suspiciousMethods.map((m) => m.method).join(' | ')} [${b.patterns.join(',')}]`),
  };
}

const OPTIONS: { name: string; options: Partial<AnalysisOptions> }[] = [
  { name: 'default', options: {} },
  { name: 'thesis (no hb, no grouping, latest window writes)', options: { happensBefore: false, grouping: false, windowWrites: 'latest' } },
];

for (const subject of subjects()) {
  test(`filter exactness: ${subject} ranks the same without the reads the filter leaves out`, async () => {
    const files = traces(path.join(fixtures, subject));
    assert.ok(files.length > 0, `${subject} has traces`);
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'braid-filter-'));
    try {
      let dropped = 0;
      let kept = 0;
      const filtered = files.map((f) => {
        const r = withoutShadowedReads(traceText(f));
        dropped += r.dropped;
        kept += r.kept;
        const out = path.join(tmp, path.basename(f).replace(/\.gz$/, ''));
        writeFileSync(out, r.text);
        return out;
      });
      assert.ok(kept > 0, `${subject}: accesses are kept`);
      for (const o of OPTIONS) {
        const before = ranking(await analyzeTraceFiles(files, o.options));
        const after = ranking(await analyzeTraceFiles(filtered, o.options));
        assert.ok(before.patterns.length > 0, `${subject} (${o.name}): patterns`);
        assert.deepEqual(after, before, `${subject} (${o.name}): ${dropped} reads left out of ${dropped + kept} accesses change the ranking`);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
}
