/**
 * Short, distinguishing display names shared by the tree views, hover, code
 * lenses and webviews (issue 16): the class's simple name and the member
 * (`MyVector.size` for `vectorcopy.VectorCopy$MyVector.size`), file names with
 * their line, lambdas read as "lambda in main", and thread names with the
 * pattern's roles as a legend (`T1 = copier`). The full names go in tooltips.
 * Pure functions, no dependencies: importable from server, client and webviews.
 */

/** `pkg.Outer$Inner` → `Inner`; anonymous classes keep their outer class (`Outer$1`). */
export function simpleClassName(cls: string): string {
  const last = cls.slice(cls.lastIndexOf('.') + 1);
  const parts = last.split('$').filter(Boolean);
  if (!parts.length) return last;
  let k = parts.length - 1;
  // `Outer$1` (anonymous) or `Outer$$Lambda$14` (a lambda's class): keep the named class before it
  while (k > 0 && (/^\d+$/.test(parts[k]) || parts[k] === 'Lambda')) k--;
  return parts.slice(k).join('$').replace(/\$Lambda(\$\d+)*$/, ' lambda');
}

/** `lambda$main$1` → `lambda in main`; `lambda$static$0` → `lambda`; other names unchanged. */
export function readableMember(member: string): string {
  const m = /^lambda\$(.*?)\$\d+$/.exec(member);
  if (m) return m[1] && m[1] !== 'static' && m[1] !== 'new' ? `lambda in ${m[1].replace(/\$/g, '.')}` : 'lambda';
  return member;
}

/**
 * `vectorcopy.VectorCopy$MyVector.addAll(Collection)` → `MyVector.addAll`,
 * `vectorcopy.VectorCopy.lambda$main$1` → `VectorCopy.lambda in main`.
 */
export function shortMethod(method: string): string {
  const noArgs = method.replace(/\(.*\)$/, '');
  const dot = noArgs.lastIndexOf('.');
  if (dot < 0) return readableMember(noArgs);
  return `${simpleClassName(noArgs.slice(0, dot))}.${readableMember(noArgs.slice(dot + 1))}`;
}

/**
 * `vectorcopy.VectorCopy$MyVector.data[]` → `MyVector.data[]` (static and instance fields alike); an
 * element index stays (`java.lang.Object[][0]` → `Object[][0]`, the Tracer's array elements), and a
 * variable that is a type (a library object's, `java.util.HashMap`) is its simple name, `HashMap`.
 */
export function shortVariable(variable: string): string {
  const index = /(\[\d+\])+$/.exec(variable);
  if (index) return shortVariable(variable.slice(0, index.index)) + index[0];
  // the elements of an array known only by its type (a library's internal array): `java.lang.Object[]` → `Object[]`
  if (/^[\w$.]+\.[A-Z][\w$]*(\[\])+$/.test(variable)) return simpleClassName(variable.replace(/(\[\])+$/, '')) + variable.slice(variable.indexOf('['));
  const dot = variable.lastIndexOf('.');
  if (dot < 0) return variable;
  // a type: a class name after a package only (`java.util.HashMap`, no class among the parts before it)
  if (/^[a-z_][\w]*(\.[a-z_][\w]*)*\.[A-Z][\w$]*$/.test(variable) && !/[A-Z$]/.test(variable.slice(0, dot))) return simpleClassName(variable);
  return `${simpleClassName(variable.slice(0, dot))}.${variable.slice(dot + 1)}`;
}

/**
 * A recorded value as short text: the agent's `"Type@id"` for an object without its package
 * (`java.util.HashMap@1b6d3586` → `HashMap@1b6d3586`), other strings quoted (JSON), numbers,
 * booleans and null as they are; anything longer than `max` characters cut with `…`.
 */
export function shortValue(v: unknown, max = 80): string {
  let s: string;
  const obj = typeof v === 'string' ? /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)((?:\[\])*)@(-?[0-9a-fA-F]+)$/.exec(v) : null;
  if (obj) s = `${simpleClassName(obj[1])}${obj[2]}@${obj[3]}`;
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** `src/main/java/bank/Account.java` → `Account.java` */
export function shortFile(file: string): string {
  const parts = file.replace(/\\/g, '/').split('/');
  return parts[parts.length - 1] || file;
}

/** `Account.java:42` */
export function fileLine(file: string, line?: number): string {
  return `${shortFile(file)}${line ? `:${line}` : ''}`;
}

interface RoleAccess {
  thread: number;
  threadName?: string;
}

/** The thread name of each role of a pattern (role 1 = the thread of its first access), when the traces name it. */
export function roleNames(accesses: readonly RoleAccess[]): Map<number, string> {
  const out = new Map<number, string>();
  // a thread named like its role (`T1` for role 1) adds nothing to the legend
  for (const a of accesses) if (a.threadName && a.threadName !== `T${a.thread}` && !out.has(a.thread)) out.set(a.thread, a.threadName);
  return out;
}

/** The name shown for the thread of an access: its real name, else its role `T1`. */
export function threadLabel(a: RoleAccess, names = roleNames([a])): string {
  return names.get(a.thread) ?? a.threadName ?? `T${a.thread}`;
}

/** `T1 = copier · T2 = main` (roles without a name are left out; empty when none has one). */
export function threadLegend(accesses: readonly RoleAccess[]): string {
  const names = roleNames(accesses);
  return [...names.keys()]
    .sort((a, b) => a - b)
    .map((r) => `T${r} = ${names.get(r)}`)
    .join(' · ');
}
