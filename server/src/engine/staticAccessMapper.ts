/**
 * Maps one trace file's local ids (var, loc, stack) to the analysis-wide
 * static signatures of the PatternRegistry, with per-file caches so each
 * local id is resolved once.
 */
import { TraceEvent } from './trace/traceFormat';
import { TraceSymbols } from './trace/traceSymbols';
import { noteLocCall, PatternRegistry } from './unicorn/patternRegistry';
import { NumberIdMap } from './unicorn/numberIdMap';

export class StaticAccessMapper {
  /** small ids: one flat typed-array table (no Map on the per-access path); huge ids fall back to a string-keyed Map */
  private readonly saccBySmallKey = new NumberIdMap();
  private readonly saccByKey = new Map<string, number>();
  private readonly stackCache = new Map<number, number>();
  private readonly locCache = new Map<number, number>();
  private readonly pending: number[] = [];

  constructor(private readonly registry: PatternRegistry) {}

  /** Static access id of a R/W event. */
  staticAccess(ev: TraceEvent, symbols: TraceSymbols): number {
    // one flat table (no Map per loc): key loc · 2^27 + var · 2 + kind while both ids are small
    if (ev.b < 2 ** 25 && ev.a < 2 ** 26) {
      const key = ev.b * 2 ** 27 + ev.a * 2 + ev.kind; // kind: 0 read, 1 write
      let id = this.saccBySmallKey.get(key);
      if (id < 0) this.saccBySmallKey.set(key, (id = this.internAccess(ev, symbols)));
      return id;
    }
    const key = `${ev.b},${ev.a},${ev.kind}`;
    let id = this.saccByKey.get(key);
    if (id === undefined) this.saccByKey.set(key, (id = this.internAccess(ev, symbols)));
    return id;
  }

  private internAccess(ev: TraceEvent, symbols: TraceSymbols): number {
    const v = symbols.vars.get(ev.a);
    const gvar = this.registry.internVariable(v ? v.name : `var#${ev.a}`);
    return this.registry.internAccess(ev.kind === 1, gvar, this.loc(ev.b, symbols));
  }

  loc(local: number, symbols: TraceSymbols): number {
    let id = this.locCache.get(local);
    if (id === undefined) {
      const l = symbols.locs.get(local);
      id = l ? this.registry.internLoc(l.file, l.line, l.method, l.call) : this.registry.internLoc('<unknown>', 0, '');
      if (l && (l.call !== undefined || l.harness)) {
        const info = this.registry.locs[id];
        noteLocCall(info, l.call);
        if (l.harness) info.harness = true;
      }
      this.locCache.set(local, id);
    }
    return id;
  }

  /**
   * Global stack id of a local stack node (-1 stays -1). Walks down to the
   * nearest node already mapped, then interns the frames above it: each
   * local node is mapped once, whatever the depth.
   */
  stack(local: number, symbols: TraceSymbols): number {
    if (local < 0) return -1;
    const cached = this.stackCache.get(local);
    if (cached !== undefined) return cached;
    const path = this.pending;
    path.length = 0;
    let node = local;
    let below = -1;
    while (node >= 0) {
      const c = this.stackCache.get(node);
      if (c !== undefined) {
        below = c;
        break;
      }
      path.push(node);
      node = symbols.parentNode(node);
    }
    for (let k = path.length - 1; k >= 0; k--) {
      below = this.registry.internStackNode(below, this.loc(symbols.nodeLoc(path[k]), symbols));
      this.stackCache.set(path[k], below);
    }
    return below;
  }
}
