package io.amlease.bench;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling waits and sleeps that treat interruption as the end of the run. */
final class Waits {
  private static final long POLL_MS = 5;

  private Waits() {}

  /** Polls {@code condition} until it holds or {@code within} passed; returns whether it held. */
  static boolean until(BooleanSupplier condition, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      sleep(Duration.ofMillis(POLL_MS));
    }
    return true;
  }

  static void sleep(Duration d) {
    if (d.isNegative() || d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Sleeps until {@code nanos} on the {@link System#nanoTime()} axis. */
  static void sleepUntil(long nanos) {
    sleep(Duration.ofNanos(nanos - System.nanoTime()));
  }

  static double ms(long nanos) {
    return Math.round(nanos / 1e5) / 10.0;
  }
}
