package dev.braid.agent.instrument;

import dev.braid.agent.runtime.NoisePoints;
import dev.braid.agent.runtime.Registry;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;

/**
 * Inserts recorder hook calls into one method: method entry/exit and exception handlers (shadow
 * stack), field and array accesses, monitors and synchronized methods, {@code Lock} calls, thread
 * start and join. A field or array access becomes: hook (locks the location's stripe, takes the
 * index, returns a handle), the access, {@code Rt.after(handle)} (unlocks); the handle is moved
 * below the access's operands on the stack, and a stored long/double or array element value is
 * parked in a temporary local (five per method, created and initialized at method entry so that all
 * stack map frames stay valid). In constructors nothing is recorded before the super or this
 * constructor call ({@code this} is uninitialized there).
 *
 * <p>Noise points (docs/noise.md): each instrumented instruction (field or array access, monitor,
 * {@code Lock} call, thread start, hand-off, library call) is a point with the id
 * {@code <owner>.<name><descriptor>@<offset of the original instruction>}; with a noise plan, a
 * planned point gets {@code Rt.point(index)} before it. With {@code record=false} ({@link #noiseOnly})
 * only those noise calls are added.
 */
final class MethodInstrumenter extends AdviceAdapter {
  private static final String RT = "dev/braid/agent/runtime/Rt";
  private static final Set<String> LOCK_OWNERS = new HashSet<>(java.util.Arrays.asList(
      "java/util/concurrent/locks/Lock", "java/util/concurrent/locks/ReentrantLock",
      "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock",
      "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock"));

  private static final Set<String> CONDITION_OWNERS = new HashSet<>(java.util.Arrays.asList(
      "java/util/concurrent/locks/Condition", "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject",
      "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject"));

  private final String owner;
  private final String file;
  private final String method;
  private final boolean jdk;
  private final boolean isStatic;
  private final boolean isSynchronized;
  private final boolean canLoadClassConstant;
  private final String uniqueTag;

  private boolean started;
  private int entryLoc = -1;
  private int firstLine;
  private int currentLine;
  private final Set<Label> handlers = new HashSet<>();
  private final boolean isConstructor;
  /** constructors: the start label of each handler's try range, and the labels visited before super() */
  private final Map<Label, Label> handlerStarts = new HashMap<>();
  private final Set<Label> preSuperLabels = new HashSet<>();
  private boolean handlerPending;
  /** Start labels of the method's try ranges (visitTryCatchBlock comes before the code). */
  private final Set<Label> tryStarts = new HashSet<>();
  /**
   * A monitorenter's ACQ hook not yet emitted, and its loc: the hook is placed after the try range
   * that javac starts right after monitorenter (see the MONITORENTER case), -1 when none is pending.
   */
  private int acquireLoc = -1;

  /** Best-effort names of the array references on the operand stack (field that holds them). */
  private final ArrayDeque<String> arraySources = new ArrayDeque<>();
  private final Map<Integer, String> localArrays = new HashMap<>();
  private String lastLoadedArrayField;

  MethodInstrumenter(MethodVisitor mv, int access, String name, String descriptor, String owner, String file,
      String method, boolean jdk, boolean canLoadClassConstant) {
    super(AsmApi.VERSION, mv, access, name, descriptor);
    this.owner = owner;
    this.file = file;
    this.method = method;
    this.jdk = jdk;
    this.isStatic = (access & Opcodes.ACC_STATIC) != 0;
    this.isSynchronized = (access & Opcodes.ACC_SYNCHRONIZED) != 0;
    this.canLoadClassConstant = canLoadClassConstant;
    this.uniqueTag = "enter " + name + descriptor;
    this.isConstructor = "<init>".equals(name);
  }

  private int loc() {
    return Registry.loc(file, currentLine, method, jdk, null);
  }

  // ---- noise points ----

  /** Offsets of the method's original instructions (BytecodeOffsets); null when no point ids are needed. */
  int[] offsets;
  /** {@code <owner>.<name><descriptor>@} */
  String idPrefix;
  /** the class's catalogue lines (agent option points=FILE), or null */
  PointCatalogue catalogue;
  /** record=false: only noise calls, no recording hooks */
  boolean noiseOnly;
  /** the loader of the class being instrumented (FieldOwners reads the superclasses' class files through it; null: the boot loader) */
  ClassLoader loader;
  /** counter of the noise calls added to the class */
  int[] noiseCalls = {0};
  /** instructions visited so far (the current one included) */
  private int insn;

  /**
   * The instruction being visited is an instrumented point of this kind: it goes into the catalogue
   * and, when it gets noise (plan, or uniform noise without recording), Rt.point(index) goes before it.
   */
  private void point(String kind) {
    if (offsets == null || insn < 1 || insn > offsets.length) return;
    String id = idPrefix + offsets[insn - 1];
    if (catalogue != null) catalogue.add(id, file, currentLine, method, kind);
    dev.braid.agent.runtime.Forcing.pointAt(id, file, currentLine, method);
    int p = NoisePoints.indexOf(id, kind);
    if (p >= 0) {
      noiseCalls[0]++;
      pushInt(p);
      callRt(jdk ? "pointJdk" : "point", "(I)V");
    }
  }

