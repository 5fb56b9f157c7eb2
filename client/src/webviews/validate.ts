/**
 * Validation of messages posted by the webviews. Nothing a webview sends is
 * trusted: each message is rebuilt from checked fields (unknown fields are
 * dropped, unknown types ignored). No `vscode` import, so it is unit-tested.
 */
import * as path from 'path';

export const MAX_PATH = 4096;
export const MAX_TEXT = 1000;
export const MAX_SVG = 20 * 1024 * 1024;
export const MAX_LINE = 10_000_000;

/** webview request methods → LSP request names */
export const REQUEST_METHODS = {
  patterns: 'braid/patterns',
  runs: 'braid/runs',
  bugs: 'braid/bugs',
  bugGraph: 'braid/bugGraph',
  explanations: 'braid/explanations',
  methods: 'braid/methods',
} as const;
export type RequestMethod = keyof typeof REQUEST_METHODS;

export interface TraceEventsParamsChecked {
  run: string;
  offset: number;
  limit: number;
  threads?: number[];
  variable?: string;
  search?: string;
  accessesOnly?: boolean;
}

export type ValidMessage =
  | { type: 'ready' }
  | { type: 'request'; requestId: number; method: RequestMethod; lspMethod: string; params: Record<string, unknown> | undefined }
  | { type: 'fetchEvents'; requestId: number; params: TraceEventsParamsChecked }
  | { type: 'openLocation'; file: string; line: number; uri?: string }
  | { type: 'openTracer'; run?: string; patternKey?: string }
  | { type: 'openBugGraph'; bug: number }
  | { type: 'saveSvg'; svg: string; name: string }
  /** Confirm by Forcing (confirmed: Reproduce) of a pattern, by its key (issue 28) */
  | { type: 'confirmPattern'; patternKey: string; reproduce: boolean };

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

export function isInt(x: unknown, min: number, max: number): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= min && x <= max;
}
function isStr(x: unknown, max: number, allowEmpty = false): x is string {
  return typeof x === 'string' && (allowEmpty || x.length > 0) && x.length <= max && !x.includes('\0');
}
function optStr(o: Obj, k: string, max: number): string | undefined | null {
  if (o[k] === undefined) return undefined;
  return isStr(o[k], max, true) ? (o[k] as string) : null;
}

function requestParams(method: RequestMethod, p: unknown): Record<string, unknown> | undefined | null {
  if (method === 'runs' || method === 'bugs') return undefined;
  if (method === 'bugGraph') {
    if (!isObj(p) || !isInt(p.bug, 0, 1_000_000)) return null;
    return { bug: p.bug };
  }
  if (method === 'methods') {
    if (p === undefined) return {};
    if (!isObj(p)) return null;
    if (p.top === undefined) return {};
    return isInt(p.top, 1, 10_000) ? { top: p.top } : null;
  }
  if (method === 'explanations') {
    if (p === undefined) return {};
    if (!isObj(p)) return null;
    if (p.top === undefined) return {};
    return isInt(p.top, 1, 10_000) ? { top: p.top } : null;
  }
  // patterns
  if (p === undefined) return {};
  if (!isObj(p)) return null;
  const out: Record<string, unknown> = {};
  if (p.offset !== undefined) {
    if (!isInt(p.offset, 0, 1e9)) return null;
    out.offset = p.offset;
  }
  if (p.limit !== undefined) {
    if (!isInt(p.limit, 1, 5000)) return null;
    out.limit = p.limit;
  }
  if (p.ids !== undefined) {
    if (!Array.isArray(p.ids) || p.ids.length > 100 || !p.ids.every((s) => isStr(s, 100))) return null;
    out.ids = [...p.ids];
  }
  const file = optStr(p, 'file', MAX_PATH);
  if (file === null) return null;
  if (file) out.file = file;
  return out;
}

