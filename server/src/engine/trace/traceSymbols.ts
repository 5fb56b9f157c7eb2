/**
 * The per-file tables of interned definitions (threads, variables, source
 * locations, call stacks) of one trace, plus the call stacks the reader
 * rebuilds from ENTER/EXIT events when accesses carry none.
 */
import { LocDef, ThreadDef, VarDef } from './traceFormat';

interface StackNode {
  parent: number; // -1: bottom
  frame: number; // loc id of this frame
}

/** Synthetic (rebuilt) stack ids start here, far above any recorder id. */
const SYNTHETIC_BASE = 2 ** 40;

export class TraceSymbols {
  readonly threads = new Map<number, ThreadDef>();
  readonly vars = new Map<number, VarDef>();
  readonly locs = new Map<number, LocDef>();
  private readonly stacks = new Map<number, StackNode | number[]>();
  private readonly framesCache = new Map<number, number[]>();
  private readonly syntheticIndex = new Map<number, Map<number, number>>();
  private nextSynthetic = SYNTHETIC_BASE;

  hasStack(id: number): boolean {
    return this.stacks.has(id);
  }

  defineStackFrames(id: number, frames: number[]): void {
    this.stacks.set(id, frames);
  }

  defineStackNode(id: number, parent: number, frame: number): void {
    this.stacks.set(id, { parent, frame });
  }

  /** Interns the stack `parent` + `frame` built from ENTER events. */
  pushSynthetic(parent: number, frame: number): number {
    let byFrame = this.syntheticIndex.get(parent);
    if (!byFrame) {
      byFrame = new Map();
      this.syntheticIndex.set(parent, byFrame);
    }
    let id = byFrame.get(frame);
    if (id === undefined) {
      id = this.nextSynthetic++;
      byFrame.set(frame, id);
      this.stacks.set(id, { parent, frame });
    }
    return id;
  }

  /** Loc ids of a stack, bottom (outermost) first. Cached. */
  stackFrames(id: number): number[] {
    const cached = this.framesCache.get(id);
    if (cached) return cached;
    const def = this.stacks.get(id);
    let frames: number[];
    if (def === undefined) frames = [];
    else if (Array.isArray(def)) frames = def;
    else {
      const rev: number[] = [];
      let node: StackNode | number[] | undefined = def;
      let guard = 0;
      while (node && !Array.isArray(node) && guard++ < 100000) {
        rev.push(node.frame);
        if (node.parent < 0) {
          node = undefined;
          break;
        }
        const cachedParent = this.framesCache.get(node.parent);
        if (cachedParent) {
          frames = cachedParent.concat(rev.reverse());
          this.framesCache.set(id, frames);
          return frames;
        }
        node = this.stacks.get(node.parent);
      }
      const prefix = Array.isArray(node) ? node : [];
      frames = prefix.concat(rev.reverse());
    }
    this.framesCache.set(id, frames);
    return frames;
  }
}
