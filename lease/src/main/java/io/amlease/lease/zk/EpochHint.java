package io.amlease.lease.zk;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The lease's epoch as a waiting contender last saw it, kept current by a watch while it
 * campaigns, so that acquiring after a handover is one round trip (the acquiring multi) rather than
 * three (two reads, then the multi). Only a hint: the multi is conditional on the version the hint
 * saw, and a stale hint costs one refused multi and then the full read, never safety (G3).
 */
final class EpochHint {
  /** The epoch's value and the version of {@code <lease>/epoch} that held it. */
  record Seen(long value, int version) {}

  private final LeasePaths paths;
  private final BooleanSupplier campaigning;
  private volatile Seen seen;

  EpochHint(LeasePaths paths, BooleanSupplier campaigning) {
    this.paths = paths;
    this.campaigning = campaigning;
  }

  /** Reads the epoch without waiting, and again whenever it changes while campaigning. */
  void watch(ZooKeeper zk) {
    Watcher onChange = event -> {
      if (event.getType() == Watcher.Event.EventType.NodeDataChanged
          || event.getType() == Watcher.Event.EventType.NodeDeleted) {
        seen = null;
        if (campaigning.getAsBoolean()) {
          watch(zk);
        }
      }
    };
    zk.getData(paths.epoch(), onChange, (rc, path, ctx, data, stat) -> {
      if (Code.get(rc) == Code.OK) {
        try {
          long value = Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
          seen = value >= 0 ? new Seen(value, stat.getVersion()) : null;
        } catch (NumberFormatException e) {
          seen = null; // The full read reports bad data to the operator.
        }
      }
    }, null);
  }

  /** The epoch last seen, for one attempt; null when unknown. */
  Seen take() {
    Seen s = seen;
    seen = null;
    return s;
  }
}
