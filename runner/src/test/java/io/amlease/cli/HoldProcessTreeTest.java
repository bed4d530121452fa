package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkServers;
import io.amlease.process.ProcessTable;
import io.amlease.testkit.FaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * G4 for COMMAND's whole process tree: {@code hold -- sh -c 'sleep MARKER & wait'}, the shape of a
 * wrapper script that starts a JVM. The grandchild ({@code sleep}) is what must not outlive
 * {@code hold}, however hold ends: a signal, a revocation, SIGKILL (the OOM killer), or COMMAND
 * leaving it behind.
 */
class HoldProcessTreeTest {
  private static final Duration EXIT = Duration.ofSeconds(20);
  private static final Duration SOON = Duration.ofSeconds(15);
  /** Each case runs with a 1 s stop-timeout, and sleep dies of the first SIGTERM. */
  private static final Duration GONE = Duration.ofSeconds(5);
  private static final Duration POLL = Duration.ofMillis(50);

  private static TestingServer server;

  @TempDir Path dir;
  private String lease;
  private final String marker = ProcessTable.marker();

  @BeforeAll
  static void startZooKeeper() throws Exception {
    server = ZkServers.standalone();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void leasePerTest(TestInfo info) {
    lease = "/cli-tree/" + info.getTestMethod().orElseThrow().getName();
  }

  @Test
  void sigtermToHoldEndsTheGrandchild() throws Exception {
    try (HoldProcess hold = hold(server.getConnectString(), "sleep " + marker + " & wait")) {
      Tree tree = awaitTree(hold);
      hold.signal("TERM");
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(128 + 15);
      assertTreeGoneBeforeHoldExited(hold, tree);
    }
  }

  @Test
  void revocationEndsTheGrandchild() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(
            new InetSocketAddress("127.0.0.1", server.getPort()));
         HoldProcess hold = hold(proxy.connectString(), "sleep " + marker + " & wait",
             "--session-timeout", "4s")) {
      Tree tree = awaitTree(hold);
      proxy.silent();
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.LEASE_LOST);
      assertTreeGoneBeforeHoldExited(hold, tree);
    }
  }

  @Test
  void sigkillOfHoldEndsTheGrandchild() throws Exception {
    try (HoldProcess hold = hold(server.getConnectString(), "sleep " + marker + " & wait")) {
      Tree tree = awaitTree(hold);
      // What the OOM killer does: hold gets no chance to stop anything itself.
      hold.signal("KILL");
      assertThat(hold.awaitExit(EXIT)).isEqualTo(128 + 9);
      assertTreeGone(hold, tree);
    }
  }

  /**
   * SIGKILL of hold the moment its COMMAND appears, before hold can have armed a reaper: COMMAND
   * must then never run unguarded. (It starts stopped, and runs only once its reaper is armed;
   * before that, a kill in this window left the whole tree running in 9 of 12 tries.)
   */
  @Test
  void sigkillOfHoldAsCommandAppearsLeavesNothingRunning() throws Exception {
    try (HoldProcess hold = hold(server.getConnectString(), "sleep " + marker + " & wait")) {
      await().atMost(SOON).pollInterval(Duration.ofMillis(1)).failFast(() -> !hold.isAlive())
          .until(() -> !withMarker().isEmpty());
      ProcessHandle.of(hold.pid()).ifPresent(ProcessHandle::destroyForcibly);
      assertThat(hold.awaitExit(EXIT)).isEqualTo(128 + 9);
      await("sleep " + marker + " gone, and for good").atMost(GONE).pollInterval(POLL)
          .until(() -> ProcessTable.sleeping(marker).isEmpty());
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).pollInterval(POLL)
          .until(() -> ProcessTable.sleeping(marker).isEmpty());
    } finally {
      // A stopped shell that never ran COMMAND may be left: it is harmless, but not ours to keep.
      withMarker().forEach(ProcessHandle::destroyForcibly);
    }
  }

  private List<ProcessHandle> withMarker() {
    return ProcessHandle.allProcesses().filter(p -> p.info().arguments()
        .map(a -> java.util.Arrays.stream(a).anyMatch(x -> x.contains(marker))).orElse(false))
        .toList();
  }

  @Test
  void sigkillOfHoldEndsAGroupIgnoringSigtermAfterTheStopTimeout() throws Exception {
    // An ignored signal stays ignored in children: sleep ignores SIGTERM too.
    try (HoldProcess hold = hold(server.getConnectString(),
        "trap '' TERM; sleep " + marker + " & wait")) {
      Tree tree = awaitTree(hold);
      hold.signal("KILL");
      assertThat(hold.awaitExit(EXIT)).isEqualTo(128 + 9);
      // The reaper's SIGTERM is ignored; its SIGKILL comes 1 s (the stop-timeout) later.
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).pollInterval(POLL)
          .until(() -> ProcessTable.sleeping(marker).size() == 1);
      assertTreeGone(hold, tree);
    }
  }

  @Test
  void grandchildLeftBehindByCommandIsEndedBeforeHoldExits() throws Exception {
    try (HoldProcess hold = hold(server.getConnectString(),
        "sleep " + marker + " & while [ ! -e go ]; do sleep 0.05; done; exit 3")) {
      Tree tree = awaitTree(hold);
      Files.createFile(dir.resolve("go"));
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(3);
      assertTreeGoneBeforeHoldExited(hold, tree);
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** COMMAND ({@code sh}, which wrote its pid), the {@code sleep} it started, and its reaper. */
  private record Tree(long child, long grandchild, long reaper) {}

  /**
   * {@code hold … --stop-timeout 1s -- sh -c 'echo $$ > pid; SCRIPT'}, run in {@link #dir} (so
   * relative paths in SCRIPT land there).
   */
  private HoldProcess hold(String connect, String script, String... flags) throws IOException {
    List<String> args = new ArrayList<>(List.of("hold", "--zk", connect, "--lease", lease,
        "--stop-timeout", "1s"));
    args.addAll(List.of(flags));
    args.addAll(List.of("--", "sh", "-c", "echo $$ > pid.tmp && mv pid.tmp pid; " + script));
    return HoldProcess.start(dir, "hold", args.toArray(String[]::new));
  }

  private Tree awaitTree(HoldProcess hold) throws IOException {
    Path pidFile = dir.resolve("pid");
    await().atMost(SOON).pollInterval(POLL).failFast(() -> !hold.isAlive())
        .until(() -> Files.exists(pidFile) && ProcessTable.sleeping(marker).size() == 1);
    long child = Long.parseLong(Files.readString(pidFile).trim());
    long grandchild = ProcessTable.sleeping(marker).get(0).pid();
    // On the unfixed code they outlive hold: close() must still find them.
    hold.killOnClose(child);
    hold.killOnClose(grandchild);
    long reaper = ProcessHandle.of(hold.pid()).orElseThrow().children()
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains("amlease-reaper"))
            .orElse(false))
        .findFirst().orElseThrow(() -> new AssertionError("no reaper\n" + hold.describe()))
        .pid();
    hold.killOnClose(reaper);
    return new Tree(child, grandchild, reaper);
  }

  /**
   * After hold exited by itself: it waited for COMMAND's whole group, so the grandchild is already
   * gone (or a zombie, which has no arguments and is not listed). Then as {@link #assertTreeGone}.
   */
  private void assertTreeGoneBeforeHoldExited(HoldProcess hold, Tree tree) {
    assertThat(ProcessTable.sleeping(marker)).as(hold::describe).isEmpty();
    assertTreeGone(hold, tree);
  }

  /** COMMAND, its grandchild and the reaper that guarded them are all gone, soon. */
  private void assertTreeGone(HoldProcess hold, Tree tree) {
    await("sleep " + marker + " gone").atMost(GONE).pollInterval(POLL)
        .untilAsserted(() -> assertThat(ProcessTable.sleeping(marker)).as(hold::describe).isEmpty());
    await("COMMAND gone").atMost(GONE).pollInterval(POLL)
        .until(() -> ProcessHandle.of(tree.child()).map(p -> !p.isAlive()).orElse(true));
    await("reaper gone").atMost(GONE).pollInterval(POLL)
        .until(() -> ProcessHandle.of(tree.reaper()).map(p -> !p.isAlive()).orElse(true));
  }
}
