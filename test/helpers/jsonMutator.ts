/**
 * Structure-aware mutations of a JSON document (summaries, noise plans, snapshot headers) for the
 * fuzz campaign (scripts/fuzz.ts, issue 31): one to four edits at random places — a value replaced by
 * a hostile one (huge, negative, fractional, wrong type, a path, a workflow command, a very long
 * string), a key removed, an array entry repeated many times or dropped, two entries swapped.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const HOSTILE: (() => Json)[] = [
  () => 100000000,
  () => -1,
  () => 2 ** 31,
  () => 1.5,
  () => 0,
  () => '',
  () => '::error file=a.java::x',
  () => '/etc/shadow',
  () => '../../../etc/passwd',
  () => '\u001b]8;;https://e\u0007x\u001b]8;;\u0007',
  () => 'x'.repeat(5000),
  () => ({}),
  () => [],
  () => null,
  () => true,
  () => [1, 1, 1, 1],
];

/** Every (container, key) in the document, breadth first (at most `max`). */
function places(doc: Json, max = 4000): [Json[] | { [k: string]: Json }, string | number][] {
  const out: [Json[] | { [k: string]: Json }, string | number][] = [];
  const queue: Json[] = [doc];
  while (queue.length && out.length < max) {
    const x = queue.shift()!;
    if (Array.isArray(x)) x.forEach((v, k) => (out.push([x, k]), queue.push(v)));
    else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) out.push([x, k]), queue.push(v);
  }
  return out;
}

/** A mutated copy of `text` (a JSON document), as text; `r` gives numbers in [0, 1). */
export function mutateJson(text: string, r: () => number): string {
  const doc = JSON.parse(text) as Json;
  const edits = 1 + Math.floor(r() * 4);
  for (let e = 0; e < edits; e++) {
    const all = places(doc);
    if (!all.length) break;
    const [container, key] = all[Math.floor(r() * all.length)];
    const op = Math.floor(r() * 5);
    if (Array.isArray(container)) {
      const k = key as number;
      if (op === 0) container.splice(k, 1);
      else if (op === 1) container.splice(k, 0, ...Array.from({ length: 1 + Math.floor(r() * 1000) }, () => structuredClone(container[k])));
      else if (op === 2 && container.length > 1) {
        const j = Math.floor(r() * container.length);
        [container[k], container[j]] = [container[j], container[k]];
      } else container[k] = HOSTILE[Math.floor(r() * HOSTILE.length)]();
    } else {
      const obj = container as { [k: string]: Json };
      const k = key as string;
      if (op === 0) delete obj[k];
      else if (op === 1 && typeof obj[k] === 'number') obj[k] = (obj[k] as number) * (r() < 0.5 ? -1 : 1000003);
      else obj[k] = HOSTILE[Math.floor(r() * HOSTILE.length)]();
    }
  }
  return JSON.stringify(doc);
}
