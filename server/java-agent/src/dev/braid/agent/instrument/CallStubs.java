package dev.braid.agent.instrument;

import dev.braid.agent.runtime.LibraryAccess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Private static stub methods added to an instrumented class, through which its library call sites
 * are routed (so that the JDK classes stay unchanged):
 *
 * <ul>
 *   <li>library calls (docs/trace-format.md {@code loc.call}): {@code braid$lib$N(receiver, args...,
 *       site)} records one R or W of the collection/builder ({@link LibraryAccess#call}), makes the
 *       call and, for a method that returns a view or iterator, links it to its backing object;
 *   <li>test-framework assertions: {@code braid$assert$N(args..., loc)} makes the call and records a
 *       FAIL when it throws an {@code AssertionError}.
 * </ul>
 */
final class CallStubs {
  static final String LA = "dev/braid/agent/runtime/LibraryAccess";

  /** Set at agent start: library calls as accesses (agent option libraryCalls, default on). */
  static volatile boolean libraryCalls = true;
  /** Set at agent start: some JDK class is recorded (then call-site hooks precede JDK calls too). */
  static volatile boolean jdkIncludes;

  private static final String U = "java/util/";
  private static final Set<String> OWNERS = new HashSet<>(Arrays.asList(
      U + "Collection", U + "List", U + "Set", U + "Map", U + "Queue", U + "Deque", U + "SortedMap",
      U + "NavigableMap", U + "SortedSet", U + "NavigableSet", U + "Iterator", U + "ListIterator",
      "java/lang/Iterable", U + "AbstractCollection", U + "AbstractList", U + "AbstractSequentialList",
      U + "AbstractMap", U + "AbstractSet", U + "AbstractQueue", U + "ArrayList", U + "LinkedList",
      U + "HashMap", U + "LinkedHashMap", U + "HashSet", U + "LinkedHashSet", U + "TreeMap", U + "TreeSet",
      U + "ArrayDeque", U + "PriorityQueue", "java/lang/StringBuilder", "java/lang/CharSequence",
      // thread-safe collections (LibraryAccess.TYPES): each call atomic, a sequence of calls not
      U + "Vector", U + "Stack", U + "Hashtable", U + "Dictionary", U + "concurrent/ConcurrentMap",
      U + "concurrent/ConcurrentNavigableMap", U + "concurrent/ConcurrentHashMap",
      U + "concurrent/ConcurrentSkipListMap", U + "concurrent/ConcurrentSkipListSet",
      U + "concurrent/CopyOnWriteArrayList", U + "concurrent/CopyOnWriteArraySet",
      U + "concurrent/ConcurrentLinkedQueue", U + "concurrent/ConcurrentLinkedDeque",
      // atomics (issue 38): each call atomic, a get-then-set sequence not; their state is otherwise invisible
      U + "concurrent/atomic/AtomicReference", U + "concurrent/atomic/AtomicInteger",
      U + "concurrent/atomic/AtomicLong", U + "concurrent/atomic/AtomicBoolean",
      U + "concurrent/atomic/AtomicReferenceArray", U + "concurrent/atomic/AtomicIntegerArray",
      U + "concurrent/atomic/AtomicLongArray",
      // striped adders and accumulators: the adder object is the variable (its cells are the JDK's)
      U + "concurrent/atomic/LongAdder", U + "concurrent/atomic/DoubleAdder",
      U + "concurrent/atomic/LongAccumulator", U + "concurrent/atomic/DoubleAccumulator",
      // streams over a recorded collection (issue 38): views of it, each call a read of the collection
      U + "stream/BaseStream", U + "stream/Stream", U + "stream/IntStream", U + "stream/LongStream",
      U + "stream/DoubleStream"));
  private static final Set<String> IGNORED = new HashSet<>(Arrays.asList(
      "getClass", "hashCode", "equals", "wait", "notify", "notifyAll", "clone", "<init>", "spliterator",
      "chars", "codePoints"));
  private static final Set<String> MUTATORS = new HashSet<>(Arrays.asList(
      "add", "addAll", "addFirst", "addLast", "offer", "offerFirst", "offerLast", "push", "pop", "poll",
      "pollFirst", "pollLast", "pollFirstEntry", "pollLastEntry", "remove", "removeAll", "removeIf",
      "retainAll", "removeFirst", "removeLast", "removeFirstOccurrence", "removeLastOccurrence", "clear",
      "set", "put", "putAll", "putIfAbsent", "putFirst", "putLast", "replace", "replaceAll", "compute",
      "computeIfAbsent", "computeIfPresent", "merge", "sort", "trimToSize", "ensureCapacity", "append",
      "appendCodePoint", "insert", "delete", "deleteCharAt", "setLength", "setCharAt", "reverse",
      "addElement", "insertElementAt", "removeElement", "removeElementAt", "removeAllElements",
      "setElementAt", "setSize", "addIfAbsent", "addAllAbsent",
      // atomics: every call that may change the value (a failed compareAndSet too: it is the "act")
      "lazySet", "setPlain", "setOpaque", "setRelease", "compareAndSet", "weakCompareAndSet",
      "weakCompareAndSetPlain", "weakCompareAndSetVolatile", "weakCompareAndSetAcquire",
      "weakCompareAndSetRelease", "compareAndExchange", "compareAndExchangeAcquire",
      "compareAndExchangeRelease", "getAndSet", "getAndIncrement", "getAndDecrement", "getAndAdd",
      "incrementAndGet", "decrementAndGet", "addAndGet", "getAndUpdate", "updateAndGet",
      "getAndAccumulate", "accumulateAndGet",
      // adders and accumulators (add is above): their sum/get/longValue/toString … are the reads
      "increment", "decrement", "accumulate", "reset", "sumThenReset", "getThenReset"));
  /**
   * Calls whose first argument is a key (maps) or an element (sets): on a thread-safe map or set
   * ({@link LibraryAccess#callKeyed}) they are accesses of that key, not of the whole collection.
   */
  private static final Set<String> KEYED = new HashSet<>(Arrays.asList(
      "get", "getOrDefault", "containsKey", "put", "putIfAbsent", "remove", "replace", "compute",
      "computeIfAbsent", "computeIfPresent", "merge", "add", "contains"));
  private static final Set<String> VIEWS = new HashSet<>(Arrays.asList(
      "iterator", "listIterator", "descendingIterator", "keySet", "values", "entrySet", "subList",
      "headMap", "tailMap", "subMap", "headSet", "tailSet", "subSet", "descendingMap", "descendingSet",
      "navigableKeySet", "descendingKeySet", "reversed", "sequencedKeySet", "sequencedValues",
      "sequencedEntrySet", "stream", "parallelStream"));
  /**
   * A stream of a recorded collection ({@code stream()}, a view) and every stream made from it stand
   * for the collection: its terminal operation (forEach, collect, count, …) is the read that iterates it.
   */
  private static final Set<String> STREAM_VIEWS = new HashSet<>(Arrays.asList(
      "map", "filter", "flatMap", "mapToInt", "mapToLong", "mapToDouble", "mapToObj", "boxed", "sorted",
      "distinct", "limit", "skip", "peek", "parallel", "sequential", "unordered", "onClose", "takeWhile",
      "dropWhile", "asLongStream", "asDoubleStream", "mapMulti"));
  private static final Set<String> ASSERT_OWNERS = new HashSet<>(Arrays.asList(
      "org/junit/Assert", "org/junit/jupiter/api/Assertions", "junit/framework/Assert",
      "junit/framework/TestCase", "org/testng/Assert", "org/testng/AssertJUnit"));

  private final String owner;
  private final boolean enabled;
  private final Map<String, String> names = new HashMap<>();
  private final List<String[]> stubs = new ArrayList<>();

  /** The instrumented class is test code (TestCodeScan ran before it is instrumented). */
  private final boolean harness;

  /** @param enabled false for interfaces and JDK classes (no stubs can or need be added) */
  CallStubs(String owner, boolean enabled) {
    this.owner = owner;
    this.enabled = enabled;
    this.harness = dev.braid.agent.runtime.Registry.isHarnessClass(owner.replace('/', '.'));
  }

  /**
   * A library call recorded from this class: as {@link #isLibraryCall}, except the atomics of test
   * code — a test's own counters and latches (`sold.incrementAndGet()`) are atomic by construction
   * and, recorded, joined the code under test's race into longer patterns that ranked first.
   */
  boolean records(int opcode, String callOwner, String name) {
    if (isLibraryCall(opcode, callOwner, name)) return !(harness && callOwner.startsWith(U + "concurrent/atomic/"));
    return isSubtypeCall(opcode, callOwner, name);
  }

  /** The loader of the instrumented class (CollectionSubtypes reads its callees' supertypes through it). */
  ClassLoader loader;

  /**
   * A call of a JDK collection method through a type declared outside the JDK that extends or
   * implements a recorded collection ({@code entries.put} where {@code entries} is an {@code EntryMap
   * extends Map}, {@code entrySet()} of an {@code EntryLinkedHashMap extends LinkedHashMap}): the call
   * is an access of that collection as if made through the JDK type. Methods the type adds itself are
   * not (their bodies are recorded code); the atomics of test code stay unrecorded as above.
   */
  boolean isSubtypeCall(int opcode, String callOwner, String name) {
    if (!libraryCalls || (opcode != Opcodes.INVOKEVIRTUAL && opcode != Opcodes.INVOKEINTERFACE)
        || IGNORED.contains(name) || MethodInstrumenter.isJdkClass(callOwner) || callOwner.startsWith("dev/braid/")) {
      return false;
    }
    CollectionSubtypes.Info info = CollectionSubtypes.of(loader, callOwner);
    return info != null && info.methods.contains(name) && !(harness && info.atomic);
  }

  static boolean isLibraryCall(int opcode, String callOwner, String name) {
    return libraryCalls && (opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE)
        && OWNERS.contains(callOwner) && !IGNORED.contains(name);
  }

  /**
   * A VarHandle operation (get…, set…, compareAndSet, compareAndExchange…, weakCompareAndSet…,
   * getAndSet/Add/Bitwise…): an access of the field the handle is for (runtime VarHandles).
   */
  static boolean isVarHandleAccess(int opcode, String callOwner, String name) {
    return opcode == Opcodes.INVOKEVIRTUAL && callOwner.equals("java/lang/invoke/VarHandle") && !name.equals("getClass")
        && (name.startsWith("get") || name.startsWith("set") || name.startsWith("compareAnd") || name.startsWith("weakCompareAndSet"));
  }

  /** Name of the stub for a VarHandle operation (descriptor: {@link #libraryStubDescriptor} with VarHandle). */
  String varHandleStub(String name, String descriptor) {
    return stub("vh", Opcodes.INVOKEVIRTUAL, "java/lang/invoke/VarHandle", name, descriptor, false);
  }

  static boolean isAssertion(int opcode, String callOwner, String name) {
    return opcode == Opcodes.INVOKESTATIC && ASSERT_OWNERS.contains(callOwner)
        && (name.startsWith("assert") || name.equals("fail"));
  }

  static boolean isWrite(String name) {
    return MUTATORS.contains(name);
  }

  boolean enabled() {
    return enabled;
  }

  /** Name of the library-call stub for the call (its descriptor is {@link #libraryStubDescriptor}). */
  String libraryStub(int opcode, String callOwner, String name, String descriptor, boolean itf) {
    return stub("lib", opcode, callOwner, name, descriptor, itf);
  }

  static String libraryStubDescriptor(String callOwner, String descriptor) {
    int close = descriptor.indexOf(')');
    return "(L" + callOwner + ";" + descriptor.substring(1, close) + "I" + descriptor.substring(close);
  }

  String assertStub(String callOwner, String name, String descriptor, boolean itf) {
    return stub("assert", Opcodes.INVOKESTATIC, callOwner, name, descriptor, itf);
  }

  static String assertStubDescriptor(String descriptor) {
    int close = descriptor.indexOf(')');
    return "(" + descriptor.substring(1, close) + "I" + descriptor.substring(close);
  }

  private String stub(String kind, int opcode, String callOwner, String name, String descriptor, boolean itf) {
    String key = kind + ' ' + opcode + ' ' + callOwner + '.' + name + descriptor;
    String n = names.get(key);
    if (n == null) {
      n = "braid$" + kind + "$" + stubs.size();
      names.put(key, n);
      stubs.add(new String[] {kind, String.valueOf(opcode), callOwner, name, descriptor, itf ? "1" : "0", n});
    }
    return n;
  }

  /** Adds the stub methods to the class (called at its end). */
  void emit(ClassVisitor cv) {
    for (String[] s : stubs) {
      int opcode = Integer.parseInt(s[1]);
      boolean itf = s[5].equals("1");
      if (s[0].equals("lib")) emitLibrary(cv, s[6], opcode, s[2], s[3], s[4], itf);
      else if (s[0].equals("vh")) emitVarHandle(cv, s[6], s[3], s[4]);
      else emitAssert(cv, s[6], s[2], s[3], s[4], itf);
    }
  }

  private static final int ACCESS = Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC;

  private void emitLibrary(ClassVisitor cv, String stubName, int opcode, String callOwner, String name,
      String descriptor, boolean itf) {
    String desc = libraryStubDescriptor(callOwner, descriptor);
    MethodVisitor mv = cv.visitMethod(ACCESS, stubName, desc, null, null);
    mv.visitCode();
    Type[] args = Type.getArgumentTypes(desc);
    int siteSlot = 0;
    for (int k = 0; k < args.length - 1; k++) siteSlot += args[k].getSize();
    if (KEYED.contains(name) && args.length >= 3 && args[1].getSort() == Type.OBJECT) {
      // LibraryAccess.callKeyed(receiver, key, site): a keyed call (thread-safe maps and sets: per key)
      mv.visitVarInsn(Opcodes.ALOAD, 0);
      mv.visitVarInsn(Opcodes.ALOAD, 1);
      mv.visitVarInsn(Opcodes.ILOAD, siteSlot);
      mv.visitMethodInsn(Opcodes.INVOKESTATIC, LA, "callKeyed", "(Ljava/lang/Object;Ljava/lang/Object;I)V", false);
    } else {
      // LibraryAccess.call(receiver, site)
      mv.visitVarInsn(Opcodes.ALOAD, 0);
      mv.visitVarInsn(Opcodes.ILOAD, siteSlot);
      mv.visitMethodInsn(Opcodes.INVOKESTATIC, LA, "call", "(Ljava/lang/Object;I)V", false);
    }
    int slot = 0;
    for (int k = 0; k < args.length - 1; k++) {
      mv.visitVarInsn(args[k].getOpcode(Opcodes.ILOAD), slot);
      slot += args[k].getSize();
    }
    mv.visitMethodInsn(opcode, callOwner, name, descriptor, itf);
    // forcing plans: the call's access is performed once the call has returned (LibraryAccess.called)
    if (dev.braid.agent.runtime.Forcing.installed()) mv.visitMethodInsn(Opcodes.INVOKESTATIC, LA, "called", "()V", false);
    Type ret = Type.getReturnType(descriptor);
    if ((VIEWS.contains(name) || callOwner.startsWith(U + "stream/") && STREAM_VIEWS.contains(name)) && ret.getSort() == Type.OBJECT) {
      // LibraryAccess.view(result, receiver, site)
      mv.visitInsn(Opcodes.DUP);
      mv.visitVarInsn(Opcodes.ALOAD, 0);
      mv.visitVarInsn(Opcodes.ILOAD, siteSlot);
      mv.visitMethodInsn(Opcodes.INVOKESTATIC, LA, "view", "(Ljava/lang/Object;Ljava/lang/Object;I)V", false);
    }
    mv.visitInsn(ret.getOpcode(Opcodes.IRETURN));
    mv.visitMaxs(0, 0);
    mv.visitEnd();
  }

  /**
   * {@code braid$vh$N(handle, args..., loc)}: VarHandles.access(handle, first argument if an object,
   * loc, write), then the operation with the call's own (signature-polymorphic) descriptor.
   */
  private void emitVarHandle(ClassVisitor cv, String stubName, String name, String descriptor) {
    String vh = "java/lang/invoke/VarHandle";
    String desc = libraryStubDescriptor(vh, descriptor);
    MethodVisitor mv = cv.visitMethod(ACCESS, stubName, desc, null, null);
    mv.visitCode();
    Type[] args = Type.getArgumentTypes(desc);
    int locSlot = 0;
    for (int k = 0; k < args.length - 1; k++) locSlot += args[k].getSize();
    mv.visitVarInsn(Opcodes.ALOAD, 0);
    if (args.length >= 3 && (args[1].getSort() == Type.OBJECT || args[1].getSort() == Type.ARRAY)) mv.visitVarInsn(Opcodes.ALOAD, 1);
    else mv.visitInsn(Opcodes.ACONST_NULL);
    mv.visitVarInsn(Opcodes.ILOAD, locSlot);
    mv.visitInsn(dev.braid.agent.runtime.VarHandles.isRead(name) ? Opcodes.ICONST_0 : Opcodes.ICONST_1);
    mv.visitMethodInsn(Opcodes.INVOKESTATIC, "dev/braid/agent/runtime/VarHandles", "access", "(Ljava/lang/Object;Ljava/lang/Object;IZ)V", false);
    int slot = 0;
    for (int k = 0; k < args.length - 1; k++) {
      mv.visitVarInsn(args[k].getOpcode(Opcodes.ILOAD), slot);
      slot += args[k].getSize();
    }
    mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, vh, name, descriptor, false);
    Type ret = Type.getReturnType(descriptor);
    mv.visitInsn(ret.getOpcode(Opcodes.IRETURN));
    mv.visitMaxs(0, 0);
    mv.visitEnd();
  }

  private void emitAssert(ClassVisitor cv, String stubName, String callOwner, String name, String descriptor,
      boolean itf) {
    String desc = assertStubDescriptor(descriptor);
    MethodVisitor mv = cv.visitMethod(ACCESS, stubName, desc, null, null);
    mv.visitCode();
    Label start = new Label();
    Label end = new Label();
    Label handler = new Label();
    mv.visitTryCatchBlock(start, end, handler, "java/lang/AssertionError");
    Type[] args = Type.getArgumentTypes(desc);
    mv.visitLabel(start);
    int slot = 0;
    for (int k = 0; k < args.length - 1; k++) {
      mv.visitVarInsn(args[k].getOpcode(Opcodes.ILOAD), slot);
      slot += args[k].getSize();
    }
    int locSlot = slot;
    mv.visitMethodInsn(Opcodes.INVOKESTATIC, callOwner, name, descriptor, itf);
    mv.visitLabel(end);
    Type ret = Type.getReturnType(descriptor);
    mv.visitInsn(ret.getOpcode(Opcodes.IRETURN));
    mv.visitLabel(handler);
    Object[] locals = new Object[args.length];
    for (int k = 0; k < args.length; k++) locals[k] = frameType(args[k]);
    mv.visitFrame(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {"java/lang/AssertionError"});
    mv.visitInsn(Opcodes.DUP);
    mv.visitVarInsn(Opcodes.ILOAD, locSlot);
    mv.visitMethodInsn(Opcodes.INVOKESTATIC, LA, "assertionThrown", "(Ljava/lang/Throwable;I)V", false);
    mv.visitInsn(Opcodes.ATHROW);
    mv.visitMaxs(0, 0);
    mv.visitEnd();
  }

  private static Object frameType(Type t) {
    switch (t.getSort()) {
      case Type.BOOLEAN: case Type.BYTE: case Type.CHAR: case Type.SHORT: case Type.INT: return Opcodes.INTEGER;
      case Type.LONG: return Opcodes.LONG;
      case Type.FLOAT: return Opcodes.FLOAT;
      case Type.DOUBLE: return Opcodes.DOUBLE;
      default: return t.getInternalName();
    }
  }
}
