package io.amlease.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.TermSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reaper's session closer, with a real server and real processes: started (and warmed up) when
 * a session is handed over; it ends that session only after the runner died and the group is gone,
 * and leaves without touching it when the runner stops cleanly.
 */
class SessionCloserTest {
  private static final Duration SOON = Duration.ofSeconds(20);
  private static final Duration POLL = Duration.ofMillis(20);
  private static final String CLOSER = SessionCloser.class.getName();

  private static TestingServer server;
  private final String marker = ProcessTable.marker();
  private ChildProcess child;
  private ZooKeeper term;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    server = new TestingServer(true);
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    server.close();
  }

  @AfterEach
  void cleanUp() throws Exception {
    ProcessTable.sleeping(marker).forEach(ProcessHandle::destroyForcibly);
    if (child != null) {
      ProcessHandle.of(child.reaperPid()).ifPresent(r -> {
        r.descendants().forEach(ProcessHandle::destroyForcibly);
        r.destroyForcibly();
      });
    }
    if (term != null) {
      term.close();
    }
  }

  @Test
  void aDeadRunnersSessionIsEndedOnceItsGroupIsGone() throws Exception {
    ProcessHandle closer = holdAndHandOver();

    child.reaperPipeClosedAsIfDead();

    await().atMost(SOON).pollInterval(POLL).until(() -> !term.getState().isAlive());
    assertThat(term.getState()).as("the term's session").isIn(ZooKeeper.States.CLOSED);
    assertThat(ProcessTable.sleeping(marker)).as("the group, before the session ended").isEmpty();
    await().atMost(SOON).pollInterval(POLL).until(() -> !closer.isAlive());
    try (ZooKeeper reader = connect()) {
      assertThat(reader.exists("/" + marker, false)).as("the term's ephemeral node").isNull();
    }
  }

  @Test
  void aCleanStopLeavesTheSessionAloneAndTheCloserLeaves() throws Exception {
    ProcessHandle closer = holdAndHandOver();

    child.terminate(SOON);

    await().atMost(SOON).pollInterval(POLL).until(() -> !closer.isAlive());
    await().atMost(SOON).pollInterval(POLL)
        .until(() -> ProcessHandle.of(child.reaperPid()).map(p -> !p.isAlive()).orElse(true));
    assertThat(term.getState()).isEqualTo(ZooKeeper.States.CONNECTED);
    assertThat(term.exists("/" + marker, false)).as("the term's ephemeral node").isNotNull();
  }

  /** A child under a reaper that was handed a live session owning an ephemeral node. */
  private ProcessHandle holdAndHandOver() throws Exception {
    term = connect();
    term.create("/" + marker, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    child = ChildProcess.start(List.of("sh", "-c", "sleep " + marker + " & wait"), Map.of());
    await().atMost(SOON).pollInterval(POLL).until(() -> ProcessTable.sleeping(marker).size() == 1);
    child.handOverSession(new TermSession(server.getConnectString(), term.getSessionId(),
        term.getSessionPasswd()));
    ProcessHandle reaper = ProcessHandle.of(child.reaperPid()).orElseThrow();
    await().atMost(SOON).pollInterval(POLL).until(() -> reaper.descendants()
        .anyMatch(p -> ProcessTable.cmdline(p.pid()).contains(CLOSER)));
    return reaper.descendants().filter(p -> ProcessTable.cmdline(p.pid()).contains(CLOSER))
        .findFirst().orElseThrow();
  }

  private static ZooKeeper connect() throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(server.getConnectString(), 30_000, e -> {
      if (e.getState() == KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    assertThat(connected.await(SOON.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    return zk;
  }
}
