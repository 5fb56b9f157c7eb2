/**
 * The parameter types of a JUnit 5 test method as JUnit's method selector wants them
 * (`--select-method pkg.FooTest#m(java.lang.String,int[])`): a @ParameterizedTest has parameters, and
 * a selector without them finds no method ("Could not find method with name [m]"). Types are resolved
 * from the test's source the way javac would for the common cases: primitives as they are, the
 * single-type imports, types declared in the same file (nested ones as Outer$Inner), java.lang, a
 * name that is already qualified, and else the test's own package. Generic arguments are dropped
 * (erasure), `T...` and `T[]` are arrays.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { blankJava, classDeclarations, findTests } from './testDiscovery';

const PRIMITIVES = new Set(['boolean', 'byte', 'char', 'short', 'int', 'long', 'float', 'double']);
/** java.lang's types a test method's parameter is likely to name (String, boxed primitives, …). */
const JAVA_LANG = new Set([
  'Object', 'String', 'CharSequence', 'Boolean', 'Byte', 'Character', 'Short', 'Integer', 'Long', 'Float', 'Double', 'Number',
  'Class', 'Enum', 'Runnable', 'Thread', 'Throwable', 'Exception', 'RuntimeException', 'Error', 'Iterable', 'Comparable', 'Void',
  'StringBuilder', 'StringBuffer', 'Math', 'System', 'Record', 'AutoCloseable',
]);

/** Splits a parameter list at its top-level commas (not those inside generic arguments). */
function splitParameters(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let k = 0; k < list.length; k++) {
    const c = list[k];
    if (c === '<' || c === '(') depth++;
    else if ((c === '>' || c === ')') && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(from, k));
      from = k + 1;
    }
  }
  out.push(list.slice(from));
  return out.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** The type of one parameter declaration (`final @Mock Map<String, Integer> m` → `Map`, dims). */
function declaredType(param: string): { name: string; dims: number } | undefined {
  let p = param;
  // annotations with their arguments, `final`, generic arguments
  for (let prev = ''; prev !== p; ) {
    prev = p;
    p = p.replace(/@\s*[\w$.]+\s*(\([^()]*\))?/g, ' ').replace(/<[^<>]*>/g, '');
  }
  p = p.replace(/\bfinal\b/g, ' ').trim();
  const varargs = /\.\.\./.test(p);
  p = p.replace(/\.\.\./g, ' [] ');
  // the trailing name (and C-style dims after it: `int a[]`)
  const m = /^([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)((?:\s*\[\s*\])*)\s+([A-Za-z_$][\w$]*)((?:\s*\[\s*\])*)$/.exec(p);
  if (!m) return undefined;
  const dims = (m[2].match(/\[/g)?.length ?? 0) + (m[4].match(/\[/g)?.length ?? 0);
  return { name: m[1].replace(/\s+/g, ''), dims: varargs ? Math.max(dims, 1) : dims };
}

/**
 * The binary names of `parameters` (a method's parameter list as written in `source`), or undefined
 * when one cannot be read (then the selector names the method only, as before).
 */
export function selectorParameterTypes(parameters: string, source: string): string[] | undefined {
  const text = blankJava(source);
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^\s*import\s+([\w.]+)\s*;/gm)) imports.set(m[1].slice(m[1].lastIndexOf('.') + 1), m[1]);
  // types declared in this file: top-level ones by the declarations, nested ones by their simple name
  const declared = new Map<string, string>();
  for (const d of classDeclarations(source)) declared.set(d.className.slice(d.className.lastIndexOf('.') + 1), d.className);
  const top = [...declared.values()][0];
  for (const m of text.matchAll(/\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/g)) {
    if (!declared.has(m[1]) && top) declared.set(m[1], `${top}$${m[1]}`);
  }
  const resolve = (name: string): string => {
    if (PRIMITIVES.has(name)) return name;
    const [first, ...rest] = name.split('.');
    const nested = rest.length ? `$${rest.join('$')}` : '';
    const imported = imports.get(first);
    if (imported) return imported + nested;
    const own = declared.get(first);
    if (own) return own + nested;
    if (!rest.length && JAVA_LANG.has(first)) return `java.lang.${first}`;
    // a qualified name: the package is the lower-case part, the classes after it are nested
    if (rest.length && /^[a-z]/.test(first)) {
      const parts = name.split('.');
      const k = parts.findIndex((x) => /^[A-Z]/.test(x));
      return k <= 0 ? name : `${parts.slice(0, k + 1).join('.')}${parts.slice(k + 1).map((x) => `$${x}`).join('')}`;
    }
    return pkg ? `${pkg}.${first}${nested}` : first + nested;
  };
  const out: string[] = [];
  for (const p of splitParameters(parameters)) {
    const t = declaredType(p);
    if (!t) return undefined;
    out.push(resolve(t.name) + '[]'.repeat(t.dims));
  }
  return out;
}

/**
 * `Class#method` or `Class#method(Type, …)` for JUnit's method selector: the method with its
 * parameter types when it has parameters.
 */
export function methodSelector(className: string, method: string, parameterTypes: readonly string[] | undefined): string {
  return parameterTypes?.length ? `${className}#${method}(${parameterTypes.join(',')})` : `${className}#${method}`;
}

/**
 * The binary parameter types of test `className#method` as declared in its source `file` (the first
 * of overloads); undefined when it has none, the file cannot be read or a type cannot be read.
 */
export function declaredParameterTypes(file: string, className: string, method: string, depth = 0): string[] | undefined {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let parameters: string | undefined;
  try {
    parameters = findTests(source).find((t) => t.className === className && t.method === method)?.parameters;
  } catch {
    return undefined; // discovery gave up on the file (its budget): the selector names the method only
  }
  if (parameters !== undefined) return selectorParameterTypes(parameters, source);
  // an inherited test (stormpot's ThreadedPoolTest runs AllocatorBasedPoolTest's @ParameterizedTest
  // methods): the superclass's source, in the same package's folder or by its single-type import
  const parent = depth < 8 ? superclassSource(file, className, source) : undefined;
  return parent ? declaredParameterTypes(parent.file, parent.className, method, depth + 1) : undefined;
}

/** The source file and binary name of the top-level class `className`'s superclass, when it can be found beside it. */
function superclassSource(file: string, className: string, source: string): { file: string; className: string } | undefined {
  const simple = className.slice(className.lastIndexOf('.') + 1);
  const code = blankJava(source);
  const decl = new RegExp(`\\bclass\\s+${simple}\\b(?:\\s*<[^{]*?>)?\\s+extends\\s+([\\w.]+)`).exec(code);
  if (!decl) return undefined;
  const name = decl[1];
  const pkg = className.includes('.') ? className.slice(0, className.lastIndexOf('.')) : '';
  const imported = new RegExp(`^\\s*import\\s+([\\w.]+\\.${name.replace(/\./g, '\\.')})\\s*;`, 'm').exec(code)?.[1];
  const qualified = name.includes('.') ? name : imported ?? (pkg ? `${pkg}.${name}` : name);
  // the source root: the file's folder less its package's folders
  const dir = path.dirname(file);
  const pkgPath = pkg ? pkg.split('.').join(path.sep) : '';
  if (pkgPath && !dir.endsWith(pkgPath)) return undefined;
  const root = pkgPath ? dir.slice(0, dir.length - pkgPath.length) : dir;
  const candidate = path.join(root, ...qualified.split('.')) + '.java';
  return existsSync(candidate) ? { file: candidate, className: qualified } : undefined;
}
