package io.amlease.lease;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Clock} on {@link System#nanoTime()} with one daemon timer thread. The executor measures
 * delays with the same monotonic clock, so a timer fires late only by scheduling lateness (a few
 * ms), which the {@code slack} of the G2 bound covers.
 */
public final class SystemClock implements Clock, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SystemClock.class);
  private final ScheduledThreadPoolExecutor timers;

  public SystemClock(String threadName) {
    timers = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    timers.setRemoveOnCancelPolicy(true);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Timer schedule(Runnable task, Duration delay) {
    // The executor would keep a task's error in its future, which nobody reads: log it instead.
    Runnable logged = () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        LOG.error("a lease timer task failed", e);
      }
    };
    var future = timers.schedule(logged, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }
}
