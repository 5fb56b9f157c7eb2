/**
 * Maps one trace file's local ids (var, loc, stack) to the analysis-wide
 * static signatures of the PatternRegistry, with per-file caches so each
 * local id is resolved once.
 */
import { TraceEvent } from './trace/traceFormat';
import { TraceSymbols } from './trace/traceSymbols';
import { PatternRegistry } from './unicorn/patternRegistry';

export class StaticAccessMapper {
  private readonly saccByLoc = new Map<number, Map<number, number>>();
  private readonly stackCache = new Map<number, number>();
  private readonly locCache = new Map<number, number>();

  constructor(private readonly registry: PatternRegistry) {}

  /** Static access id of a R/W event. */
  staticAccess(ev: TraceEvent, symbols: TraceSymbols): number {
    let byVar = this.saccByLoc.get(ev.b);
    if (!byVar) this.saccByLoc.set(ev.b, (byVar = new Map()));
    const k = ev.a * 2 + ev.kind; // kind: 0 read, 1 write
    let id = byVar.get(k);
    if (id === undefined) {
      const v = symbols.vars.get(ev.a);
      const gvar = this.registry.internVariable(v ? v.name : `var#${ev.a}`);
      id = this.registry.internAccess(ev.kind === 1, gvar, this.loc(ev.b, symbols));
      byVar.set(k, id);
    }
    return id;
  }

  loc(local: number, symbols: TraceSymbols): number {
    let id = this.locCache.get(local);
    if (id === undefined) {
      const l = symbols.locs.get(local);
      id = l ? this.registry.internLoc(l.file, l.line, l.method) : this.registry.internLoc('<unknown>', 0, '');
      if (l && (l.call !== undefined || l.harness)) {
        const info = this.registry.locs[id];
        if (l.call !== undefined) info.call = l.call;
        if (l.harness) info.harness = true;
      }
      this.locCache.set(local, id);
    }
    return id;
  }

  /** Global stack id of a local stack id (-1 stays -1). */
  stack(local: number, symbols: TraceSymbols): number {
    if (local < 0) return -1;
    let id = this.stackCache.get(local);
    if (id === undefined) {
      id = this.registry.internStack(symbols.stackFrames(local).map((f) => this.loc(f, symbols)));
      this.stackCache.set(local, id);
    }
    return id;
  }
}
