package io.amlease.lease.zk;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.Epoch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The lease's persistent nodes: created once, checked before campaigning, read when acquiring.
 *
 * <p>{@code <lease>/epoch} is created together with {@code <lease>} in one transaction, holding 0, and
 * never again (G3): its znode version is the fencing token, and a re-created node would restart at
 * version 0, so a paused old holder's {@code check(epoch, token)} could pass again and readers could
 * see the epoch go down. An existing lease whose epoch node is gone is refused with a repair procedure.
 *
 * <p>An operator can still delete the whole lease, and the next holder makes it afresh, with versions
 * from 0 again. So the epoch node is born with a child of a name never used before, its incarnation
 * ({@code <lease>/epoch/i-UUID}), which every fenced write checks too ({@link EpochGuard}). Each
 * incarnation node is made by one create that is never retried (raw ZooKeeper, not Curator): a
 * create that a lost connection left in doubt could otherwise land, with its name, in a later
 * incarnation, where an old term's token would pass again. A lease made before incarnations (or
 * whose incarnation node an operator deleted) gets one from the first contender that reads it.
 */
final class LeaseNodes {
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private volatile String knownIncarnation;

  LeaseNodes(LeasePaths paths, LeaseAcl acl) {
    this.paths = paths;
    this.acl = acl;
  }

  /**
   * Creates the lease (root and epoch node) if it never existed, then checks that its nodes are of
   * the kind they must be, that these credentials may write them and, with credentials, that
   * nobody else may.
   */
  void prepare(CuratorFramework client) throws Exception {
    try {
      // A login the server refused fails this read at once (AuthFailed); one that failed in the
      // client leaves the session unauthenticated, which only asking the server shows.
      boolean exists = client.checkExists().forPath(paths.root()) != null;
      acl.checkAuthenticated(client.getZookeeperClient().getZooKeeper());
      if (!exists) {
        create(client);
      }
    } catch (KeeperException.AuthFailedException e) {
      throw acl.loginRefused(e);
    }
    ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
    persistent(handle, paths.root(), "it can have no children, so no latch, epoch or leader node "
        + "can be made under it: every holder would wait forever");
    persistent(handle, paths.latch(), "it can have no children, so no contender can join the "
        + "election");
    persistent(handle, paths.epoch(), "it goes with its session, and a new one would start the "
        + "fencing tokens again at version 0 (G3)");
    latchNodes(handle);
    leaderNode(handle);
    check(client, paths.root(), Perms.CREATE | Perms.DELETE | Perms.READ);
    check(client, paths.latch(), Perms.CREATE | Perms.DELETE);
    check(client, paths.epoch(), Perms.WRITE);
    check(client, paths.generation(), Perms.WRITE);
    ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
    Stat stat = new Stat();
    try {
      readEpoch(zk, stat);
    } catch (LeaseException.BadData e) {
      return; // The acquisition reports it to the listener, with the repair.
    }
    incarnation(zk, stat);
  }

  /** The incarnation last read, for an acquisition that reads nothing (the epoch hint's). */
  String knownIncarnation() {
    return knownIncarnation;
  }

  /**
   * The incarnation of the epoch node read with {@code epochStat}: the least of its {@code i-}
   * children (two contenders may each have given an old lease one; either binds as well), made now
   * if there is none.
   */
  String incarnation(ZooKeeper zk, Stat epochStat) throws Exception {
    Optional<String> found = epochStat.getNumChildren() == 0 ? Optional.empty() : least(zk);
    if (found.isEmpty()) {
      try {
        zk.create(paths.epoch() + "/" + EpochGuard.newIncarnation(), new byte[0], acl.leaseAcl(),
            CreateMode.PERSISTENT);
      } catch (KeeperException.NoNodeException e) {
        throw epochGone();
      }
      found = least(zk);
    }
    String name = found.orElseThrow(() -> new IllegalStateException(paths.epoch()
        + " has no incarnation node right after one was made"));
    knownIncarnation = name;
    return name;
  }

  private Optional<String> least(ZooKeeper zk) throws Exception {
    try {
      return zk.getChildren(paths.epoch(), false).stream()
          .filter(n -> Epoch.INCARNATION.matcher(n).matches()).sorted().findFirst();
    } catch (KeeperException.NoNodeException e) {
      throw epochGone();
    }
  }

  /**
   * The lease's first holder creates it. Only then: a parent whose ACL denies this client CREATE
   * must not stop the holders of a lease that exists already.
   */
  private void create(CuratorFramework client) throws Exception {
    String parent = ZKPaths.getPathAndNode(paths.root()).getPath();
    try {
      if (!parent.equals("/")) {
        client.create().creatingParentsIfNeeded().forPath(parent);
      }
    } catch (KeeperException.NodeExistsException e) {
      // Shared by other leases.
    } catch (KeeperException.NoAuthException e) {
      throw accessDenied(e.getPath() == null ? parent : e.getPath(), null);
    }
    try {
      // Raw ZooKeeper: Curator would retry a multi that a lost connection left in doubt, and a
      // retry after a deleteall would make a new lease with the old incarnation's name.
      client.getZookeeperClient().getZooKeeper().multi(List.of(
          Op.create(paths.root(), new byte[0], acl.leaseAcl(), CreateMode.PERSISTENT),
          Op.create(paths.epoch(), bytes(0), acl.leaseAcl(), CreateMode.PERSISTENT),
          Op.create(paths.epoch() + "/" + EpochGuard.newIncarnation(), new byte[0], acl.leaseAcl(),
              CreateMode.PERSISTENT)));
    } catch (KeeperException.NodeExistsException e) {
      // Normal after the first holder.
    } catch (KeeperException.NoAuthException e) {
      throw accessDenied(parent, null);
    }
  }

