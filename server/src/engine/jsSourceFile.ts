/**
 * A JavaScript or TypeScript source file (`.js .mjs .cjs .jsx .ts .mts .cts .tsx`): the files the
 * Node.js recorder instruments, an entry script, a pattern's JS accesses. Imports nothing, so the
 * recorder's hook bundle can take it.
 */
export const JS_SOURCE_FILE = /\.(?:js|mjs|cjs|jsx|ts|mts|cts|tsx)$/;

export function isJsSourceFile(file: string): boolean {
  return JS_SOURCE_FILE.test(file);
}
