/**
 * Hostile trace files from the hardening review (issue 15), written so that
 * tests and bench/hostile-memory-bench.mjs use the same inputs.
 *
 * - stackCycle(n): n stack definitions, then stack 0 redefined on top of the
 *   last one, making a cycle (finding 1: 411 KB at n = 6,000);
 * - nestedEnter(n): n nested ENTERs without EXIT, one write at each depth
 *   (finding 1: 1.2 MB at n = 32,000);
 * - manySymbols(n): n distinct variables and locations, one access each
 *   (finding 14).
 */
const HEADER = (execution, outcome = 'fail') => JSON.stringify({ braid: 'trace', version: 1, execution, outcome });

export function stackCycle(n) {
  const out = [HEADER('stack-cycle'), '{"def":"thread","id":1,"name":"T1"}', '{"def":"var","id":0,"name":"x"}'];
  for (let l = 0; l < 16; l++) out.push(JSON.stringify({ def: 'loc', id: l, file: 'Cycle.java', line: l + 1, method: `Cycle.m${l}` }));
  out.push('{"def":"stack","id":0,"frame":0}');
  for (let k = 1; k < n; k++) out.push(`{"def":"stack","id":${k},"parent":${k - 1},"frame":${k % 16}}`);
  out.push(`{"def":"stack","id":0,"parent":${n - 1},"frame":0}`);
  let i = 0;
  for (let k = 0; k < n; k += 1) out.push(`[${++i},1,"W",0,${k % 16},${k}]`);
  return out.join('\n') + '\n';
}

export function nestedEnter(n) {
  const out = [HEADER('nested-enter'), '{"def":"thread","id":1,"name":"T1"}', '{"def":"thread","id":2,"name":"T2"}', '{"def":"var","id":0,"name":"x"}'];
  for (let l = 0; l < 16; l++) out.push(JSON.stringify({ def: 'loc', id: l, file: 'Deep.java', line: l + 1, method: `Deep.m${l}` }));
  let i = 0;
  for (let k = 0; k < n; k++) {
    out.push(`[${++i},1,"ENTER",${k % 16}]`);
    out.push(`[${++i},${1 + (k % 2)},"W",0,${k % 16}]`);
  }
  return out.join('\n') + '\n';
}

export function manySymbols(n) {
  const out = [HEADER('many-symbols'), '{"def":"thread","id":1,"name":"T1"}'];
  let i = 0;
  for (let k = 0; k < n; k++) {
    out.push(`{"def":"var","id":${k},"name":"pkg.C.f${k}"}`);
    out.push(`{"def":"loc","id":${k},"file":"pkg/C.java","line":${k + 1},"method":"pkg.C.m"}`);
    out.push(`[${++i},1,"W",${k},${k}]`);
  }
  return out.join('\n') + '\n';
}

/**
 * Many distinct deep stacks: a chain of `depth` frames, then `n` accesses by
 * two threads, each on its own stack (a frame pushed at a varying depth of
 * the chain) and its own line, so that reported patterns carry deep stacks.
 */
export function deepStackFanout(n, depth = 1000) {
  const out = [HEADER('deep-fanout'), '{"def":"thread","id":1,"name":"T1"}', '{"def":"thread","id":2,"name":"T2"}', '{"def":"var","id":0,"name":"x"}'];
  const locs = 16 + n;
  for (let l = 0; l < locs; l++) out.push(JSON.stringify({ def: 'loc', id: l, file: 'Fan.java', line: l + 1, method: `Fan.m${l % 16}` }));
  out.push('{"def":"stack","id":0,"frame":0}');
  for (let k = 1; k < depth; k++) out.push(`{"def":"stack","id":${k},"parent":${k - 1},"frame":${k % 16}}`);
  let i = 0;
  for (let k = 0; k < n; k++) {
    const id = depth + k;
    out.push(`{"def":"stack","id":${id},"parent":${depth - 1 - (k % 200)},"frame":${16 + k}}`);
    out.push(`[${++i},${1 + (k % 2)},"${k % 3 ? 'W' : 'R'}",0,${16 + k},${id}]`);
  }
  return out.join('\n') + '\n';
}