  /**
   * Refuses a lease node that is ephemeral (someone made it by hand, or another program's session
   * owns the path): what it breaks is {@code why}.
   */
  private void persistent(ZooKeeper zk, String path, String why) throws Exception {
    Stat stat = zk.exists(path, false);
    if (stat != null && stat.getEphemeralOwner() != 0) {
      throw new LeaseException.BadData(path + " is an ephemeral node (of session 0x"
          + Long.toHexString(stat.getEphemeralOwner()) + "), not a lease node: " + why
          + ". Refusing to campaign. To repair: end that session, or delete the lease (zkCli.sh "
          + "deleteall " + paths.root() + ") once no holder runs; or give the holders another "
          + LeaseConfig.LEASE_PATH + ".");
    }
  }

  /**
   * Refuses a persistent node in the latch: every contender's node there is ephemeral (its
   * session's), so a persistent one is no contender's, and one that sorts before theirs would hold
   * the election forever (the latch waits for the lowest node to go).
   */
  private void latchNodes(ZooKeeper zk) throws Exception {
    List<String> children;
    try {
      children = zk.getChildren(paths.latch(), false);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    for (String child : children) {
      String path = ZKPaths.makePath(paths.latch(), child);
      Stat stat = zk.exists(path, false);
      if (stat != null && stat.getEphemeralOwner() == 0) {
        throw new LeaseException.BadData(path + " is a persistent node in the latch: no "
            + "contender's (theirs are ephemeral nodes of their sessions), and it could hold the "
            + "election forever. Refusing to campaign. To repair: zkCli.sh delete " + path
            + (stat.getNumChildren() > 0 ? " (deleteall: it has children)" : "") + ".");
      }
    }
  }

  /**
   * Refuses a leader node with children: a holder's has none, and the acquiring multi replaces the
   * node by deleting it, which ZooKeeper refuses for a node with children; every acquisition would
   * fail and be retried for ever.
   */
  private void leaderNode(ZooKeeper zk) throws Exception {
    List<String> children;
    try {
      children = zk.getChildren(paths.leader(), false);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    if (!children.isEmpty()) {
      throw new LeaseException.BadData(paths.leader() + " has children (" + String.join(", ",
          children.subList(0, Math.min(3, children.size()))) + (children.size() > 3 ? ", …" : "")
          + "): no holder's leader node has any, and one with children cannot be replaced, so no "
          + "term could begin. Refusing to campaign. To repair: zkCli.sh deleteall "
          + paths.leader() + " (the next holder writes it again).");
    }
  }

  private void check(CuratorFramework client, String path, int perms) throws Exception {
    List<ACL> current;
    try {
      current = client.getACL().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    if (!acl.grants(current, perms)) {
      throw accessDenied(path, current);
    }
    List<ACL> foreign = acl.othersWhoMayWrite(current);
    if (!foreign.isEmpty()) {
      throw new LeaseException.AccessDenied(path + " has ACL " + LeaseAcl.format(current)
          + ", which lets " + LeaseAcl.format(foreign) + " change it: anyone so allowed could lead, "
          + "bump the epoch or delete the leader info. Restrict it (as the lease's principal, in "
          + "zkCli.sh: setAcl -R " + paths.root() + " " + acl.leaseAclText() + ") or use a new "
          + LeaseConfig.LEASE_PATH, null);
    }
  }

  LeaseException.AccessDenied accessDenied(String path, List<ACL> current) {
    return new LeaseException.AccessDenied("ZooKeeper denies " + acl.who() + " write access to "
        + path + (current == null ? "" : " (ACL " + LeaseAcl.format(current) + ")") + "; give the "
        + "lease principal's user:password file with " + LeaseConfig.ACL_CREDENTIALS
        + " (--acl-credentials), or its SASL principal with " + LeaseConfig.SASL_PRINCIPAL
        + " and a JAAS login context", null);
  }

  /**
   * The current epoch (0 before the first term) and its stat.
   *
   * @throws LeaseException.BadData when the node is gone or does not hold a decimal epoch
   */
  long readEpoch(ZooKeeper zk, Stat stat) throws Exception {
    byte[] data;
    try {
      data = zk.getData(paths.epoch(), false, stat);
    } catch (KeeperException.NoNodeException e) {
      throw epochGone();
    }
    String text = new String(data, StandardCharsets.UTF_8).trim();
    try {
      long value = Long.parseLong(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new LeaseException.BadData(paths.epoch() + " holds '" + text + "', not a decimal epoch "
        + ">= 0; refusing to acquire. To repair: write back the highest epoch ever used (see "
        + paths.leader() + " or the holders' logs), keeping the node (zkCli.sh set " + paths.epoch()
        + " N); never delete it (its version is the fencing token).");
  }

  private LeaseException.BadData epochGone() {
    return new LeaseException.BadData(paths.epoch() + " is gone, but " + paths.root()
        + " exists: the epoch node must never be re-created, because its version is the fencing "
        + "token and would start again at 0 (G3). Refusing to acquire. To repair: stop every "
        + "holder of this lease (every process that ever held it, including paused or "
        + "partitioned ones), then delete the whole lease (zkCli.sh deleteall " + paths.root()
        + ") so that the next holder creates it afresh; or give the holders a new "
        + LeaseConfig.LEASE_PATH + ". (If you created " + paths.root() + " yourself, for its ACL, "
        + "create " + paths.epoch() + " holding 0 with it, before any holder starts.)");
  }

  static byte[] bytes(long epoch) {
    return Long.toString(epoch).getBytes(StandardCharsets.UTF_8);
  }
}
