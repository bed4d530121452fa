package io.amlease.process;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps a child's reaper told of its term's deadline (the dead-man's switch, DESIGN.md G4): every
 * {@link #EVERY} the time the term has left goes to the reaper, which ends the child's group when
 * the last deadline it heard of passes. A runner that is paused or stuck stops telling, so its
 * child is stopped at the deadline all the same. The deadline moves only with an answered renewal
 * (one renew interval, at least T/12), so a period well below that costs no tolerance; a late tick
 * only leaves the reaper an earlier deadline, never a later one. Once the term is over it stops:
 * the last deadline stands.
 */
public final class DeadlineFeed implements AutoCloseable {
  static final Duration EVERY = Duration.ofMillis(200);

  private final ScheduledExecutorService timer;

  private DeadlineFeed(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Starts telling {@code child}'s reaper {@code timeLeft} (empty: the term is over). */
  public static DeadlineFeed start(ChildProcess child, Supplier<Optional<Duration>> timeLeft) {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "amlease-deadline-" + child.pid());
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(() -> {
      Optional<Duration> left = timeLeft.get();
      if (left.isPresent()) {
        child.extend(left.get());
      } else {
        timer.shutdown();
      }
    }, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return new DeadlineFeed(timer);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
