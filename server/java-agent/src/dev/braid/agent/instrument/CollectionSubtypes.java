package dev.braid.agent.instrument;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Application and library types that are recorded JDK collections (issue 38, expiringmap #30): a class
 * declared outside the JDK that extends one ({@code EntryLinkedHashMap extends LinkedHashMap}), or an
 * interface that extends one ({@code EntryMap extends Map}). javac names that type, not the JDK's, as
 * the owner of a call made through it ({@code entries.put(k, e)} is {@code invokeinterface
 * ExpiringMap$EntryMap.put}), so such a call was no library call and the backing map was never seen.
 * Resolved at instrumentation time from the class files the class's loader can read (as resources, no
 * class of the application is loaded: {@link FieldOwners#walkToJdkTypes}); the JDK supertypes found are
 * looked up in the boot loader, where they are loaded already.
 */
final class CollectionSubtypes {
  private CollectionSubtypes() {}

  /** What a collection subtype answers: the names of the JDK methods it inherits, and whether an atomic. */
  static final class Info {
    final Set<String> methods;
    final boolean atomic;

    Info(Set<String> methods, boolean atomic) {
      this.methods = methods;
      this.atomic = atomic;
    }
  }

  private static final Info NONE = new Info(Collections.<String>emptySet(), false);
  private static final int MAX_TYPES = 256;

  /**
   * The JDK types whose subtypes count: the collection interfaces and the classes LibraryAccess
   * records (a subtype of anything else, an {@code Iterator} or a {@code CharSequence}, is not a
   * collection whose state the call reads or changes).
   */
  private static final String[] ROOTS = {
    "java.util.Collection", "java.util.Map", "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap",
    "java.util.LinkedHashMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeMap",
    "java.util.TreeSet", "java.util.ArrayDeque", "java.util.PriorityQueue", "java.util.Vector",
    "java.util.Hashtable", "java.util.concurrent.atomic.AtomicReference", "java.util.concurrent.atomic.AtomicInteger",
    "java.util.concurrent.atomic.AtomicLong", "java.util.concurrent.atomic.AtomicBoolean",
    "java.util.concurrent.atomic.AtomicReferenceArray", "java.util.concurrent.atomic.AtomicIntegerArray",
    "java.util.concurrent.atomic.AtomicLongArray", "java.util.concurrent.atomic.LongAdder",
    "java.util.concurrent.atomic.DoubleAdder", "java.util.concurrent.atomic.LongAccumulator",
    "java.util.concurrent.atomic.DoubleAccumulator"
  };
  private static volatile Class<?>[] roots;

  /** (loader identity, owner) → its Info, NONE when it is no collection subtype */
  private static final ConcurrentHashMap<String, Info> CACHE = new ConcurrentHashMap<>();

  /**
   * @param loader the loader of the class being instrumented (null: the boot loader)
   * @param owner a call's owner declared outside the JDK (internal name)
   * @return the JDK collection methods it inherits, or null when it is no recorded collection's subtype
   */
  static Info of(ClassLoader loader, String owner) {
    String key = System.identityHashCode(loader) + "\u0000" + owner;
    Info hit = CACHE.get(key);
    if (hit == null) {
      hit = find(loader, owner);
      CACHE.put(key, hit);
    }
    return hit == NONE ? null : hit;
  }

  private static Info find(ClassLoader loader, String owner) {
    final Set<String> methods = new HashSet<>();
    final boolean[] atomic = {false};
    FieldOwners.walkToJdkTypes(loader, owner, MAX_TYPES, new FieldOwners.JdkTypeVisitor() {
      @Override
      public boolean visit(String jdkType) {
        Class<?> c = jdkCollection(jdkType);
        if (c == null) return false;
        for (java.lang.reflect.Method m : c.getMethods()) methods.add(m.getName());
        atomic[0] |= c.getName().startsWith("java.util.concurrent.atomic.");
        return false;
      }
    });
    return methods.isEmpty() ? NONE : new Info(methods, atomic[0]);
  }

  /** The JDK class {@code internalName} when it is a subtype of a root, else null. */
  private static Class<?> jdkCollection(String internalName) {
    Class<?> c;
    try {
      c = Class.forName(internalName.replace('/', '.'), false, null);
    } catch (Throwable t) {
      return null;
    }
    for (Class<?> r : roots()) if (r.isAssignableFrom(c)) return c;
    return null;
  }

  private static Class<?>[] roots() {
    Class<?>[] r = roots;
    if (r != null) return r;
    java.util.List<Class<?>> found = new java.util.ArrayList<>();
    for (String n : ROOTS) {
      try {
        found.add(Class.forName(n, false, null));
      } catch (Throwable ignored) {
        // a JDK without it (none of JDK 8–23): nothing of that type to record
      }
    }
    return roots = found.toArray(new Class<?>[0]);
  }
}
