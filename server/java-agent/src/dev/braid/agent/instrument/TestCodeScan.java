package dev.braid.agent.instrument;

import dev.braid.agent.runtime.Registry;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Recognises test code (docs/trace-format.md {@code loc.harness}) before a class is instrumented:
 * a class with a JUnit 4/5 or TestNG annotation on itself or a method, a subclass of
 * {@code junit.framework.TestCase}, a subclass of a test class, or a class nested in one.
 */
final class TestCodeScan extends ClassVisitor {
  private static final String[] ANNOTATION_PREFIXES = {"Lorg/junit/", "Lorg/testng/annotations/"};
  private boolean test;

  private TestCodeScan() {
    super(AsmApi.VERSION);
  }

  /** Reads the class's annotations and super class; marks it in the registry when it is test code. */
  static void scan(ClassReader reader) {
    String name = reader.getClassName().replace('/', '.');
    String superName = reader.getSuperName();
    boolean test = Registry.isHarnessClass(name)
        || (superName != null && (superName.equals("junit/framework/TestCase")
            || Registry.isHarnessClass(superName.replace('/', '.'))));
    if (!test) {
      TestCodeScan s = new TestCodeScan();
      reader.accept(s, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
      test = s.test;
    }
    if (test) Registry.markHarnessClass(name);
  }

  private static boolean isTestAnnotation(String descriptor) {
    for (String p : ANNOTATION_PREFIXES) if (descriptor.startsWith(p)) return true;
    return false;
  }

  @Override
  public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
    if (isTestAnnotation(descriptor)) test = true;
    return null;
  }

  @Override
  public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
    if (test) return null;
    return new MethodVisitor(AsmApi.VERSION) {
      @Override
      public AnnotationVisitor visitAnnotation(String d, boolean visible) {
        if (isTestAnnotation(d)) test = true;
        return null;
      }
    };
  }
}
