/**
 * A hostile trace of issue 31, N13: `lines` accesses whose values are huge arrays
 * (`elements` zeros each), by two threads on one variable at `lines` source lines,
 * so that every access is in a pattern and its first-occurrence value is kept.
 * At the defaults (8 lines × 8,388,000 elements, each line just under the
 * reader's 16 MiB limit) the file is 134 MB; before values were bounded,
 * `braid analyze` of it peaked at 3.4 GB.
 */
export function hugeArrayValues(lines = 8, elements = 8388000) {
  const out = [
    JSON.stringify({ braid: 'trace', version: 1, execution: 'huge-values' }),
    '{"def":"thread","id":1,"name":"T1"}',
    '{"def":"thread","id":2,"name":"T2"}',
    '{"def":"var","id":0,"name":"values.Holder.data"}',
  ];
  for (let l = 0; l < lines; l++) out.push(JSON.stringify({ def: 'loc', id: l, file: 'values/Holder.java', line: l + 10, method: `values.Holder.m${l}` }));
  const big = '[' + '0,'.repeat(elements - 1) + '0]';
  for (let l = 0; l < lines; l++) out.push(`[${l + 1},${1 + (l % 2)},"W",0,${l},null,1,-1,${big}]`);
  out.push('{"outcome":"fail","reason":"exception"}');
  return out.join('\n') + '\n';
}
