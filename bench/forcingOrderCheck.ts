/**
 * Checks a confirmation's forcing lines against its traces (issue 40): for each run of a group, the
 * plan's waits held before a lock (beforeLock) as the agent counted them (met, of them inPlace) and the
 * order the trace shows — whether another thread's performance of the awaited access (the wait's `for`,
 * on the same object) came before the held thread's first performance of the held access (`at`), and
 * whether it also came after the held thread's previous access of the plan. A run counted met whose
 * trace has no such performance would be a claimed order that did not happen: listed as "WRONG".
 *
 *   node --import tsx bench/forcingOrderCheck.ts <confirm folder> [group...]   (default group: opposite)
 *
 * Figures are printed, never asserted.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readTrace } from '../server/src/engine/trace/traceReader';
import type { ForceAccessSpec, ForceWaitSpec } from '../server/src/engine/noise/noisePlan';

interface Perf { seq: number; thread: number; obj: number; access: number }

/** The agent's rule (Forcing.nameMatches): each `*` of a plan's thread name stands for a number. */
function nameMatches(pattern: string, name: string): boolean {
  const re = new RegExp('^' + pattern.split('*').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[0-9]+') + '$');
  return re.test(name);
}

function matches(a: ForceAccessSpec, kind: string, variable: string, file: string, line: number, method: string, thread: string): boolean {
  if (!(a.type === 'RW' || a.type === kind) || a.variable !== variable) return false;
  if (a.threads && !a.threads.some((n) => nameMatches(n, thread))) return false;
  return (a as { anywhere?: boolean }).anywhere === true || (file === a.file && method === a.method && (a.line === 0 || a.line === line));
}

async function main(argv: string[]): Promise<number> {
  const folder = argv[0];
  if (!folder || !existsSync(folder)) {
    console.error('usage: node --import tsx bench/forcingOrderCheck.ts <confirm folder> [group...]');
    return 2;
  }
  const groups = argv.length > 1 ? argv.slice(1) : ['opposite'];
  for (const g of groups) {
    const planFile = path.join(folder, 'plans', `${g === 'forced' ? 'pattern' : g}.json`);
    if (!existsSync(planFile)) {
      console.log(`${g}: no plan at ${planFile}`);
      continue;
    }
    const force = JSON.parse(readFileSync(planFile, 'utf8')).force as { accesses: ForceAccessSpec[]; waits: ForceWaitSpec[] };
    const lockWaits = force.waits.map((w, k) => ({ w, k })).filter((x) => x.w.beforeLock && !x.w.ready);
    const dirs = [g, `${g}-more`].map((d) => path.join(folder, d)).filter(existsSync);
    let runs = 0;
    let met = 0;
    let inPlace = 0;
    let orderInTrace = 0;
    let orderSinceOwn = 0;
    const wrong: string[] = [];
    for (const dir of dirs) {
      for (const f of readdirSync(dir).filter((x) => /\.trace\.jsonl(\.gz)?$/.test(x)).sort()) {
        const perfs: Perf[] = [];
        const r = await readTrace(path.join(dir, f), {
          event(ev, sym) {
            if (ev.kind !== 0 && ev.kind !== 1) return;
            const v = sym.vars.get(ev.a);
            const l = sym.locs.get(ev.b);
            if (!v || !l) return;
            const kind = ev.kind === 0 ? 'R' : 'W';
            force.accesses.forEach((a, k) => {
              if (matches(a, kind, v.name, l.file, l.line, l.method, sym.threads.get(ev.t)?.name ?? '')) perfs.push({ seq: ev.i, thread: ev.t, obj: ev.d, access: k });
            });
          },
        });
        if (!r.forcing) continue;
        // the line as the agent wrote it (the reader keeps only the counts the analysis uses, not inPlace)
        const text = f.endsWith('.gz') ? gunzipSync(readFileSync(path.join(dir, f))).toString('utf8') : readFileSync(path.join(dir, f), 'utf8');
        const line = text.split('\n').filter((l) => l.startsWith('{"forcing":')).pop() as string;
        const raw = (JSON.parse(line) as { forcing: { waits: { met: number; inPlace?: number }[] } }).forcing.waits;
        runs++;
        for (const { w, k } of lockWaits) {
          const rep = raw[k];
          // the held thread: the performer of the first held access; each of its held accesses is one instance
          const first = perfs.find((p) => p.access === w.at);
          const helds = first ? perfs.filter((p) => p.access === w.at && p.thread === first.thread) : [];
          const awaitedBefore = (h: Perf) => perfs.some((p) => p.access === w.for && p.thread !== h.thread && p.seq < h.seq && (!w.sameObject || p.obj === h.obj));
          const inOrder = helds.length > 0 && awaitedBefore(helds[0]);
          const anyInOrder = helds.some(awaitedBefore);
          // the held thread's previous access of the plan before its first held access
          const own = first ? Math.max(0, ...perfs.filter((p) => p.thread === first.thread && p.seq < first.seq).map((p) => p.seq)) : 0;
          const sinceOwn = !!first && perfs.some((p) => p.access === w.for && p.thread !== first.thread && p.seq > own && p.seq < first.seq && (!w.sameObject || p.obj === first.obj));
          if (rep.met > 0) met++;
          if ((rep.inPlace ?? 0) > 0) inPlace++;
          if (inOrder) orderInTrace++;
          if (sinceOwn) orderSinceOwn++;
          // the first held access judged: met claims the awaited access before it
          if (rep.met > 0 && !anyInOrder) wrong.push(`${f}: wait ${k} met ${rep.met}, but no held access has the awaited one before it`);
        }
      }
    }
    console.log(`${g}: ${runs} runs; wait(s) before a lock met in ${met} (of them with the order already in place: ${inPlace}); ` +
      `the trace has the awaited access (same object) before the held thread's first held access in ${orderInTrace}, and after that thread's previous access of the plan in ${orderSinceOwn}` +
      (wrong.length ? `\nWRONG (met, the order not in the trace):\n  ${wrong.join('\n  ')}` : '; no run counted met without the order in its trace'));
  }
  return 0;
}

main(process.argv.slice(2)).then((c) => process.exit(c));
