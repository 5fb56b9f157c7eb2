package dev.braid.build;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.Remapper;

/**
 * Build tool (not shipped): copies the agent's compiled classes and the ASM classes into one output
 * folder, moving ASM from {@code org.objectweb.asm} to {@code dev.braid.shaded.asm} in every class,
 * so the agent never clashes with an ASM version the recorded application uses.
 *
 * <p>Usage: {@code java dev.braid.build.Relocate <outDir> <classesDir|jar>...}
 */
public final class Relocate {
  private static final String FROM = "org/objectweb/asm/";
  private static final String TO = "dev/braid/shaded/asm/";

  private static final Remapper REMAPPER = new Remapper() {
    @Override
    public String map(String internalName) {
      return internalName.startsWith(FROM) ? TO + internalName.substring(FROM.length()) : internalName;
    }
  };

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: Relocate <outDir> <classesDir|jar>...");
      System.exit(2);
    }
    Path out = Paths.get(args[0]);
    int count = 0;
    for (int k = 1; k < args.length; k++) {
      Path in = Paths.get(args[k]);
      if (Files.isDirectory(in)) {
        List<Path> files;
        try (Stream<Path> s = Files.walk(in)) {
          files = s.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList());
        }
        for (Path p : files) {
          write(out, Files.readAllBytes(p));
          count++;
        }
      } else {
        try (JarFile jar = new JarFile(in.toFile())) {
          for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            JarEntry entry = e.nextElement();
            String name = entry.getName();
            if (!name.endsWith(".class") || name.endsWith("module-info.class") || name.startsWith("META-INF/")) continue;
            try (InputStream is = jar.getInputStream(entry)) {
              write(out, is.readAllBytes());
              count++;
            }
          }
        }
      }
    }
    System.out.println("relocated " + count + " classes into " + out);
  }

  private static void write(Path out, byte[] bytes) throws IOException {
    ClassReader reader = new ClassReader(bytes);
    ClassWriter writer = new ClassWriter(0);
    reader.accept(new ClassRemapper(writer, REMAPPER), 0);
    String name = REMAPPER.map(reader.getClassName());
    Path target = out.resolve(name + ".class");
    Files.createDirectories(target.getParent());
    Files.write(target, writer.toByteArray());
  }
}
