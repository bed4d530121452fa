package io.amlease.bench;

import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A holder as Curator users write one: a {@link LeaderLatch} whose {@code isLeader}/{@code notLeader}
 * callbacks start and stop acting, on a client with the given connection-state error policy. The latch
 * has no epoch; a term is numbered by the order in which holders began acting ({@link
 * Timeline#startedNextTerm}), so that a write after a newer term's write is recognisable.
 */
final class CuratorParticipant implements Participant {
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final String id;
  private final String path;
  private final Timeline timeline;
  private final CuratorFramework client;
  private volatile LeaderLatch latch;
  private volatile boolean acting;
  private volatile long epoch;

  CuratorParticipant(String id, String connect, String path, Duration t,
      ConnectionStateErrorPolicy policy, Timeline timeline) {
    this.id = id;
    this.path = path;
    this.timeline = timeline;
    // The same client settings as amlease's (ZkClients), except the policy under test.
    this.client = CuratorFrameworkFactory.builder().connectString(connect)
        .sessionTimeoutMs(Math.toIntExact(t.toMillis())).connectionTimeoutMs(5000)
        .retryPolicy(new ExponentialBackoffRetry(100, 5, 2000))
        .connectionStateErrorPolicy(policy).ensembleTracker(false).build();
  }

  @Override
  public void start() throws Exception {
    client.start();
    if (!client.blockUntilConnected(5, TimeUnit.SECONDS)) {
      throw new IllegalStateException(id + ": ZooKeeper not reachable");
    }
    LeaderLatch l = new LeaderLatch(client, path + "/latch", id, LeaderLatch.CloseMode.NOTIFY_LEADER);
    l.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        epoch = timeline.startedNextTerm(id);
        acting = true;
      }

      @Override
      public void notLeader() {
        acting = false;
        timeline.stopped(id, epoch);
      }
    });
    latch = l;
    l.start();
  }

  @Override
  public boolean acting() {
    return acting;
  }

  @Override
  public int participants() {
    try {
      return latch.getParticipants().size();
    } catch (Exception e) {
      return 0;
    }
  }

  @Override
  public boolean recoveredSince(long nanos) {
    return client.getZookeeperClient().isConnected();
  }

  @Override
  public Optional<Written> write(String dataPath, byte[] data) {
    if (!acting) {
      return Optional.empty();
    }
    long writerEpoch = epoch;
    try {
      return Optional.of(new Written(writerEpoch, client.setData().forPath(dataPath, data).getVersion()));
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  @Override
  public void release() {
    try {
      latch.close();
    } catch (Exception e) {
      // Closing the client below removes the latch node anyway.
    }
  }

  @Override
  public void close() {
    LeaderLatch l = latch;
    // Over a silent link a session close waits up to 2T/3 for its answer; do not hold the run for it.
    ZkClients.closeWithin(() -> {
      try {
        if (l != null && l.getState() == LeaderLatch.State.STARTED) {
          l.close();
        }
      } catch (Exception e) {
        // The session's end removes the latch node.
      }
      client.close();
    }, CLOSE_WAIT, "bench-close-" + id);
  }
}
