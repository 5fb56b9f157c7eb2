/**
 * Thin wrapper around the VS Code webview API: typed messages, persisted
 * state (setState/getState, so panels restore without retainContextWhenHidden)
 * and request/response correlation by requestId.
 */
import type { HostToWebview, WebviewToHost, RequestMethod } from './messages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare global {
  // Provided by VS Code (or the test harness) in the webview global scope.
  function acquireVsCodeApi(): VsCodeApi;
}

let api: VsCodeApi | undefined;
function vscodeApi(): VsCodeApi {
  if (!api) {
    api =
      typeof acquireVsCodeApi === 'function'
        ? acquireVsCodeApi()
        : { postMessage: () => undefined, getState: () => undefined, setState: () => undefined };
  }
  return api;
}

export function post(message: WebviewToHost): void {
  vscodeApi().postMessage(message);
}

export function loadState<T extends object>(defaults: T): T {
  const s = vscodeApi().getState();
  if (s && typeof s === 'object') return { ...defaults, ...(s as Partial<T>) };
  return { ...defaults };
}

export function saveState(state: object): void {
  vscodeApi().setState(state);
}

type Listener = (m: HostToWebview) => void;
const listeners = new Set<Listener>();
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextRequestId = 1;

export function newRequestId(): number {
  return nextRequestId++;
}

window.addEventListener('message', (ev: MessageEvent) => {
  const m = ev.data as HostToWebview | undefined;
  if (!m || typeof m !== 'object' || typeof (m as { type?: unknown }).type !== 'string') return;
  if (m.type === 'response') {
    const p = pending.get(m.requestId);
    if (p) {
      pending.delete(m.requestId);
      if (m.error !== undefined) p.reject(new Error(String(m.error)));
      else p.resolve(m.result);
    }
    return;
  }
  for (const l of listeners) l(m);
});

export function onMessage(listener: Listener): void {
  listeners.add(listener);
}

/** Asks the host for braid/<method> data (the host whitelists methods and validates params). */
export function request<R>(method: RequestMethod, params?: unknown): Promise<R> {
  const requestId = newRequestId();
  return new Promise<R>((resolve, reject) => {
    pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject });
    post({ type: 'request', requestId, method, params });
  });
}
