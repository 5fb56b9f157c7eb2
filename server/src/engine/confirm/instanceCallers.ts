/**
 * The callers of the instance the failing runs had (issue 40, gsoncyclic): forcing holds a thread before
 * its access until the other thread has made the access the pattern says comes first. When the held
 * access is made again and again on objects no other thread will ever touch — a recursive method that
 * wires a new object at every level — each of those holds waits its `--wait-ms` out, five timeouts give
 * the wait up, and the instance the failures need comes unheld. Gson 2.10's `setDelegate` (the write of
 * `FutureTypeAdapter.delegate`) runs once per nested type adapter; only the outermost call's proxy is
 * the one another thread reads unwired (`R1 :1333 → W2 :1329`): 6 to 14 timeouts per forced run, 6 of
 * 20 runs not forced.
 *
 * Read from the recording's FAILING traces (failingTraceScan.ts), per trace, at the last instance before
 * the failure of the pattern's first change of role — thread H makes the held access (`accesses[at]`)
 * after another thread made the awaited one (`accesses[at - 1]`, on the same object when both are of one
 * variable) — the callers of each of the two accesses at that instance: the call sites of its stack,
 * nearest first (a trace's stack of an access has the access's own location on top; its callers are
 * the frames below). For each of the two accesses, the shortest run of nearest callers that
 *   - the instance had in more than half of the failing traces with an instance, and
 *   - leaves out the most of the access's other performances in those traces (at least one)
 * is its `callers`: the plans then match that access only where the thread's stack has those call sites
 * (compared by method, any line: `line` 0)
 * (ForceAccess.callers; the agent compares them at a matched access only). Up to MAX_CALLERS frames (a
 * stack that ends sooner gives its whole chain of callers: a longer stack with the same nearest callers
 * matches it too). Nothing for an access whose
 * performances all share the instance's callers (nothing to leave out), or when the traces are not the
 * Java agent's.
 *
 * Reading allocates per distinct stack of a matching access, not per event.
 */
import type { TraceSymbols } from '../trace/traceSymbols';
import { FailingAccessReader, firstChangeOfRole, isPerformanceOf } from './failingTraceScan';
import type { TraceEvent } from '../trace/traceFormat';
import type { ForcedPattern, GuardPlace } from './forcingPlan';

type Access = ForcedPattern['accesses'][number];

/** Call sites compared at most, nearest first. */
export const MAX_CALLERS = 8;
/** Performances of one access kept per failing trace (what a caller list could leave out is counted among them). */
const MAX_PERFORMANCES = 4096;


/** One call site as a key part and as a plan place. */
interface Site {
  key: string;
  place: GuardPlace;
}

/** An access's callers, nearest first (at most MAX_CALLERS). */
export interface Chain {
  sites: Site[];
}

/** The callers of the access whose trace stack is `node` (the stack's top frame is the access itself), or undefined. */
export function chainOf(node: number, symbols: TraceSymbols): Chain | undefined {
  if (node < 0) return undefined;
  const sites: Site[] = [];
  // the stack's top frame is the access's own location; its callers are below it
  let n = symbols.parentNode(node);
  while (n >= 0 && sites.length < MAX_CALLERS) {
    const loc = symbols.locs.get(symbols.nodeLoc(n));
    if (!loc) return undefined;
    // by method, not line: calls from two lines of one loop body are the same caller (expiringmap-iterate's
    // reader calls next() at two lines of its lambda; the line the failing runs had is chance)
    sites.push({ key: `${loc.file}\0${loc.method}`, place: { file: loc.file, line: 0, method: loc.method } });
    n = symbols.parentNode(n);
  }
  return { sites };
}

/** The key of a chain's first k callers (all of them when it has fewer). */
function prefixKey(c: Chain, k: number): string {
  return c.sites
    .slice(0, k)
    .map((s) => s.key)
    .join('\0\0');
}

/** What the failing runs show of one access's callers at the instance. */
export interface InstanceCallersFound {
  /** per index into the pattern's accesses: the call sites, nearest first */
  callers: Map<number, GuardPlace[]>;
  /** per index: performances read in failing traces with an instance, and those the callers leave out */
  performances: Map<number, { all: number; leftOut: number }>;
  withInstance: number;
  failingRead: number;
}

/** The instance callers' share of a pass over the failing traces (failingTraceScan.ts). */
export class InstanceCallersReader extends FailingAccessReader {
  private readonly at: number;
  private readonly before: Access;
  private readonly after: Access;
  private readonly sameVariable: boolean;
  /** per failing trace with an instance: the instance's two chains and every performance's chain, per side (0 before, 1 after) */
  private readonly traces: { instance: [Chain, Chain]; performed: [Chain[], Chain[]] }[] = [];
  // per trace
  /** per object (0 when the two accesses are of different variables): thread → the chain of its latest `before` */
  private latestBefore = new Map<number, Map<number, Chain | undefined>>();
  private instance: [Chain | undefined, Chain | undefined] | undefined;
  private performed: [Chain[], Chain[]] = [[], []];
  /** per stack node of the trace: its chain of callers */
  private chains = new Map<number, Chain | undefined>();

