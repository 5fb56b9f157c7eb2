package dev.braid.agent.instrument;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Call owners that are {@code java.util.concurrent.locks.Lock} types (issue 40, session 15): javac
 * names the type of the reference a call is made through, so commons-pool2's
 * {@code lock.lock()} on its {@code InterruptibleReentrantLock extends ReentrantLock} is
 * {@code invokevirtual InterruptibleReentrantLock.lock()V}, which the fixed list of owners
 * ({@code Lock}, {@code ReentrantLock}, the read-write lock's two) did not match: no {@code ACQ}, so
 * the accesses under that lock had an empty lock set and forcing could not hold a thread before it.
 * An owner counts when its supertypes reach a JDK type that implements {@code Lock}: a subclass of
 * {@code ReentrantLock} or of the read-write lock's two, an application class or interface that
 * implements or extends {@code Lock}. Resolved at instrumentation time, once per (loader, owner),
 * from the class files the instrumented class's loader can read (as resources, no class of the
 * application is loaded: {@link FieldOwners#walkToJdkTypes}); the JDK types reached are looked up in the
 * boot loader without initialising them. A class file that cannot be read leaves the call unrecorded
 * (the behaviour before). Only asked for the calls named {@code lock}, {@code lockInterruptibly},
 * {@code unlock} ({@code ()V}) and {@code tryLock} ({@code ()Z}).
 */
final class LockTypes {
  private LockTypes() {}

  private static final int MAX_TYPES = 256;
  /** (loader identity, owner) → whether it is a Lock type */
  private static final ConcurrentHashMap<String, Boolean> CACHE = new ConcurrentHashMap<>();

  /**
   * @param loader the loader of the class being instrumented (null: the boot loader)
   * @param owner a call's owner (internal name)
   * @return whether {@code owner} is a subtype of {@code java.util.concurrent.locks.Lock}
   */
  static boolean isLock(ClassLoader loader, String owner) {
    if (owner.startsWith("[")) return false;
    String key = System.identityHashCode(loader) + "\u0000" + owner;
    Boolean hit = CACHE.get(key);
    if (hit == null) {
      hit = find(loader, owner);
      CACHE.put(key, hit);
    }
    return hit;
  }

  private static boolean find(ClassLoader loader, String owner) {
    return FieldOwners.walkToJdkTypes(loader, owner, MAX_TYPES, new FieldOwners.JdkTypeVisitor() {
      @Override
      public boolean visit(String jdkType) {
        return jdkLock(jdkType);
      }
    });
  }

  /** The JDK type {@code internalName} implements {@code Lock} (looked up in the boot loader, not initialised). */
  private static boolean jdkLock(String internalName) {
    try {
      return java.util.concurrent.locks.Lock.class.isAssignableFrom(Class.forName(internalName.replace('/', '.'), false, null));
    } catch (Throwable t) {
      return false;
    }
  }
}
