package dev.braid.agent.instrument;

import dev.braid.agent.ClassFilter;
import dev.braid.agent.JdkClasses;
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
  private final boolean record;
  private final boolean pointIds;

  public BraidTransformer(ClassFilter filter, boolean verbose) {
    this(filter, verbose, true, false);
  }

  /**
   * @param record false (agent option record=false): only noise points are added, nothing is recorded
   * @param pointIds noise points need ids (a noise plan, a point catalogue, or noise without recording)
   */
  public BraidTransformer(ClassFilter filter, boolean verbose, boolean record, boolean pointIds) {
    this.filter = filter;
    this.verbose = verbose;
    this.record = record;
    this.pointIds = pointIds;
  }

  @Override
  public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefining,
      ProtectionDomain domain, byte[] bytes) {
    if (className == null || bytes == null) return null;
    String dotted = className.replace('/', '.');
    // the JDK's by its loader (boot, platform) or module (the run-time image's), not by its name
    boolean jdk = JdkClasses.isJdk(dotted, loader, module);
    if (!filter.isInstrumented(dotted, jdk)) return null;
    // record=false with a plan and no catalogue: only the classes of planned points change
    if (!record && !PointCatalogue.enabled() && !dev.braid.agent.runtime.NoisePoints.mayHavePoints(className)) return null;
    Rt.beginInternal();
    try {
      ClassReader reader = new ClassReader(bytes);
      if (!jdk && record) TestCodeScan.scan(reader);
      ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
      java.util.Map<String, int[]> offsets = pointIds ? BytecodeOffsets.of(bytes) : null;
      PointCatalogue catalogue = offsets != null && PointCatalogue.enabled() ? new PointCatalogue() : null;
      InstrumentingClassVisitor visitor = new InstrumentingClassVisitor(writer, jdk, offsets, catalogue, !record);
      visitor.loader = loader;
      reader.accept(visitor, ClassReader.EXPAND_FRAMES);
      byte[] result = writer.toByteArray();
      if (catalogue != null) catalogue.flush();
      if (!record && visitor.noiseCalls[0] == 0) return null; // nothing to add: the class stays as it is
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
