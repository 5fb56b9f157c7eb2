/**
 * Test runners that run the user's modules through `node:vm` instead of Node's module loaders
 * (docs/recorder-node.md "Test runners"): vitest (vite-node: the module's Vite output, wrapped in an
 * async arrow, compiled with `vm.runInThisContext` under the module's file name) and jest
 * (jest-runtime: `new vm.Script(wrapper, { filename })`, run with `script.runInContext(context)` in the
 * test environment's own context). The code of a user file (the include/exclude rule) is instrumented
 * before it is compiled — its inline source map leads back to the `.ts` lines — and a context that the
 * code runs in gets the runtime as its `__braid` global.
 */
import { instrument } from './transform';

type VmModule = {
  runInThisContext(code: string, options?: unknown): unknown;
  Script: new (code: string, options?: unknown) => { runInContext(context: object, options?: unknown): unknown };
};

/** vite-node's wrapper of a module's Vite output (top-level await inside an async arrow: parsed as a module body). */
const VITE_NODE = /^('use strict';async \([^)]*\)=>\{\{)([\s\S]*)(\n\}\})$/;
/** jest-runtime's wrapper of a module (a CommonJS body). */
const JEST = /^(\(\{"Object\.<anonymous>":function\([^)]*\)\{)([\s\S]*)(\n\}\}\);?)$/;

/** The file name a vm compile names (an options object's `filename`, or the options string). */
function fileNameOf(options: unknown): string | undefined {
  if (typeof options === 'string') return options;
  if (options !== null && typeof options === 'object') {
    const f = (options as { filename?: unknown }).filename;
    if (typeof f === 'string') return f;
  }
  return undefined;
}

/**
 * Wraps `vm.runInThisContext` and `vm.Script` of `vm` (the module object every importer shares) so
 * that the code of the files `matches` accepts is instrumented (named in the trace by `name`); `runtime` is what `__braid` names.
 */
export function instrumentVmModules(vm: VmModule, matches: (file: string) => boolean, name: (file: string) => string, runtime: object): void {
  const code = (text: unknown, options: unknown): unknown => {
    const file = fileNameOf(options);
    if (typeof text !== 'string' || !file || file.startsWith('node:') || !matches(file)) return text;
    // only the module's body, inside the runner's wrapper: its declarations stay the module's (a
    // script's top-level const would be global, shared by every module the runner compiles)
    const w = VITE_NODE.exec(text) ?? JEST.exec(text);
    if (!w) return text;
    try {
      return w[1] + instrument(w[2], { file: name(file), module: VITE_NODE.test(text) }).code + w[3];
    } catch (e) {
      process.stderr.write(`Braid recorder: ${name(file)} is not instrumented: ${(e as Error).message}\n`);
      return text;
    }
  };
  const runInThisContext = vm.runInThisContext;
  vm.runInThisContext = function (this: unknown, text: string, options?: unknown, ...rest: unknown[]) {
    return (runInThisContext as (...a: unknown[]) => unknown).call(this, code(text, options), options, ...rest);
  };
  const Script = vm.Script;
  const runInContext = Script.prototype.runInContext;
  class BraidScript extends Script {
    constructor(text: string, options?: unknown) {
      super(code(text, options) as string, options);
    }
  }
  // the test environment's context (jest): its own global object, where the instrumented code looks up __braid
  Script.prototype.runInContext = function (this: unknown, context: object, ...rest: unknown[]) {
    if (context !== null && typeof context === 'object' && !('__braid' in context)) Object.defineProperty(context, '__braid', { value: runtime, configurable: true, writable: true });
    return runInContext.call(this as never, context, ...rest);
  };
  Object.defineProperty(BraidScript, 'name', { value: 'Script' });
  vm.Script = BraidScript;
}
