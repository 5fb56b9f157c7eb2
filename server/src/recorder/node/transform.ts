/**
 * The source transform of Braid's Node.js recorder (docs/recorder-node.md): parses a JS module with
 * acorn and rewrites it with magic-string so that, at run time, the recorder's runtime
 * (`globalThis.__braid`, runtime.ts) sees
 *
 *   - property reads and writes: `o.x` → `__braid.gp(o,"x",S)`, `o.x = v` → `__braid.sp(o,"x",v,S)`,
 *     `o[k]` → `__braid.gc(o,k,S)`, `o[k] = v` → `__braid.sc(o,k,v,S)`, `o.x += v`, `o.x++`;
 *   - calls of collection methods: `o.get(k)` → `__braid.mc1(o,"get",S,k)` (recorded only when `o`
 *     is a Map, Set or Array at run time);
 *   - shared variables: a `let`/`var`/parameter binding that is assigned after its declaration and
 *     used from a function other than the one declaring it (module-level or closure variables):
 *     reads `x` → `__braid.rv(x,S,V,scope)`, writes `x = e` → `x = __braid.wv(e,S,V,scope)`;
 *   - function frames: every plain function body runs between `__braid.fe(S)` and `__braid.fx(saved)`
 *     (the shadow call stack), every async function body in a task of its own (`__braid.as`/`ae`);
 *   - `await e` → `await __braid.aw(e,S)`: the noise point (a seeded delay of the continuation).
 *
 * No line break is added or removed, so the program's own stack traces keep their lines; columns
 * move. Each site S is an index into the module's table of (line, function) pairs, registered once
 * when the module starts (`__braid.mod`); lines of a file that came with an inline source map (a
 * TypeScript loader's output) are mapped back to the original file and line.
 */
import { parse, Node as AcornNode, Options as AcornOptions } from 'acorn';
import MagicString from 'magic-string';
import { encode, SourceMapSegment } from '@jridgewell/sourcemap-codec';
import { INLINE_SOURCE_MAP, InlineSourceMap } from './inlineSourceMap';
import { lineIndex } from '../discovery/lineIndex';

/* eslint-disable @typescript-eslint/no-explicit-any */
type N = AcornNode & Record<string, any>;

export interface InstrumentResult {
  code: string;
  /** number of sites (instrumented points) of the module */
  sites: number;
}

/** Collection methods recorded as accesses of the collection (read or write), as Java's library calls. */
export const COLLECTION_METHODS: ReadonlySet<string> = new Set([
  'get', 'has', 'set', 'add', 'delete', 'clear', 'forEach', 'keys', 'values', 'entries',
  'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'includes', 'indexOf', 'at',
  'find', 'findIndex', 'some', 'every', 'map', 'filter', 'reduce', 'join', 'slice', 'copyWithin',
  // EventEmitter: registering a listener writes the event's listener list, emitting reads it
  'on', 'once', 'addListener', 'prependListener', 'prependOnceListener', 'off', 'removeListener', 'removeAllListeners', 'emit',
]);

/** Promise methods whose callback runs as a task of its own (docs/recorder-node.md, "Tasks"). */
const PROMISE_METHODS: ReadonlySet<string> = new Set(['then', 'catch', 'finally']);

/** EventEmitter methods whose second argument is a listener (its function is named after the event: transform `callbackName`). */
const LISTENER_METHODS: ReadonlySet<string> = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener', 'addEventListener']);
/** Functions whose first argument is a callback run later (named after the function that schedules it). */
const TIMER_FUNCTIONS: ReadonlySet<string> = new Set(['setTimeout', 'setInterval', 'setImmediate', 'nextTick', 'queueMicrotask']);

/** Modules whose path functions are recorded as accesses of the path (docs/recorder-node.md). */
const FS_MODULES: ReadonlySet<string> = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/** Global objects whose properties are never recorded (builtins, the module system, the process). */
/** `Atomics` operations recorded as accesses of a SharedArrayBuffer element with a happens-before token (runtime `at`) */
export const ATOMIC_OPS: ReadonlySet<string> = new Set(['load', 'store', 'add', 'sub', 'and', 'or', 'xor', 'exchange', 'compareExchange', 'wait', 'notify']);

const UNRECORDED_GLOBALS = new Set([
  'module', 'exports', 'require', 'process', 'console', 'Math', 'JSON', 'Object', 'Array', 'Promise', 'Symbol',
  'Number', 'String', 'Boolean', 'Reflect', 'Date', 'globalThis', 'Buffer', 'Error', 'Map', 'Set', 'WeakMap',
  'WeakSet', 'Atomics', 'Intl', 'BigInt', 'RegExp', 'URL', 'performance', '__braid', 'import',
]);

interface Binding {
  name: string;
  kind: 'var' | 'let' | 'const' | 'param' | 'fn' | 'class' | 'import' | 'catch';
  fn: FnScope;
  reassigned: boolean;
  captured: boolean;
  /** index into the module's var table when instrumented */
  var?: number;
}

interface FnScope {
  node: N | null;
  name: string;
  /** the name its variables are named after when it is not `name` (a nested closure's own name, without ` in <outer>`) */
  varPrefix?: string;
  /** scope variable name of the function (`__bsc3`) when it declares an instrumented binding */
  scopeVar?: string;
  index: number;
}

interface Scope {
  parent: Scope | null;
  fn: FnScope;
  names: Map<string, Binding>;
}

export interface InstrumentOptions {
  /** the file as the trace names it (relative to the working folder) */
  file: string;
  /** parse as an ES module (import/export, top-level await) */
  module: boolean;
}

function isFunction(n: N): boolean {
  return n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';
}

/** The child nodes of an ESTree node, in source order, with the key that holds them. */
function forEachChild(n: N, f: (child: N, key: string) => void): void {
  for (const key of Object.keys(n)) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'loc' || key === 'range') continue;
    const v = n[key];
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === 'string') f(c, key);
    } else if (v && typeof v.type === 'string') f(v, key);
  }
}

/** The identifiers a binding pattern declares. */
function patternNames(p: N | null, out: N[] = []): N[] {
  if (!p) return out;
  switch (p.type) {
    case 'Identifier':
      out.push(p);
      break;
    case 'ObjectPattern':
      for (const prop of p.properties) patternNames(prop.type === 'RestElement' ? prop.argument : prop.value, out);
      break;
    case 'ArrayPattern':
      for (const e of p.elements) patternNames(e, out);
      break;
    case 'RestElement':
      patternNames(p.argument, out);
      break;
    case 'AssignmentPattern':
      patternNames(p.left, out);
      break;
  }
  return out;
}

/** `void 0` or `undefined`: an argument a compiler's helper call leaves out. */
function isVoid(e: N): boolean {
  return (e.type === 'UnaryExpression' && e.operator === 'void' && e.argument.type === 'Literal') || (e.type === 'Identifier' && e.name === 'undefined');
}

/** The name a helper is called by: `__awaiter`, `tslib_1.__awaiter`, `(0, tslib_1.__awaiter)`, `(0, _asyncToGenerator2.default)`. */
function helperName(c: N): string | undefined {
  if (c.type === 'SequenceExpression' && c.expressions.length === 2 && c.expressions[0].type === 'Literal') c = c.expressions[1];
  if (c.type === 'Identifier') return c.name;
  if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier') return undefined;
  return c.property.name === 'default' && c.object.type === 'Identifier' ? c.object.name : c.property.name;
}

/** A `yield*` of the generator itself (not of a function nested in it). */
function hasDelegateYield(n: N): boolean {
  let found = false;
  (function walk(x: N) {
    if (found) return;
    if (x.type === 'YieldExpression' && x.delegate) found = true;
    forEachChild(x, (c) => {
      if (!isFunction(c)) walk(c);
    });
  })(n.body);
  return found;
}

