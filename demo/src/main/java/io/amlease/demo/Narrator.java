package io.amlease.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Prints the timeline: one plain line per event, stamped with the time since the demo started.
 * Times come from {@link System#nanoTime()}: a wall-clock step must not bend the story.
 */
final class Narrator {
  private final PrintStream out;
  private final long startNanos = System.nanoTime();

  Narrator(PrintStream out) {
    this.out = out;
  }

  /** Time since the demo started. */
  Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  void say(String format, Object... args) {
    out.printf(Locale.ROOT, "[%6.1fs] %s%n", seconds(elapsed()),
        String.format(Locale.ROOT, format, args));
  }

  /** A line without a time stamp (the summary table, URLs). */
  void plain(String line) {
    out.println(line);
  }

  /** {@code 12.3s}. */
  static String secs(Duration d) {
    return String.format(Locale.ROOT, "%.1fs", seconds(d));
  }

  static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }
}
