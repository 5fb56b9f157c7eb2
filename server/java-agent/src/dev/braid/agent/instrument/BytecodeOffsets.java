package dev.braid.agent.instrument;

import java.util.HashMap;
import java.util.Map;

/**
 * The bytecode offset of every instruction of every method of a class file, read straight from the
 * class bytes (ASM's visitors do not report offsets). ASM's ClassReader visits a method's
 * instructions in this order, one visit*Insn call per instruction, so the k-th instruction visit of
 * a method is at offset {@code offsets(nameAndDescriptor)[k]}. Noise points are named by these
 * offsets (docs/noise.md, "Plan format"), so a point's id does not depend on how the agent
 * instruments the class.
 */
final class BytecodeOffsets {
  private BytecodeOffsets() {}

  /** Method name + descriptor → offsets of its instructions in code order; null when the class file cannot be read. */
  static Map<String, int[]> of(byte[] b) {
    try {
      return read(b);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static int u1(byte[] b, int p) { return b[p] & 0xFF; }
  private static int u2(byte[] b, int p) { return ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF); }
  private static int s4(byte[] b, int p) { return (u2(b, p) << 16) | u2(b, p + 2); }

  private static Map<String, int[]> read(byte[] b) {
    int count = u2(b, 8);
    int[] utf8 = new int[count];
    int p = 10;
    for (int k = 1; k < count; k++) {
      int tag = u1(b, p);
      switch (tag) {
        case 1: utf8[k] = p; p += 3 + u2(b, p + 1); break;
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: p += 5; break;
        case 5: case 6: p += 9; k++; break;
        case 7: case 8: case 16: case 19: case 20: p += 3; break;
        case 15: p += 4; break;
        default: throw new IllegalArgumentException("constant pool tag " + tag);
      }
    }
    p += 6; // access, this, super
    p += 2 + 2 * u2(b, p); // interfaces
    int fields = u2(b, p);
    p += 2;
    for (int f = 0; f < fields; f++) p = skipMember(b, p);
    int methods = u2(b, p);
    p += 2;
    Map<String, int[]> out = new HashMap<>();
    for (int m = 0; m < methods; m++) {
      String name = utf8(b, utf8[u2(b, p + 2)]);
      String desc = utf8(b, utf8[u2(b, p + 4)]);
      int attrs = u2(b, p + 6);
      p += 8;
      for (int a = 0; a < attrs; a++) {
        int len = s4(b, p + 2);
        if ("Code".equals(utf8(b, utf8[u2(b, p)]))) {
          int codeLength = s4(b, p + 10);
          out.put(name + desc, instructions(b, p + 14, codeLength));
        }
        p += 6 + len;
      }
    }
    return out;
  }

  private static int skipMember(byte[] b, int p) {
    int attrs = u2(b, p + 6);
    p += 8;
    for (int a = 0; a < attrs; a++) p += 6 + s4(b, p + 2);
    return p;
  }

  /** Modified UTF-8 of a CONSTANT_Utf8 entry at {@code p} (names and descriptors are mostly ASCII). */
  private static String utf8(byte[] b, int p) {
    int len = u2(b, p + 1);
    int start = p + 3;
    char[] out = new char[len];
    int n = 0;
    for (int k = start; k < start + len; ) {
      int c = b[k++] & 0xFF;
      if (c < 0x80) {
        out[n++] = (char) c;
      } else if ((c & 0xE0) == 0xC0) {
        out[n++] = (char) (((c & 0x1F) << 6) | (b[k++] & 0x3F));
      } else {
        out[n++] = (char) (((c & 0x0F) << 12) | ((b[k++] & 0x3F) << 6) | (b[k++] & 0x3F));
      }
    }
    return new String(out, 0, n);
  }

  /** Operand bytes of the fixed-length opcodes (0..201), -1 for the variable-length ones. */
  private static final byte[] OPERANDS = new byte[202];

  static {
    for (int op = 16; op <= 25; op++) OPERANDS[op] = 1; // bipush sipush ldc ldc_w ldc2_w xload
    OPERANDS[17] = 2; OPERANDS[19] = 2; OPERANDS[20] = 2;
    for (int op = 54; op <= 58; op++) OPERANDS[op] = 1; // xstore
    OPERANDS[132] = 2; // iinc
    for (int op = 153; op <= 168; op++) OPERANDS[op] = 2; // if*, goto, jsr
    OPERANDS[169] = 1; // ret
    OPERANDS[170] = -1; OPERANDS[171] = -1; // tableswitch, lookupswitch
    for (int op = 178; op <= 184; op++) OPERANDS[op] = 2; // field and invoke (not interface)
    OPERANDS[185] = 4; OPERANDS[186] = 4; // invokeinterface, invokedynamic
    OPERANDS[187] = 2; OPERANDS[188] = 1; OPERANDS[189] = 2; // new, newarray, anewarray
    OPERANDS[192] = 2; OPERANDS[193] = 2; // checkcast, instanceof
    OPERANDS[196] = -1; // wide
    OPERANDS[197] = 3; // multianewarray
    OPERANDS[198] = 2; OPERANDS[199] = 2; // ifnull, ifnonnull
    OPERANDS[200] = 4; OPERANDS[201] = 4; // goto_w, jsr_w
  }

  private static int[] instructions(byte[] b, int code, int length) {
    int[] offsets = new int[Math.max(8, length / 2)];
    int n = 0;
    int pc = 0;
    while (pc < length) {
      if (n == offsets.length) offsets = java.util.Arrays.copyOf(offsets, n * 2);
      offsets[n++] = pc;
      int op = u1(b, code + pc);
      if (op >= OPERANDS.length) throw new IllegalArgumentException("opcode " + op + " at " + pc);
      int operands = OPERANDS[op];
      if (operands >= 0) {
        pc += 1 + operands;
      } else if (op == 196) {
        pc += u1(b, code + pc + 1) == 132 ? 6 : 4;
      } else {
        int q = (pc + 4) & ~3; // operands start at a multiple of 4 from the start of the code
        if (op == 170) {
          int low = s4(b, code + q + 4);
          int high = s4(b, code + q + 8);
          pc = q + 12 + 4 * (high - low + 1);
        } else {
          int pairs = s4(b, code + q + 4);
          pc = q + 8 + 8 * pairs;
        }
      }
    }
    return java.util.Arrays.copyOf(offsets, n);
  }
}
