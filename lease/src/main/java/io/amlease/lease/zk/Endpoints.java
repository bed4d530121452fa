package io.amlease.lease.zk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Publishes a term's endpoints ({@code rpc=host:port}, {@code http=…}) into the URLs of its leader
 * info, for a process the holder started: the master under the AM, COMMAND under {@code hold}. Such
 * a process has the term's epoch and token (its environment) but not the holder's session, so the
 * write is a multi fenced by the token (G3) and conditional on the leader node's version, and the
 * leader node must name the term's epoch: a superseded term's endpoints are refused, never written
 * over the newer holder's. The read follows a {@code sync}, so a server that lags (or is cut off
 * from its quorum) cannot make a current term look over. Only {@code urls} changes: every other
 * field of the leader info is kept as it is, those this version does not know included. Readers
 * ({@link LeaderReader}, {@code amlease leader --json}) see the endpoints; after a failover they
 * name the new holder's, once its master publishes them.
 */
public final class Endpoints {
  /** Endpoint names: what a reader looks up. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  /** Leader info changed by someone else between our read and our write: read and merge again. */
  private static final int ATTEMPTS = 5;
  private static final Duration SYNC_WITHIN = Duration.ofSeconds(15);
  private static final ObjectMapper JSON = new ObjectMapper();

  private Endpoints() {}

  /**
   * Adds (or replaces) {@code urls} in the leader info of term {@code epoch} of lease
   * {@code leasePath}; returns the leader info as written.
   *
   * @throws LeaseException.NotLeader when the term is over: no leader node, or one of another epoch
   * @throws LeaseException.Fenced when {@code <lease>/epoch} is no longer at the term's token
   * @throws LeaseException.BadData when the leader info is malformed or the epoch node is missing
   * @throws LeaseException.AccessDenied when the lease's ACL does not admit this client
   * @throws LeaseException.Unavailable when ZooKeeper cannot be reached
   * @throws IllegalArgumentException for a name outside {@link #NAME} or a blank URL
   */
  public static LeaderInfo publish(CuratorFramework client, String leasePath, Epoch epoch,
      Map<String, String> urls) throws LeaseException {
    urls.forEach((name, url) -> {
      if (!NAME.matcher(name).matches() || url == null || url.isBlank()) {
        throw new IllegalArgumentException("endpoint '" + name + "=" + url + "': the name must match "
            + NAME.pattern() + " and the URL must not be blank");
      }
    });
    LeasePaths paths = new LeasePaths(leasePath);
    ZooKeeper zk;
    try {
      zk = client.getZookeeperClient().getZooKeeper();
    } catch (Exception e) {
      throw new LeaseException.Unavailable("no ZooKeeper connection to publish with: " + e, e);
    }
    try {
      ZkClients.sync(zk, paths.leader(), SYNC_WITHIN);
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        Stat stat = new Stat();
        byte[] data = zk.getData(paths.leader(), false, stat);
        LeaderInfo info = LeaderInfo.fromJson(paths.leader(), data); // BadData if malformed
        if (info.epoch() != epoch.value()) {
          throw new LeaseException.NotLeader(paths.leader() + " names epoch " + info.epoch()
              + ", not " + epoch.value() + ": the term of epoch " + epoch.value() + " is over");
        }
        ObjectNode tree = (ObjectNode) JSON.readTree(data);
        ObjectNode merged = tree.has("urls") && tree.get("urls").isObject()
            ? (ObjectNode) tree.get("urls") : tree.putObject("urls");
        urls.forEach(merged::put);
        byte[] updated = JSON.writeValueAsBytes(tree);
        try {
          List<Op> ops = new ArrayList<>(EpochGuard.ops(leasePath, epoch));
          ops.add(Op.setData(paths.leader(), updated, stat.getVersion()));
          zk.multi(ops);
          return LeaderInfo.fromJson(paths.leader(), updated);
        } catch (KeeperException e) {
          int failed = Multis.failedOp(e);
          if (failed == 0 && e.code() == Code.NONODE) {
            throw new LeaseException.BadData(paths.epoch() + " is missing: the lease is damaged "
                + "(see \"Repairing a damaged lease\" in the README)");
          } else if (EpochGuard.incarnationGone(e)) {
            throw new LeaseException.Fenced(paths.epoch() + " is not the node epoch "
                + epoch.value() + " was acquired on (incarnation " + epoch.incarnation()
                + " is gone: the lease was deleted since); nothing written", e);
          } else if (EpochGuard.refused(e)) {
            throw new LeaseException.Fenced(paths.epoch() + " is no longer at token "
                + epoch.token() + ": epoch " + epoch.value() + " was superseded; nothing written", e);
          } else if (failed != EpochGuard.OPS || e.code() != Code.BADVERSION) {
            throw e;
          }
          // Changed since our read (another publisher): read and merge again.
        }
      }
      throw new LeaseException.Unavailable("the leader info of " + leasePath + " changed "
          + ATTEMPTS + " times while publishing; try again", null);
    } catch (KeeperException.NoNodeException e) {
      throw new LeaseException.NotLeader("no one holds " + leasePath + " (" + paths.leader()
          + " is missing): the term of epoch " + epoch.value() + " is over");
    } catch (KeeperException.NoAuthException e) {
      throw new LeaseException.AccessDenied("ZooKeeper denied writing " + paths.leader()
          + ": the lease's ACL does not admit these credentials", e);
    } catch (KeeperException e) {
      throw new LeaseException.Unavailable("cannot publish to " + paths.leader() + ": "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseException.Unavailable("interrupted while publishing to " + paths.leader(), e);
    } catch (LeaseException e) {
      throw e;
    } catch (java.io.IOException e) {
      throw new LeaseException.BadData("the leader info in " + paths.leader() + " is not a JSON "
          + "object: " + e.getMessage());
    } catch (ClassCastException e) {
      throw new LeaseException.BadData("the leader info in " + paths.leader() + " is not a JSON "
          + "object");
    }
  }

  /** Brings the server this client reads from up to date with the quorum leader. */

}
