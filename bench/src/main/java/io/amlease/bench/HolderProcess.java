package io.amlease.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A randomized trial's holder running in its own JVM ({@link TrialHolder}), so that it alone can be
 * stopped (SIGSTOP) and continued (SIGCONT) — a GC pause or VM freeze as the holder sees it. A reader
 * thread turns its reports into edges on the trial's {@link Timeline} and into accepted writes.
 *
 * <p>The child stamps its reports with {@link System#nanoTime()}. On Linux HotSpot that is
 * {@code clock_gettime(CLOCK_MONOTONIC)}, one clock for every process on the machine, so the child's
 * stamps are on this JVM's time axis and compare directly with the trial's own stamps (pauses, end).
 */
final class HolderProcess implements AutoCloseable {
  /** An accepted write as the child reported it; {@code epoch} is its own term number for a latch. */
  record Write(String holder, long epoch, int version, long nanos) {}

  private final String holder;
  private final Process process;
  private final CountDownLatch ready = new CountDownLatch(1);
  private final Thread reader;
  private volatile boolean stopped;

  private HolderProcess(String holder, Process process, Timeline timeline, List<Write> writes) {
    this.holder = holder;
    this.process = process;
    this.reader = new Thread(() -> read(timeline, writes), "bench-holder-" + holder);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Launches the JVM of holder {@code holder} of contender {@code c}, which will reach ZooKeeper at
   * {@code connect} (its fault proxy), on lease {@code path}, writing to {@code dataPath}; its holder
   * starts on {@link #start}.
   */
  static HolderProcess launch(Contender c, String holder, String connect, String path,
      String dataPath, Duration t, Timeline timeline, List<Write> writes) throws IOException {
    return new HolderProcess(holder, ChildJvm.start(TrialHolder.class, c.label(), holder, connect,
        path, dataPath, Long.toString(t.toMillis())), timeline, writes);
  }

  String holder() {
    return holder;
  }

  /**
   * Tells the child to start its holder; returns whether it has (connected and campaigning) within
   * {@code within}, which includes the JVM's own start-up.
   */
  boolean start(Duration within) throws IOException, InterruptedException {
    process.getOutputStream().write("start\n".getBytes(StandardCharsets.US_ASCII));
    process.getOutputStream().flush();
    return ready.await(within.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Stops the process for {@code d}, then continues it. The recorded bounds are inner ones: taken
   * after SIGSTOP was delivered and before SIGCONT was sent, so the process surely did nothing within.
   */
  History.Pause pause(Duration d) throws IOException, InterruptedException {
    // Set first: if anything below fails, close() still continues the process before killing it.
    stopped = true;
    signal("STOP");
    long from = System.nanoTime();
    Waits.sleep(d);
    long to = System.nanoTime();
    signal("CONT");
    stopped = false;
    return new History.Pause(holder, from, to);
  }

  /**
   * Ends the child's stdin, so it exits, and waits until everything it printed has been read: edges
   * stamped before the trial's end may still be on their way when it ends.
   */
  void finish(Duration within) throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // Already gone; its output is read to the end below all the same.
    }
    reader.join(within.toMillis());
  }

  /** Kills the child; a stopped one is continued first, so that no stopped process is left behind. */
  @Override
  public void close() {
    if (stopped) {
      try {
        signal("CONT");
      } catch (IOException | InterruptedException | RuntimeException e) {
        // SIGKILL below ends a stopped process too.
      }
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void signal(String name) throws IOException, InterruptedException {
    ProcessSignals.send(process.pid(), name);
  }

  private void read(Timeline timeline, List<Write> writes) {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = r.readLine()) != null) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "READY" -> ready.countDown();
          case "START", "STOP" -> timeline.record(new Timeline.Event(holder,
              Timeline.Edge.valueOf(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])));
          case "WRITE" -> writes.add(new Write(holder, Long.parseLong(f[1]),
              Integer.parseInt(f[2]), Long.parseLong(f[3])));
          default -> { } // Not a report (a JVM warning, say): nothing to record.
        }
      }
    } catch (IOException e) {
      // The child was killed while we read: what it reported before that is recorded.
    }
  }
}
