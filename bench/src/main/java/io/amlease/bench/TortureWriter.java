package io.amlease.bench;

import io.amlease.lease.Epoch;
import io.amlease.lease.zk.EpochGuard;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;

/**
 * The JVM grandchild of a torture holder's COMMAND ({@link ActorScript}): records every
 * {@link #EVERY} that it is alive, and writes to the lane's data node as often, recording each write
 * ZooKeeper accepted. Under amlease's {@code hold} (which puts {@code AMLEASE_ZK},
 * {@code AMLEASE_LEASE} and {@code AMLEASE_EPOCH_TOKEN} in its environment) each write is fenced:
 * {@code multi(EpochGuard.ops(lease, epoch), setData)}, as an application would use the token; once a
 * write is refused for its token it writes no more. Under a latch holder ({@code TORTURE_ZK}) it
 * writes plainly, as a latch user's code would.
 *
 * <p>Its record, {@code PREFIX.log}, one line each, {@link System#nanoTime()} stamps:
 * <pre>
 * A nanos              alive
 * W version nanos      a write was accepted, leaving the data node at version
 * F nanos              a write was refused: the token is superseded
 * </pre>
 * Arguments: the run's token (unused: it marks the command line), the record's path prefix, the
 * data node.
 */
public final class TortureWriter {
  static final Duration EVERY = Duration.ofMillis(50);

  private final OutputStream log;

  private TortureWriter(OutputStream log) {
    this.log = log;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: TortureWriter TOKEN PREFIX DATA_PATH");
      System.exit(64);
    }
    String prefix = args[1];
    java.nio.file.Files.writeString(java.nio.file.Path.of(prefix + ".pid"),
        ProcessHandle.current().pid() + "\n");
    TortureWriter w = new TortureWriter(new FileOutputStream(prefix + ".log", true));
    ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
    alive.scheduleAtFixedRate(() -> w.record("A " + System.nanoTime()), 0, EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    String token = System.getenv("AMLEASE_EPOCH_TOKEN");
    String connect = token != null ? System.getenv("AMLEASE_ZK") : System.getenv("TORTURE_ZK");
    int sessionMs = Integer.parseInt(System.getenv().getOrDefault("TORTURE_SESSION_MS", "10000"));
    ZooKeeper zk = new ZooKeeper(connect, sessionMs, event -> { });
    w.writeForever(zk, args[2], token == null ? null : EpochGuard.ops(System.getenv("AMLEASE_LEASE"),
        new Epoch(Long.parseLong(System.getenv("AMLEASE_EPOCH")), Integer.parseInt(token),
            System.getenv("AMLEASE_EPOCH_INCARNATION"))));
  }

  private void writeForever(ZooKeeper zk, String data, List<Op> guard) {
    byte[] bytes = Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII);
    boolean fenced = false;
    while (true) {
      if (!fenced) {
        try {
          int version;
          if (guard == null) {
            version = zk.setData(data, bytes, -1).getVersion();
          } else {
            List<Op> ops = new ArrayList<>(guard);
            ops.add(Op.setData(data, bytes, -1));
            List<OpResult> r = zk.multi(ops);
            version = ((OpResult.SetDataResult) r.get(EpochGuard.OPS)).getStat().getVersion();
          }
          record("W " + version + " " + System.nanoTime());
        } catch (KeeperException e) {
          if (guard != null && EpochGuard.refused(e)) {
            fenced = true;
            record("F " + System.nanoTime());
          }
          // Not connected, or the server lost its quorum: the next round tries again.
        } catch (InterruptedException e) {
          return;
        }
      }
      Waits.sleep(EVERY);
    }
  }

  /** One line, written at once: a process killed mid-run keeps what it recorded. */
  private synchronized void record(String line) {
    try {
      log.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      // The record's directory is gone: the trial is over.
    }
  }
}
