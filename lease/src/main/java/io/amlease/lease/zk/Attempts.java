package io.amlease.lease.zk;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Acquisition attempts, one at a time. An attempt starts on the latch's callback thread (a fast
 * attempt that sends its multi asynchronously), from a retry timer, or on this worker thread, which
 * runs the full, blocking attempt. A request that comes while an attempt runs is remembered and
 * served when it ends, so that no {@code isLeader} is lost and no two acquiring multis race each
 * other (the second would bump the epoch over the first one's own term).
 */
final class Attempts implements AutoCloseable {
  private final Runnable full;
  private final ExecutorService worker;

  // Guarded by this.
  private boolean running;
  private boolean wanted;

  /** {@code full}: the blocking attempt, run on the worker; it must not call {@link #ended()}. */
  Attempts(String threadName, Runnable full) {
    this.full = full;
    this.worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts an attempt unless one runs. {@code fast} may start it on the calling thread and returns
   * whether it did: then its owner must end it with {@link #ended()} or {@link #fastFailed()};
   * null or false runs the full attempt on the worker.
   */
  void request(BooleanSupplier fast) {
    synchronized (this) {
      if (running) {
        wanted = true;
        return;
      }
      running = true;
    }
    boolean started = false;
    try {
      started = fast != null && fast.getAsBoolean();
    } finally {
      if (!started) {
        runFull(); // Also when fast threw: the slot is ours, and only an attempt gives it back.
      }
    }
  }

  /** A fast attempt did not grant: the full attempt takes over, still as the running one. */
  void fastFailed() {
    runFull();
  }

  /** The running attempt is over; runs the next one if it was requested meanwhile. */
  void ended() {
    synchronized (this) {
      if (!wanted) {
        running = false;
        return;
      }
      wanted = false;
    }
    runFull();
  }

  private void runFull() {
    try {
      worker.execute(() -> {
        try {
          full.run();
        } finally {
          ended();
        }
      });
    } catch (RejectedExecutionException closed) {
      // close() shut the worker down: no more attempts.
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
