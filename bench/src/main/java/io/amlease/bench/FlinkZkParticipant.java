package io.amlease.bench;

import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.runtime.highavailability.zookeeper.CuratorFrameworkWithUnhandledErrorListener;
import org.apache.flink.runtime.leaderelection.ZooKeeperLeaderElectionDriver;
import org.apache.flink.runtime.util.ZooKeeperUtils;
import org.apache.flink.shaded.curator5.org.apache.curator.framework.CuratorFramework;

/**
 * A JobManager of Flink's own ZooKeeper HA, as far as leadership goes: Flink's
 * {@link ZooKeeperLeaderElectionDriver} on Flink's Curator client, built from Flink's own
 * configuration keys, with {@code high-availability.zookeeper.client.tolerate-suspended-connections}
 * off (Flink's default) or on. Acting = between Flink's grant and revoke callbacks; a write is what
 * Flink's ZooKeeper stores do for a leader: a plain {@code setData}, unfenced.
 */
final class FlinkZkParticipant implements Participant {
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final String id;
  private final Configuration conf;
  private final Timeline timeline;
  private volatile CuratorFrameworkWithUnhandledErrorListener curator;
  private volatile CuratorFramework leaderClient;
  private volatile ZooKeeperLeaderElectionDriver driver;
  private volatile boolean acting;
  private volatile long epoch;

  FlinkZkParticipant(String id, String connect, String path, Duration t, boolean tolerant,
      Timeline timeline) {
    this.id = id;
    this.timeline = timeline;
    conf = new Configuration();
    conf.set(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM, connect);
    conf.set(HighAvailabilityOptions.HA_ZOOKEEPER_ROOT, path);
    conf.set(HighAvailabilityOptions.HA_CLUSTER_ID, "/bench");
    conf.set(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT, t);
    conf.set(HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT, Duration.ofSeconds(5));
    conf.set(HighAvailabilityOptions.ZOOKEEPER_TOLERATE_SUSPENDED_CONNECTIONS, tolerant);
  }

  @Override
  public void start() throws Exception {
    curator = ZooKeeperUtils.startCuratorFramework(conf, e -> { });
    leaderClient = ZooKeeperUtils.useNamespaceAndEnsurePath(curator.asCuratorFramework(),
        ZooKeeperUtils.getLeaderPath());
    driver = new ZooKeeperLeaderElectionDriver(leaderClient, new FlinkEdges(session -> {
      epoch = timeline.startedNextTerm(id);
      acting = true;
    }, () -> {
      acting = false;
      timeline.stopped(id, epoch);
    }));
  }

  @Override
  public boolean acting() {
    return acting;
  }

  @Override
  public int participants() {
    try {
      return leaderClient.getChildren().forPath(ZooKeeperUtils.getLeaderLatchPath()).size();
    } catch (Exception e) {
      return 0;
    }
  }

  @Override
  public boolean recoveredSince(long nanos) {
    return curator.asCuratorFramework().getZookeeperClient().isConnected();
  }

  @Override
  public Optional<Written> write(String dataPath, byte[] data) {
    if (!acting) {
      return Optional.empty();
    }
    long writerEpoch = epoch;
    try {
      return Optional.of(new Written(writerEpoch, curator.asCuratorFramework().usingNamespace(null)
          .setData().forPath(dataPath, data).getVersion()));
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  @Override
  public void release() {
    // Closing a driver revokes nothing (Flink closes it once its contenders have stopped): the
    // holder stops acting here, as a JobManager that shuts down would.
    if (acting) {
      acting = false;
      timeline.stopped(id, epoch);
    }
    try {
      driver.close();
    } catch (Exception e) {
      // Closing the client removes the latch node anyway.
    }
  }

  @Override
  public void close() {
    ZkClients.closeWithin(() -> {
      try {
        if (driver != null) {
          driver.close();
        }
      } catch (Exception e) {
        // The session's end removes the latch node.
      }
      if (curator != null) {
        curator.close();
      }
    }, CLOSE_WAIT, "bench-close-" + id);
  }
}