/**
 * An async function that a compiler turned into a generator driven by its helper (docs/recorder-node.md,
 * "Async functions compiled to generators"): TypeScript below ES2017 emits `__awaiter(this, void 0,
 * void 0, function* () { … yield e; … })` (or `arguments` as the second argument), Babel
 * `_asyncToGenerator(function* () { … })`. The recorder runs such a generator as the async function it
 * was written as: a task of its own, a frame named after the function it is the body of, and each
 * `yield` an await. Not with a custom promise constructor (`__awaiter`'s third argument) or a `yield*`.
 */
export function compiledAsyncBody(n: N, parent: N | null): 'awaiter' | 'toGenerator' | undefined {
  if (n.type !== 'FunctionExpression' || !n.generator || n.async || parent?.type !== 'CallExpression' || parent.optional) return undefined;
  const name = helperName(parent.callee);
  const a = parent.arguments;
  if (name === '__awaiter') {
    if (a.length !== 4 || a[3] !== n || !isVoid(a[2])) return undefined;
    const thisOk = a[0].type === 'ThisExpression' || a[0].type === 'Identifier' || isVoid(a[0]);
    const argsOk = isVoid(a[1]) || (a[1].type === 'Identifier' && a[1].name === 'arguments');
    return thisOk && argsOk && !hasDelegateYield(n) ? 'awaiter' : undefined;
  }
  if (name !== undefined && /^_?asyncToGenerator\d*$/.test(name) && a.length === 1 && a[0] === n && !hasDelegateYield(n)) return 'toGenerator';
  return undefined;
}

