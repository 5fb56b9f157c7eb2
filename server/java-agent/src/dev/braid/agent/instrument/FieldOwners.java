package dev.braid.agent.instrument;

import java.io.InputStream;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;

/**
 * The class that declares a field an instruction names (issue 38): javac names the class of the
 * reference, so {@code GenericObjectPool.close()} writes {@code putfield GenericObjectPool.closed}
 * while {@code BaseGenericObjectPool.isClosed()} reads {@code getfield BaseGenericObjectPool.closed};
 * both are one field and must be one variable, or the check-then-act between them never forms a
 * pattern. Resolved at instrumentation time from the class files the class's loader can read (as
 * resources: no class is loaded or initialised), walking up the superclasses as the JVM's field
 * resolution does (JVMS 5.4.3.2: the class, its interfaces, then its superclass). A class file that
 * cannot be read leaves the instruction's owner (the behaviour before).
 */
final class FieldOwners {
  private FieldOwners() {}

  /** (loader identity, owner, field) → declaring class (internal name) */
  private static final ConcurrentHashMap<String, String> CACHE = new ConcurrentHashMap<>();
  /** (loader identity, class) → its fields and supertypes, or MISSING */
  private static final ConcurrentHashMap<String, Shape> SHAPES = new ConcurrentHashMap<>();
  private static final Shape MISSING = new Shape(null, new String[0], new java.util.HashSet<>());
  private static final int MAX_DEPTH = 64;

  private static final class Shape {
    final String superName;
    final String[] interfaces;
    final java.util.Set<String> fields;

    Shape(String superName, String[] interfaces, java.util.Set<String> fields) {
      this.superName = superName;
      this.interfaces = interfaces;
      this.fields = fields;
    }
  }

  /**
   * @param loader the loader of the class being instrumented (null: the boot loader)
   * @param owner the instruction's owner (internal name)
   * @return the internal name of the declaring class, or {@code owner} when it cannot be told
   */
  static String declaring(ClassLoader loader, String owner, String name) {
    String key = System.identityHashCode(loader) + "\u0000" + owner + "\u0000" + name;
    String hit = CACHE.get(key);
    if (hit != null) return hit;
    String found = find(loader, owner, name, 0);
    String result = found != null ? found : owner;
    CACHE.put(key, result);
    return result;
  }

  private static String find(ClassLoader loader, String cls, String name, int depth) {
    if (cls == null || depth > MAX_DEPTH) return null;
    Shape s = shape(loader, cls);
    if (s == MISSING) return null;
    if (s.fields.contains(name)) return cls;
    for (String i : s.interfaces) {
      String f = find(loader, i, name, depth + 1);
      if (f != null) return f;
    }
    return find(loader, s.superName, name, depth + 1);
  }

  /** What {@link #walkToJdkTypes} does with each JDK type it reaches. */
  interface JdkTypeVisitor {
    /** @return true to stop the walk */
    boolean visit(String jdkInternalName);
  }

  /**
   * Walks the supertypes of {@code owner} (itself first) breadth first, as their class files name them
   * ({@link #supertypes}), and hands each JDK type it reaches to {@code visitor}, whose own supertypes
   * it does not walk (the JDK type is looked up by the visitor, in the boot loader). A class file that
   * cannot be read ends that branch; {@code java/lang/Object} and types seen before are skipped; at most
   * {@code maxTypes} types are visited. Shared by the questions asked of a call's owner at
   * instrumentation time: is it a recorded collection ({@link CollectionSubtypes}), a {@code Lock}
   * ({@link LockTypes}).
   *
   * @return true when the visitor stopped the walk
   */
  static boolean walkToJdkTypes(ClassLoader loader, String owner, int maxTypes, JdkTypeVisitor visitor) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>();
    todo.add(owner);
    while (!todo.isEmpty() && seen.size() < maxTypes) {
      String t = todo.poll();
      if (t == null || t.equals("java/lang/Object") || !seen.add(t)) continue;
      if (MethodInstrumenter.isJdkClass(t)) {
        if (visitor.visit(t)) return true;
        continue;
      }
      String[] supers = supertypes(loader, t);
      if (supers == null) continue;
      for (String s : supers) if (s != null) todo.add(s);
    }
    return false;
  }

  /**
   * The superclass (first, null for none) and interfaces of {@code cls} as its class file names them,
   * read as FieldOwners reads fields (CollectionSubtypes); null when the class file cannot be read.
   */
  static String[] supertypes(ClassLoader loader, String cls) {
    Shape s = shape(loader, cls);
    if (s == MISSING) return null;
    String[] out = new String[s.interfaces.length + 1];
    out[0] = s.superName;
    System.arraycopy(s.interfaces, 0, out, 1, s.interfaces.length);
    return out;
  }

  private static Shape shape(ClassLoader loader, String cls) {
    String key = System.identityHashCode(loader) + "\u0000" + cls;
    Shape s = SHAPES.get(key);
    if (s != null) return s;
    s = read(loader, cls);
    SHAPES.put(key, s);
    return s;
  }

  private static Shape read(ClassLoader loader, String cls) {
    String resource = cls + ".class";
    try (InputStream in = loader != null ? loader.getResourceAsStream(resource) : ClassLoader.getSystemResourceAsStream(resource)) {
      if (in == null) return MISSING;
      ClassReader r = new ClassReader(in);
      java.util.Set<String> fields = new java.util.HashSet<>();
      r.accept(new ClassVisitor(AsmApi.VERSION) {
        @Override
        public FieldVisitor visitField(int access, String fname, String descriptor, String signature, Object value) {
          fields.add(fname);
          return null;
        }
      }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
      return new Shape(r.getSuperName(), r.getInterfaces(), fields);
    } catch (Throwable t) {
      return MISSING;
    }
  }
}
