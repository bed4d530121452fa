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
 * release. Reads one {@link TermSession#toLine()} line on stdin (the password never appears on a
 * command line). Exits 0 in every case: a session it cannot reach still expires by itself.
 */
public final class SessionCloser {
  /** Long enough to reach a live ensemble; a session that cannot be reached expires anyway. */
  private static final long CONNECT_WITHIN_MS = 5_000;

  private SessionCloser() {}

  public static void main(String[] args) throws Exception {
    String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))
        .readLine();
    if (line == null) {
      return;
    }
    TermSession session = TermSession.parse(line);
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(session.connectString(), (int) CONNECT_WITHIN_MS, event -> {
      if (event.getState() == KeeperState.SyncConnected || event.getState() == KeeperState.Expired) {
        connected.countDown();
      }
    }, session.id(), session.password());
    try {
      connected.await(CONNECT_WITHIN_MS, TimeUnit.MILLISECONDS);
    } finally {
      zk.close(); // Closes the session if it is still alive; a no-op on an expired one.
    }
  }
}
