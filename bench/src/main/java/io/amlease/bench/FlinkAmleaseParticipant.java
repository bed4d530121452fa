package io.amlease.bench;

import io.amlease.flink.leader.AmleaseLeaderElectionDriver;
import io.amlease.flink.leader.LeaderTerm;
import io.amlease.flink.leader.LeaderTerms;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * A JobManager on the amlease Flink plugin, as far as leadership goes: its
 * {@link AmleaseLeaderElectionDriver} with default timing for T, acting between Flink's grant and
 * revoke callbacks; a write is what the plugin's stores do: fenced by the term's epoch.
 */
final class FlinkAmleaseParticipant implements Participant {
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final String id;
  private final LeaseConfig config;
  private final Timeline timeline;
  private final LeaderTerms terms = new LeaderTerms();
  private volatile CuratorFramework client;
  private volatile AmleaseLeaderElectionDriver driver;
  private volatile long epoch;
  private volatile boolean acting;

  FlinkAmleaseParticipant(String id, String connect, String path, Duration t, Timeline timeline) {
    this.id = id;
    this.timeline = timeline;
    this.config = LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(t).connectionTimeout(Duration.ofSeconds(5)).build();
  }

  @Override
  public void start() throws Exception {
    client = ZkClients.connectOwner(config);
    driver = new AmleaseLeaderElectionDriver(config, client, terms, new FlinkEdges(session -> {
      epoch = session.getMostSignificantBits();
      acting = true;
      timeline.started(id, epoch);
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
      return client.getChildren().forPath(config.leasePath() + "/latch").size();
    } catch (Exception e) {
      return 0;
    }
  }

  @Override
  public boolean recoveredSince(long nanos) {
    return terms.current().map(t -> t.lease().state().lastAckNanos() - nanos > 0).orElse(true);
  }

  @Override
  public Optional<Written> write(String dataPath, byte[] data) {
    Optional<LeaderTerm> t = terms.current();
    if (!acting || t.isEmpty()) {
      return Optional.empty();
    }
    try {
      List<OpResult> r = t.get().write(List.of(Op.setData(dataPath, data, -1)));
      return Optional.of(new Written(t.get().epoch().value(),
          ((OpResult.SetDataResult) r.get(0)).getStat().getVersion()));
    } catch (LeaseException e) {
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
    driver.close();
  }

  @Override
  public void close() {
    ZkClients.closeWithin(() -> {
      if (driver != null) {
        driver.close();
      }
      if (client != null) {
        client.close();
      }
    }, CLOSE_WAIT, "bench-close-" + id);
  }
}