  private void pushInt(int v) {
    if (v >= -1 && v <= 5) super.visitInsn(Opcodes.ICONST_0 + v);
    else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) super.visitIntInsn(Opcodes.BIPUSH, v);
    else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) super.visitIntInsn(Opcodes.SIPUSH, v);
    else super.visitLdcInsn(v);
  }

  private void callRt(String name, String descriptor) {
    super.visitMethodInsn(Opcodes.INVOKESTATIC, RT, name, descriptor, false);
  }

  // ---- entry, exit, handlers ----

  @Override
  protected void onMethodEnter() {
    started = true;
    if (noiseOnly) return;
    createTemps();
    entryLoc = Registry.loc(file, firstLine, method, jdk, uniqueTag);
    pushInt(entryLoc);
    callRt("enter", "(I)V");
    if (isSynchronized) {
      pushMonitorObject();
      pushInt(entryLoc);
      callRt("acquire", "(Ljava/lang/Object;I)V");
    }
  }

  @Override
  protected void onMethodExit(int opcode) {
    if (!started || noiseOnly) return;
    if (isSynchronized) {
      pushMonitorObject();
      pushInt(loc());
      callRt("release", "(Ljava/lang/Object;I)V");
    }
    pushInt(entryLoc);
    callRt("exit", "(I)V");
  }

  private void pushMonitorObject() {
    if (!isStatic) super.visitVarInsn(Opcodes.ALOAD, 0);
    else if (canLoadClassConstant) super.visitLdcInsn(Type.getObjectType(owner));
    else super.visitInsn(Opcodes.ACONST_NULL);
  }

  @Override
  public void visitLineNumber(int line, Label start) {
    currentLine = line;
    if (firstLine == 0) {
      firstLine = line;
      if (entryLoc >= 0) Registry.setLineIfUnknown(entryLoc, line);
    }
    super.visitLineNumber(line, start);
  }

  /**
   * In a constructor, AdviceAdapter treats every exception handler as code that may run before
   * super(): at the handler it simulates the operand stack again. The hooks' temporaries are stored
   * and loaded through GeneratorAdapter's storeLocal/loadLocal, which that simulation does not see,
   * so an instrumented access in a catch block after super() underflowed its simulated stack
   * (IndexOutOfBoundsException in AdviceAdapter.peekValue; JCS's IndexedDiskCache). So a
   * constructor's handlers are passed on without AdviceAdapter's registration (GeneratorAdapter and
   * LocalVariablesSorter do nothing with them): a handler after super() is ordinary code. A handler
   * whose try range starts before super() (no javac or kotlinc output has one: the language forbids
   * a try around super()) may run with {@code this} uninitialized: from it on nothing more is
   * recorded in that constructor.
   */
  @Override
  public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
    handlers.add(handler);
    tryStarts.add(start);
    if (start != handler) tryRanges.add(new Object[] {start, end, handler, type});
    if (start == handler) {
      // a handler that covers itself (javac's synchronized block): see SelfRange
      SelfRange r = new SelfRange(handler);
      selfRanges.put(handler, r);
      if (isConstructor) {
        handlerStarts.put(handler, start);
        mv.visitTryCatchBlock(r.hooks, r.self, r.redirect, type);
        mv.visitTryCatchBlock(r.self, end, handler, type);
      } else {
        super.visitTryCatchBlock(r.hooks, r.self, r.redirect, type);
        super.visitTryCatchBlock(r.self, end, handler, type);
      }
      return;
    }
    if (isConstructor) {
      handlerStarts.put(handler, start);
      mv.visitTryCatchBlock(start, end, handler, type);
    } else {
      super.visitTryCatchBlock(start, end, handler, type);
    }
  }

  /**
   * A handler that covers itself (issue 45, C1). javac's catch-all handler of a synchronized block
   * ({@code astore t; aload lock; monitorexit; aload t; athrow}) is also in a try range of its own
   * that starts at the handler. C1 parses a handler block once: an instruction in it that may throw
   * into that same handler — any call, such as the handler hook ({@code Rt.handler}) and the REL hook
   * before the {@code monitorexit} — made it give up on the whole method ("error while joining with
   * exception handler"; a monitorexit is no such edge for C1), so every recorded method with a
   * synchronized block ran in the interpreter under C1 (braid test's repetitions run C1 only). Now
   * the range starts at {@code self}, placed right before the handler's first instruction that is
   * not a hook, an {@code astore} or an {@code aload} (those cannot throw); the instructions before
   * it ({@code hooks} .. {@code self}: the hooks, javac's astore and aload) are covered by a range of
   * their own, listed right before it, whose handler {@code redirect} (emitted after the method's
   * last instruction, with the handler's frame) does what javac's handler does — {@code aload lock;
   * monitorexit; athrow} — and is covered by the ranges that cover the handler (an enclosing
   * synchronized block's, a try's), so that an exception from a hook still releases the monitor and
   * goes where it went before, through a block C1 parses apart (a jump back into the handler is
   * refused too: "Exception handler can be reached by both normal and exceptional control flow").
   * A handler of another shape jumps to the handler (C1 refuses that method, as before). A label met
   * before that instruction places {@code self} between two {@code nop}s, so that neither range is
   * empty. The recorded events are the same; C2 compiled such methods before and still does.
   */
  private static final class SelfRange {
    final Label handler;
    final Label hooks = new Label();
    final Label self = new Label();
    final Label redirect = new Label();
    /** The local the handler's monitorexit releases ({@code aload} right before it), -1 when not that shape. */
    int lockVar = -1;
    /** The handler's frame (expanded), null when the class has none. */
    Object[] frameLocal;
    Object[] frameStack;

    SelfRange(Label handler) {
      this.handler = handler;
    }
  }

  private final Map<Label, SelfRange> selfRanges = new HashMap<>();
  /** The method's try ranges other than self-covering ones, in order: {start, end, handler, type}. */
  private final java.util.List<Object[]> tryRanges = new java.util.ArrayList<>();
  /** The method's labels in code order (visitLabel), to tell which ranges cover a handler. */
  private final Map<Label, Integer> labelOrder = new HashMap<>();
  /** The self-covering range whose handler is being emitted, {@code self} not yet placed. */
  private SelfRange selfPending;
  private boolean selfFramePending;
  private final java.util.List<SelfRange> selfPlaced = new java.util.ArrayList<>();

  private void placeSelfStart() {
    placeSelfStart(false);
  }

  /** Places the pending range's {@code self} label; {@code monitorExit}: right before the handler's monitorexit. */
  private void placeSelfStart(boolean monitorExit) {
    SelfRange r = selfPending;
    if (r == null) return;
    if (!monitorExit) r.lockVar = -1;
    selfPending = null;
    selfFramePending = false;
    super.visitLabel(r.self);
    selfPlaced.add(r);
  }

  @Override
  public void visitMaxs(int maxStack, int maxLocals) {
    placeSelfStart();
    // after the method's last instruction (a return, throw or goto): nothing falls into these blocks
    for (SelfRange r : selfPlaced) {
      super.visitLabel(r.redirect);
      if (r.frameLocal != null) super.visitFrame(Opcodes.F_NEW, r.frameLocal.length, r.frameLocal, r.frameStack.length, r.frameStack);
      if (r.lockVar >= 0) {
        // javac's handler without its self-covering part: release the monitor, rethrow — covered by
        // the ranges (an enclosing synchronized block's, a try's) that cover the handler, in their order
        Label end = new Label();
        super.visitVarInsn(Opcodes.ALOAD, r.lockVar);
        super.visitInsn(Opcodes.MONITOREXIT);
        super.visitInsn(Opcodes.ATHROW);
        super.visitLabel(end);
        Integer at = labelOrder.get(r.handler);
        for (Object[] e : tryRanges) {
          Integer from = labelOrder.get((Label) e[0]);
          Integer to = labelOrder.get((Label) e[1]);
          if (at == null || from == null || to == null || from > at || at >= to) continue;
          if (isConstructor) mv.visitTryCatchBlock(r.redirect, end, (Label) e[2], (String) e[3]);
          else super.visitTryCatchBlock(r.redirect, end, (Label) e[2], (String) e[3]);
        }
      } else {
        super.visitJumpInsn(Opcodes.GOTO, r.handler); // another shape: the handler itself (C1 refuses the method, as before)
      }
    }
    selfPlaced.clear();
    super.visitMaxs(maxStack, maxLocals);
  }

  @Override
  public void visitLabel(Label label) {
    if (acquireLoc >= 0 && !tryStarts.contains(label)) flushAcquire();
    if (selfPending != null) {
      super.visitInsn(Opcodes.NOP);
      placeSelfStart();
      super.visitInsn(Opcodes.NOP);
    }
    super.visitLabel(label);
    if (!selfRanges.isEmpty()) labelOrder.put(label, labelOrder.size());
    SelfRange self = selfRanges.get(label);
    if (self != null) {
      super.visitLabel(self.hooks);
      selfPending = self;
      selfFramePending = true;
    }
    if (isConstructor) {
      if (!started) preSuperLabels.add(label);
      Label start = handlerStarts.get(label);
      if (start != null && started && !noiseOnly && !preSuperLabels.contains(label) && preSuperLabels.contains(start)) {
        started = false; // a handler that may run before super(): stop recording (see visitTryCatchBlock)
        handlerStarts.clear();
      }
    }
    if (started && !noiseOnly && handlers.contains(label)) handlerPending = true;
  }

  @Override
  public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
    super.visitFrame(type, numLocal, local, numStack, stack);
    if (selfFramePending) {
      // the self-covering handler's frame (expanded: F_NEW), for its redirect block (SelfRange)
      selfFramePending = false;
      selfPending.frameLocal = java.util.Arrays.copyOf(local, numLocal);
      selfPending.frameStack = java.util.Arrays.copyOf(stack, numStack);
    }
    flushHandler();
  }

  /** At the start of an exception handler (after its frame): drop the frames of callees that threw. */
  private void flushHandler() {
    flushAcquire();
    if (!handlerPending) return;
    handlerPending = false;
    arraySources.clear();
    pushInt(entryLoc);
    callRt("handler", "(I)V");
  }

  // ---- fields ----

  @Override
  public void visitFieldInsn(int opcode, String fieldOwner, String name, String descriptor) {
    insn++;
    flushHandler();
    placeSelfStart();
    boolean arrayTyped = descriptor.startsWith("[");
    if (started && !fieldOwner.startsWith("dev/braid/") && !isSyntheticField(name)
        && (jdk || !isJdkClass(fieldOwner))) {
      // the declaring class, not the instruction's owner: a field reached through a subclass is one variable
      int var = Registry.var(FieldOwners.declaring(loader, fieldOwner, name).replace('/', '.'), name, false);
      int loc = loc();
      // Stripe key: the field name (a field reached through a subclass owner is the same location).
      int key = name.hashCode();
      Type valueType = Type.getType(descriptor);
      point(opcode == Opcodes.GETFIELD || opcode == Opcodes.GETSTATIC ? "read" : "write");
      if (noiseOnly) {
        super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
        return;
      }
      switch (opcode) {
        case Opcodes.GETFIELD:
          // [obj] -> [obj obj var loc key] -> hook -> [obj h] -> [h obj] -> access -> [h v] -> [v h v] -> afterT
          super.visitInsn(Opcodes.DUP);
          pushHookArgs(var, loc, key);
          callRt("read", "(Ljava/lang/Object;III)I");
          super.visitInsn(Opcodes.SWAP);
          super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
          afterWithValue(valueType);
          break;
        case Opcodes.PUTFIELD:
          if (valueType.getSize() == 1) {
            // [obj v] -> [obj v obj v ...] -> hook(obj, v, ...) -> [obj v h] -> [h obj v] -> access -> [h] -> after
            super.visitInsn(Opcodes.DUP2);
            pushHookArgs(var, loc, key);
            callRt("write", "(Ljava/lang/Object;" + hookValue(valueType) + "III)I");
            super.visitInsn(Opcodes.DUP_X2);
            super.visitInsn(Opcodes.POP);
          } else {
            // [obj v] -> temp = v -> [obj obj v ...] -> hook(obj, v, ...) -> [obj h] -> [h obj v] -> access -> [h] -> after
            int temp = temp(valueType);
            storeLocal(temp);
            super.visitInsn(Opcodes.DUP);
            loadLocal(temp);
            pushHookArgs(var, loc, key);
            callRt("write", "(Ljava/lang/Object;" + hookValue(valueType) + "III)I");
            super.visitInsn(Opcodes.SWAP);
            loadLocal(temp);
          }
          super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
          callRt("after", "(I)V");
          break;
        case Opcodes.GETSTATIC:
          pushHookArgs(var, loc, key);
          callRt("readStatic", "(III)I");
          super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
          afterWithValue(valueType);
          break;
        case Opcodes.PUTSTATIC:
          // [v] -> [v v ...] -> hook(v, ...) -> [v h] -> [h v] -> access -> [h] -> after
          if (valueType.getSize() == 2) {
            super.visitInsn(Opcodes.DUP2);
            pushHookArgs(var, loc, key);
            callRt("writeStatic", "(" + hookValue(valueType) + "III)I");
            super.visitInsn(Opcodes.DUP_X2);
            super.visitInsn(Opcodes.POP);
          } else {
            super.visitInsn(Opcodes.DUP);
            pushHookArgs(var, loc, key);
            callRt("writeStatic", "(" + hookValue(valueType) + "III)I");
            super.visitInsn(Opcodes.SWAP);
          }
          super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
          callRt("after", "(I)V");
          break;
        default:
          super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
          return;
      }
    } else {
      super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
    }
    lastLoadedArrayField = null;
    if (arrayTyped && (opcode == Opcodes.GETFIELD || opcode == Opcodes.GETSTATIC)) {
      String holder = fieldOwner.replace('/', '.') + "." + name;
      pushArraySource(holder);
      lastLoadedArrayField = holder;
    }
  }

  /**
   * Fields of JDK classes read by application code (System.out, ...) are not shared state of interest.
   * The owner may not be loaded yet: the JDK's when its package is one of the run-time image's
   * (JdkClasses), so a library under com.sun. or javax. on the class path is not.
   */
  static boolean isJdkClass(String internalName) {
    return dev.braid.agent.JdkClasses.isJdkInternalName(internalName);
  }

  private static boolean isSyntheticField(String name) {
    return name.startsWith("this$") || name.startsWith("val$") || name.equals("$assertionsDisabled");
  }

  private void pushArraySource(String holder) {
    if (arraySources.size() >= 8) arraySources.removeFirst();
    arraySources.addLast(holder);
  }

  // ---- local variables holding arrays (best-effort array naming) ----

  @Override
  public void visitVarInsn(int opcode, int var) {
    insn++;
    flushHandler();
    if (opcode != Opcodes.ALOAD && opcode != Opcodes.ASTORE) placeSelfStart();
    else if (selfPending != null) selfPending.lockVar = opcode == Opcodes.ALOAD ? var : -1;
    if (opcode == Opcodes.ASTORE) {
      if (lastLoadedArrayField != null) {
        localArrays.put(var, lastLoadedArrayField);
        arraySources.pollLast();
      } else {
        localArrays.remove(var);
      }
    } else if (opcode == Opcodes.ALOAD && localArrays.containsKey(var)) {
      pushArraySource(localArrays.get(var));
    }
    lastLoadedArrayField = null;
    super.visitVarInsn(opcode, var);
  }

  // ---- plain instructions: arrays and monitors ----

  @Override
  public void visitInsn(int opcode) {
    insn++;
    flushHandler();
    if (opcode != Opcodes.MONITOREXIT) placeSelfStart();
    lastLoadedArrayField = null;
    if (opcode == Opcodes.ARRAYLENGTH) {
      arraySources.pollLast();
    } else if (opcode >= Opcodes.IALOAD && opcode <= Opcodes.SALOAD) {
      String holder = arraySources.pollLast();
      if (started) {
        point("read");
        if (noiseOnly) {
          super.visitInsn(opcode);
          return;
        }
        // [a i] -> [a i a i var loc] -> hook -> [a i h] -> [h a i] -> access -> [h v] -> [v h] -> after
        int var = arrayVar(holder, opcode - Opcodes.IALOAD);
        super.visitInsn(Opcodes.DUP2);
        pushInt(var);
        pushInt(loc());
        callRt("arrayRead", "(Ljava/lang/Object;III)I");
        super.visitInsn(Opcodes.DUP_X2);
        super.visitInsn(Opcodes.POP);
        super.visitInsn(opcode);
        afterWithValue(ARRAY_VALUE_TYPES[opcode - Opcodes.IALOAD]);
        return;
      }
    } else if (opcode >= Opcodes.IASTORE && opcode <= Opcodes.SASTORE) {
      String holder = arraySources.pollLast();
      if (started) {
        point("write");
        if (noiseOnly) {
          super.visitInsn(opcode);
          return;
        }
        // [a i v] -> temp = v -> [a i a i var loc] -> hook -> [a i h] -> [h a i v] -> access -> [h] -> after
        int var = arrayVar(holder, opcode - Opcodes.IASTORE);
        Type valueType = ARRAY_VALUE_TYPES[opcode - Opcodes.IASTORE];
        int temp = temp(valueType);
        storeLocal(temp);
        super.visitInsn(Opcodes.DUP2);
        loadLocal(temp);
        pushInt(var);
        pushInt(loc());
        callRt("arrayWrite", "(Ljava/lang/Object;I" + hookValue(valueType) + "II)I");
        super.visitInsn(Opcodes.DUP_X2);
        super.visitInsn(Opcodes.POP);
        loadLocal(temp);
        super.visitInsn(opcode);
        callRt("after", "(I)V");
        return;
      }
    } else if (opcode == Opcodes.MONITORENTER && started) {
      point("lock");
      if (noiseOnly) {
        super.visitInsn(opcode);
        return;
      }
      pushInt(loc());
      callRt("beforeAcquire", "(I)V");
      super.visitInsn(Opcodes.DUP);
      super.visitInsn(Opcodes.MONITORENTER);
      // The ACQ hook (Rt.acquire) goes after the label that starts javac's catch-all try range right
      // after monitorenter, i.e. inside the range whose handler does the monitorexit (issue 45). A
      // call that may throw between monitorenter and that range (where the hook was before) is an
      // exit with a monitor held for HotSpot's monitor matching (GenerateOopMap), which then marks
      // the method not compilable by C1 and C2: every method with a synchronized block ran in the
      // interpreter while recorded. Now C2 compiles it (C1 still refuses it: docs/recorder.md,
      // Limits). The lock object waits in the Object temporary (in javac's code that label is no
      // jump target; any other label, a frame or an instruction emits the hook first, as before).
      storeLocal(temp(OBJECT));
      acquireLoc = loc();
      return;
    } else if (opcode == Opcodes.MONITOREXIT && started) {
      point("unlock");
      if (!noiseOnly) {
        super.visitInsn(Opcodes.DUP);
        pushInt(loc());
        callRt("release", "(Ljava/lang/Object;I)V");
      }
    }
    placeSelfStart(opcode == Opcodes.MONITOREXIT);
    super.visitInsn(opcode);
  }

  private static final Type OBJECT = Type.getObjectType("java/lang/Object");
  /** Element types of xALOAD/xASTORE (I L F D A B C S); BALOAD also serves boolean[] (recorded as 0/1). */
  private static final Type[] ARRAY_VALUE_TYPES = {
    Type.INT_TYPE, Type.LONG_TYPE, Type.FLOAT_TYPE, Type.DOUBLE_TYPE, OBJECT, Type.INT_TYPE, Type.CHAR_TYPE, Type.INT_TYPE
  };

  /** Descriptor of the value parameter of the write hooks for a value of type {@code t}. */
  private static String hookValue(Type t) {
    switch (t.getSort()) {
      case Type.BOOLEAN: return "Z";
      case Type.CHAR: return "C";
      case Type.LONG: return "J";
      case Type.FLOAT: return "F";
      case Type.DOUBLE: return "D";
      case Type.OBJECT: case Type.ARRAY: return "Ljava/lang/Object;";
      default: return "I"; // int, short, byte
    }
  }

  /** After a read: [h v] -> [v h v] -> Rt.afterT(h, v) -> [v] (stores the value read, unlocks the stripe). */
  private void afterWithValue(Type t) {
    super.visitInsn(t.getSize() == 2 ? Opcodes.DUP2_X1 : Opcodes.DUP_X1);
    String v = hookValue(t);
    String name = v.length() > 1 ? "afterA" : "after" + v;
    callRt(name, "(I" + v + ")V");
  }
  /**
   * One temporary local per value kind (int, long, float, double, reference) that holds the value of
   * a store while its hook runs. Created and initialized at method entry, so that every later stack
   * map frame (which includes them) is valid also at branch targets reached before their first use.
   */
  private final int[] temps = {-1, -1, -1, -1, -1};

  private int temp(Type t) {
    int k;
    Type lt;
    switch (t.getSort()) {
      case Type.LONG: k = 1; lt = Type.LONG_TYPE; break;
      case Type.FLOAT: k = 2; lt = Type.FLOAT_TYPE; break;
      case Type.DOUBLE: k = 3; lt = Type.DOUBLE_TYPE; break;
      case Type.OBJECT: case Type.ARRAY: k = 4; lt = OBJECT; break;
      default: k = 0; lt = Type.INT_TYPE; break;
    }
    return temps[k];
  }

  private void createTemps() {
    Type[] types = {Type.INT_TYPE, Type.LONG_TYPE, Type.FLOAT_TYPE, Type.DOUBLE_TYPE, OBJECT};
    int[] zero = {Opcodes.ICONST_0, Opcodes.LCONST_0, Opcodes.FCONST_0, Opcodes.DCONST_0, Opcodes.ACONST_NULL};
    for (int k = 0; k < types.length; k++) {
      temps[k] = newLocal(types[k]);
      super.visitInsn(zero[k]);
      storeLocal(temps[k]);
    }
  }

  /** Emits a monitorenter's pending ACQ hook (see the MONITORENTER case of visitInsn). */
  private void flushAcquire() {
    if (acquireLoc < 0) return;
    int loc = acquireLoc;
    acquireLoc = -1;
    loadLocal(temp(OBJECT));
    pushInt(loc);
    callRt("acquire", "(Ljava/lang/Object;I)V");
  }

  private void pushHookArgs(int var, int loc, int key) {
    pushInt(var);
    pushInt(loc);
    pushInt(key);
  }

  private static final String[] ELEMENT_TYPES = {
    "int", "long", "float", "double", "java.lang.Object", "byte", "char", "short"
  };

  /** Array variable: the field holding the array when known, else the element type. */
  private static int arrayVar(String holder, int typeIndex) {
    if (holder != null) {
      int dot = holder.lastIndexOf('.');
      return Registry.var(holder.substring(0, dot), holder.substring(dot + 1), true);
    }
    return Registry.var(ELEMENT_TYPES[typeIndex], null, true);
  }

  // ---- calls: threads and locks ----

  @Override
  public void visitMethodInsn(int opcode, String callOwner, String name, String descriptor, boolean isInterface) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    for (Type arg : Type.getArgumentTypes(descriptor)) {
      if (arg.getSort() == Type.ARRAY) arraySources.pollLast();
    }
    if (!started || callOwner.startsWith("dev/braid/")) {
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
      return;
    }
    String kind = callKind(opcode, callOwner, name, descriptor);
    if (kind != null) point(kind);
    if (noiseOnly) {
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
      return;
    }
    if (redirectCall(opcode, callOwner, name, descriptor, isInterface)) return;
    boolean virtual = opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE;
    if (virtual && name.equals("start") && descriptor.equals("()V")) {
      super.visitInsn(Opcodes.DUP);
      pushInt(loc());
      callRt("beforeStart", "(Ljava/lang/Object;I)V");
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
    } else if (virtual && name.equals("join") && descriptor.equals("()V")) {
      super.visitInsn(Opcodes.DUP);
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
      pushInt(loc());
      callRt("afterJoin", "(Ljava/lang/Object;I)V");
    } else if (virtual && name.equals("join") && descriptor.equals("(J)V") && callOwner.equals("java/lang/Thread")) {
      pushInt(loc());
      callRt("joinTimed", "(Ljava/lang/Thread;JI)V");
    } else if (virtual && descriptor.equals("()V") && (name.equals("lock") || name.equals("lockInterruptibly"))
        && lockOwner(callOwner)) {
      pushInt(loc());
      callRt("beforeAcquire", "(I)V");
      super.visitInsn(Opcodes.DUP);
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
      pushInt(loc());
      callRt("acquire", "(Ljava/lang/Object;I)V");
    } else if (virtual && descriptor.equals("()V") && name.equals("unlock") && lockOwner(callOwner)) {
      super.visitInsn(Opcodes.DUP);
      pushInt(loc());
      callRt("release", "(Ljava/lang/Object;I)V");
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
    } else if (virtual && descriptor.equals("()Z") && name.equals("tryLock") && lockOwner(callOwner)) {
      super.visitInsn(Opcodes.DUP);
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
      super.visitInsn(Opcodes.DUP_X1);
      pushInt(loc());
      callRt("tryAcquired", "(Ljava/lang/Object;ZI)V");
    } else {
      super.visitMethodInsn(opcode, callOwner, name, descriptor, isInterface);
    }
  }

  /**
   * The point kind of a call the recorder instruments (the same cases as visitMethodInsn and
   * redirectCall handle), or null: a hand-off ({@code sync}), a library call ({@code call}),
   * {@code start()}, or a {@code Lock} call; and the synchronization calls that are points only
   * (noise, plans): {@code Object.wait} ({@code wait}), {@code notify}/{@code notifyAll}
   * ({@code notify}), {@code LockSupport.park*} ({@code park}), {@code LockSupport.unpark}
   * ({@code unpark}), {@code Condition.await*} ({@code await}), {@code signal}/{@code signalAll}
   * ({@code signal}); and any other call of recorded code into non-JDK code ({@code invoke}).
   */
  private String callKind(int opcode, String callOwner, String name, String descriptor) {
    String k = syncOrLibraryKind(opcode, callOwner, name, descriptor);
    if (k != null) return k;
    // a call into application code (another included method, or the application's libraries): the
    // window between two such calls may hold no access (issue 29, point 6)
    if (!jdk && !isJdkClass(callOwner) && !name.equals("<init>")) return "invoke";
    return null;
  }

  private String syncOrLibraryKind(int opcode, String callOwner, String name, String descriptor) {
    if (!jdk) {
      if (HappensBeforeCalls.replacement(opcode, callOwner, name, descriptor) != null) return "sync";
      if (stubs != null && stubs.enabled() && stubs.records(opcode, callOwner, name)) return "call";
    }
    if (opcode == Opcodes.INVOKESTATIC) {
      if (!callOwner.equals("java/util/concurrent/locks/LockSupport")) return null;
      if (name.equals("unpark")) return "unpark";
      if (name.startsWith("park")) return "park";
      return null;
    }
    boolean virtual = opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE;
    if (!virtual) return null;
    if (name.equals("wait") && (descriptor.equals("()V") || descriptor.equals("(J)V") || descriptor.equals("(JI)V"))) {
      return "wait";
    }
    if ((name.equals("notify") || name.equals("notifyAll")) && descriptor.equals("()V")) return "notify";
    if (CONDITION_OWNERS.contains(callOwner)) {
      if (name.startsWith("await")) return "await";
      if (name.equals("signal") || name.equals("signalAll")) return "signal";
      return null;
    }
    if (name.equals("start") && descriptor.equals("()V")) return "start";
    String k = null;
    if (descriptor.equals("()V") && (name.equals("lock") || name.equals("lockInterruptibly"))) k = "lock";
    else if (descriptor.equals("()V") && name.equals("unlock")) k = "unlock";
    else if (descriptor.equals("()Z") && name.equals("tryLock")) k = "lock";
    return k != null && lockOwner(callOwner) ? k : null;
  }

  /**
   * A {@code lock}/{@code unlock}/{@code tryLock} call's owner is a {@code Lock} type: one of the
   * JDK's four by name, or (issue 40, session 15) any other subtype of {@code Lock} — a
   * {@code ReentrantLock} subclass such as commons-pool2's {@code InterruptibleReentrantLock}, an
   * application's own {@code Lock} — resolved from the class files ({@link LockTypes}).
   */
  private boolean lockOwner(String callOwner) {
    return LOCK_OWNERS.contains(callOwner) || LockTypes.isLock(loader, callOwner);
  }

  // ---- calls: hand-offs, library calls, failure points, call-site lines (issue 11) ----

  /** Stubs of the class (set by the class visitor); null: no stubs for this class. */
  CallStubs stubs;
  /** The class may hold stack map frames (version 50+), needed by assertion stubs. */
  boolean framesAllowed;

  private static final Set<String> ASSERTION_TYPES = new HashSet<>(java.util.Arrays.asList(
      "java/lang/AssertionError", "org/junit/ComparisonFailure", "junit/framework/AssertionFailedError",
      "junit/framework/ComparisonFailure", "org/opentest4j/AssertionFailedError",
      "org/opentest4j/MultipleFailuresError", "org/junit/internal/ArrayComparisonFailure"));

  /**
   * Handles a call that is a happens-before hand-off, a library call, a failure point or a test
   * assertion; otherwise only precedes a call into application code with the call-site hook.
   * Returns true when the call instruction has been written.
   */
  private boolean redirectCall(int opcode, String callOwner, String name, String descriptor, boolean itf) {
    if (jdk) return false;
    String hb = HappensBeforeCalls.replacement(opcode, callOwner, name, descriptor);
    if (hb != null) {
      pushInt(loc());
      super.visitMethodInsn(Opcodes.INVOKESTATIC, HappensBeforeCalls.HB, name, hb, false);
      return true;
    }
    if (stubs != null && stubs.enabled() && CallStubs.isVarHandleAccess(opcode, callOwner, name)) {
      // a VarHandle operation: an access of the handle's field (VarHandles.access), at this line
      String stub = stubs.varHandleStub(name, descriptor);
      pushInt(loc());
      super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, stub, CallStubs.libraryStubDescriptor(callOwner, descriptor), false);
      return true;
    }
    if (stubs != null && stubs.enabled() && stubs.records(opcode, callOwner, name)) {
      String stub = stubs.libraryStub(opcode, callOwner, name, descriptor, itf);
      if (CallStubs.jdkIncludes || !isJdkClass(callOwner)) {
        // the call may run included JDK code (an ArrayList$Itr under --include java.util.ArrayList, whose
        // receiver type the stub then leaves to the instrumented class), or a recorded override of an
        // application subtype (CollectionSubtypes): its accesses are "called from" this line, not from
        // the last call site seen
        pushInt(loc());
        callRt("at", "(I)V");
      }
      pushInt(dev.braid.agent.runtime.LibraryAccess.site(file, currentLine, method, callOwner.replace('/', '.'), name,
          CallStubs.isWrite(name)));
      super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, stub, CallStubs.libraryStubDescriptor(callOwner, descriptor),
          false);
      return true;
    }
    if (stubs != null && stubs.enabled() && framesAllowed && CallStubs.isAssertion(opcode, callOwner, name)) {
      String stub = stubs.assertStub(callOwner, name, descriptor, itf);
      pushInt(loc());
      super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, stub, CallStubs.assertStubDescriptor(descriptor), false);
      return true;
    }
    boolean exit = (opcode == Opcodes.INVOKESTATIC && callOwner.equals("java/lang/System") && name.equals("exit"))
        || (opcode == Opcodes.INVOKEVIRTUAL && callOwner.equals("java/lang/Runtime")
            && (name.equals("exit") || name.equals("halt")));
    if (exit && descriptor.equals("(I)V")) {
      super.visitInsn(Opcodes.DUP);
      pushInt(loc());
      callRt("exitCall", "(II)V");
      super.visitMethodInsn(opcode, callOwner, name, descriptor, itf);
      return true;
    }
    if (opcode == Opcodes.INVOKESPECIAL && name.equals("<init>") && ASSERTION_TYPES.contains(callOwner)) {
      // new X; dup; args; invokespecial <init> leaves the new object on the stack
      super.visitMethodInsn(opcode, callOwner, name, descriptor, itf);
      super.visitInsn(Opcodes.DUP);
      pushInt(loc());
      callRt("assertionCreated", "(Ljava/lang/Object;I)V");
      return true;
    }
    if (CallStubs.jdkIncludes || !isJdkClass(callOwner) || isCallbackType(callOwner)) {
      pushInt(loc());
      callRt("at", "(I)V");
    }
    return false;
  }

  /** JDK interfaces through which application code usually calls application code (lambdas, tasks). */
  private static boolean isCallbackType(String owner) {
    return owner.startsWith("java/util/function/") || owner.equals("java/lang/Runnable")
        || owner.equals("java/util/concurrent/Callable") || owner.equals("java/util/Comparator")
        || owner.equals("java/lang/Comparable");
  }

  // Other instructions only flush a pending handler hook and reset the array-naming state.

  @Override
  public void visitIntInsn(int opcode, int operand) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    super.visitIntInsn(opcode, operand);
  }

  @Override
  public void visitTypeInsn(int opcode, String type) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    super.visitTypeInsn(opcode, type);
  }

  @Override
  public void visitJumpInsn(int opcode, Label label) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    super.visitJumpInsn(opcode, label);
  }

  @Override
  public void visitLdcInsn(Object value) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    super.visitLdcInsn(value);
  }

  @Override
  public void visitIincInsn(int var, int increment) {
    insn++;
    flushHandler();
    placeSelfStart();
    super.visitIincInsn(var, increment);
  }

  @Override
  public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
    insn++;
    flushHandler();
    placeSelfStart();
    super.visitTableSwitchInsn(min, max, dflt, labels);
  }

  @Override
  public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
    insn++;
    flushHandler();
    placeSelfStart();
    super.visitLookupSwitchInsn(dflt, keys, labels);
  }

  @Override
  public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
    insn++;
    flushHandler();
    placeSelfStart();
    super.visitMultiANewArrayInsn(descriptor, numDimensions);
  }

  @Override
  public void visitInvokeDynamicInsn(String name, String descriptor, org.objectweb.asm.Handle bsm, Object... args) {
    insn++;
    flushHandler();
    placeSelfStart();
    lastLoadedArrayField = null;
    super.visitInvokeDynamicInsn(name, descriptor, bsm, args);
  }
}
