package io.amlease.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A holder process's clocks under Debian's libfaketime ({@code FAKETIME="+0 xR"}), for the
 * torture mode's clock-rate faults: its CLOCK_MONOTONIC, and so its {@code System.nanoTime()},
 * its timers and its sleeps, run at rate R from its launch on. Its term edges are stamped on that
 * clock; this maps them back onto the bench's: a process launched at bench time t0 reads
 * {@code t0 + offset + R·(t − t0)} at bench time t, with one {@code offset} for every process (the
 * probe measures it: libfaketime here starts the faked monotonic clock from the wall clock).
 *
 * <p>Only the holder is faked: its COMMAND runs with libfaketime removed from its environment
 * ({@link ActorScript}), so that what it records is on the real clock. {@code /proc/uptime}, which
 * {@code hold}'s reaper counts its deadline on, is a file and is never faked: a real clock-rate error
 * would slow it too, so the reaper here is a net the real fault would not leave.
 *
 * @param rate R; 1 for a holder that is not faked
 * @param offsetNanos see above; 0 for a holder that is not faked
 * @param measuredRate what the probe measured (R for a holder that is not faked)
 */
record HolderClock(double rate, long offsetNanos, double measuredRate) {
  static final HolderClock REAL = new HolderClock(1, 0, 1);
  /** How far the probe's rate may be from R before the trial is not trusted. */
  static final double RATE_TOLERANCE = 0.005;
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
  /** Probes before a rate that is not what was asked refuses the trial. */
  private static final int PROBE_ATTEMPTS = 3;

  boolean faked() {
    return rate != 1 || offsetNanos != 0;
  }

  /** The bench time of {@code processNanos}, read by a process launched at bench time {@code t0}. */
  long toBench(long launchNanos, long processNanos) {
    if (!faked()) {
      return processNanos;
    }
    return launchNanos + Math.round((processNanos - launchNanos - offsetNanos) / rate);
  }

  /**
   * The environment that runs a process's clocks at {@code rate}: libfaketime preloaded, as
   * {@code faketime -f "+0 xR"} would set it, but without that wrapper. The wrapper forks and
   * waits, so the bench's process would be it and not the holder: a kill-holder fault would kill
   * the wrapper and leave the holder running, unseen, while the bench counted its term as ended.
   */
  static Map<String, String> environment(double rate) {
    // ld.so expands $LIB to the library directory of this architecture (x86_64-linux-gnu).
    return Map.of("LD_PRELOAD", "/usr/$LIB/faketime/libfaketime.so.1",
        "FAKETIME", String.format(Locale.ROOT, "+0 x%.3f", rate));
  }

  /**
   * Starts a probe JVM under {@code faketime} at {@code rate} and measures its clock against
   * {@code /proc/uptime} over two seconds of real time; refuses a rate that is not what was asked
   * {@value #PROBE_ATTEMPTS} times in a row (one probe can be skewed by a loaded machine).
   */
  static HolderClock probe(double rate, UptimeClock real) throws IOException, InterruptedException {
    IllegalStateException last = null;
    for (int i = 0; i < PROBE_ATTEMPTS; i++) {
      try {
        return probeOnce(rate, real);
      } catch (IllegalStateException e) {
        last = e;
      }
    }
    throw last;
  }

  private static HolderClock probeOnce(double rate, UptimeClock real) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx32m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), ClockRateProbe.class.getName()));
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(environment(rate));
    Process p = pb.start();
    if (!p.waitFor(PROBE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("clock-rate probe under faketime did not finish within "
          + PROBE_TIMEOUT.toSeconds() + " s");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    String[] w = out.split("\\s+");
    if (p.exitValue() != 0 || w.length != 4) {
      throw new IllegalStateException("clock-rate probe under faketime failed (exit " + p.exitValue()
          + "): " + out);
    }
    long realA = real.toNanos(Long.parseLong(w[0]));
    long fakeA = Long.parseLong(w[1]);
    long realB = real.toNanos(Long.parseLong(w[2]));
    long fakeB = Long.parseLong(w[3]);
    double measured = (double) (fakeB - fakeA) / (realB - realA);
    if (Math.abs(measured - rate) > RATE_TOLERANCE * rate) {
      throw new IllegalStateException(String.format(Locale.ROOT, "faketime at rate %.3f: the probe's "
          + "nanoTime ran at %.4f of /proc/uptime; not trusted", rate, measured));
    }
    long offset = fakeA - t0 - Math.round(rate * (realA - t0));
    return new HolderClock(rate, offset, Math.round(measured * 10000) / 10000.0);
  }
}
