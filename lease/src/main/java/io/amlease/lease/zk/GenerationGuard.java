package io.amlease.lease.zk;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * G6 in ZooKeeper itself: {@code <lease>/generation} holds the highest generation (YARN attempt
 * number) that has campaigned. A contender raises it before it joins the election, and puts a check
 * of the version it left there into its acquiring multi; so once a newer generation has raised it,
 * an older contender's acquisition fails atomically, however the two race. Reading the contenders
 * before acquiring could not promise that: a newer one can join between the read and the multi.
 */
final class GenerationGuard {
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private final long generation;
  private int version = -1;

  GenerationGuard(LeasePaths paths, LeaseAcl acl, long generation) {
    this.paths = paths;
    this.acl = acl;
    this.generation = generation;
  }

  /**
   * Raises the node to this generation (creating it if needed) and remembers its version.
   *
   * @throws LeaseException.Outdated when a newer generation has campaigned already
   * @throws LeaseException.BadData when the node does not hold a whole number
   */
  void register(ZooKeeper zk) throws Exception {
    while (true) {
      Stat stat = new Stat();
      byte[] data;
      try {
        data = zk.getData(paths.generation(), false, stat);
      } catch (KeeperException.NoNodeException e) {
        try {
          zk.create(paths.generation(), bytes(generation), acl.leaseAcl(), CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException raced) {
          // Another contender created it first: read what it wrote.
        }
        continue;
      }
      long current = parse(data);
      if (current > generation) {
        throw outdated(current);
      }
      if (current == generation) {
        version = stat.getVersion();
        return;
      }
      try {
        version = zk.setData(paths.generation(), bytes(generation), stat.getVersion()).getVersion();
        return;
      } catch (KeeperException.BadVersionException raced) {
        // Raised meanwhile, perhaps by a newer generation: look again.
      }
    }
  }

  /** The op an acquiring multi carries: fails once a newer generation has raised the node. */
  Op check() {
    return Op.check(paths.generation(), version);
  }

  LeaseException.Outdated outdated(long newer) {
    return new LeaseException.Outdated("a contender of generation " + (newer < 0 ? "(unknown)" : newer)
        + " campaigns for " + paths.root() + "; this contender's generation " + generation
        + " (" + LeaseConfig.GENERATION + ") will never acquire it (G6)");
  }

  private long parse(byte[] data) throws LeaseException.BadData {
    String text = new String(data, StandardCharsets.UTF_8).trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new LeaseException.BadData(paths.generation() + " holds '" + text + "', not a whole "
          + "number; refusing to campaign. To repair: write the highest YARN attempt number that "
          + "has run (zkCli.sh set " + paths.generation() + " N).");
    }
  }

  private static byte[] bytes(long value) {
    return Long.toString(value).getBytes(StandardCharsets.UTF_8);
  }
}
