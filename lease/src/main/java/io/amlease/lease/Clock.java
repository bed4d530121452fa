package io.amlease.lease;

import java.time.Duration;

/**
 * Monotonic time and timers for the lease. Injected so that deadline logic can be tested without
 * waiting, and so that no lease decision ever depends on wall-clock time (which can jump).
 */
public interface Clock {

  /** Monotonic nanoseconds, comparable only with other values from this clock. */
  long nanoTime();

  /** Runs {@code task} once, {@code delay} from now (on a clock-owned thread). */
  Timer schedule(Runnable task, Duration delay);

  /** A scheduled task that can be cancelled. */
  interface Timer {
    void cancel();
  }
}
