package io.amlease.demo;

import java.time.Duration;
import java.util.Optional;

/**
 * Bounded waits with a progress line every few seconds, so a slow machine shows what it is waiting
 * for instead of looking hung.
 */
final class Poll {
  static final Duration INTERVAL = Duration.ofMillis(200);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

  /** One look at the world: empty while the awaited thing has not happened yet. */
  @FunctionalInterface
  interface Probe<T> {
    Optional<T> look() throws Exception;
  }

  private final Narrator narrator;

  Poll(Narrator narrator) {
    this.narrator = narrator;
  }

  /**
   * Looks every {@link #INTERVAL} until {@code probe} yields a value.
   *
   * @throws StepFailed for {@code step} when {@code atMost} passes first
   */
  <T> T until(String step, String what, Duration atMost, Probe<T> probe) throws Exception {
    long start = System.nanoTime();
    long nextProgress = PROGRESS_EVERY.toNanos();
    while (true) {
      Optional<T> v = probe.look();
      if (v.isPresent()) {
        return v.get();
      }
      long waited = System.nanoTime() - start;
      if (waited > atMost.toNanos()) {
        throw new StepFailed(step, "no " + what + " within " + Narrator.secs(atMost));
      }
      if (waited > nextProgress) {
        narrator.say("  … waiting for %s (%d s)", what, Duration.ofNanos(waited).toSeconds());
        nextProgress += PROGRESS_EVERY.toNanos();
      }
      Thread.sleep(INTERVAL.toMillis());
    }
  }
}
