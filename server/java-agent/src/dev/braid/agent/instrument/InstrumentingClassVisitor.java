package dev.braid.agent.instrument;

import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/** Collects the class's source file name and instruments each method with code. */
final class InstrumentingClassVisitor extends ClassVisitor {
  private final boolean jdk;
  private String internalName;
  private String sourceFile;
  private int version;
  private CallStubs stubs;
  /** offsets of each method's instructions (point ids), or null when no point ids are needed */
  private final java.util.Map<String, int[]> offsets;
  private final PointCatalogue catalogue;
  private final boolean noiseOnly;
  /** noise calls added to the class's methods (record=false: a class without any is left unchanged) */
  final int[] noiseCalls = {0};
  /** the class's loader, for the declaring class of the fields it accesses (FieldOwners); null: the boot loader */
  ClassLoader loader;

  InstrumentingClassVisitor(ClassVisitor next, boolean jdk) {
    this(next, jdk, null, null, false);
  }

  /**
   * @param offsets BytecodeOffsets of the class (noise points get ids), or null
   * @param catalogue collects the class's points for the catalogue, or null
   * @param noiseOnly record=false: only noise points, no recording hooks
   */
  InstrumentingClassVisitor(ClassVisitor next, boolean jdk, java.util.Map<String, int[]> offsets,
      PointCatalogue catalogue, boolean noiseOnly) {
    super(AsmApi.VERSION, next);
    this.jdk = jdk;
    this.offsets = offsets;
    this.catalogue = catalogue;
    this.noiseOnly = noiseOnly;
  }

  @Override
  public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
    this.version = version;
    this.internalName = name;
    this.stubs = new CallStubs(name, !jdk && (access & Opcodes.ACC_INTERFACE) == 0);
    this.stubs.loader = loader;
    super.visit(version, access, name, signature, superName, interfaces);
  }

  /**
   * Sealed classes: passed straight to the writer (the base class refuses them below API ASM9, the
   * level of JDK 17's internal ASM; the build renames this method to that ASM's name for it).
   */
  @Override
  public void visitPermittedSubclass(String permittedSubclass) {
    if (cv != null) cv.visitPermittedSubclass(permittedSubclass);
  }

  @Override
  public void visitSource(String source, String debug) {
    this.sourceFile = source;
    super.visitSource(source, debug);
  }

  /** Source path as javac knows it: package path + SourceFile attribute, e.g. {@code bank/Account.java}. */
  private String sourcePath() {
    int slash = internalName.lastIndexOf('/');
    String pkg = slash < 0 ? "" : internalName.substring(0, slash + 1);
    String file = sourceFile;
    if (file == null) {
      String simple = internalName.substring(slash + 1);
      int dollar = simple.indexOf('$');
      file = (dollar > 0 ? simple.substring(0, dollar) : simple) + ".java";
    }
    return pkg + file;
  }

  @Override
  public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
    MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
    boolean noCode = (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0;
    boolean bridge = (access & Opcodes.ACC_BRIDGE) != 0;
    if (mv == null || noCode || bridge) return mv;
    // a static initializer is not recorded, but the VarHandles it makes are remembered (VarHandleLookups)
    if (name.equals("<clinit>")) return jdk || noiseOnly ? mv : new VarHandleLookups(mv);
    String method = internalName.replace('/', '.') + "." + name;
    MethodInstrumenter mi = new MethodInstrumenter(mv, access, name, descriptor, internalName, sourcePath(), method, jdk,
        (version & 0xFFFF) >= Opcodes.V1_5);
    mi.stubs = stubs;
    mi.noiseOnly = noiseOnly;
    mi.noiseCalls = noiseCalls;
    mi.loader = loader;
    if (offsets != null) {
      mi.offsets = offsets.get(name + descriptor);
      mi.idPrefix = internalName + "." + name + descriptor + "@";
      mi.catalogue = catalogue;
    }
    mi.framesAllowed = (version & 0xFFFF) >= Opcodes.V1_6;
    return jdk || noiseOnly ? mi : new VarHandleLookups(mi);
  }

  @Override
  public void visitEnd() {
    if (stubs != null) stubs.emit(cv);
    super.visitEnd();
  }
}
