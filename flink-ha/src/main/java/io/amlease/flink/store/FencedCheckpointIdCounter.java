package io.amlease.flink.store;

import io.amlease.flink.leader.Codes;
import io.amlease.flink.leader.LeaderTerm;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * A job's checkpoint ids, counted in one ZooKeeper node (a decimal) and advanced only by fenced
 * compare-and-set writes: a JobManager that no longer leads cannot take an id, so two leaders can
 * never both complete a checkpoint under the same id. Bound, like the stores, to the term that was
 * current when Flink created it.
 */
public final class FencedCheckpointIdCounter implements CheckpointIDCounter {
  private static final Duration SYNC_WITHIN = Duration.ofSeconds(15);

  private final CuratorFramework client;
  private final String path;
  private final Optional<LeaderTerm> term;
  private volatile long last = INITIAL_CHECKPOINT_ID;

  public FencedCheckpointIdCounter(CuratorFramework client, String path,
      Optional<LeaderTerm> term) {
    this.client = client;
    this.path = path;
    this.term = term;
  }

  private LeaderTerm term() throws LeaseException.NotLeader {
    return term.orElseThrow(() -> new LeaseException.NotLeader(
        "this JobManager did not lead when the checkpoint counter " + path + " was created"));
  }

  /** Creates the counter at {@value #INITIAL_CHECKPOINT_ID} unless it exists. */
  @Override
  public void start() throws Exception {
    ZkClients.sync(client.getZookeeperClient().getZooKeeper(), path, SYNC_WITHIN);
    Stat stat = client.checkExists().forPath(path);
    if (stat != null) {
      last = read(new Stat());
      return;
    }
    LeaderTerm t = term();
    String parent = ZKPaths.getPathAndNode(path).getPath();
    try {
      client.create().creatingParentsIfNeeded().withACL(t.acl()).forPath(parent);
    } catch (KeeperException.NodeExistsException e) {
      // An earlier leader's.
    }
    try {
      t.write(List.of(Op.create(path, bytes(INITIAL_CHECKPOINT_ID), t.acl(),
          CreateMode.PERSISTENT)));
      last = INITIAL_CHECKPOINT_ID;
    } catch (LeaseException e) {
      if (Codes.of(e) != Code.NODEEXISTS) {
        throw e;
      }
      last = read(new Stat());
    }
  }

  @Override
  public long getAndIncrement() throws Exception {
    LeaderTerm t = term();
    while (true) {
      Stat stat = new Stat();
      long current = read(stat);
      if (current == Long.MAX_VALUE) {
        throw new IllegalStateException("checkpoint id counter " + path + " overflows");
      }
      try {
        t.write(List.of(Op.setData(path, bytes(current + 1), stat.getVersion())));
        last = current + 1;
        return current;
      } catch (LeaseException e) {
        if (Codes.of(e) != Code.BADVERSION) {
          throw e;
        }
        // Another increment came first (within this term): read again, after the server this
        // client reads from has caught up with it.
        ZkClients.sync(client.getZookeeperClient().getZooKeeper(), path, SYNC_WITHIN);
      }
    }
  }

  /** The next id as last read or written here. */
  @Override
  public long get() {
    return last;
  }

  @Override
  public void setCount(long next) throws Exception {
    term().write(List.of(Op.setData(path, bytes(next), -1)));
    last = next;
  }

  /** Deletes the counter, fenced, once the job has ended for good; keeps it on a suspension. */
  @Override
  public CompletableFuture<Void> shutdown(JobStatus status) {
    if (!status.isGloballyTerminalState()) {
      return CompletableFuture.completedFuture(null);
    }
    try {
      term().write(List.of(Op.delete(path, -1)));
    } catch (LeaseException e) {
      if (Codes.of(e) != Code.NONODE) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  private long read(Stat stat) throws Exception {
    byte[] data = client.getData().storingStatIn(stat).forPath(path);
    String text = new String(data, StandardCharsets.UTF_8).trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("checkpoint id counter " + path + " holds '" + text
          + "', not a number; delete the node only if the job has no checkpoints to keep", e);
    }
  }

  private static byte[] bytes(long value) {
    return Long.toString(value).getBytes(StandardCharsets.UTF_8);
  }
}
