package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkServers;
import io.amlease.process.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code hold} killed with SIGKILL (the OOM killer) while its machine lives: its reaper ends
 * COMMAND's group and then the term's ZooKeeper session, so the contender acquires in about a
 * second instead of after the session timeout T, and never while the old COMMAND still runs.
 */
class HoldCrashFailoverTest {
  /** Long, so that "soon" and "after T" cannot be confused on a loaded machine. */
  private static final Duration T = Duration.ofSeconds(40);
  private static final Duration POLL = Duration.ofMillis(20);

  private static TestingServer server;

  @TempDir Path dir;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    // ZkServers' tick caps sessions at 10 s; this server grants T.
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, ZkServers.TICK_MS, -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", Long.toString(T.toMillis())), "127.0.0.1"),
        true);
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aContenderAcquiresSoonAfterTheHolderIsKilledAndOnlyOnceItsTreeIsGone() throws Exception {
    String markerA = ProcessTable.marker();
    Path started = dir.resolve("b-started");
    try (HoldProcess a = hold("a", "sleep " + markerA + " & wait")) {
      await().atMost(Duration.ofSeconds(30)).pollInterval(POLL).failFast(() -> !a.isAlive())
          .until(() -> ProcessTable.sleeping(markerA).size() == 1);
      a.killOnClose(ProcessTable.sleeping(markerA).get(0).pid());
      // b's COMMAND first notes when it started and whether a's grandchild still runs (its exact
      // command line).
      try (HoldProcess b = hold("b", "date +%s%N > b-at; s=gone; for f in /proc/[0-9]*/cmdline; do "
          + "[ \"$(tr '\\0' ' ' < \"$f\" 2>/dev/null)\" = 'sleep " + markerA + " ' ] && s=running; "
          + "done; echo $s > " + started.getFileName() + "; exec sleep 600")) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(POLL)
            .until(() -> b.stderr().contains("campaigning for"));
        crash(a, b, started);
      }
    }
  }

  private void crash(HoldProcess a, HoldProcess b, Path started) throws Exception {
    long killed = System.currentTimeMillis() * 1_000_000L; // date +%s%N's clock, not nanoTime
    a.signal("KILL");
    await().atMost(T.multipliedBy(2)).pollInterval(POLL).failFast(() -> !b.isAlive())
        .until(() -> Files.exists(started) && !Files.readString(started).isEmpty());
    Duration failover = Duration.ofNanos(
        Long.parseLong(Files.readString(dir.resolve("b-at")).trim()) - killed);

    assertThat(Files.readString(started).trim()).as("a's COMMAND when b's started")
        .isEqualTo("gone");
    // Without the reaper ending the session, b waits for T (20 s) to pass.
    assertThat(failover).as(b::describe).isLessThan(T.dividedBy(4));
    System.out.printf("crash failover after SIGKILL of hold: %d ms (T = %s)%n",
      failover.toMillis(), T);
  }

  private HoldProcess hold(String name, String script) throws Exception {
    return HoldProcess.start(dir, name, "hold", "--zk", server.getConnectString(), "--lease",
        "/cli-crash/lease", "--id", name, "--session-timeout", T.getSeconds() + "s",
        "--stop-timeout", "1s", "--", "sh", "-c", script);
  }
}