/** Instruments one module's source; throws a SyntaxError when acorn cannot parse it. */
export function instrument(code: string, o: InstrumentOptions): InstrumentResult {
  const acornOptions: AcornOptions = {
    ecmaVersion: 'latest',
    sourceType: o.module ? 'module' : 'script',
    allowHashBang: true,
    allowReturnOutsideFunction: !o.module,
    allowAwaitOutsideFunction: o.module,
  };
  const ast = parse(code, acornOptions) as N;
  const s = new MagicString(code);
  const positionOf = lineIndex(code);
  const mapper = new InlineSourceMap(code);
  let mappedFile: string | undefined;

  // ---- pass 1: scopes and bindings ----
  const fns: FnScope[] = [];
  const programFn: FnScope = { node: null, name: '<module>', index: 0 };
  fns.push(programFn);
  const scopeOf = new Map<N, Scope>();
  const fnOf = new Map<N, FnScope>();
  /** generators that are compiled async functions (compiledAsyncBody), by their node */
  const compiledAsync = new Map<N, 'awaiter' | 'toGenerator'>();
  /** a function passed to a call → the node the call is in (its parent) */
  const callParent = new Map<N, N>();
  const programScope: Scope = { parent: null, fn: programFn, names: new Map() };
  scopeOf.set(ast, programScope);

  const declare = (scope: Scope, id: N, kind: Binding['kind']) => {
    if (!scope.names.has(id.name)) scope.names.set(id.name, { name: id.name, kind, fn: scope.fn, reassigned: false, captured: false });
  };
  const functionScopeOf = (scope: Scope): Scope => {
    let sc = scope;
    while (sc.parent && sc.fn.node && scopeOf.get(sc.fn.node) !== sc) sc = sc.parent;
    return sc;
  };

  /** A short source text of an expression for a name (`socket`, `this.agent`), or undefined when it is long or has calls. */
  function shortSource(e: N): string | undefined {
    if (e.type === 'Identifier') return e.name;
    if (e.type === 'MemberExpression' && !e.computed && e.property.type === 'Identifier' && (e.object.type === 'Identifier' || e.object.type === 'ThisExpression' || e.object.type === 'MemberExpression')) {
      const o = e.object.type === 'ThisExpression' ? 'this' : shortSource(e.object);
      return o && o.length + e.property.name.length < 60 ? `${o}.${e.property.name}` : undefined;
    }
    return undefined;
  }

  /**
   * The name of an anonymous function passed as a callback (issue 42 item 6), in JS terms:
   * `'free' listener of Agent` (an EventEmitter listener: the event and the emitter — `this`'s class, or the emitter's source),
   * `then callback of fetchUser` (a then/catch/finally callback: the call that made the promise),
   * `setTimeout callback` (a timer's, an immediate's, a nextTick's or a microtask's),
   * each followed by ` in <the function it is passed in>` (`then callback of fetchUser in Pool.acquire`;
   * not for a listener registered in its emitter's constructor): the method a fix goes into.
   */
  function callbackName(n: N, call: N, className: string | undefined, outer: string): string | undefined {
    const k = call.arguments.indexOf(n);
    const c = call.callee;
    const method = c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier' ? c.property.name : c.type === 'Identifier' ? c.name : undefined;
    if (method === undefined) return undefined;
    const owner = outer.split(/[./]/)[0];
    if (c.type === 'MemberExpression' && LISTENER_METHODS.has(method) && k === 1) {
      const ev = call.arguments[0];
      const event = ev.type === 'Literal' && typeof ev.value === 'string' ? `'${ev.value.slice(0, 40)}'` : ev.type === 'MemberExpression' || ev.type === 'Identifier' ? (shortSource(ev) ?? 'event') : 'event';
      const emitter = c.object.type === 'ThisExpression' ? (className ?? (owner || 'this')) : (shortSource(c.object) ?? 'emitter');
      // where it is registered, unless that is the emitter's own constructor
      return `${event} listener of ${emitter}${outer && outer !== emitter && outer !== `${emitter}.constructor` ? ` in ${outer}` : ''}`;
    }
    if (c.type === 'MemberExpression' && PROMISE_METHODS.has(method) && (k === 0 || (k === 1 && method === 'then'))) {
      let p = c.object;
      if (p.type === 'AwaitExpression') p = p.argument;
      const made = p.type === 'CallExpression' ? shortSource(p.callee) : shortSource(p);
      return `${method} callback of ${made ? made.replace(/^this\./, '') : 'a promise'}${outer ? ` in ${outer}` : ''}`;
    }
    if (TIMER_FUNCTIONS.has(method) && k === 0 && (c.type === 'Identifier' || (c.object.type === 'Identifier' && (c.object.name === 'process' || c.object.name === 'globalThis' || c.object.name === 'timers')))) {
      return outer ? `${method} callback in ${outer}` : `${method} callback`;
    }
    return undefined;
  }

  /** `Foo.prototype.m = function …`: the class-like function whose prototype gets the method (`Foo`), else undefined. */
  function prototypeOwner(parent: N | null): string | undefined {
    if (parent?.type !== 'AssignmentExpression' || parent.left.type !== 'MemberExpression' || parent.left.computed) return undefined;
    const target = parent.left.object;
    return target.type === 'MemberExpression' && !target.computed && target.property.type === 'Identifier' && target.property.name === 'prototype' && target.object.type === 'Identifier'
      ? target.object.name
      : undefined;
  }

  /**
   * The function's own name when it is a named closure — a function declaration, a named function
   * expression (a named callback: `function saveDatabasecallback(err) {…}`), a function stored in a
   * local (`const onDone = () => …`, `done = function () {…}`) — not a method (a class', an object
   * literal's, one assigned to an object's property): such a name does not say where the function was
   * made, so a nested one is named ` in <the function it is in>` (`saveDatabasecallback in
   * Loki.saveDatabaseInternal`), as an anonymous callback is.
   */
  function closureName(n: N, parent: N | null): string | undefined {
    if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition') return undefined;
    if (parent?.type === 'AssignmentExpression' && parent.right === n && parent.left.type === 'MemberExpression') return undefined;
    if (n.id?.name) return n.id.name;
    if (parent?.type === 'VariableDeclarator' && parent.init === n && parent.id.type === 'Identifier') return parent.id.name;
    if (parent?.type === 'AssignmentExpression' && parent.right === n && parent.left.type === 'Identifier') return parent.left.name;
    return undefined;
  }

  function fnName(n: N, parent: N | null, className: string | undefined, outerName = ''): string {
    // a method assigned to a constructor function's prototype is named as a class' method (`Loki.saveDatabaseInternal`)
    const owner = prototypeOwner(parent);
    if (owner !== undefined && parent!.right === n && parent!.left.property.type === 'Identifier') return `${owner}.${parent!.left.property.name}`;
    const closure = closureName(n, parent);
    if (closure !== undefined) return outerName && outerName !== '<anonymous>' ? `${closure} in ${outerName}` : closure;
    if (n.id?.name) return n.id.name;
    if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition') {
      // a private method keeps its `#` (`LRUCache.#backgroundFetch`); a computed key its source (`[Symbol.iterator]`)
      const key =
        parent.key?.type === 'Identifier' && !parent.computed
          ? parent.key.name
          : parent.key?.type === 'PrivateIdentifier'
            ? `#${parent.key.name}`
            : parent.key?.type === 'Literal'
              ? String(parent.key.value)
              : parent.computed && parent.key && typeof parent.key.start === 'number'
                ? `[${code.slice(parent.key.start, parent.key.end).replace(/\s+/g, ' ').slice(0, 60)}]`
                : '<computed>';
      if (parent.type !== 'Property') return parent.type === 'MethodDefinition' && className ? `${className}.${key}` : key;
      // an object literal's method made in a function is named with it, as a nested function is
      // (p-map's `[Symbol.asyncIterator] in pMapIterable`: the object a factory returns)
      return outerName && outerName !== '<anonymous>' ? `${key} in ${outerName}` : key;
    }
    if (parent?.type === 'CallExpression' && parent.callee !== n) {
      const cb = callbackName(n, parent, className, outerName);
      if (cb) return cb;
    }
    if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
    if (parent?.type === 'AssignmentExpression' && parent.left.type === 'Identifier') return parent.left.name;
    if (parent?.type === 'AssignmentExpression' && parent.left.type === 'MemberExpression' && !parent.left.computed) return parent.left.property.name;
    return '<anonymous>';
  }

  /** Babel names the function that holds an async function's generator `_f` for an async function `f` and assigns the generator to it: `f`. */
  function babelBodyOf(n: N, outer: string): string | undefined {
    const assign = callParent.get(n);
    return outer.startsWith('_') && assign?.type === 'AssignmentExpression' && assign.left.type === 'Identifier' && assign.left.name === outer ? outer.slice(1) : undefined;
  }

  function scan(n: N, scope: Scope, parent: N | null, className: string | undefined): void {
    if (isFunction(n)) {
      const outer = scope.fn.node ? scope.fn.name : '';
      const compiled = compiledAsyncBody(n, parent);
      if (compiled) compiledAsync.set(n, compiled);
      // a compiled async function's generator is the body of the function it is in: named as that one
      // (Babel's `function _f() { _f = _asyncToGenerator(function* …); … }` is the body of `f`)
      const name = compiled ? (babelBodyOf(n, outer) ?? (outer || '<anonymous>')) : fnName(n, parent, className, outer);
      const fn: FnScope = { node: n, name: name === '<anonymous>' && outer ? `${outer}/<anonymous>` : name, index: fns.length };
      // its variables keep the function's own name (`handle.req`), not where it was made
      const own = compiled ? scope.fn.varPrefix : closureName(n, parent) ?? (parent?.type === 'Property' && outer && name.endsWith(` in ${outer}`) ? name.slice(0, -` in ${outer}`.length) : undefined);
      if (own !== undefined && own !== name) fn.varPrefix = own;
      fns.push(fn);
      fnOf.set(n, fn);
      if (n.type === 'FunctionDeclaration' && n.id) declare(scope, n.id, 'fn');
      const fscope: Scope = { parent: scope, fn, names: new Map() };
      scopeOf.set(n, fscope);
      if (n.type === 'FunctionExpression' && n.id) declare(fscope, n.id, 'fn');
      for (const p of n.params) for (const id of patternNames(p)) declare(fscope, id, 'param');
      for (const p of n.params) scan(p, fscope, n, className);
      if (n.body.type === 'BlockStatement') {
        scopeOf.set(n.body, fscope);
        for (const st of n.body.body) scan(st, fscope, n.body, className);
      } else scan(n.body, fscope, n, className);
      return;
    }
    let inner = scope;
    if ((n.type === 'BlockStatement' || n.type === 'ForStatement' || n.type === 'ForInStatement' || n.type === 'ForOfStatement' || n.type === 'SwitchStatement' || n.type === 'StaticBlock') && !scopeOf.has(n)) {
      inner = { parent: scope, fn: scope.fn, names: new Map() };
      scopeOf.set(n, inner);
    }
    if (n.type === 'CatchClause') {
      inner = { parent: scope, fn: scope.fn, names: new Map() };
      scopeOf.set(n, inner);
      for (const id of patternNames(n.param)) declare(inner, id, 'catch');
    }
    if (n.type === 'VariableDeclaration') {
      const target = n.kind === 'var' ? functionScopeOf(scope) : scope;
      for (const d of n.declarations) for (const id of patternNames(d.id)) declare(target, id, n.kind);
    }
    if (n.type === 'ClassDeclaration' && n.id) declare(scope, n.id, 'class');
    if (n.type === 'ImportDeclaration') for (const sp of n.specifiers) declare(scope, sp.local, 'import');
    const cls = n.type === 'ClassDeclaration' || n.type === 'ClassExpression' ? (n.id?.name ?? className) : className;
    if (n.type === 'CallExpression') for (const a of n.arguments) if (isFunction(a) && parent) callParent.set(a, parent);
    forEachChild(n, (c) => scan(c, inner, n, cls));
  }
  scan(ast, programScope, null, undefined);

  // file-system functions imported by name (`import { unlink } from 'node:fs/promises'`,
  // `const { stat } = require('fs')`): their calls are accesses of the path (local name → function)
  // (bindings, not names: a local of the same name elsewhere is not the fs function)
  const fsFunctions = new Map<Binding, string>();
  // and the module objects (`import * as fsp from 'node:fs/promises'`, `import fs from 'fs'`,
  // `const fs = require('fs')`, a TS loader's `var import_promises = require("node:fs/promises")` —
  // tsx wraps the whole module in a function, so declarations are looked for at any depth)
  const fsNamespaces = new Set<Binding>();
  const requireOf = (e: N | null | undefined): string | undefined =>
    e && e.type === 'CallExpression' && e.callee.type === 'Identifier' && e.callee.name === 'require' && e.arguments.length === 1 && e.arguments[0].type === 'Literal' && typeof e.arguments[0].value === 'string' ? e.arguments[0].value : undefined;
  const resolve = (scope: Scope, name: string): Binding | undefined => {
    for (let sc: Scope | null = scope; sc; sc = sc.parent) {
      const b = sc.names.get(name);
      if (b) return b;
    }
    return undefined;
  };

  (function findFs(n: N, scope: Scope) {
    const sc = scopeOf.get(n) ?? scope;
    if (n.type === 'ImportDeclaration' && FS_MODULES.has(n.source.value)) {
      for (const sp of n.specifiers) {
        const b = resolve(sc, sp.local.name);
        if (!b) continue;
        if (sp.type === 'ImportSpecifier' && sp.imported.type === 'Identifier') fsFunctions.set(b, sp.imported.name);
        else fsNamespaces.add(b);
      }
    }
    if (n.type === 'VariableDeclarator') {
      const mod = requireOf(n.init);
      if (mod && FS_MODULES.has(mod)) {
        if (n.id.type === 'Identifier') {
          const b = resolve(sc, n.id.name);
          if (b && !b.reassigned) fsNamespaces.add(b);
        } else if (n.id.type === 'ObjectPattern') {
          for (const p of n.id.properties) {
            if (p.type !== 'Property' || p.computed || p.key.type !== 'Identifier' || p.value.type !== 'Identifier') continue;
            const b = resolve(sc, p.value.name);
            if (b && !b.reassigned) fsFunctions.set(b, p.key.name);
          }
        }
      }
    }
    forEachChild(n, (c) => findFs(c, sc));
  })(ast, programScope);

  /** Is this identifier a reference (not a declaration, key, label…)? */
  const isReference = (id: N, parent: N | null, key: string): boolean => {
    if (!parent) return true;
    switch (parent.type) {
      case 'MemberExpression':
        return key === 'object' || parent.computed;
      case 'Property':
        if (key === 'key') return parent.computed;
        return true;
      case 'MethodDefinition':
      case 'PropertyDefinition':
        return key !== 'key' || parent.computed;
      case 'VariableDeclarator':
        return key === 'init';
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        return key === 'body';
      case 'ClassDeclaration':
      case 'ClassExpression':
        return key === 'superClass';
      case 'LabeledStatement':
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'ImportSpecifier':
      case 'ImportDefaultSpecifier':
      case 'ImportNamespaceSpecifier':
      case 'ExportSpecifier':
      case 'MetaProperty':
      case 'CatchClause':
        return false;
      default:
        return true;
    }
  };

  // ---- pass 2: references (captured, reassigned) ----
  const refs: { id: N; parent: N | null; key: string; scope: Scope; write: boolean }[] = [];
  function refsOf(n: N, scope: Scope, parent: N | null, key: string, inPattern: boolean): void {
    const sc = scopeOf.get(n) ?? scope;
    if (n.type === 'Identifier') {
      if (inPattern || isReference(n, parent, key)) {
        const write = inPattern || (parent?.type === 'AssignmentExpression' && key === 'left') || parent?.type === 'UpdateExpression';
        refs.push({ id: n, parent, key, scope: sc, write });
      }
      return;
    }
    // destructuring assignment targets: writes (not instrumented, see limits)
    if (n.type === 'AssignmentExpression' && n.left.type !== 'Identifier' && n.left.type !== 'MemberExpression') {
      for (const id of patternNames(n.left)) refs.push({ id, parent: null, key: 'pattern', scope: sc, write: true });
      refsOf(n.right, sc, n, 'right', false);
      return;
    }
    if ((n.type === 'ForInStatement' || n.type === 'ForOfStatement') && n.left.type !== 'VariableDeclaration') {
      for (const id of patternNames(n.left)) refs.push({ id, parent: null, key: 'pattern', scope: sc, write: true });
      refsOf(n.right, sc, n, 'right', false);
      refsOf(n.body, sc, n, 'body', false);
      return;
    }
    forEachChild(n, (c, k) => {
      // declarations' patterns: default values are references, names are not
      if ((n.type === 'VariableDeclarator' && k === 'id') || (isFunction(n) && k === 'params')) {
        walkPatternDefaults(c, sc, n);
        return;
      }
      refsOf(c, sc, n, k, false);
    });
  }
  function walkPatternDefaults(p: N, scope: Scope, parent: N): void {
    if (p.type === 'AssignmentPattern') {
      walkPatternDefaults(p.left, scope, p);
      refsOf(p.right, scope, p, 'right', false);
    } else if (p.type === 'ObjectPattern') {
      for (const prop of p.properties) {
        if (prop.type === 'RestElement') walkPatternDefaults(prop.argument, scope, prop);
        else {
          if (prop.computed) refsOf(prop.key, scope, prop, 'key', false);
          walkPatternDefaults(prop.value, scope, prop);
        }
      }
    } else if (p.type === 'ArrayPattern') {
      for (const e of p.elements) if (e) walkPatternDefaults(e, scope, p);
    } else if (p.type === 'RestElement') walkPatternDefaults(p.argument, scope, p);
    void parent;
  }
  refsOf(ast, programScope, null, '', false);
  const bindingOf = new Map<N, Binding>();
  for (const r of refs) {
    const b = resolve(r.scope, r.id.name);
    if (!b) continue;
    bindingOf.set(r.id, b);
    if (r.write) b.reassigned = true;
    if (r.scope.fn !== b.fn) b.captured = true;
  }
  const shared = (b: Binding | undefined): b is Binding => !!b && b.reassigned && b.captured && (b.kind === 'let' || b.kind === 'var' || b.kind === 'param');

  // ---- the module's tables ----
  const locTable: (number | string)[] = [];
  const varTable: string[] = [];
  const site = (offset: number, fn: FnScope): number => {
    const at = positionOf(offset);
    const p = { line: at.line + 1, col: at.character };
    let line = p.line;
    if (mapper.active) {
      const m = mapper.map(p.line, p.col);
      line = m.line;
      if (m.source && !mappedFile) mappedFile = m.source;
    }
    locTable.push(line, fn.name);
    return locTable.length / 2 - 1;
  };
  const varIndex = (b: Binding): number => {
    if (b.var === undefined) {
      b.var = varTable.length;
      varTable.push(b.fn.node ? `${b.fn.varPrefix ?? b.fn.name}.${b.name}` : b.name);
    }
    return b.var;
  };
  const scopeArg = (b: Binding): string => {
    if (!b.fn.node) return '0';
    b.fn.scopeVar ??= `__bsc${b.fn.index}`;
    return b.fn.scopeVar;
  };
  const S = (k: number) => `__bl+${k}`;
  const V = (k: number) => `__bv+${k}`;

  /** An expression without side effects worth mentioning (evaluating it twice is harmless). */
  const simple = (e: N): boolean =>
    e.type === 'Identifier' || e.type === 'ThisExpression' || e.type === 'Literal' || (e.type === 'TemplateLiteral' && e.expressions.length === 0);
  const simpleArg = (e: N): boolean =>
    simple(e) || e.type === 'ArrowFunctionExpression' || e.type === 'FunctionExpression' || (e.type === 'MemberExpression' && !e.optional && simpleArg(e.object) && (!e.computed || simpleArg(e.property)));
  const recordedObject = (obj: N, scope: Scope): boolean => {
    if (obj.type === 'Super') return false;
    if (obj.type === 'Identifier' && UNRECORDED_GLOBALS.has(obj.name) && !resolve(scope, obj.name)) return false;
    if (obj.type === 'MetaProperty') return false;
    return true;
  };
  /** The holder of a private member that may be evaluated twice: `this`, or a name not instrumented as a shared variable. */
  const privateHolder = (obj: N, scope: Scope): boolean =>
    obj.type === 'ThisExpression' || (obj.type === 'Identifier' && !shared(resolve(scope, obj.name)) && obj.name !== '__braid');
  /** text between the object and the property of a member expression, without its last `.` or `[` */
  const objectTail = (m: N, sep: '.' | '['): string => {
    const mid = code.slice(m.object.end, m.property.start);
    const k = mid.lastIndexOf(sep);
    return k < 0 ? mid : mid.slice(0, k) + mid.slice(k + 1).replace(/\S/g, '');
  };
  const memberTailAfterProperty = (m: N): string => {
    // `]` (and parentheses inside the brackets) between the property's end and the member's end
    const tail = code.slice(m.property.end, m.end);
    const k = tail.lastIndexOf(']');
    return k < 0 ? tail : tail.slice(0, k);
  };

  // ---- pass 3: rewrite ----
  const insideChain = new Set<N>();

  /** A call's callee through an fs module object (`fs.unlink`, `fs.promises.unlink`, `(0, import_promises.unlink)`), or undefined. */
  const fsMemberCallee = (call: N, scope: Scope): N | undefined => {
    let c = call.callee;
    if (c.type === 'SequenceExpression' && c.expressions.length === 2 && c.expressions[0].type === 'Literal') c = c.expressions[1];
    if (c.type !== 'MemberExpression' || c.computed || c.property.type !== 'Identifier') return undefined;
    const isNs = (o: N): boolean => o.type === 'Identifier' && fsNamespaces.has(resolve(scope, o.name)!);
    const o = c.object;
    if (isNs(o) || (o.type === 'MemberExpression' && !o.computed && o.property.type === 'Identifier' && o.property.name === 'promises' && isNs(o.object))) return c;
    return undefined;
  };
  function markChain(n: N): void {
    insideChain.add(n);
    forEachChild(n, (c) => {
      if (c.type === 'MemberExpression' || c.type === 'CallExpression') markChain(c);
    });
  }

  function rewrite(n: N, parent: N | null, key: string, scope: Scope, fn: FnScope, inGenerator: boolean, asyncFn: boolean): void {
    const sc = scopeOf.get(n) ?? scope;
    let f = fn;
    let gen = inGenerator;
    let isAsync = asyncFn;
    if (isFunction(n)) {
      f = fnOf.get(n)!;
      gen = !!n.generator;
      isAsync = !!n.async;
    }
    if (n.type === 'ChainExpression') markChain(n.expression);
    // children first (post-order: an outer wrapper's opening text goes in front of an inner one's)
    // a compiled async function's helper call (`__awaiter(this, void 0, void 0, function* …)`) is
    // replaced (below): only its generator is rewritten
    const compiledBody = n.type === 'CallExpression' ? n.arguments.find((a: N) => compiledAsync.has(a)) : undefined;
    forEachChild(n, (c, k) => {
      if (compiledBody !== undefined && c !== compiledBody) return;
      // a call through an fs module object: its callee is wrapped whole (below), not read as a property
      if (n.type === 'CallExpression' && k === 'callee' && n.arguments.length > 0 && fsMemberCallee(n, sc)) return;
      // declarations, keys and labels are not rewritten as expressions, but their contents may be
      if (n.type === 'VariableDeclarator' && k === 'id') return rewritePattern(c, sc, f, gen, isAsync);
      if (isFunction(n) && k === 'params') return rewritePattern(c, sc, f, gen, isAsync);
      if ((n.type === 'Property' || n.type === 'MethodDefinition' || n.type === 'PropertyDefinition') && k === 'key' && !n.computed) return;
      if (n.type === 'AssignmentExpression' && k === 'left' && n.left.type !== 'MemberExpression' && n.left.type !== 'Identifier') return rewritePattern(c, sc, f, gen, isAsync);
      if ((n.type === 'ForInStatement' || n.type === 'ForOfStatement') && k === 'left') return;
      if (n.type === 'UpdateExpression' && k === 'argument') {
        if (c.type === 'MemberExpression') {
          if (!c.computed) rewrite(c.object, c, 'object', sc, f, gen, isAsync);
          else {
            rewrite(c.object, c, 'object', sc, f, gen, isAsync);
            rewrite(c.property, c, 'property', sc, f, gen, isAsync);
          }
        }
        return;
      }
      if (n.type === 'AssignmentExpression' && k === 'left') {
        // a compound assignment re-reads its (simple) object and key from the source text
        if (c.type === 'MemberExpression' && n.operator === '=') {
          rewrite(c.object, c, 'object', sc, f, gen, isAsync);
          if (c.computed) rewrite(c.property, c, 'property', sc, f, gen, isAsync);
        }
        return;
      }
      if (n.type === 'UnaryExpression' && n.operator === 'delete' && c.type === 'MemberExpression') {
        rewrite(c.object, c, 'object', sc, f, gen, isAsync);
        if (c.computed) rewrite(c.property, c, 'property', sc, f, gen, isAsync);
        return;
      }
      if (n.type === 'CallExpression' && k === 'callee' && c.type === 'MemberExpression') {
        // a method call keeps its `this`: the object is rewritten, the method lookup is not
        rewrite(c.object, c, 'object', sc, f, gen, isAsync);
        if (c.computed) rewrite(c.property, c, 'property', sc, f, gen, isAsync);
        return;
      }
      if (n.type === 'ExportSpecifier' || n.type === 'ImportSpecifier') return;
      if (n.type === 'Property' && n.shorthand && k === 'value' && parent?.type === 'ObjectPattern') return;
      if (n.type === 'TaggedTemplateExpression' && k === 'tag') {
        if (c.type === 'MemberExpression') rewrite(c.object, c, 'object', sc, f, gen, isAsync);
        return;
      }
      rewrite(c, n, k, sc, f, gen, isAsync);
    });

    if (compiledBody !== undefined) return unwrapCompiledAsync(n, compiledBody);
    switch (n.type) {
      case 'Identifier': {
        if (!isReference(n, parent, key)) return;
        const b = bindingOf.get(n);
        if (!shared(b)) return;
        if (parent?.type === 'Property' && parent.shorthand) {
          s.appendLeft(n.end, `: __braid.rv(${n.name},${S(site(n.start, f))},${V(varIndex(b))},${scopeArg(b)})`);
          return;
        }
        if (parent?.type === 'ExportSpecifier') return;
        // `new AC()` of a shared variable (lru-cache's AbortController fallback): `new` must apply to
        // the value read, not to the read's call — `new (__braid.rv(AC,…))()`
        const callee = parent?.type === 'NewExpression' && key === 'callee';
        s.prependRight(n.start, callee ? '(__braid.rv(' : '__braid.rv(');
        s.appendLeft(n.end, `,${S(site(n.start, f))},${V(varIndex(b))},${scopeArg(b)})${callee ? ')' : ''}`);
        return;
      }
      case 'AssignmentExpression': {
        const left = n.left;
        // the right operand with the parentheses around it (`this.maxId = (a + 1)`: acorn's node is inside them)
        const [rs, re] = outerExtent(n.right);
        if (left.type === 'Identifier') {
          const b = bindingOf.get(left);
          if (!shared(b) || ['&&=', '||=', '??='].includes(n.operator)) return;
          const st = S(site(n.start, f));
          const tail = `,${st},${V(varIndex(b))},${scopeArg(b)})`;
          if (n.operator === '=') {
            s.prependRight(rs, '__braid.wv(');
            s.appendLeft(re, tail);
          } else {
            const op = n.operator.slice(0, -1);
            // x op= e → x = __braid.wv(__braid.rv(x,…) op (e),…): x read before e is evaluated
            s.overwrite(left.end, rs, ` = __braid.wv(__braid.rv(${left.name}${tail} ${op} (`);
            s.appendLeft(re, `)${tail}`);
          }
          return;
        }
        // `this.#x = v` → `this.#x = __braid.pw(this, "#x", v, S)`
        if (left.type === 'MemberExpression' && left.property.type === 'PrivateIdentifier') {
          if (['&&=', '||=', '??='].includes(n.operator) || insideChain.has(left) || !privateHolder(left.object, sc)) return;
          const holder = code.slice(left.object.start, left.object.end);
          const name = JSON.stringify('#' + left.property.name);
          const pst = S(site(left.property.start, f));
          if (n.operator === '=') s.prependRight(rs, `__braid.pw(${holder},${name},`);
          // `this.#n += e` → `this.#n = __braid.pw(this, "#n", __braid.pg(this.#n, this, "#n", S) + (e), S)`: read, then write
          else s.overwrite(left.end, rs, ` = __braid.pw(${holder},${name},__braid.pg(${holder}.#${left.property.name},${holder},${name},${pst}) ${n.operator.slice(0, -1)} (`);
          s.appendLeft(re, `${n.operator === '=' ? '' : ')'},${pst})`);
          return;
        }
        if (left.type !== 'MemberExpression' || insideChain.has(left) || !recordedObject(left.object, sc)) return;
        if (['&&=', '||=', '??='].includes(n.operator)) {
          // `o.x ??= e` → `(__braid.gp(o, "x", S) ?? __braid.sp(o, "x", (e), S))`: the read, and the write only when it happens
          if (!simple(left.object) || (left.computed && !simple(left.property))) return;
          const lst = S(site(left.property.start, f));
          const o1 = code.slice(left.object.start, left.object.end);
          const k1 = left.computed ? code.slice(left.property.start, left.property.end) : JSON.stringify(left.property.name);
          const get = left.computed ? `__braid.gc(${o1},${k1},${lst})` : `__braid.gp(${o1},${k1},${lst})`;
          s.overwrite(n.start, rs, `(${get} ${n.operator.slice(0, -1)} ${left.computed ? '__braid.sc' : '__braid.sp'}(${o1},${k1},(`);
          s.appendLeft(re, `),${lst}))`);
          return;
        }
        const st = S(site(left.property.start, f));
        if (n.operator === '=') {
          s.prependRight(n.start, left.computed ? '__braid.sc(' : '__braid.sp(');
          if (left.computed) {
            s.overwrite(left.object.end, left.property.start, objectTail(left, '[') + ',');
            s.overwrite(left.property.end, rs, memberTailAfterProperty(left) + ',');
          } else s.overwrite(left.object.end, rs, `${objectTail(left, '.')},${JSON.stringify(left.property.name)},`);
          s.appendLeft(re, `,${st})`);
          return;
        }
        // compound: only when the object (and key) can be evaluated twice
        if (!simple(left.object) || (left.computed && !simple(left.property))) return;
        const op = n.operator.slice(0, -1);
        const o1 = code.slice(left.object.start, left.object.end);
        const k1 = left.computed ? code.slice(left.property.start, left.property.end) : JSON.stringify(left.property.name);
        const get = left.computed ? `__braid.gc(${o1},${k1},${st})` : `__braid.gp(${o1},${k1},${st})`;
        s.overwrite(n.start, rs, `${left.computed ? '__braid.sc' : '__braid.sp'}(${o1},${k1},${get} ${op} (`);
        s.appendLeft(re, `),${st})`);
        return;
      }
      case 'UpdateExpression': {
        const a = n.argument;
        const delta = n.operator === '++' ? 1 : -1;
        if (a.type === 'Identifier') {
          const b = bindingOf.get(a);
          if (!shared(b)) return;
          s.prependRight(n.start, `(__braid.vu(${a.name},${delta},${S(site(n.start, f))},${V(varIndex(b))},${scopeArg(b)}),`);
          s.appendLeft(n.end, ')');
          return;
        }
        // `this.#n++` → `(__braid.pu(this, "#n", 1, S, this.#n), this.#n++)`
        if (a.type === 'MemberExpression' && a.property.type === 'PrivateIdentifier') {
          if (insideChain.has(a) || !privateHolder(a.object, sc)) return;
          const holder = code.slice(a.object.start, a.object.end);
          s.prependRight(n.start, `(__braid.pu(${holder},${JSON.stringify('#' + a.property.name)},${delta},${S(site(a.property.start, f))},${holder}.#${a.property.name}),`);
          s.appendLeft(n.end, ')');
          return;
        }
        if (a.type !== 'MemberExpression' || insideChain.has(a) || !recordedObject(a.object, sc)) return;
        const st = S(site(a.property.start, f));
        // remove the operator, then close with (delta, postfix, site)
        if (n.prefix) s.remove(n.start, a.start);
        else s.remove(a.end, n.end);
        s.prependRight(a.start, a.computed ? '__braid.uc(' : '__braid.up(');
        if (a.computed) {
          s.overwrite(a.object.end, a.property.start, objectTail(a, '[') + ',');
          s.overwrite(a.property.end, a.end, memberTailAfterProperty(a));
        } else s.overwrite(a.object.end, a.property.end, `${objectTail(a, '.')},${JSON.stringify(a.property.name)}`);
        s.appendLeft(a.end, `,${delta},${n.prefix ? 0 : 1},${st})`);
        return;
      }
      case 'UnaryExpression': {
        if (n.operator !== 'delete' || n.argument.type !== 'MemberExpression') return;
        const a = n.argument;
        if (insideChain.has(a) || !recordedObject(a.object, sc) || a.property.type === 'PrivateIdentifier') return;
        s.overwrite(n.start, a.start, a.computed ? '__braid.dc(' : '__braid.dp(');
        if (a.computed) {
          s.overwrite(a.object.end, a.property.start, objectTail(a, '[') + ',');
          s.overwrite(a.property.end, a.end, memberTailAfterProperty(a));
        } else s.overwrite(a.object.end, a.property.end, `${objectTail(a, '.')},${JSON.stringify(a.property.name)}`);
        s.appendLeft(a.end, `,${S(site(a.property.start, f))})`);
        return;
      }
      case 'MemberExpression': {
        // a private field read (`this.#valList`): `__braid.pg(this.#valList, this, "#valList", S)` (its holder evaluated twice: only `this` or a plain name)
        if (n.property.type === 'PrivateIdentifier') {
          if (insideChain.has(n) || !privateHolder(n.object, sc) || (parent?.type === 'NewExpression' && key === 'callee') || parent?.type === 'TaggedTemplateExpression') return;
          s.prependRight(n.start, '__braid.pg(');
          s.appendLeft(n.end, `,${code.slice(n.object.start, n.object.end)},${JSON.stringify('#' + n.property.name)},${S(site(n.property.start, f))})`);
          return;
        }
        if (insideChain.has(n) || !recordedObject(n.object, sc)) return;
        const st = S(site(n.property.start, f));
        if (n.computed) {
          s.prependRight(n.start, '__braid.gc(');
          s.overwrite(n.object.end, n.property.start, objectTail(n, '[') + ',');
          s.overwrite(n.property.end, n.end, memberTailAfterProperty(n) + `,${st})`);
        } else {
          s.prependRight(n.start, '__braid.gp(');
          s.overwrite(n.object.end, n.property.end, `${objectTail(n, '.')},${JSON.stringify(n.property.name)},${st})`);
        }
        // `new a.B(x)` (a TS loader's `new import_kv.FileKV(dir)`): `new` must apply to the value read,
        // not to the read's call — `new (__braid.gp(a,"B",S))(x)`
        if (parent?.type === 'NewExpression' && key === 'callee') {
          s.prependRight(n.start, '(');
          s.appendLeft(n.end, ')');
        }
        return;
      }
      case 'CallExpression': {
        const c = n.callee;
        // a file-system function imported by name, not shadowed here: `unlink(p)` → `__braid.fsf(unlink,"unlink",S)(p)`
        const fsMember = n.arguments.length > 0 ? fsMemberCallee(n, sc) : undefined;
        if (fsMember) {
          s.prependRight(fsMember.start, '__braid.fsf(');
          s.appendLeft(fsMember.end, `,${JSON.stringify(fsMember.property.name)},${S(site(fsMember.property.start, f))})`);
          return;
        }
        const fsFn = c.type === 'Identifier' && n.arguments.length > 0 ? fsFunctions.get(resolve(sc, c.name)!) : undefined;
        if (fsFn) {
          s.prependRight(c.start, '__braid.fsf(');
          s.appendLeft(c.end, `,${JSON.stringify(fsFn)},${S(site(c.start, f))})`);
          return;
        }
        // Atomics.store(view, i, v), Atomics.load(view, i), …, not shadowed here: `__braid.at("store",S,view,i,v)`
        // (runtime `at`: an access of the element and a happens-before token of it)
        if (
          c.type === 'MemberExpression' && !c.computed && !c.optional && !n.optional && !insideChain.has(n) && c.object.type === 'Identifier' && c.object.name === 'Atomics' &&
          c.property.type === 'Identifier' && ATOMIC_OPS.has(c.property.name) && n.arguments.length >= 2 && !n.arguments.some((a: N) => a.type === 'SpreadElement') && !resolve(sc, 'Atomics')
        ) {
          s.overwrite(c.start, argsOpen(n), `__braid.at(${JSON.stringify(c.property.name)},${S(site(c.property.start, f))},`);
          return;
        }
        // p.then(f) / p.catch(f) / p.finally(f): the callback is a task of its own (runtime `pt`)
        if (c.type === 'MemberExpression' && !c.computed && !insideChain.has(n) && c.property.type === 'Identifier' && PROMISE_METHODS.has(c.property.name) && c.object.type !== 'Super') {
          return throughRuntime(n, c, 'pt', '');
        }
        if (c.type !== 'MemberExpression' || c.computed || insideChain.has(n) || c.property.type !== 'Identifier' || !recordedObject(c.object, sc)) return;
        const spread = n.arguments.some((a: N) => a.type === 'SpreadElement');
        const arity = spread || n.arguments.length > 2 ? 'N' : String(n.arguments.length);
        const st = `,${S(site(c.property.start, f))}`;
        if (COLLECTION_METHODS.has(c.property.name)) return throughRuntime(n, c, `mc${arity}`, st);
        // a call through a field the module assigns (`self.drain()` where `queue.drain = fn` replaces the
        // hook): a read of that field when it is the object's own (runtime `fc0`…`fcN`), not a prototype's method
        if (assignedFields.has(c.property.name) && !c.optional && !n.optional && c.object.type !== 'Super') throughRuntime(n, c, `fc${arity}`, st);
        return;
      }
      case 'ImportExpression': {
        // import(x) in a CommonJS program: the runtime registers the ES-module hooks first (hook.ts registers them lazily there)
        if (!o.module) {
          s.prependRight(n.start, '__braid.imp(() => ');
          s.appendLeft(n.end, ')');
        }
        return;
      }
      case 'AwaitExpression':
        awaitPoint(n, f);
        return;
      case 'YieldExpression': {
        // in a compiled async function, a yield is the await it was written as
        if (f.node === null || !compiledAsync.has(f.node)) return;
        s.overwrite(n.start, n.start + 5, 'await', { contentOnly: true });
        if (n.argument) awaitPoint(n, f);
        else s.appendLeft(n.start + 5, ` __braid.aw(void 0,${S(site(n.start, f))})`);
        return;
      }
    }
    if (isFunction(n)) wrapFunction(n, f);
  }

  /** `o.m(a, …)` → `__braid.<fn>(o,"m"<extra>,a, …)`: the runtime makes the call (with `o` as `this`). */
  function throughRuntime(n: N, c: N, fn: string, extra: string): void {
    s.prependRight(n.start, `__braid.${fn}(`);
    const head = `${objectTail(c, '.')},${JSON.stringify(c.property.name)}${extra}`;
    if (n.arguments.length === 0) s.overwrite(c.object.end, n.end, head + ')');
    else s.overwrite(c.object.end, argsOpen(n), head + ',');
  }

  /** `await e` (or a compiled async function's `yield e`) → `await __braid.aw(e,S)`: the noise point. */
  function awaitPoint(n: N, f: FnScope): void {
    const arg = n.argument;
    // `await f(a, b)` with simple arguments: f's task is the awaiting task (the call is awaited at once)
    const inline = arg.type === 'CallExpression' && simpleArg(arg.callee) && arg.arguments.every((a: N) => simpleArg(a));
    // `await(async () => …)()` has no space after the keyword: one before the inserted call
    const gap = /[\w$]/.test(code[arg.start - 1] ?? '') ? ' ' : '';
    s.prependRight(arg.start, gap + (inline ? '__braid.aw((__braid.il = 1, ' : '__braid.aw('));
    s.appendLeft(arg.end, `${inline ? ')' : ''},${S(site(n.start, f))})`);
  }

  /**
   * The helper call of a compiled async function becomes the function itself, called as the helper
   * would call it: `__awaiter(this, arguments, void 0, function* (…) {…})` → `(function (…) {…}).apply(this,
   * arguments)`, `_asyncToGenerator(function* (…) {…})` → `(function (…) {…})`; wrapFunction made the
   * generator an async function. Line breaks between the tokens are kept.
   */
  function unwrapCompiledAsync(call: N, body: N): void {
    const breaks = (a: number, b: number) => code.slice(a, b).replace(/[^\n]/g, '');
    const a = call.arguments;
    const tail = compiledAsync.get(body) === 'awaiter' ? `).apply(${code.slice(a[0].start, a[0].end)}, ${code.slice(a[1].start, a[1].end)})` : ')';
    s.overwrite(call.start, body.start, `(${breaks(call.start, body.start)}`, { contentOnly: true });
    s.overwrite(body.end, call.end, `${tail}${breaks(body.end, call.end)}`, { contentOnly: true });
  }

  function rewritePattern(p: N, scope: Scope, f: FnScope, gen: boolean, asyncFn: boolean): void {
    // default values and computed keys inside a binding pattern
    if (p.type === 'AssignmentPattern') {
      rewritePattern(p.left, scope, f, gen, asyncFn);
      rewrite(p.right, p, 'right', scope, f, gen, asyncFn);
    } else if (p.type === 'ObjectPattern') {
      for (const prop of p.properties) {
        if (prop.type === 'RestElement') rewritePattern(prop.argument, scope, f, gen, asyncFn);
        else {
          if (prop.computed) rewrite(prop.key, prop, 'key', scope, f, gen, asyncFn);
          rewritePattern(prop.value, scope, f, gen, asyncFn);
        }
      }
    } else if (p.type === 'ArrayPattern') {
      for (const e of p.elements) if (e) rewritePattern(e, scope, f, gen, asyncFn);
    } else if (p.type === 'RestElement') rewritePattern(p.argument, scope, f, gen, asyncFn);
  }

  function scopeDecl(f: FnScope): string {
    return f.scopeVar ? `const ${f.scopeVar} = __braid.ns(); ` : '';
  }

  /** [start, end) of an arrow's expression body with the parentheses around it. */
  function arrowBodyExtent(n: N): [number, number] {
    let start = n.body.start;
    let end = n.body.end;
    const arrow = code.lastIndexOf('=>', start);
    let open = 0;
    for (let i = arrow + 2; i < start; i++) if (code[i] === '(') open++;
    if (open === 0) return [start, end];
    start = arrow + 2;
    for (let i = end; i < code.length && open > 0; i++) {
      const c = code[i];
      if (c === ')') {
        open--;
        end = i + 1;
      } else if (!/\s/.test(c)) break;
    }
    return [start, end];
  }

  function wrapFunction(n: N, f: FnScope): void {
    const entry = S(site(n.start, f));
    const compiled = compiledAsync.has(n);
    if (compiled) {
      // `function* (…)` → `function  (…)`: the body runs as an async function's (below)
      const star = code.indexOf('*', n.start);
      s.overwrite(star, star + 1, ' ');
    }
    if (n.generator && !compiled) {
      // generators suspend at yield: no frame of their own (docs/recorder-node.md, limits)
      if (f.scopeVar && n.body.type === 'BlockStatement') s.appendLeft(n.body.start + 1, scopeDecl(f));
      return;
    }
    const isArrowExpr = n.type === 'ArrowFunctionExpression' && n.body.type !== 'BlockStatement';
    // an expression body in parentheses (`() => ({})`: acorn's body is the object inside them): the
    // wrapped body takes the parentheses too, or they would enclose the block the wrapper writes
    const [bodyStart, bodyEnd] = isArrowExpr ? arrowBodyExtent(n) : [n.body.start + 1, n.body.end - 1];
    if (!isArrowExpr && hasDirective(n.body)) {
      // "use strict" in the body: keep it first; a plain frame after the prologue
      const last = directiveEnd(n.body);
      if (n.async || compiled) {
        // not wrapped (the directive must stay first in the function): no task of its own
        if (compiled) s.prependRight(n.start, 'async ');
        if (f.scopeVar) s.appendLeft(last, `${afterDirective(last)}${scopeDecl(f)}`);
        return;
      }
      s.appendLeft(last, `${afterDirective(last)}${scopeDecl(f)}const __bp = __braid.fe(${entry}); try {`);
      s.prependRight(bodyEnd, '} finally { __braid.fx(__bp); }');
      return;
    }
    if (n.async || compiled) {
      // async function: the body runs as an async arrow inside a plain function that gives it its task
      const asyncStart = n.start;
      if (compiled) {
        // no keyword to drop
      } else if (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration') {
        // drop the `async` keyword of the outer function
        const kw = code.slice(asyncStart, asyncStart + 5) === 'async' ? asyncStart : -1;
        if (kw >= 0) s.overwrite(kw, kw + 5, ' ');
        else {
          // a method: `async m() {}` — the keyword is before the key, in the parent node
          const methodKw = asyncKeywordBefore(n);
          if (methodKw < 0) return;
          s.overwrite(methodKw, methodKw + 5, ' ');
        }
      }
      // forcing runs (forcing.ts) may hold the task at the body's start: one more await, only then
      if (isArrowExpr) wrap(bodyStart, bodyEnd, `{ ${scopeDecl(f)}const __bp = __braid.as(${entry}); try { return (async () => (__braid.F && __braid.hf(${entry}) && await __braid.hp, `, `))(); } finally { __braid.ae(__bp); } }`);
      else wrap(bodyStart, bodyEnd, ` ${scopeDecl(f)}const __bp = __braid.as(${entry}); try { return (async () => { if (__braid.F && __braid.hf(${entry})) await __braid.hp; `, `})(); } finally { __braid.ae(__bp); }`);
      return;
    }
    if (isArrowExpr) wrap(bodyStart, bodyEnd, `{ ${scopeDecl(f)}const __bp = __braid.fe(${entry}); try { return (`, `); } finally { __braid.fx(__bp); } }`);
    else wrap(bodyStart, bodyEnd, ` ${scopeDecl(f)}const __bp = __braid.fe(${entry}); try {`, `} finally { __braid.fx(__bp); }`);
  }

  /** Puts `open` before and `close` after a body; an empty body (`() => {}`: start = end) gets both, in order. */
  function wrap(start: number, end: number, open: string, close: string): void {
    if (start === end) {
      s.appendLeft(start, open + close);
      return;
    }
    s.prependRight(start, open);
    s.appendLeft(end, close);
  }

  const methodAsync = new Map<N, number>();
  function asyncKeywordBefore(n: N): number {
    return methodAsync.get(n) ?? -1;
  }
  // `async` keywords of methods (`async m() {}`, `{ async m() {} }`): the function node starts at `(`
  (function findMethods(n: N) {
    if ((n.type === 'MethodDefinition' || n.type === 'Property') && n.value && isFunction(n.value) && n.value.async) {
      const text = code.slice(n.start, n.key.start);
      const k = text.search(/\basync\b/);
      if (k >= 0) methodAsync.set(n.value, n.start + k);
    }
    forEachChild(n, (c) => findMethods(c));
  })(ast);

  function hasDirective(body: N): boolean {
    return body.body.length > 0 && body.body[0].type === 'ExpressionStatement' && typeof body.body[0].directive === 'string';
  }
  /** A node's extent with the parentheses that enclose it and only it (acorn's node starts and ends
   *  inside them): code that rewrites up to the node's start must keep them both or neither. */
  function outerExtent(node: N): [number, number] {
    let [a, b] = [node.start, node.end];
    for (;;) {
      let i = a - 1;
      while (i >= 0 && /\s/.test(code[i])) i--;
      let j = b;
      while (j < code.length && /\s/.test(code[j])) j++;
      if (code[i] !== '(' || code[j] !== ')') return [a, b];
      [a, b] = [i, j + 1];
    }
  }
  /** The position just after a call's opening parenthesis: what follows it up to the first argument
   *  (spaces, comments, the parentheses of a parenthesized argument — `q.push((a, b))`, whose node
   *  starts inside them) is kept when the callee is rewritten up to there. */
  function argsOpen(call: N): number {
    let i = call.callee.end;
    while (i < call.arguments[0].start) {
      if (code.startsWith('//', i)) i = code.indexOf('\n', i) < 0 ? call.arguments[0].start : code.indexOf('\n', i);
      else if (code.startsWith('/*', i)) i = code.indexOf('*/', i) + 2;
      else if (code[i] === '(') return i + 1;
      else i++;
    }
    return call.arguments[0].start;
  }
  /** What goes between a directive prologue that ends at `end` and code inserted after it on the same
   *  line: a directive without its semicolon (`'use strict'` in standard style) needs one, or the
   *  inserted declaration would continue its expression statement (a SyntaxError). */
  function afterDirective(end: number): string {
    return code[end - 1] === ';' ? ' ' : '; ';
  }
  function directiveEnd(body: N): number {
    let end = body.start + 1;
    for (const st of body.body) {
      if (st.type === 'ExpressionStatement' && typeof st.directive === 'string') end = st.end;
      else break;
    }
    return end;
  }

  const assignedFields = assignedFieldNames(ast);
  rewrite(ast, null, '', programScope, programFn, false, false);
  const fields = dotFieldNames(ast);

  // module prelude: after a hashbang line and the directive prologue, on an existing line
  let at = 0;
  if (code.startsWith('#!')) {
    const nl = code.indexOf('\n');
    at = nl < 0 ? code.length : nl + 1;
  }
  if (hasDirective(ast)) at = directiveEnd(ast);
  const prelude = `${at > 0 && at === directiveEnd(ast) && hasDirective(ast) ? afterDirective(at) : ''}const [__bl, __bv] = __braid.mod(${JSON.stringify(o.file)}, ${JSON.stringify(locTable)}, ${JSON.stringify(varTable)}, ${JSON.stringify(mappedFile ?? null)}, ${JSON.stringify(fields)}); `;
  s.prependLeft(at, prelude);
  const out = s.toString();
  // a file that came with an inline source map (a TS loader's output): the map now describes the
  // instrumented code, so the program's own stack traces still name the right .ts lines
  return { code: mapper.active ? withComposedMap(mapper, out, s) : out, sites: locTable.length / 2 };
}

