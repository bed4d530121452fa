package io.amlease.flink.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.FaultProxy;
import io.amlease.testkit.ZkEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalEventHandler;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * G3 for Flink's retrievers: once the driver has told Flink of a leader, it never tells it of an
 * older one, even when its new session lands on a server that is behind. That server is a follower
 * cut off from its peers that still serves (for syncLimit ticks) and, with local sessions on,
 * accepts a new session without the leader; it still holds the first leader's information.
 */
class LaggingRetrievalTest {
  private static final Duration RETRIEVER_T = Duration.ofSeconds(2);
  private static final String PATH = "/lagging-flink/connection_info/dispatcher";
  private static ZkEnsemble ensemble;

  @BeforeAll
  static void startEnsemble() throws Exception {
    // An isolated follower keeps serving for 30 ticks of 500 ms: time enough to read from it.
    ensemble = ZkEnsemble.start(3, new ZkEnsemble.Timing(500, 10, 30),
        Map.of("localSessionsEnabled", "true", "localSessionsUpgradingEnabled", "true"));
  }

  @AfterAll
  static void stopEnsemble() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void aRetrieverWhoseNewSessionLandsOnALaggingServerNeverTellsFlinkOfAnOlderLeader()
      throws Exception {
    int leader = ensemble.leader().getAsInt();
    int[] followers = ensemble.followers();
    int lagging = followers[0];
    LeaderInformation first = LeaderInformation.known(UUID.randomUUID(), "pekko://flink@a:6123");
    LeaderInformation second = LeaderInformation.known(UUID.randomUUID(), "pekko://flink@b:6123");
    List<LeaderInformation> told = new CopyOnWriteArrayList<>();
    LeaderRetrievalEventHandler handler = told::add;
    List<Throwable> fatal = new CopyOnWriteArrayList<>();
    try (CuratorFramework writer = ZkClients.connect(ensemble.connectString(leader),
             Duration.ofSeconds(10), Duration.ofSeconds(5), null, List.of());
         FaultProxy link = FaultProxy.start(ensemble.clientAddress(followers[1]));
         CuratorFramework client = ZkClients.connect(link.connectString(), RETRIEVER_T,
             Duration.ofSeconds(5), null, List.of())) {
      writer.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT)
          .forPath(PATH, ConnectionInfo.bytes(first));
      AmleaseLeaderRetrievalDriver driver =
          new AmleaseLeaderRetrievalDriver(client, PATH, handler, fatal::add);
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> told.contains(first));
        ensemble.isolate(lagging); // It keeps the first leader's information from now on.
        writer.setData().forPath(PATH, ConnectionInfo.bytes(second));
        await().atMost(Duration.ofSeconds(10)).until(() -> told.contains(second));

        // The follower refuses the retriever's session, which has seen newer changes than it has,
        // so the client declares it expired and opens a new (local) one there, where the node
        // still holds the first leader's information; the driver reads it again on RECONNECTED and
        // its cache reads it again for the new session.
        long before = client.getZookeeperClient().getZooKeeper().getSessionId();
        link.retarget(ensemble.clientAddress(lagging));
        link.reset();
        link.heal();
        await().atMost(Duration.ofSeconds(15)).until(() -> {
          org.apache.zookeeper.ZooKeeper z = client.getZookeeperClient().getZooKeeper();
          return z.getSessionId() != before && z.getState().isConnected();
        });
        // Both re-reads of the old node are answered (a one-off getData and the cache's) well
        // within this; what Flink was told must not go back to the first leader.
        await("Flink is not told of the first leader again").during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(5))
            .until(() -> told.lastIndexOf(first) < told.indexOf(second));
        assertThat(fatal).isEmpty();
        assertThat(told.subList(told.indexOf(second), told.size()))
            .as("after the second leader, only it or empty information (the lost session)")
            .allMatch(i -> i.equals(second) || i.isEmpty());
      } finally {
        driver.close();
        ensemble.heal(lagging);
      }
    }
  }
}
