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
 * G3 with a real process pause: {@code hold} is stopped with SIGSTOP for longer than T, a contender
 * takes over, and {@code hold} is continued. Its command kept running meanwhile (a stopped process
 * cannot stop its child); what keeps that harmless is the epoch token: a write carrying the old token
 * fails. On SIGCONT, hold notices at once, stops its command and exits 75.
 */
class HoldPauseTest {
  private static final Duration T = Duration.ofSeconds(6);

  @TempDir
  Path dir;

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
        LeaseHolder.Grant next = contender.awaitGrant(T.multipliedBy(3));
        assertThat(next.epoch().value()).isEqualTo(2);
        assertThat(child.isAlive()).as("a stopped hold cannot stop its command").isTrue();

        // The command's write, fenced with the token it was given, is refused by ZooKeeper ...
        assertThatThrownBy(() -> zk.transaction().forOperations(
                zk.transactionOp().check().withVersion(oldToken).forPath(lease + "/epoch"),
                zk.transactionOp().create().withMode(CreateMode.PERSISTENT)
                    .forPath(state, "from-paused".getBytes(StandardCharsets.UTF_8))))
            .isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(zk.checkExists().forPath(state)).isNull();

        // ... and once continued, hold finds its deadline long past: it stops the command, exits 75.
        hold.signal("CONT");
        assertThat(hold.awaitExit(Duration.ofSeconds(10))).as(hold::describe)
            .isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(child.isAlive()).isFalse();
        assertThat(hold.stderr()).containsAnyOf("GRACE_EXPIRED", "SESSION_LOST", "SUPERSEDED");

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
