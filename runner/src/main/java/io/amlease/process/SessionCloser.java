package io.amlease.process;

import io.amlease.lease.zk.TermSession;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * Ends a dead runner's ZooKeeper session on its behalf, so that a contender acquires at once
 * rather than after the session timeout. Run by the {@link Reaper}, and only once the runner is
 * dead and its COMMAND's whole process group is gone: then nothing acts under the term any more,
 * and ending the session (which removes its ephemeral latch and leader nodes) is as safe as a
 * release. Exits 0 in every case: a session it cannot reach still expires by itself.
 *
 * <p>Reads lines on stdin (the password never appears on a command line): an optional
 * {@code warm CONNECT}, then one {@link TermSession#toLine()}. The reaper starts it while the
 * runner holds the lease and sends {@code warm} at once: the closer opens and closes a session of
 * its own on the ensemble, so that the client code it needs after a crash is loaded and compiled
 * (cold, connecting alone takes about 300 ms). At end-of-file it leaves, closing nothing.
 */
public final class SessionCloser {
  /** Long enough to reach a live ensemble; a session that cannot be reached expires anyway. */
  private static final long CONNECT_WITHIN_MS = 5_000;

  private SessionCloser() {}

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.US_ASCII));
    String line = in.readLine();
    if (line != null && line.startsWith("warm ")) {
      connectAndClose(line.substring("warm ".length()).trim(), 0, null);
      line = in.readLine();
    }
    if (line == null) {
      return;
    }
    TermSession session = TermSession.parse(line);
    connectAndClose(session.connectString(), session.id(), session.password());
  }

  /** Joins session {@code id} (a new one when {@code password} is null), then closes it. */
  private static void connectAndClose(String connect, long id, byte[] password) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    org.apache.zookeeper.Watcher watcher = event -> {
      if (event.getState() == KeeperState.SyncConnected || event.getState() == KeeperState.Expired) {
        connected.countDown();
      }
    };
    ZooKeeper zk = password == null ? new ZooKeeper(connect, (int) CONNECT_WITHIN_MS, watcher)
        : new ZooKeeper(connect, (int) CONNECT_WITHIN_MS, watcher, id, password);
    try {
      connected.await(CONNECT_WITHIN_MS, TimeUnit.MILLISECONDS);
    } finally {
      zk.close(); // Closes the session if it is still alive; a no-op on an expired one.
    }
  }
}