/**
 * The instrumented code with its inline source map replaced by one composed of the transform's
 * edits (MagicString's map: instrumented → incoming positions) and the incoming map (incoming →
 * the .ts source; `incoming`, decoded and indexed once). Unchanged when the incoming map cannot be read.
 */
function withComposedMap(incoming: InlineSourceMap, out: string, s: MagicString): string {
  const o = INLINE_SOURCE_MAP.exec(out);
  if (!o) return out;
  try {
    const ours = s.generateDecodedMap({ hires: 'boundary' }).mappings;
    const composed: SourceMapSegment[][] = ours.map((line) => {
      const segs: SourceMapSegment[] = [];
      for (const seg of line) {
        if (seg.length < 4) continue;
        // the incoming segment covering the column: the last one that starts at or before it
        const k = incoming.segmentAt(seg[2]!, seg[3]!, false);
        if (k < 0) continue;
        const [src, srcLine, srcCol] = incoming.original(k);
        segs.push([seg[0], src, srcLine, srcCol]);
      }
      return segs;
    });
    const h = incoming.head;
    const next = { version: 3, ...(h.file ? { file: h.file } : {}), ...(h.sourceRoot ? { sourceRoot: h.sourceRoot } : {}), sources: h.sources, ...(h.sourcesContent ? { sourcesContent: h.sourcesContent } : {}), names: [], mappings: encode(composed) };
    const url = `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(next)).toString('base64')}`;
    return out.slice(0, o.index) + url + out.slice(o.index + o[0].trimEnd().length);
  } catch {
    return out;
  }
}

