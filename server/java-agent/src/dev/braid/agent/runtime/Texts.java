package dev.braid.agent.runtime;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Free text carried by FAIL and OUT events (failure detail, an output line). An event record holds
 * only integers, so the text is parked here under an id until the writer writes the event and
 * takes it out again.
 */
final class Texts {
  private Texts() {}

  private static final ConcurrentHashMap<Integer, String> TEXTS = new ConcurrentHashMap<>();
  private static final AtomicInteger NEXT = new AtomicInteger(1);

  static int put(String text) {
    int id = NEXT.getAndIncrement();
    TEXTS.put(id, text == null ? "" : text);
    return id;
  }

  /** The text of {@code id}, removed from the table (each event is written once). */
  static String take(int id) {
    String s = TEXTS.remove(id);
    return s == null ? "" : s;
  }
}
