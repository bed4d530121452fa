package io.amlease.am.master;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * When to restart a failed worker, and when to stop trying: failures are counted within a sliding
 * validity window (as YARN counts AM attempts); each restart waits twice as long as the one before,
 * from {@link #FIRST_DELAY} up to {@link #MAX_DELAY}; more than {@code maxFailures} within the window
 * fails the application; a node where {@link #NODE_FAILURES} of them happened within the window is
 * avoided from then on, but only while workers run fine on other nodes: when they fail everywhere,
 * the command is at fault, not the node, and avoiding nodes would only starve the application.
 * Pure logic on a caller's clock (monotonic nanos).
 */
final class RestartPolicy {
  static final Duration FIRST_DELAY = Duration.ofSeconds(1);
  static final Duration MAX_DELAY = Duration.ofSeconds(60);
  static final int NODE_FAILURES = 2;

  /**
   * What to do about one failure.
   *
   * @param giveUp fail the application: too many failures within the window
   * @param delay wait this long before asking for a replacement
   * @param avoidNode stop placing workers on the failure's node (newly decided)
   * @param failures failures within the window, this one included
   */
  record Verdict(boolean giveUp, Duration delay, boolean avoidNode, int failures) {}

  private final int maxFailures;
  private final long validityNanos;
  private final ArrayDeque<Long> failures = new ArrayDeque<>();
  private final Map<String, ArrayDeque<Long>> byNode = new HashMap<>();
  private final Set<String> avoided = new HashSet<>();

  RestartPolicy(int maxFailures, Duration validity) {
    this.maxFailures = maxFailures;
    this.validityNanos = validity.toNanos();
  }

  /**
   * A failure at {@code nowNanos} on {@code node}; {@code workersRunElsewhere}: some worker runs
   * now on another node.
   */
  Verdict failed(long nowNanos, String node, boolean workersRunElsewhere) {
    expire(failures, nowNanos);
    failures.addLast(nowNanos);
    ArrayDeque<Long> onNode = byNode.computeIfAbsent(node, n -> new ArrayDeque<>());
    expire(onNode, nowNanos);
    onNode.addLast(nowNanos);
    boolean avoid = onNode.size() >= NODE_FAILURES && workersRunElsewhere
        && !avoided.contains(node);
    if (avoid) {
      avoided.add(node);
    }
    int n = failures.size();
    Duration delay = FIRST_DELAY.multipliedBy(1L << Math.min(n - 1, 16));
    return new Verdict(n > maxFailures, delay.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay, avoid,
        n);
  }

  int maxFailures() {
    return maxFailures;
  }

  private void expire(ArrayDeque<Long> times, long nowNanos) {
    while (!times.isEmpty() && nowNanos - times.peekFirst() >= validityNanos) {
      times.removeFirst();
    }
  }
}