export function checkTraceEventsParams(p: unknown): TraceEventsParamsChecked | undefined {
  if (!isObj(p)) return undefined;
  if (!isStr(p.run, MAX_PATH) || !isInt(p.offset, 0, Number.MAX_SAFE_INTEGER) || !isInt(p.limit, 1, 5000)) return undefined;
  const out: TraceEventsParamsChecked = { run: p.run, offset: p.offset, limit: p.limit };
  if (p.threads !== undefined) {
    if (!Array.isArray(p.threads) || p.threads.length > 1000 || !p.threads.every((t) => isInt(t, 0, Number.MAX_SAFE_INTEGER))) return undefined;
    out.threads = [...(p.threads as number[])];
  }
  const variable = optStr(p, 'variable', MAX_TEXT);
  const search = optStr(p, 'search', MAX_TEXT);
  if (variable === null || search === null) return undefined;
  if (variable) out.variable = variable;
  if (search) out.search = search;
  if (p.accessesOnly !== undefined) {
    if (typeof p.accessesOnly !== 'boolean') return undefined;
    if (p.accessesOnly) out.accessesOnly = true;
  }
  return out;
}

const SVG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}\.svg$/;

export function parseWebviewMessage(m: unknown): ValidMessage | undefined {
  if (!isObj(m) || typeof m.type !== 'string') return undefined;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'request': {
      if (!isInt(m.requestId, 0, Number.MAX_SAFE_INTEGER) || typeof m.method !== 'string') return undefined;
      if (!Object.prototype.hasOwnProperty.call(REQUEST_METHODS, m.method)) return undefined;
      const method = m.method as RequestMethod;
      const params = requestParams(method, m.params);
      if (params === null) return undefined;
      return { type: 'request', requestId: m.requestId, method, lspMethod: REQUEST_METHODS[method], params };
    }
    case 'fetchEvents': {
      if (!isInt(m.requestId, 0, Number.MAX_SAFE_INTEGER)) return undefined;
      const params = checkTraceEventsParams(m.params);
      return params ? { type: 'fetchEvents', requestId: m.requestId, params } : undefined;
    }
    case 'openLocation': {
      if (!isStr(m.file, MAX_PATH) || !isInt(m.line, 1, MAX_LINE)) return undefined;
      const out: ValidMessage = { type: 'openLocation', file: m.file, line: m.line };
      if (m.uri !== undefined) {
        if (!isStr(m.uri, MAX_PATH * 2)) return undefined;
        out.uri = m.uri;
      }
      return out;
    }
    case 'openTracer': {
      const run = optStr(m, 'run', MAX_PATH);
      const patternKey = optStr(m, 'patternKey', MAX_PATH);
      if (run === null || patternKey === null) return undefined;
      return { type: 'openTracer', ...(run ? { run } : {}), ...(patternKey ? { patternKey } : {}) };
    }
    case 'openBugGraph':
      return isInt(m.bug, 0, 1_000_000) ? { type: 'openBugGraph', bug: m.bug } : undefined;
    case 'confirmPattern':
      return isStr(m.patternKey, MAX_PATH) && (m.reproduce === undefined || typeof m.reproduce === 'boolean')
        ? { type: 'confirmPattern', patternKey: m.patternKey, reproduce: m.reproduce === true }
        : undefined;
    case 'saveSvg': {
      if (typeof m.svg !== 'string' || m.svg.length > MAX_SVG || !/^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/.test(m.svg)) return undefined;
      const name = typeof m.name === 'string' && SVG_NAME.test(m.name) ? m.name : 'bug-graph.svg';
      return { type: 'saveSvg', svg: m.svg, name };
    }
    default:
      return undefined;
  }
}

/**
 * True when `candidate` (an absolute, already-normalized path) is `root` itself
 * or inside it. Works for posix and win32 style paths given the matching module.
 */
export function isInsideFolder(root: string, candidate: string, p: typeof path.posix = path.posix): boolean {
  const rel = p.relative(p.normalize(root), p.normalize(candidate));
  return rel !== '' && !rel.startsWith('..') && !p.isAbsolute(rel);
}
