package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The one retry timer of an election. Other triggers (the latch's {@code isLeader}, the
 * {@link Predecessor}'s deduction) can start attempts while a retry waits; when such an attempt
 * fails too, it joins the pending retry instead of arming a second one. Otherwise every extra
 * trigger under a lasting failure would add a retry chain of its own, and the chains together would
 * outrun the backoff.
 */
final class PendingRetry implements AutoCloseable {
  private final Clock clock;
  private final Runnable attempt;

  // Guarded by this.
  private boolean pending;
  private boolean closed;
  private Clock.Timer timer;
  /** Which arming the pending retry is: a timer cancelled too late to stop must not fire it. */
  private long armed;

  PendingRetry(Clock clock, Runnable attempt) {
    this.clock = clock;
    this.attempt = attempt;
  }

  /**
   * Arms the retry after {@code delay}, which is asked for only if no retry is pending: returns it,
   * or null when a pending retry (or close) absorbs this failure.
   */
  Duration arm(Supplier<Duration> delay) {
    Duration d;
    long ours;
    synchronized (this) {
      if (pending || closed) {
        return null;
      }
      pending = true;
      ours = ++armed;
      d = delay.get();
    }
    // Outside the lock: a clock may run a due task on the scheduling thread (a manual one does).
    Clock.Timer t = clock.schedule(() -> fire(ours), d);
    synchronized (this) {
      if (pending && !closed && armed == ours) {
        timer = t;
        return d;
      }
    }
    t.cancel(); // cancelled or closed while scheduling
    return d;
  }

  /** Drops the pending retry, if any: an attempt from another trigger was granted. */
  synchronized void cancel() {
    pending = false;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** Whether a retry waits for its timer. */
  synchronized boolean pending() {
    return pending;
  }

  private void fire(long which) {
    synchronized (this) {
      if (!pending || closed || armed != which) {
        return;
      }
      pending = false;
      timer = null;
    }
    attempt.run();
  }

  @Override
  public synchronized void close() {
    closed = true;
    cancel();
  }
}
