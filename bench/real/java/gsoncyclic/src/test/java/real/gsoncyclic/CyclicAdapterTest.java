package real.gsoncyclic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.Gson;
import com.google.gson.TypeAdapter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * google/gson#1829: "fromJson intermittently fails with IllegalStateException when deserializing
 * recursive structures in parallel". A references B, B references A. One thread asks a fresh Gson
 * for A's adapter: creating it asks for B's adapter, which gets the FutureTypeAdapter proxy of A
 * (not wired yet) and is put into the shared typeTokenCache at once. Another thread that asks for
 * B in that window gets the cached B adapter, whose field adapter for A is the unwired proxy:
 * reading an A through it throws IllegalStateException("Delegate has not been set yet").
 */
class CyclicAdapterTest {

  static class Parent {
    Child child;
    // More fields after the cyclic one: creating Parent's adapter goes on after Child's adapter
    // has been published, as in the report's application types.
    String name;
    int id;
    long created;
    List<String> tags;
    Map<String, Integer> counts;
    double score;
    boolean active;
    String description;
    Integer version;
  }

  static class Child {
    Parent parent;
    String label;
  }

  private static final String CHILD_JSON = "{\"label\":\"c\",\"parent\":{\"name\":\"p\",\"id\":1}}";

  @Test
  void parallelFirstUseOfCyclicTypes() throws Exception {
    for (int round = 0; round < 2; round++) {
      Gson gson = new Gson();
      CyclicBarrier start = new CyclicBarrier(2);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread parentUser = new Thread(() -> {
        try {
          start.await();
          TypeAdapter<Parent> adapter = gson.getAdapter(Parent.class);
          adapter.fromJson("{\"name\":\"p\",\"child\":{\"label\":\"c\"}}");
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }, "parent-user");
      Thread childUser = new Thread(() -> {
        try {
          start.await();
          Child child = gson.fromJson(CHILD_JSON, Child.class);
          assertEquals("p", child.parent.name);
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }, "child-user");
      parentUser.start();
      childUser.start();
      parentUser.join();
      childUser.join();
      if (failure.get() != null) {
        fail("round " + round + ": " + failure.get(), failure.get());
      }
    }
  }
}
