package io.amlease.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A Curator latch holder of the torture mode, in its own JVM, written as a plain Curator user would:
 * on {@code isLeader} it starts the COMMAND ({@link ActorScript}), on {@code notLeader} it calls
 * {@link Process#destroy()} — SIGTERM to the wrapper script alone, so whatever the wrapper started
 * runs on. (amlease's {@code hold} stops the command's whole process group instead; that difference
 * is one of the things the torture mode measures.)
 *
 * <p>Each edge goes to {@code DIR/edges.log} as {@code nanos granted|revoked term}, {@code term}
 * counting this process's own terms from 1 (see {@link LatchTerms}), before the COMMAND is started
 * or stopped. The process exits when its stdin ends: it does not outlive the bench.
 * Arguments: contender label, holder name, connect string, lease path, session timeout in ms, the
 * directory, the run's token, the data node.
 */
public final class TortureHolder {
  private final Path dir;
  private final String token;
  private final String connect;
  private final String data;
  private final long sessionMs;
  private final OutputStream edges;
  private Process command;

  private TortureHolder(Path dir, String token, String connect, String data, long sessionMs)
      throws IOException {
    this.dir = dir;
    this.token = token;
    this.connect = connect;
    this.data = data;
    this.sessionMs = sessionMs;
    this.edges = new FileOutputStream(dir.resolve(ActorLogs.EDGES).toFile(), true);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: TortureHolder CONTENDER NAME CONNECT PATH SESSION_TIMEOUT_MS DIR "
          + "TOKEN DATA_PATH");
      System.exit(64);
    }
    long sessionMs = Long.parseLong(args[4]);
    TortureHolder h = new TortureHolder(Path.of(args[5]), args[6], args[2], args[7], sessionMs);
    Participant p = Contender.byLabel(args[0]).participant(args[1], args[2], args[3],
        Duration.ofMillis(sessionMs), new Timeline(h::edge), true);
    try {
      p.start();
    } catch (Exception e) {
      // Unreachable ZooKeeper (a partition): exit, and the supervisor starts us again.
      System.err.println("TortureHolder: " + e);
      System.exit(69);
    }
    InputStream in = System.in;
    while (in.read() >= 0) {
      // Nothing is sent; this only waits for the bench to close our stdin.
    }
    System.exit(0);
  }

  /** On the latch's callback thread, as a user's LeaderLatchListener would act. */
  private synchronized void edge(Timeline.Event e) {
    boolean granted = e.edge() == Timeline.Edge.START;
    try {
      edges.write((e.nanos() + (granted ? " granted " : " revoked ") + e.epoch() + "\n")
          .getBytes(StandardCharsets.US_ASCII));
    } catch (IOException ex) {
      // The directory is gone: the trial is over.
    }
    if (granted) {
      ProcessBuilder pb = new ProcessBuilder(ActorScript.command(token,
          dir.resolve("cmd-" + e.epoch()), data))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().put("TORTURE_TERM", Long.toString(e.epoch()));
      pb.environment().put("TORTURE_ZK", connect);
      pb.environment().put("TORTURE_SESSION_MS", Long.toString(sessionMs));
      try {
        command = pb.start();
      } catch (IOException ex) {
        System.err.println("TortureHolder: cannot start the command: " + ex);
      }
    } else if (command != null) {
      command.destroy();
      command = null;
    }
  }
}
