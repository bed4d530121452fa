package io.amlease.am;

import java.nio.charset.StandardCharsets;

/**
 * Where a running application's worker count lives in ZooKeeper, under its lease L, so that it
 * outlives AM attempts ({@code amlease flex}): {@code L/workers} holds the count the leading AM
 * applied (written only by a fenced write, so a superseded AM cannot change it), {@code L/flex} a
 * count asked for by {@code amlease flex}, which the leading AM applies and then removes. Both hold
 * a decimal number.
 */
public final class WorkerCountNodes {
  /** The largest worker count {@code flex} accepts. */
  public static final int MAX_WORKERS = 10_000;

  private WorkerCountNodes() {}

  /** The count the leaders applied. */
  public static String applied(String leasePath) {
    return leasePath + "/workers";
  }

  /** A count asked for, not applied yet. */
  public static String requested(String leasePath) {
    return leasePath + "/flex";
  }

  public static byte[] bytes(int workers) {
    return Integer.toString(workers).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The count in {@code data}, read from {@code path}.
   *
   * @throws IllegalArgumentException naming the node and the bound, when it is not a count
   */
  public static int parse(String path, byte[] data) {
    String text = data == null ? "" : new String(data, StandardCharsets.UTF_8).trim();
    try {
      int n = Integer.parseInt(text);
      if (n >= 0 && n <= MAX_WORKERS) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(path + " holds '" + text + "', not a worker count (0 to "
        + MAX_WORKERS + ")");
  }
}
