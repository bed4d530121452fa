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
 * {@code /proc/uptime} (spinning until its value changes), to within half a millisecond (usually a
 * few tens of microseconds), so the uncertainty of a shell stamp is essentially its resolution: a
 * stamp {@code u} means the process was alive at some instant in {@code [u, u + 10 ms)}.
 */
final class UptimeClock {
  /** The resolution of {@code /proc/uptime}. */
  static final Duration RESOLUTION = Duration.ofMillis(10);
  /** How far off the offset may be, at most (half of it, taking the middle); usually ~50 µs. */
  static final Duration CALIBRATION_WINDOW = Duration.ofMillis(1);

  private static final Path UPTIME = Path.of("/proc/uptime");
  private static final long CENTI = 10_000_000L;

  /** boottime − nanoTime, in nanoseconds. */
  private final long offsetNanos;

  UptimeClock(long offsetNanos) {
    this.offsetNanos = offsetNanos;
  }

  /**
   * Measures the offset at a tick of {@code /proc/uptime}: the tick fell between the start of the
   * last read that returned the old value and the end of the first that returned the new one. A
   * measurement whose window is wider than {@link #CALIBRATION_WINDOW} (this thread was preempted
   * between the reads, or its first reads were still being compiled) is taken again, at the next
   * tick, for up to {@link #TRIES} ticks (1 s). Takes 10 ms on a quiet machine.
   */
  private static final int TRIES = 100;

  static UptimeClock calibrate() {
    long bestWindow = Long.MAX_VALUE;
    long bestOffset = 0;
    for (int tick = 0; tick < TRIES && bestWindow > CALIBRATION_WINDOW.toNanos(); tick++) {
      long before = System.nanoTime();
      long old = centis(read());
      while (true) {
        long start = System.nanoTime();
        long c = centis(read());
        long end = System.nanoTime();
        if (c != old) {
          // Boottime reached c at some nanoTime in [before, end]: take the middle.
          if (end - before < bestWindow) {
            bestWindow = end - before;
            bestOffset = c * CENTI - (before + (end - before) / 2);
          }
          break;
        }
        before = start;
      }
    }
    if (bestWindow > CALIBRATION_WINDOW.toNanos()) {
      throw new IllegalStateException("could not relate /proc/uptime to nanoTime within "
          + CALIBRATION_WINDOW.toMillis() + " ms in " + TRIES + " tries (best " + bestWindow / 1000 + " µs): "
          + "the machine is too busy");
    }
    return new UptimeClock(bestOffset);
  }

  /** The earliest {@code nanoTime} at which a process could have read stamp {@code centis}. */
  long toNanos(long centis) {
    return centis * CENTI - offsetNanos;
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
