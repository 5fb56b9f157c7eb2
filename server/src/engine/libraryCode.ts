/**
 * Library code versus the user's code. An access whose source location is
 * in the JDK or a library (a file under java/, kotlin/, scala/ or
 * org/junit/, or a method of such a package) is shown at its nearest caller
 * frame in the user's code: heat, hover, code lens and
 * clicks go to the line where the user called the library; the pattern
 * still names the library line (`ArrayList.java:455, called from
 * UnsafeList.java:21`). A caller (the language server) that knows the
 * workspace's source roots can pass its own predicate instead. Not jdk/, sun/,
 * com/sun/ or javax/ (issue 38): the Java agent never records the JDK's classes
 * (a class is the JDK's by its class loader, JdkClasses), so an access
 * recorded there is a library of the class path (Jersey 1.x's com.sun.jersey,
 * a javax.cache implementation), shown at its own line as any other
 * library's (org/apache/commons/...).
 */
export type LibraryPredicate = (file: string, method: string) => boolean;

const LIBRARY_PREFIXES = ['java/', 'kotlin/', 'scala/', 'org/junit/'];

export const isLibraryCode: LibraryPredicate = (file, method) => {
  const f = file.replace(/\\/g, '/');
  for (const p of LIBRARY_PREFIXES) if (f.startsWith(p)) return true;
  const m = method.replace(/\//g, '.');
  for (const p of LIBRARY_PREFIXES) if (m.startsWith(p.replace(/\//g, '.'))) return true;
  return false;
};

export interface FrameRef {
  file: string;
  line: number;
  method: string;
}

/**
 * The nearest frame of `stack` (bottom first, top = the access itself) in
 * the user's code, searching from the top; undefined when the access is in
 * user code already or no frame is.
 */
export function nearestUserFrame(top: FrameRef, stack: readonly FrameRef[], isLibrary: LibraryPredicate = isLibraryCode): FrameRef | undefined {
  if (!isLibrary(top.file, top.method)) return undefined;
  for (let k = stack.length - 1; k >= 0; k--) {
    const f = stack[k];
    if (!isLibrary(f.file, f.method) && f.line > 0) return f;
  }
  return undefined;
}
