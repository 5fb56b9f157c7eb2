package dev.braid.agent.instrument;

import dev.braid.agent.ClassFilter;
import dev.braid.agent.runtime.Registry;
import dev.braid.agent.runtime.Rt;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;

/** Instruments the classes the filter selects; any failure leaves the class unchanged, with a warning. */
public final class BraidTransformer implements ClassFileTransformer {
  private final ClassFilter filter;
  private final boolean verbose;

  public BraidTransformer(ClassFilter filter, boolean verbose) {
    this.filter = filter;
    this.verbose = verbose;
  }

  @Override
  public byte[] transform(ClassLoader loader, String className, Class<?> redefining, ProtectionDomain domain,
      byte[] bytes) {
    if (className == null || bytes == null) return null;
    String dotted = className.replace('/', '.');
    if (!filter.isInstrumented(dotted)) return null;
    boolean jdk = ClassFilter.isJdk(dotted);
    Rt.beginInternal();
    try {
      ClassReader reader = new ClassReader(bytes);
      if (!jdk) TestCodeScan.scan(reader);
      ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
      reader.accept(new InstrumentingClassVisitor(writer, jdk), ClassReader.EXPAND_FRAMES);
      byte[] result = writer.toByteArray();
      if (jdk) Registry.publishJdkFlags();
      if (verbose) System.err.println("[braid-agent] instrumented " + dotted);
      return result;
    } catch (Throwable t) {
      System.err.println("[braid-agent] cannot instrument " + dotted + " (left unrecorded): " + t);
      return null;
    } finally {
      Rt.endInternal();
    }
  }
}