/**
 * The property names the module assigns a value to as `o.name = …` (not a method of a class or of an
 * object literal, not `o.name += …`): a call `x.name(…)` of such a name goes through a field that the
 * program replaces at run time — a hook (`queue.drain = fn`), a callback kept for later — and is recorded
 * as a read of it (docs/recorder-node.md, "What is recorded").
 */
export function assignedFieldNames(ast: N): Set<string> {
  const names = new Set<string>();
  eachNode(ast, (node) => {
    if (node.type === 'AssignmentExpression' && node.operator === '=' && node.left.type === 'MemberExpression' && !node.left.computed && node.left.property?.type === 'Identifier' && node.left.property.name !== 'prototype')
      names.add(node.left.property.name);
  });
  for (const m of PROMISE_METHODS) names.delete(m);
  return names;
}

/** Every node of the tree, depth first (without recursion: a long chain of binary expressions is deep). */
function eachNode(ast: N, visit: (node: N) => void): void {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const n = stack.pop();
    if (n === null || typeof n !== 'object') continue;
    if (Array.isArray(n)) {
      for (const c of n) stack.push(c);
      continue;
    }
    const node = n as N;
    if (typeof node.type !== 'string') continue;
    visit(node);
    for (const k in node) if (k !== 'loc' && k !== 'range' && k !== 'start' && k !== 'end' && k !== 'type') stack.push(node[k]);
  }
}

/**
 * The property names the module's code writes as `o.name` (a non-computed member): a computed access
 * with such a name (`list[this._startPosition]` where the position is `'head'`, `node[dir]` with
 * `'next'`) is the same field (runtime.ts recordElem), not an entry of a dictionary.
 */
export function dotFieldNames(ast: N): string[] {
  const names = new Set<string>();
  eachNode(ast, (node) => {
    if (node.type === 'MemberExpression' && !node.computed && node.property?.type === 'Identifier') names.add(node.property.name);
  });
  return [...names].sort();
}
