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
  /**
   * A tick is used only if the reads around it took less than this (on the faked clock): a
   * preempted spin (the bench runs trials in parallel on two cores) would stamp the tick late by
   * the whole preemption and skew the rate by several percent.
   */
  private static final long WINDOW_NANOS = 2_000_000;

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

  /**
   * Spins until /proc/uptime moves on within a narrow window of reads: {new centis, nanoTime in
   * the middle of the window}. A wide window (the spin was preempted) waits for the next tick.
   */
  private static long[] tick() throws IOException {
    long old = centis();
    long before = System.nanoTime();
    while (true) {
      long start = System.nanoTime();
      long c = centis();
      long end = System.nanoTime();
      if (c != old) {
        if (end - before < WINDOW_NANOS) {
          return new long[] {c, before + (end - before) / 2};
        }
        old = c;
      }
      before = start;
    }
  }

  private static long centis() throws IOException {
    return UptimeClock.centis(Files.readString(UPTIME));
  }
}
