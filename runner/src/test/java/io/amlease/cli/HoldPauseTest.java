package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * G4 and G3 with a real process pause: {@code hold} is stopped with SIGSTOP, a contender takes over,
 * and {@code hold} is continued. A stopped process cannot stop its child, but the child's reaper, a
 * dead-man's switch told every deadline, ends the child's group once the last deadline passes (and
 * then the paused runner's session, so the contender need not wait for T). A write carrying the old
 * token is refused all the same. On SIGCONT, hold notices and exits 75.
 */
class HoldPauseTest {
  private static final Duration T = Duration.ofSeconds(6);
  /** hold's grace at T = 6 s with a 1 s stop-timeout: min(4 s, 6 × 0.95 − 1 − 1 − 0.925). */
  private static final Duration GRACE = Duration.ofMillis(2775);
  private static final Duration STOP = Duration.ofSeconds(1);
  /** The slack G2 allows for a late watchdog and signal delivery. */
  private static final Duration SLACK = Duration.ofSeconds(1);

  @TempDir
  Path dir;

  /** Whether {@code pid} exists and is not a zombie. */
  private static boolean acting(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return !state.equals("Z") && !state.equals("X");
    } catch (java.io.IOException gone) {
      return false;
    }
  }

  @Test
  void pausedHolderIsFencedAndExitsOnContinue() throws Exception {
    String lease = "/pause/lease";
    String state = "/pause/app-state";
    Path term = dir.resolve("term");
    List<Long> seenEpochs = new CopyOnWriteArrayList<>();
    try (TestingServer server = ZkServers.standalone();
         CuratorFramework zk = ZkClients.connectReader(server.getConnectString(),
             Duration.ofSeconds(5));
         LeaderReader reader = new LeaderReader(zk, lease);
         HoldProcess hold = HoldProcess.start(dir, "hold", "hold", "--zk",
             server.getConnectString(), "--lease", lease, "--id", "paused",
             "--session-timeout", T.toSeconds() + "s", "--stop-timeout", "1s", "--", "sh", "-c",
             "echo \"$$ $AMLEASE_EPOCH $AMLEASE_EPOCH_TOKEN\" > " + dir.resolve("term.tmp")
                 + " && mv " + dir.resolve("term.tmp") + " " + term
                 + "; while :; do sleep 0.1; done")) {
      reader.watch(s -> s.info().ifPresent(i -> seenEpochs.add(i.epoch())), e -> { });
      await().atMost(Duration.ofSeconds(20)).failFast(() -> !hold.isAlive())
          .until(() -> Files.exists(term));
      String[] fields = Files.readString(term).trim().split(" ");
      ProcessHandle child = ProcessHandle.of(Long.parseLong(fields[0])).orElseThrow();
      hold.killOnClose(child.pid());
      assertThat(fields[1]).isEqualTo("1");
      int oldToken = Integer.parseInt(fields[2]);

      try (LeaseHolder contender = LeaseHolder.start(server.getConnectString(), lease, "contender")) {
        await().atMost(Duration.ofSeconds(5))
            .until(() -> zk.getChildren().forPath(lease + "/latch").size() == 2);

        hold.signal("STOP");
        long stopped = System.nanoTime(); // The term's last ack was before this.
        // Issue 24 item 3: before the reaper was a dead-man's switch the command ran on for as
        // long as hold stayed stopped.
        // The command's parent is the stopped hold, which cannot reap it: gone means a zombie.
        await().atMost(GRACE.plus(STOP).plus(SLACK)).until(() -> !acting(child.pid()));
        Duration gone = Duration.ofNanos(System.nanoTime() - stopped);
        assertThat(gone).as("the command is gone by deadline + stop-timeout")
            .isLessThanOrEqualTo(GRACE.plus(STOP).plus(SLACK));
        LeaseHolder.Grant next = contender.awaitGrant(T.multipliedBy(3));
        assertThat(next.epoch().value()).isEqualTo(2);

        // The command's write, fenced with the token it was given, is refused by ZooKeeper ...
        assertThatThrownBy(() -> zk.transaction().forOperations(
                zk.transactionOp().check().withVersion(oldToken).forPath(lease + "/epoch"),
                zk.transactionOp().create().withMode(CreateMode.PERSISTENT)
                    .forPath(state, "from-paused".getBytes(StandardCharsets.UTF_8))))
            .isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(zk.checkExists().forPath(state)).isNull();

        // ... and once continued, hold finds its deadline long past: it exits 75.
        hold.signal("CONT");
        assertThat(hold.awaitExit(Duration.ofSeconds(10))).as(hold::describe)
            .isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(child.isAlive()).isFalse();
        assertThat(hold.stderr()).containsAnyOf("GRACE_EXPIRED", "SESSION_LOST", "SUPERSEDED",
            "after epoch 1 ended");

        LeaderInfo leader = reader.current().orElseThrow();
        assertThat(leader.holder()).isEqualTo("contender");
        assertThat(leader.epoch()).isEqualTo(2);
        assertThat(contender.revocations).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> seenEpochs.contains(2L));
        assertThat(seenEpochs).isSorted().contains(1L, 2L);
      }
    }
  }
}
