/**
 * `MessageChannel` messages as happens-before edges (issue 42 item 6; docs/recorder-node.md
 * "Happens-before"): a `port.postMessage(…)` on one port of a channel (the sender's SND) happens
 * before the other port's `'message'` handling of it (the receiver's RCV), as a worker's
 * `postMessage` does before the main thread's `'message'` listeners (hook.ts `wrapWorkers`).
 *
 * Each channel made by `new MessageChannel()` in a recorded thread gets a number; its two ports send
 * on the channel's two directions, and count the messages they send. Node delivers each message to
 * the receiving port in a callback of its own whose async resource is the port (runtime
 * `installHooks`, `before`): the n-th delivery receives the n-th message's token. A port transferred
 * to another thread (`postMessage(x, [port])`) is a new object there: its messages are not linked.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import type { BraidRuntime } from './runtime';

/** One end of a channel: the direction it sends on, and the port it sends to. */
export interface PortEnd {
  /** channel number of its messages (messageToken's channel) */
  out: number;
  /** messages sent on it */
  sent: number;
  /** deliveries to it */
  received: number;
  /** the other end */
  peer: PortEnd | null;
}

/** Channel numbers of MessageChannels: above the worker channels (threadId · 2 + 0/1), per thread. */
export const PORT_CHANNEL_BASE = 2 ** 22;

type PortLike = { postMessage(...a: unknown[]): void };
type ChannelClass = new (...a: unknown[]) => { port1: PortLike; port2: PortLike };

/**
 * Wraps `MessageChannel` (the global and worker_threads', one class) so that its ports are known to
 * the runtime (`rt.ports`), and `MessagePort.prototype.postMessage` so that a known port's message is sent.
 */
export function wrapMessageChannels(rt: BraidRuntime): void {
  // worker_threads' CommonJS exports (writable; the ES-module namespace follows after syncBuiltinESMExports)
  const worker = createRequire(path.join(process.cwd(), 'braid-hook.js'))('node:worker_threads') as { MessageChannel: ChannelClass; MessagePort: { prototype: PortLike }; threadId: number };
  const threadId = worker.threadId;
  const ports = new WeakMap<object, PortEnd>();
  rt.ports = ports;
  let channels = 0;
  const Original = worker.MessageChannel;
  const thread = (threadId & 255) * 8192;
  class MessageChannel extends Original {
    constructor(...a: unknown[]) {
      super(...a);
      const c = PORT_CHANNEL_BASE + (thread + (channels++ & 8191)) * 2;
      const one: PortEnd = { out: c, sent: 0, received: 0, peer: null };
      const two: PortEnd = { out: c + 1, sent: 0, received: 0, peer: one };
      one.peer = two;
      ports.set(this.port1, one);
      ports.set(this.port2, two);
    }
  }
  Object.defineProperty(MessageChannel, 'name', { value: 'MessageChannel' });
  const post = worker.MessagePort.prototype.postMessage;
  worker.MessagePort.prototype.postMessage = function (this: object, ...a: unknown[]) {
    const end = ports.get(this);
    if (end !== undefined) rt.sendMessage(end.out, ++end.sent);
    return post.apply(this, a);
  };
  worker.MessageChannel = MessageChannel;
  syncBuiltinESMExports();
  if ((globalThis as { MessageChannel?: unknown }).MessageChannel === Original) (globalThis as { MessageChannel?: unknown }).MessageChannel = MessageChannel;
}
