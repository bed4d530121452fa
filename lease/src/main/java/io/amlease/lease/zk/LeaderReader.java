package io.amlease.lease.zk;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads {@code <lease>/leader}: once, or as a stream of changes. Needs no credentials (lease nodes are
 * world-readable). Leader info only changes through epoch-fenced multis, so the epochs a reader sees
 * never go down.
 */
public final class LeaderReader implements AutoCloseable {
  private final CuratorFramework client;
  private final LeasePaths paths;
  private CuratorCache cache;

  /** What {@code <lease>/leader} held at one version; {@code info} is empty when there is no leader. */
  public record Snapshot(Optional<LeaderInfo> info, int version, long mzxid) {
    static final Snapshot NONE = new Snapshot(Optional.empty(), -1, -1);
  }

  public LeaderReader(CuratorFramework client, String leasePath) {
    this.client = client;
    this.paths = new LeasePaths(leasePath);
  }

  public String leaderPath() {
    return paths.leader();
  }

  /** The current leader, if any. */
  public Optional<LeaderInfo> current() throws LeaseException {
    Stat stat = new Stat();
    byte[] data;
    try {
      data = client.getData().storingStatIn(stat).forPath(paths.leader());
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (Exception e) {
      throw new LeaseException("cannot read " + paths.leader() + ": " + e, e);
    }
    return Optional.of(LeaderInfo.fromJson(paths.leader(), data));
  }

  /**
   * Calls {@code onChange} with the current state and then on every change seen, on Curator's event
   * thread. Malformed data goes to {@code onBadData}, and watching continues.
   */
  public synchronized void watch(Consumer<Snapshot> onChange, Consumer<LeaseException> onBadData) {
    if (cache != null) {
      throw new IllegalStateException("already watching");
    }
    cache = CuratorCache.build(client, paths.leader(), CuratorCache.Options.SINGLE_NODE_CACHE);
    Consumer<ChildData> publish = node -> {
      try {
        onChange.accept(new Snapshot(Optional.of(LeaderInfo.fromJson(paths.leader(), node.getData())),
            node.getStat().getVersion(), node.getStat().getMzxid()));
      } catch (LeaseException.BadData e) {
        onBadData.accept(e);
      }
    };
    boolean[] initialized = {false};
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((old, node) -> publish.accept(node))
        .forDeletes(old -> onChange.accept(Snapshot.NONE))
        .forInitialized(() -> {
          if (cache.get(paths.leader()).isEmpty()) {
            onChange.accept(Snapshot.NONE);
          }
        })
        .build());
    cache.start();
  }

  @Override
  public synchronized void close() {
    if (cache != null) {
      cache.close();
    }
  }
}
