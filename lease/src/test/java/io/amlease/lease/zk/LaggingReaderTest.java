package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.testkit.FaultProxy;
import io.amlease.testkit.ZkEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * G3 for readers (item 8 of issue 24): a reader never reports an older epoch than one it reported,
 * even when its new session lands on a server that is behind. Here that server is a follower cut
 * off from its peers that still serves (for syncLimit ticks) and, with local sessions on, accepts a
 * new session without the leader. Before the fix {@code current()} returned epoch 1 there after it
 * had returned epoch 2 (measured: the new session reads a's leader node, epoch 1).
 */
class LaggingReaderTest {
  private static final Duration READER_T = Duration.ofSeconds(2);
  private static ZkEnsemble ensemble;

  @BeforeAll
  static void startEnsemble() throws Exception {
    // An isolated follower keeps serving for 30 ticks (15 s): time enough to read from it.
    ensemble = ZkEnsemble.start(3, new ZkEnsemble.Timing(ZkServers.TICK_MS, 10, 30),
        Map.of("localSessionsEnabled", "true", "localSessionsUpgradingEnabled", "true"));
  }

  @AfterAll
  static void stopEnsemble() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void aReaderWhoseNewSessionLandsOnALaggingServerNeverReportsAnOlderEpoch() throws Exception {
    String path = "/lagging/lease";
    int leader = ensemble.leader().getAsInt();
    int[] followers = ensemble.followers();
    int lagging = followers[0];
    List<Long> seen = new CopyOnWriteArrayList<>();
    try (FaultProxy link = FaultProxy.start(ensemble.clientAddress(followers[1]));
         CuratorFramework client = ZkClients.connect(link.connectString(), READER_T,
             Duration.ofSeconds(5), null, List.of());
         LeaderReader reader = new LeaderReader(client, path)) {
      try (Holder a = new Holder(config(ensemble.connectString(leader), path, "a")).start()) {
        a.awaitGrant(Duration.ofSeconds(10));
        reader.watch(s -> s.info().ifPresent(i -> seen.add(i.epoch())), e -> { });
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains(1L));
        ensemble.isolate(lagging); // It keeps a's leader node, epoch 1, from now on.
      }
      try (Holder b = new Holder(config(ensemble.connectString(leader), path, "b")).start()) {
        assertThat(b.awaitGrant(Duration.ofSeconds(10)).epoch().value()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains(2L));
        assertThat(reader.current()).get().extracting(i -> i.epoch()).isEqualTo(2L);

        // The follower refuses the reader's session, which has seen newer changes than it has, so
        // the client declares it expired after 4T/3 and opens a new (local) one there, whose
        // leader node is a's, epoch 1.
        long before = client.getZookeeperClient().getZooKeeper().getSessionId();
        link.retarget(ensemble.clientAddress(lagging));
        link.reset();
        link.heal();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          org.apache.zookeeper.ZooKeeper z = client.getZookeeperClient().getZooKeeper();
          return z.getSessionId() != before && z.getState().isConnected();
        });
        // A one-off read there finds epoch 1; the reader syncs, which the cut-off follower cannot,
        // and reports that rather than the old leader.
        assertThatThrownBy(reader::current).isInstanceOf(LeaseException.class)
            .hasMessageContaining("behind what it read before");
        assertThat(reader.skipped()).isPositive();
        assertThat(seen).containsExactly(1L, 2L);
      } finally {
        ensemble.heal(lagging);
      }
    }
  }

  private static LeaseConfig config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5)).build();
  }
}
