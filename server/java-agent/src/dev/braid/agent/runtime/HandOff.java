package dev.braid.agent.runtime;

import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A task or callback handed to another thread ({@link HappensBefore}): when it starts it receives
 * its own token (sent by the submitter) and, for a dependant stage, its source's token; when it
 * ends it sends its own token (received by {@code Future.get}, {@code join}, dependants).
 */
@SuppressWarnings({"rawtypes", "unchecked"})
class HandOff implements Runnable, Callable, Supplier, Function, Consumer, BiConsumer {
  final Object target;
  final int token;
  final int source;
  final int loc;

  HandOff(Object target, int source, int loc) {
    this.target = target;
    this.source = source;
    this.loc = loc;
    this.token = System.identityHashCode(this);
  }

  static HandOff of(Object target, int source, int loc) {
    return new HandOff(target, source, loc);
  }

  final void begin() {
    HappensBefore.rcv(token, loc);
    if (source != 0) HappensBefore.rcv(source, loc);
  }

  final void end() {
    HappensBefore.snd(token, loc);
  }

  @Override
  public void run() {
    begin();
    try {
      ((Runnable) target).run();
    } finally {
      end();
    }
  }

  @Override
  public Object call() throws Exception {
    begin();
    try {
      return target instanceof Callable ? ((Callable) target).call() : runAsCallable();
    } finally {
      end();
    }
  }

  private Object runAsCallable() {
    ((Runnable) target).run();
    return null;
  }

  @Override
  public Object get() {
    begin();
    try {
      return ((Supplier) target).get();
    } finally {
      end();
    }
  }

  @Override
  public Object apply(Object a) {
    begin();
    try {
      return ((Function) target).apply(a);
    } finally {
      end();
    }
  }

  @Override
  public void accept(Object a) {
    begin();
    try {
      ((Consumer) target).accept(a);
    } finally {
      end();
    }
  }

  @Override
  public void accept(Object a, Object b) {
    begin();
    try {
      ((BiConsumer) target).accept(a, b);
    } finally {
      end();
    }
  }

  /** A two-argument function callback ({@code handle}); BiFunction and Function cannot share a class. */
  static final class Bi extends HandOff {
    Bi(Object target, int source, int loc) {
      super(target, source, loc);
    }

    BiFunction asBiFunction() {
      return new BiFunction() {
        @Override
        public Object apply(Object a, Object b) {
          begin();
          try {
            return ((BiFunction) target).apply(a, b);
          } finally {
            end();
          }
        }
      };
    }
  }
}
