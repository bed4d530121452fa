package io.amlease.process;

import java.util.function.Consumer;
import sun.misc.Signal;

/**
 * SIGTERM/SIGINT as events instead of JVM shutdown, so that {@code hold} can forward them, wait for
 * the child, release the lease and still choose its exit status (a shutdown hook cannot).
 * {@code sun.misc.Signal} is in {@code jdk.unsupported}, exported on every JDK since 9; Hadoop's
 * {@code SignalLogger} uses it the same way.
 */
public final class Signals {
  private Signals() {}

  /** Routes TERM and INT to {@code handler} (with the signal's name and number). */
  public static void route(Consumer<Signal> handler) {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), handler::accept);
    }
  }
}
