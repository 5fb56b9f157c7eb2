/**
 * The per-file tables of interned definitions (threads, variables, source
 * locations, call stacks) of one trace, plus the call stacks the reader
 * rebuilds from ENTER/EXIT events when accesses carry none.
 *
 * Call stacks are a tree of nodes (parent node, frame loc) shared by every
 * stack with the same bottom part, so memory grows with the number of stack
 * definitions (the file's size), never with depth × stacks. A stack is
 * referred to by its node (events carry the node in `c`); `stackFrames`
 * materializes one on demand. Stacks are at most MAX_STACK_DEPTH frames deep:
 * deeper frames are dropped (like the JVM's MaxJavaStackTraceDepth), and the
 * reader warns once.
 */
import { LocDef, ThreadDef, VarDef } from './traceFormat';

/** Frames kept per call stack (bottom first); deeper frames are dropped. */
export const MAX_STACK_DEPTH = 1024;

/** Growable typed column. */
class IntColumn {
  data = new Float64Array(64);
  length = 0;
  push(v: number): number {
    if (this.length === this.data.length) {
      const d = new Float64Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length] = v;
    return this.length++;
  }
}

/** ids below this also have their definitions flagged in typed arrays (the per-event checks read those, not the Maps) */
const DENSE_IDS = 1 << 20;

export class TraceSymbols {
  readonly threads = new Map<number, ThreadDef>();
  /** variables and locations: define them with defineVar / defineLoc (which keep the dense flags) */
  readonly vars = new Map<number, VarDef>();
  readonly locs = new Map<number, LocDef>();
  /** declared stack id → node */
  private readonly stackNodes = new Map<number, number>();
  /** per id below DENSE_IDS: bit 1 a var of that id is defined, bit 2 a loc */
  private defined = new Uint8Array(0);
  /** per stack id below DENSE_IDS: its node + 2 (0: not defined) */
  private stackDense = new Int32Array(0);

  defineVar(id: number, v: VarDef): void {
    this.vars.set(id, v);
    if (id >= 0 && id < DENSE_IDS) this.flag(id, 1);
  }

  defineLoc(id: number, l: LocDef): void {
    this.locs.set(id, l);
    if (id >= 0 && id < DENSE_IDS) this.flag(id, 2);
  }

  private flag(id: number, bit: number): void {
    if (id >= this.defined.length) {
      let n = this.defined.length || 64;
      while (n <= id) n *= 2;
      const d = new Uint8Array(n);
      d.set(this.defined);
      this.defined = d;
    }
    this.defined[id] |= bit;
  }

  hasVar(id: number): boolean {
    return id >= 0 && id < this.defined.length ? (this.defined[id] & 1) !== 0 : this.vars.has(id);
  }

  hasLoc(id: number): boolean {
    return id >= 0 && id < this.defined.length ? (this.defined[id] & 2) !== 0 : this.locs.has(id);
  }

  private setStackNode(id: number, node: number): void {
    this.stackNodes.set(id, node);
    if (id < 0 || id >= DENSE_IDS) return;
    if (id >= this.stackDense.length) {
      let n = this.stackDense.length || 64;
      while (n <= id) n *= 2;
      const d = new Int32Array(n);
      d.set(this.stackDense);
      this.stackDense = d;
    }
    this.stackDense[id] = node + 2;
  }
  /** node columns: parent node (-1 bottom), frame loc id, depth (1 = one frame) */
  private readonly nodeParent = new IntColumn();
  private readonly nodeFrame = new IntColumn();
  private readonly nodeDepth = new IntColumn();
  /** (parent node, frame) → node; key parent * 2^21 + frame when both are small, else a string */
  private readonly nodeIndex = new Map<number | string, number>();
  /** true when some stack was cut at MAX_STACK_DEPTH */
  truncatedStacks = false;

  hasStack(id: number): boolean {
    return id >= 0 && id < this.stackDense.length ? this.stackDense[id] !== 0 : this.stackNodes.has(id);
  }

  /** The node of a declared stack id (-1: not defined). */
  stackNode(id: number): number {
    if (id >= 0 && id < this.stackDense.length) {
      const n = this.stackDense[id];
      return n === 0 ? -1 : n - 2;
    }
    return this.stackNodes.get(id) ?? -1;
  }

  /** Defines stack `id` from its frames (bottom first); returns its node. */
  defineStackFrames(id: number, frames: readonly number[]): number {
    let node = -1;
    for (const f of frames) node = this.pushFrame(node, f);
    this.setStackNode(id, node);
    return node;
  }

  /** Defines stack `id` as the stack `parent` (a declared id, -1 none) plus `frame`. */
  defineStackNode(id: number, parent: number, frame: number): number {
    const node = this.pushFrame(parent < 0 ? -1 : this.stackNode(parent), frame);
    this.setStackNode(id, node);
    return node;
  }

  /** The node of `parentNode` + `frame` (interned); at MAX_STACK_DEPTH the parent itself. */
  pushFrame(parentNode: number, frame: number): number {
    const depth = parentNode < 0 ? 0 : this.nodeDepth.data[parentNode];
    if (depth >= MAX_STACK_DEPTH) {
      this.truncatedStacks = true;
      return parentNode;
    }
    const key: number | string = parentNode + 1 < 2 ** 31 && frame >= 0 && frame < 2 ** 21 ? (parentNode + 1) * 2 ** 21 + frame : `${parentNode},${frame}`;
    let node = this.nodeIndex.get(key);
    if (node === undefined) {
      node = this.nodeParent.push(parentNode);
      this.nodeFrame.push(frame);
      this.nodeDepth.push(depth + 1);
      this.nodeIndex.set(key, node);
    }
    return node;
  }

  /** Parent node of a node (-1: bottom frame). */
  parentNode(node: number): number {
    return this.nodeParent.data[node];
  }

  /** Top frame (loc id) of a node. */
  nodeLoc(node: number): number {
    return this.nodeFrame.data[node];
  }

  /** Frames of a node, 1 … MAX_STACK_DEPTH. */
  nodeDepthOf(node: number): number {
    return node < 0 ? 0 : this.nodeDepth.data[node];
  }

  /** Loc ids of a stack node, bottom (outermost) first. */
  stackFrames(node: number): number[] {
    const n = this.nodeDepthOf(node);
    const frames = new Array<number>(n);
    for (let k = n - 1; k >= 0; k--) {
      frames[k] = this.nodeFrame.data[node];
      node = this.nodeParent.data[node];
    }
    return frames;
  }
}
