package io.amlease.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Puts the shell actors' stamps on the {@link System#nanoTime()} axis. A shell reads
 * {@code /proc/uptime} with a builtin (no fork): CLOCK_BOOTTIME, truncated to centiseconds.
 * {@code nanoTime} is CLOCK_MONOTONIC; the two differ by the time the machine was suspended, which
 * is constant while it runs, so one offset converts. The offset is measured at a tick of
 * {@code /proc/uptime} (spinning until its value changes), so it is accurate to a read of the file
 * (tens of microseconds) and the only uncertainty of a shell stamp is its resolution: a stamp
 * {@code u} means the process was alive at some instant in {@code [u, u + 10 ms)}.
 */
final class UptimeClock {
  /** The resolution of {@code /proc/uptime}. */
  static final Duration RESOLUTION = Duration.ofMillis(10);

  private static final Path UPTIME = Path.of("/proc/uptime");
  private static final long CENTI = 10_000_000L;

  /** boottime − nanoTime, in nanoseconds. */
  private final long offsetNanos;

  UptimeClock(long offsetNanos) {
    this.offsetNanos = offsetNanos;
  }

  /** Measures the offset now; takes up to one resolution (10 ms) of spinning. */
  static UptimeClock calibrate() {
    long first = centis(read());
    while (true) {
      String s = read();
      long after = System.nanoTime();
      long c = centis(s);
      if (c != first) {
        // The value turned over between the previous read and this one: at `after` boottime was at
        // least c, and at most one read's time more.
        return new UptimeClock(c * CENTI - after);
      }
    }
  }

  /** The earliest {@code nanoTime} at which a process could have read stamp {@code centis}. */
  long toNanos(long centis) {
    return centis * CENTI - offsetNanos;
  }

  long offsetNanos() {
    return offsetNanos;
  }

  /** {@code "9317.27 11589.02"} or {@code "9317.27"} → 931727. */
  static long centis(String uptime) {
    String first = uptime.strip().split("\\s+")[0];
    int dot = first.indexOf('.');
    if (dot < 0 || first.length() - dot != 3) {
      throw new IllegalArgumentException("not an uptime with two decimals: '" + uptime + "'");
    }
    return Long.parseLong(first.substring(0, dot)) * 100 + Long.parseLong(first.substring(dot + 1));
  }

  private static String read() {
    try {
      return Files.readString(UPTIME);
    } catch (IOException e) {
      throw new UncheckedIOException("the torture mode needs Linux's /proc/uptime", e);
    }
  }
}
