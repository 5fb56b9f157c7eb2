package dev.braid.agent.instrument;

import org.objectweb.asm.Opcodes;

/**
 * The ASM API level the visitors ask for: the highest the ASM at hand knows (ASM9 in Debian's ASM
 * and in JDK 21's internal copy, ASM8 in JDK 17's internal copy, which the agent uses when Debian's
 * ASM is absent, see scripts/build-agent.mjs). Read by reflection so that one jar works with both.
 */
final class AsmApi {
  private AsmApi() {}

  static final int VERSION = highest();

  private static int highest() {
    for (String name : new String[] {"ASM9", "ASM8", "ASM7"}) {
      try {
        return Opcodes.class.getField(name).getInt(null);
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not in this ASM
      }
    }
    return Opcodes.ASM7;
  }
}
