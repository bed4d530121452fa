package io.amlease.lease.zk;

import java.time.Duration;

/**
 * Delays between acquisition attempts while the latch says leader but the acquiring multi fails
 * (a lost race, a connection loss, a node an operator must repair): doubling from {@link #FIRST} to
 * {@link #MAX}, so that a lasting failure costs ZooKeeper little; and whether to log an attempt at
 * INFO, at most once per {@link #LOG_EVERY}, so that it does not flood the log either. Not
 * thread-safe: used by one acquisition attempt at a time ({@link Attempts}).
 */
final class RetryBackoff {
  static final Duration FIRST = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofSeconds(5);

  private Duration next = FIRST;
  private int failures;

  /** Records a failed attempt; returns the delay before the next one. */
  Duration failed() {
    failures++;
    Duration d = next;
    next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
    return d;
  }

  /** Failures since the last {@link #reset()}. */
  int failures() {
    return failures;
  }

  void reset() {
    next = FIRST;
    failures = 0;
  }
}
