package dev.braid.agent.instrument;

import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Routes {@code Lookup.findVarHandle} and {@code findStaticVarHandle} calls of recorded code (static
 * initializers too, where a class makes its VarHandles) through {@code VarHandles}, which remembers
 * the field each handle is for; the stack is the same before and after (receiver and three
 * arguments in, the handle out).
 */
final class VarHandleLookups extends MethodVisitor {
  private static final String LOOKUP = "java/lang/invoke/MethodHandles$Lookup";
  private static final String FIND = "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;";
  private static final String RT = "dev/braid/agent/runtime/VarHandles";

  VarHandleLookups(MethodVisitor next) {
    super(AsmApi.VERSION, next);
  }

  /** Whether the call is a lookup this visitor routes. */
  static boolean isLookup(int opcode, String owner, String name, String descriptor) {
    return opcode == Opcodes.INVOKEVIRTUAL && owner.equals(LOOKUP) && descriptor.equals(FIND)
        && (name.equals("findVarHandle") || name.equals("findStaticVarHandle"));
  }

  @Override
  public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
    if (isLookup(opcode, owner, name, descriptor)) {
      super.visitMethodInsn(Opcodes.INVOKESTATIC, RT, name, "(L" + LOOKUP + ";" + FIND.substring(1), false);
      return;
    }
    super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
  }
}
