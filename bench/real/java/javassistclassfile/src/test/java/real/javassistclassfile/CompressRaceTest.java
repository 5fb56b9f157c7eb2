package real.javassistclassfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javassist.ClassPool;
import javassist.CtClass;
import javassist.bytecode.ClassFile;
import javassist.bytecode.FieldInfo;
import org.junit.jupiter.api.Test;

/**
 * jboss-javassist/javassist#363 "Fix a race condition in CtClassType#getClassFile3": "javassist
 * fails to find a (ct)class when concurrently running process compresses the (ct)class (converts
 * classfile to raw bytes)". One thread keeps making classes in the pool; every ~100 makeClass calls
 * the pool compresses its classes, turning the frozen generated class's class file into raw bytes
 * (rawClassfile, classfile = null). Two threads read the generated class's class file: one restores
 * it from rawClassfile and clears rawClassfile, the other has already seen classfile == null and
 * then finds rawClassfile null, so it looks for the generated class on the class path
 * (RuntimeException: NotFoundException) or parses a null array (NullPointerException).
 */
class CompressRaceTest {

  @Test
  void readClassFileWhileThePoolCompressesIt() throws Exception {
    ClassPool pool = new ClassPool(true);
    ClassFile file = new ClassFile(false, "real.javassistclassfile.gen.Generated", null);
    file.addField(new FieldInfo(file.getConstPool(), "count", "I"));
    CtClass generated = pool.makeClass(file);
    generated.toBytecode(); // frozen: compress() now turns its class file into raw bytes
    System.gc(); // the member cache is weakly held; a class with one is not compressed
    String name = generated.getName();

    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean making = new AtomicBoolean(true);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread maker = new Thread(() -> {
      try {
        start.await();
        for (int k = 0; k < 4000 && failure.get() == null; k++) {
          pool.makeClass(new ClassFile(false, "real.javassistclassfile.gen.Made" + k, null));
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      } finally {
        making.set(false);
      }
    }, "maker");
    Runnable reader = () -> {
      try {
        start.await();
        while (making.get() && failure.get() == null) {
          ClassFile cf = generated.getClassFile2();
          assertEquals(name, cf.getName());
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    };
    Thread a = new Thread(reader, "reader-a");
    Thread b = new Thread(reader, "reader-b");
    maker.start();
    a.start();
    b.start();
    start.countDown();
    maker.join();
    a.join();
    b.join();
    if (failure.get() != null) fail(failure.get().toString(), failure.get());
  }
}