  constructor(p: Pick<ForcedPattern, 'accesses'>) {
    super();
    ({ at: this.at, before: this.before, after: this.after, sameVariable: this.sameVariable } = firstChangeOfRole(p));
    this.active = this.at > 0;
  }

  protected access(ev: TraceEvent, symbols: TraceSymbols): void {
    const varName = symbols.vars.get(ev.a)?.name;
    const loc = symbols.locs.get(ev.b);
    const isAfter = isPerformanceOf(this.after, ev.kind, varName, loc);
    const isBefore = isPerformanceOf(this.before, ev.kind, varName, loc);
    if (!isAfter && !isBefore) return;
    // one chain per distinct stack of the trace (stacks repeat: a performance allocates nothing new)
    let chain = this.chains.get(ev.c);
    if (chain === undefined && !this.chains.has(ev.c)) this.chains.set(ev.c, (chain = chainOf(ev.c, symbols)));
    const obj = this.sameVariable ? ev.d : 0;
    if (isAfter) {
      if (chain && this.performed[1].length < MAX_PERFORMANCES) this.performed[1].push(chain);
      const by = this.latestBefore.get(obj);
      let other = -1;
      let otherChain: Chain | undefined;
      if (by) for (const [t, c] of by) if (t !== ev.t) (other = t), (otherChain = c);
      if (other >= 0) this.instance = [otherChain, chain];
    }
    if (isBefore) {
      if (chain && this.performed[0].length < MAX_PERFORMANCES) this.performed[0].push(chain);
      let by = this.latestBefore.get(obj);
      if (!by) this.latestBefore.set(obj, (by = new Map()));
      // the latest performance last in the map's order (the instance takes the latest other thread's)
      by.delete(ev.t);
      by.set(ev.t, chain);
    }
  }

  protected failingTrace(): void {
    const i = this.instance;
    if (i?.[0] && i[1]) this.traces.push({ instance: [i[0], i[1]], performed: this.performed });
  }

  protected resetTrace(): void {
    this.latestBefore = new Map();
    this.instance = undefined;
    this.performed = [[], []];
    this.chains = new Map();
  }

  /** The callers of the failing runs' instance, per access that has some to leave out (see the file comment), or undefined. */
  answer(): InstanceCallersFound | undefined {
    const withInstance = this.traces.length;
    if (!this.allJava || !withInstance) return undefined;
    const callers = new Map<number, GuardPlace[]>();
    const performances = new Map<number, { all: number; leftOut: number }>();
    for (const side of [0, 1] as const) {
      const picked = pickCallers(
        this.traces.map((t) => t.instance[side]),
        this.traces.flatMap((t) => t.performed[side].map((chain) => ({ chain, n: 1 }))),
      );
      if (!picked) continue;
      const index = side === 0 ? this.at - 1 : this.at;
      callers.set(index, picked.sites);
      performances.set(index, { all: picked.all, leftOut: picked.leftOut });
    }
    if (!callers.size) return undefined;
    return { callers, performances, withInstance, failingRead: this.failingRead };
  }
}

/**
 * The shortest run of nearest call sites (up to MAX_CALLERS) that more than half of the `instances` share
 * and that leaves out the most of the `performances` (each counted `n` times; at least one left out),
 * or undefined.
 */
export function pickCallers(instances: readonly Chain[], performances: readonly { chain: Chain; n: number }[]): { sites: GuardPlace[]; all: number; leftOut: number } | undefined {
  let best: { k: number; leftOut: number; all: number; chain: Chain } | undefined;
  for (let k = 1; k <= MAX_CALLERS; k++) {
    const counts = new Map<string, { n: number; chain: Chain }>();
    for (const chain of instances) {
      const key = prefixKey(chain, k);
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { n: 1, chain });
    }
    let top: { key: string; n: number; chain: Chain } | undefined;
    for (const [key, c] of counts) if (!top || c.n > top.n || (c.n === top.n && key < top.key)) top = { key, ...c };
    if (!top || top.n * 2 <= instances.length) break; // deeper callers only split the instances more
    let all = 0;
    let leftOut = 0;
    for (const { chain, n } of performances) {
      all += n;
      if (prefixKey(chain, k) !== top.key) leftOut += n;
    }
    if (leftOut > 0 && (!best || leftOut > best.leftOut)) best = { k, leftOut, all, chain: top.chain };
    if (top.chain.sites.length <= k) break; // the instance's stack has no more callers: a deeper k is the same key
  }
  return best && { sites: best.chain.sites.slice(0, best.k).map((x) => x.place), all: best.all, leftOut: best.leftOut };
}
