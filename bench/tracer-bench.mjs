// Tracer benchmark: a 10M-event run in the real Tracer bundle (Chromium),
// served by the test harness with a synthetic in-page data source that
// generates each requested page on demand. Prints time to first paint and
// per-jump / per-page fetch+render times (target < 100 ms per page).
//
//   node --import tsx bench/tracer-bench.mjs [--events N] [--latency MS] [--jumps N]
//
// (re-executes itself under tsx when started without it)
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
if (!process.env.BRAID_BENCH_TSX) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BRAID_BENCH_TSX: '1' },
    cwd: path.join(here, '..'),
  });
  process.exit(r.status ?? 1);
}

const arg = (name, d) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const EVENTS = arg('--events', 10_000_000);
const LATENCY = arg('--latency', 0);
const JUMPS = arg('--jumps', 40);

const { startHarness } = await import(pathToFileURL(path.join(here, '../test/webview/harness.ts')).href);
const { makeFixture } = await import(pathToFileURL(path.join(here, '../test/webview/fixtures.ts')).href);

const fixture = makeFixture();
fixture.runs = [{ execution: 'big', file: 'big.trace', outcome: 'fail', events: EVENTS, patterns: 0 }];
const H = await startHarness();
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
};
const fmt = (o) => `median ${o.median.toFixed(1)} ms, p95 ${o.p95.toFixed(1)} ms, max ${o.max.toFixed(1)} ms (n=${o.n})`;
try {
  const page = await H.open('tracer', {
    fixture,
    synthetic: { big: EVENTS },
    latency: LATENCY,
    state: { run: 'big', thread: null, variable: '', search: '', accessesOnly: false, top: 0, selected: null },
    viewport: { width: 1400, height: 900 },
  });
  await page.waitForFunction(() => performance.getEntriesByName('braid-tracer-first-rows').length > 0, null, { timeout: 30000 });
  const firstPaint = await page.evaluate(() => performance.getEntriesByName('braid-tracer-first-rows')[0].startTime);
  const domRows = await page.evaluate(() => document.querySelectorAll('.rows .row').length);
  const count = await page.textContent('#count');

  // random jumps (scrollbar drags): each needs new pages fetched and rendered
  const jumps = await page.evaluate(async (n) => {
    const sb = document.getElementById('scrollbar');
    const out = [];
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let k = 0; k < n; k++) {
      const before = (window.__fetchCount ?? 0);
      const t0 = performance.now();
      sb.scrollTop = rnd() * (sb.scrollHeight - sb.clientHeight);
      sb.dispatchEvent(new Event('scroll'));
      await new Promise((resolve) => {
        const check = () => {
          const [first, rows, filled] = (document.body.dataset.rendered || '0:0:0').split(':').map(Number);
          const firstRow = document.querySelector('.rows .row[data-pos="' + first + '"]');
          if (rows > 0 && filled === rows && window.__fetchCount > before && firstRow) resolve();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      out.push({ ms: performance.now() - t0, pages: window.__fetchCount - before });
      await new Promise((r) => setTimeout(r, 30));
    }
    return out;
  }, JUMPS);

  // steady scrolling: one screen per wheel step
  const steps = await page.evaluate(async (n) => {
    const vp = document.getElementById('viewport');
    const out = [];
    for (let k = 0; k < n; k++) {
      const t0 = performance.now();
      const prev = document.body.dataset.rendered;
      vp.dispatchEvent(new WheelEvent('wheel', { deltaY: vp.clientHeight, bubbles: true, cancelable: true }));
      await new Promise((resolve) => {
        const check = () => {
          const d = document.body.dataset.rendered || '0:0:0';
          const [, rows, filled] = d.split(':').map(Number);
          if (d !== prev && rows > 0 && filled === rows) resolve();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      out.push(performance.now() - t0);
    }
    return out;
  }, 100);
  const domRowsAfter = await page.evaluate(() => document.querySelectorAll('.rows .row').length);

  const j = stats(jumps.map((x) => x.ms));
  const perPage = stats(jumps.map((x) => x.ms / Math.max(1, x.pages)));
  const st = stats(steps);
  console.log(`Tracer benchmark — ${EVENTS.toLocaleString('en-US')} events, page size 200, simulated host latency ${LATENCY} ms`);
  console.log(`  counter: ${count}`);
  console.log(`  time to first paint (navigation → first rows with data): ${firstPaint.toFixed(0)} ms`);
  console.log(`  random jump (scrollbar drag) fetch+render: ${fmt(j)}; pages per jump ${stats(jumps.map((x) => x.pages)).median}`);
  console.log(`  per page fetch+render: ${fmt(perPage)}  → target < 100 ms: ${perPage.p95 < 100 ? 'met' : 'NOT met'}`);
  console.log(`  steady scroll, one screen per wheel step: ${fmt(st)}`);
  console.log(`  DOM rows: ${domRows} at start, ${domRowsAfter} after scrolling (virtualized)`);
  await page.close();
} finally {
  await H.close();
}
