package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * VarHandle operations on a field as accesses of that field (issue 38, stormpot: a slot's state
 * changed by {@code STATE.compareAndSet(this, …)} and {@code setOpaque} was never a write, so the
 * plain reads of {@code state} paired with nothing). A field's VarHandle is made by
 * {@code Lookup.findVarHandle} / {@code findStaticVarHandle}, whose calls in recorded code (static
 * initializers included) go through {@link #findVarHandle} / {@link #findStaticVarHandle}: they
 * remember which field the handle is for. A call of a VarHandle method in recorded code goes
 * through a stub that calls {@link #access} first: the field's variable (the same as its
 * getfield/putfield), the receiver's identity, R for {@code get…}, W for every other operation
 * ({@code set…}, {@code compareAndSet} — a failed one too, as for the atomics —, {@code getAndAdd},
 * …). Handles made elsewhere (array elements, the JDK's own) are not known and not recorded.
 */
public final class VarHandles {
  private VarHandles() {}

  /** Known handles: open addressing by identity hash; a full table forgets no handle, it stops learning. */
  private static final int SLOTS = 1 << 12;
  private static final Object[] HANDLE = new Object[SLOTS];
  private static final int[] VAR = new int[SLOTS];
  private static final int[] KEY = new int[SLOTS];
  private static final boolean[] STATIC = new boolean[SLOTS];

  /** In place of {@code lookup.findVarHandle(recv, name, type)}: the same handle, remembered as the field's. */
  public static VarHandle findVarHandle(MethodHandles.Lookup lookup, Class<?> recv, String name, Class<?> type)
      throws NoSuchFieldException, IllegalAccessException {
    VarHandle h = lookup.findVarHandle(recv, name, type);
    remember(h, recv, name, false);
    return h;
  }

  /** In place of {@code lookup.findStaticVarHandle(decl, name, type)}. */
  public static VarHandle findStaticVarHandle(MethodHandles.Lookup lookup, Class<?> decl, String name, Class<?> type)
      throws NoSuchFieldException, IllegalAccessException {
    VarHandle h = lookup.findStaticVarHandle(decl, name, type);
    remember(h, decl, name, true);
    return h;
  }

  private static void remember(VarHandle h, Class<?> owner, String name, boolean isStatic) {
    // the declaring class, as for getfield (FieldOwners): a field reached through a subclass is one variable
    Class<?> declaring = owner;
    for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
      try {
        c.getDeclaredField(name);
        declaring = c;
        break;
      } catch (NoSuchFieldException notHere) {
        // look in the superclass
      } catch (Throwable other) {
        break;
      }
    }
    int var = Registry.var(declaring.getName(), name, false);
    synchronized (HANDLE) {
      int k = slot(h);
      for (int n = 0; n < SLOTS; n++, k = (k + 1) & (SLOTS - 1)) {
        if (HANDLE[k] == h) return;
        if (HANDLE[k] == null) {
          VAR[k] = var;
          KEY[k] = name.hashCode();
          STATIC[k] = isStatic;
          HANDLE[k] = h; // last: a reader that sees the handle sees its var
          return;
        }
      }
    }
  }

  private static int slot(Object h) {
    return ((System.identityHashCode(h) * 0x9E3779B1) >>> 20) & (SLOTS - 1);
  }

  /**
   * Before a VarHandle operation at {@code loc}: one R or W of the handle's field of {@code target}
   * (the operation's first argument; ignored for a static field). Unknown handles: nothing.
   */
  public static void access(Object handle, Object target, int loc, boolean write) {
    if (handle == null || !Rt.enabled()) return;
    int k = slot(handle);
    for (int n = 0; n < SLOTS; n++, k = (k + 1) & (SLOTS - 1)) {
      Object h = HANDLE[k];
      if (h == null) return;
      if (h == handle) {
        int r;
        if (STATIC[k]) r = write ? Rt.writeStatic(VAR[k], loc, KEY[k]) : Rt.readStatic(VAR[k], loc, KEY[k]);
        else if (target == null) return;
        else r = write ? Rt.write(target, VAR[k], loc, KEY[k]) : Rt.read(target, VAR[k], loc, KEY[k]);
        Rt.after(r);
        return;
      }
    }
  }

  /** Whether a VarHandle method only reads the variable. */
  public static boolean isRead(String method) {
    return method.equals("get") || method.equals("getVolatile") || method.equals("getOpaque") || method.equals("getAcquire");
  }
}
