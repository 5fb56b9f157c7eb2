// The hover bench's workspace traces, shared by bench/hover-bench.mjs, bench/workspace-scale-bench.mjs and
// bench/rank-rounds-bench.mjs: 2 threads making random reads and writes of VARS variables on LINES lines of
// bench/Big.java; 30 % of runs fail, and a failing run favours an unlucky interleaving on v0 at lines 10/20.
// Deterministic: the same seed gives the same traces in every bench.
export const LINES = 400;
export const VARS = 30;

/** A generator of trace texts: `trace(n)` is run n's text (call it for n = 0, 1, … in order). */
export function hoverTraceGenerator(events, seed = 12345) {
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return function trace(n) {
    const fail = rnd() < 0.3;
    const out = [JSON.stringify({ braid: 'trace', version: 1, execution: `r${n}`, outcome: fail ? 'fail' : 'pass' })];
    out.push('{"def":"thread","id":1,"name":"T1"}', '{"def":"thread","id":2,"name":"T2"}');
    for (let v = 0; v < VARS; v++) out.push(JSON.stringify({ def: 'var', id: v, name: `bench.Big.v${v}` }));
    for (let l = 3; l < LINES; l++) out.push(JSON.stringify({ def: 'loc', id: l, file: 'bench/Big.java', line: l, method: `bench.Big.m${Math.floor(l / 20)}` }));
    for (let i = 1; i <= events; i++) {
      const t = rnd() < 0.5 ? 1 : 2;
      const v = fail && i % 50 === 0 ? 0 : Math.floor(rnd() * VARS);
      const line = v === 0 ? (t === 1 ? 10 : 20) : 3 + Math.floor(rnd() * (LINES - 4));
      out.push(JSON.stringify([i, t, rnd() < 0.5 ? 'R' : 'W', v, line]));
    }
    return out.join('\n') + '\n';
  };
}
