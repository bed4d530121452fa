package io.amlease.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run by {@link HolderClock#probe} under {@code faketime}: prints two ticks of {@code /proc/uptime}
 * (never faked) two seconds apart, each with this JVM's {@code System.nanoTime()} at it, as
 * {@code centisA nanosA centisB nanosB}. It spins instead of sleeping: its sleeps are faked too.
 */
final class ClockRateProbe {
  private static final Path UPTIME = Path.of("/proc/uptime");
  private static final long SPAN_CENTIS = 200;

  private ClockRateProbe() {}

  public static void main(String[] args) throws IOException {
    tick(); // Warms up the reads; the first tick's window is wide.
    long[] a = tick();
    while (centis() < a[0] + SPAN_CENTIS - 1) {
      Thread.onSpinWait();
    }
    long[] b = tick();
    System.out.println(a[0] + " " + a[1] + " " + b[0] + " " + b[1]);
  }

  /** Spins until /proc/uptime moves on: {new centis, nanoTime in the middle of the window}. */
  private static long[] tick() throws IOException {
    long old = centis();
    long before = System.nanoTime();
    while (true) {
      long start = System.nanoTime();
      long c = centis();
      long end = System.nanoTime();
      if (c != old) {
        return new long[] {c, before + (end - before) / 2};
      }
      before = start;
    }
  }

  private static long centis() throws IOException {
    return UptimeClock.centis(Files.readString(UPTIME));
  }
}
