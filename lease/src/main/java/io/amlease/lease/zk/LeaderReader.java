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
 * world-readable). Leader info only changes through epoch-fenced multis, so in ZooKeeper's order of
 * changes the epoch never goes down; but a reader whose new session lands on a server behind the one
 * it read from before (after an expiry, on a follower that is cut off or slow, or one with local
 * sessions) would read an older leader node. So the reader remembers the newest change it reported
 * ({@link NewestChange}) and never reports an older one (G3): a one-off read syncs and reads again,
 * a watch skips it.
 */
public final class LeaderReader implements AutoCloseable {
  private final CuratorFramework client;
  private final LeasePaths paths;
  private final NewestChange newest = new NewestChange();
  private CuratorCache cache; // Guarded by this.

  /** What {@code <lease>/leader} held at one version; {@code info} is empty when there is no leader. */
  public record Snapshot(Optional<LeaderInfo> info, int version, long mzxid) {
    static final Snapshot NONE = new Snapshot(Optional.empty(), -1, -1);
  }

  private static final java.time.Duration SYNC_WITHIN = java.time.Duration.ofSeconds(15);

  public LeaderReader(CuratorFramework client, String leasePath) {
    this.client = client;
    this.paths = new LeasePaths(leasePath);
  }

  public String leaderPath() {
    return paths.leader();
  }

  /**
   * The current leader, if any. A read older than one this reader reported before is read again
   * after a {@code sync}; if the server still cannot catch up, that is an error, not old news.
   */
  public Optional<LeaderInfo> current() throws LeaseException {
    for (int attempt = 0; ; attempt++) {
      Stat stat = new Stat();
      byte[] data;
      try {
        data = client.getData().storingStatIn(stat).forPath(paths.leader());
      } catch (KeeperException.NoNodeException e) {
        return Optional.empty();
      } catch (Exception e) {
        throw new LeaseException("cannot read " + paths.leader() + ": " + e, e);
      }
      if (newest.admit(stat.getMzxid())) {
        return Optional.of(LeaderInfo.fromJson(paths.leader(), data));
      }
      if (attempt > 0) {
        throw new LeaseException("the server this reader is connected to is behind what it read "
            + "before (" + paths.leader() + " at zxid 0x" + Long.toHexString(stat.getMzxid())
            + ", seen 0x" + Long.toHexString(newest.newest()) + ") and did not catch up", null);
      }
      try {
        ZkClients.sync(client.getZookeeperClient().getZooKeeper(), paths.leader(), SYNC_WITHIN);
      } catch (Exception e) {
        throw new LeaseException("the server this reader is connected to is behind what it read "
            + "before, and cannot sync with its leader: " + e, e);
      }
    }
  }

  /** How many reads this reader skipped as older than one it reported (tests look at it). */
  int skipped() {
    return newest.skipped();
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
      if (!newest.admit(node.getStat().getMzxid())) {
        return; // A server behind the one we read from before: old news.
      }
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
