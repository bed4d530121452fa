package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.curator.framework.recipes.locks.LockInternals;
import org.apache.curator.framework.recipes.locks.LockInternalsSorter;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The latch node just before ours, watched so that the first acquisition attempt leaves the moment
 * the holder's node is deleted, without waiting for the latch's own {@code getChildren} (DESIGN.md
 * §3, Acquire: the handover is one write, one watch event and one multi).
 *
 * <p>Why it is sound. The latch's children are sequential, and ZooKeeper numbers a parent's
 * children in creation order, so a node that sorts before ours existed when ours was made, and once
 * deleted never comes back. If a listing made after ours existed shows exactly one node before
 * ours, then after that node's deletion none is left before ours, for as long as ours exists. The
 * acquiring multi checks that ours exists, so where ZooKeeper applies it we are the lowest node: the
 * latch's leader, by the very rule (and the same sort) Curator's {@link
 * org.apache.curator.framework.recipes.leader.LeaderLatch} uses, which would say so one read
 * later. With more than one node before ours nothing is deduced: the watch moves to the new
 * predecessor, and the latch decides as always.
 */
final class Predecessor {
  /** Curator's {@code LeaderLatch} names its nodes {@code …latch-<sequence>} and sorts them so. */
  private static final String LOCK_NAME = "latch-";
  private static final LockInternalsSorter SORTER = StandardLockInternalsDriver::standardFixForSorting;
  /** How often to look again for our latch node while the latch is still creating it (no I/O). */
  private static final Duration POLL = Duration.ofMillis(20);
  /** Before listing the latch again after a failed listing, or one without our node. */
  private static final Duration RELIST = Duration.ofMillis(200);

  private final String latchDir;
  private final Supplier<String> ourPath;
  private final BooleanSupplier campaigning;
  private final ZkSource zk;
  private final Clock clock;
  private final Consumer<String> lowest;

  /**
   * {@code lowest} gets our latch node once it is deduced to be the lowest; it is called on
   * ZooKeeper's event thread and must not block.
   */
  Predecessor(String latchDir, Supplier<String> ourPath, BooleanSupplier campaigning, ZkSource zk,
      Clock clock, Consumer<String> lowest) {
    this.latchDir = latchDir;
    this.ourPath = ourPath;
    this.campaigning = campaigning;
    this.zk = zk;
    this.clock = clock;
    this.lowest = lowest;
  }

  /** Lists the latch and watches the node before ours; waits for ours while the latch makes it. */
  void arm() {
    if (!campaigning.getAsBoolean()) {
      return;
    }
    String ours = ourPath.get();
    ZooKeeper handle;
    try {
      handle = zk.get();
    } catch (Exception e) {
      handle = null;
    }
    if (ours == null || handle == null) {
      clock.schedule(this::arm, POLL);
      return;
    }
    ZooKeeper z = handle;
    z.getChildren(latchDir, false, (rc, path, ctx, children) -> {
      if (Code.get(rc) == Code.OK) {
        listed(z, ours, children);
      } else {
        clock.schedule(this::arm, RELIST); // Lost the connection, or a handle that expired.
      }
    }, null);
  }

  private void listed(ZooKeeper z, String ours, List<String> children) {
    List<String> sorted = LockInternals.getSortedChildren(LOCK_NAME, SORTER, children);
    int index = sorted.indexOf(ZKPaths.getNodeFromPath(ours));
    if (index == 0) {
      return; // The lowest already: the latch says leader.
    }
    if (index < 0) {
      clock.schedule(this::arm, RELIST); // Ours is gone: look again once the latch made a new one.
      return;
    }
    boolean onlyOne = index == 1;
    String before = ZKPaths.makePath(latchDir, sorted.get(index - 1));
    // getData, not exists: a watch on a node that is gone already would never fire, and stay.
    z.getData(before, event -> changed(event, ours, onlyOne), (rc, path, ctx, data, stat) -> {
      if (Code.get(rc) == Code.NONODE) {
        deleted(ours, onlyOne);
      } else if (Code.get(rc) != Code.OK) {
        clock.schedule(this::arm, RELIST); // No watch was set.
      }
    }, null);
  }

  private void changed(WatchedEvent event, String ours, boolean onlyOne) {
    if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
      deleted(ours, onlyOne);
    } else if (event.getType() == Watcher.Event.EventType.NodeDataChanged) {
      arm(); // The watch fired and is gone: set it again.
    } else if (event.getState() == Watcher.Event.KeeperState.Expired) {
      arm(); // A new session, a new latch node: look again once the latch has made it.
    }
  }

  private void deleted(String ours, boolean onlyOne) {
    if (!campaigning.getAsBoolean()) {
      return;
    }
    if (onlyOne && ours.equals(ourPath.get())) {
      lowest.accept(ours);
    } else {
      arm();
    }
  }
}
