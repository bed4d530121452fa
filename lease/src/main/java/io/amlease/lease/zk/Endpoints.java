package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * over the newer holder's. Readers ({@link LeaderReader}, {@code amlease leader --json}) see them;
 * after a failover they name the new holder's, once its master publishes them.
 */
public final class Endpoints {
  /** Endpoint names: what a reader looks up. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  /** Leader info changed by someone else between our read and our write: read and merge again. */
  private static final int ATTEMPTS = 5;

  private Endpoints() {}

  /**
   * Adds (or replaces) {@code urls} in the leader info of term {@code epoch} of lease
   * {@code leasePath}; returns the leader info as written.
   *
   * @throws LeaseException.NotLeader when the term is over: no leader node, or one of another epoch
   * @throws LeaseException.Fenced when {@code <lease>/epoch} is no longer at the term's token
   * @throws LeaseException.AccessDenied when the lease's ACL does not admit this client
   * @throws IllegalArgumentException for a name outside {@link #NAME} or an empty URL
   */
  public static LeaderInfo publish(CuratorFramework client, String leasePath, Epoch epoch,
      Map<String, String> urls) throws LeaseException {
    urls.forEach((name, url) -> {
      if (!NAME.matcher(name).matches() || url == null || url.isBlank()) {
        throw new IllegalArgumentException("endpoint '" + name + "=" + url + "': the name must match "
            + NAME.pattern() + " and the URL must not be empty");
      }
    });
    LeasePaths paths = new LeasePaths(leasePath);
    try {
      ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        Stat stat = new Stat();
        LeaderInfo info = LeaderInfo.fromJson(paths.leader(),
            zk.getData(paths.leader(), false, stat));
        if (info.epoch() != epoch.value()) {
          throw new LeaseException.NotLeader(paths.leader() + " names epoch " + info.epoch()
              + ", not " + epoch.value() + ": the term of epoch " + epoch.value() + " is over");
        }
        Map<String, String> merged = new TreeMap<>(info.urls());
        merged.putAll(urls);
        LeaderInfo updated = new LeaderInfo(info.epoch(), info.holder(), info.host(), info.port(),
            merged, info.applicationId(), info.attemptId(), info.containerId(), info.sessionId(),
            info.acquiredAt());
        try {
          zk.multi(List.of(Op.check(paths.epoch(), epoch.token()),
              Op.setData(paths.leader(), updated.toJson(), stat.getVersion())));
          return updated;
        } catch (KeeperException e) {
          int failed = Multis.failedOp(e);
          if (failed == 0) {
            throw new LeaseException.Fenced(paths.epoch() + " is no longer at token "
                + epoch.token() + ": epoch " + epoch.value() + " was superseded; nothing written", e);
          } else if (failed != 1 || e.code() != Code.BADVERSION) {
            throw e;
          }
          // Changed since our read (another publisher): read and merge again.
        }
      }
      throw new LeaseException("the leader info of " + leasePath + " changed " + ATTEMPTS
          + " times while publishing; try again");
    } catch (KeeperException.NoNodeException e) {
      throw new LeaseException.NotLeader("no one holds " + leasePath + " (" + e.getPath()
          + " is missing): the term of epoch " + epoch.value() + " is over");
    } catch (KeeperException.NoAuthException e) {
      throw new LeaseException.AccessDenied("ZooKeeper denied writing " + paths.leader()
          + ": the lease's ACL does not admit these credentials", e);
    } catch (KeeperException e) {
      throw new LeaseException.Unavailable("cannot publish to " + paths.leader() + ": "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseException("interrupted while publishing to " + paths.leader(), e);
    } catch (LeaseException e) {
      throw e;
    } catch (Exception e) {
      throw new LeaseException("cannot publish to " + paths.leader() + ": " + e, e);
    }
  }
}
