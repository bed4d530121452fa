package io.amlease.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The holder process of the randomized trials: one holder (rejoining after each lost term) that writes
 * to the shared data node every {@link #WRITE_EVERY} while it acts, alone in its JVM so that the trial
 * can stop it with SIGSTOP. It reports on stdout, one line per event, stamped with
 * {@link System#nanoTime()} (on the parent's time axis, see {@link HolderProcess}):
 * <pre>
 * READY                              started and campaigning
 * START epoch nanos                  began acting (a latch: this process's own term number)
 * STOP epoch nanos                   stopped acting
 * WRITE epoch version nanos          a write was accepted, leaving the data node at version
 * </pre>
 * It starts its holder when a line arrives on stdin — the JVMs of a trial start at once, their holders
 * one after another, so that h0 leads first as the schedule expects — and exits when stdin ends, so
 * that it does not outlive the trial (or a benchmark that died).
 * Arguments: contender label, holder id, connect string, lease path, data path, session timeout in ms.
 */
public final class TrialHolder {
  static final Duration WRITE_EVERY = Duration.ofMillis(50);

  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.US_ASCII);

  private TrialHolder() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println("usage: TrialHolder CONTENDER HOLDER CONNECT PATH DATA_PATH SESSION_TIMEOUT_MS");
      System.exit(64);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    if (in.readLine() == null) {
      System.exit(0);
    }
    String holder = args[1];
    Timeline timeline = new Timeline(e -> report(e.edge() + " " + e.epoch() + " " + e.nanos()));
    Participant p = Contender.byLabel(args[0]).participant(holder, args[2], args[3],
        Duration.ofMillis(Long.parseLong(args[5])), timeline, true);
    p.start();
    report("READY");
    Thread writer = new Thread(() -> write(p, args[4], holder), "bench-writer-" + holder);
    writer.setDaemon(true);
    writer.start();
    while (in.readLine() != null) {
      // Nothing more is sent; this only waits for the trial to close our stdin.
    }
    System.exit(0);
  }

  private static void write(Participant p, String dataPath, String holder) {
    byte[] bytes = holder.getBytes(StandardCharsets.UTF_8);
    while (true) {
      p.write(dataPath, bytes).ifPresent(w ->
          report("WRITE " + w.epoch() + " " + w.version() + " " + System.nanoTime()));
      Waits.sleep(WRITE_EVERY);
    }
  }

  /** One line, flushed at once: the parent reads edges as they happen. */
  private static void report(String line) {
    OUT.println(line);
  }
}
