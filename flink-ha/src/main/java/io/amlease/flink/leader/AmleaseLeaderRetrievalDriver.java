package io.amlease.flink.leader;

import io.amlease.lease.zk.NewestChange;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalDriver;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalEventHandler;
import org.apache.flink.runtime.rpc.FatalErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one component's leader information and tells Flink each change. A lost ZooKeeper
 * session clears what it told (the information may be stale by the time the client has a new
 * session); a short disconnect does not, as the leader itself keeps leading through one (G1).
 * After a reconnect the node is read again, since a change may have been missed. A read older (by
 * the node's mzxid) than one already told is skipped: a new session may land on a server behind the
 * one read before, and Flink must never hear of an older leader again (G3).
 */
public final class AmleaseLeaderRetrievalDriver implements LeaderRetrievalDriver {
  private static final Logger LOG = LoggerFactory.getLogger(AmleaseLeaderRetrievalDriver.class);

  private final CuratorFramework client;
  private final String path;
  private final LeaderRetrievalEventHandler handler;
  private final FatalErrorHandler fatal;
  private final CuratorCache cache;
  private final ConnectionStateListener connection = (c, state) -> connectionChanged(state);
  private volatile boolean closed;
  private final NewestChange newest = new NewestChange();

  public AmleaseLeaderRetrievalDriver(CuratorFramework client, String connectionInfoPath,
      LeaderRetrievalEventHandler handler, FatalErrorHandler fatal) {
    this.client = client;
    this.path = connectionInfoPath;
    this.handler = handler;
    this.fatal = fatal;
    this.cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> notifyIfFresh(after.getStat().getMzxid(),
            after.getData()))
        .forDeletes(gone -> notify(LeaderInformation.empty()))
        .build());
    client.getConnectionStateListenable().addListener(connection);
    cache.start();
  }

  private void connectionChanged(ConnectionState state) {
    if (state == ConnectionState.LOST) {
      LOG.info("ZooKeeper session lost: leader information at {} cleared until it is read again",
          path);
      notify(LeaderInformation.empty());
    } else if (state == ConnectionState.RECONNECTED) {
      readAgain();
    }
  }

  /** Reads the node once, in the background (Flink ignores information it already has). */
  private void readAgain() {
    try {
      client.getData().inBackground((c, event) -> {
        if (event.getResultCode() == 0) {
          notifyIfFresh(event.getStat().getMzxid(), event.getData());
        } else if (event.getResultCode() == org.apache.zookeeper.KeeperException.Code.NONODE
            .intValue()) {
          notify(LeaderInformation.empty());
        }
      }).forPath(path);
    } catch (Exception e) {
      fatal.onFatalError(e);
    }
  }

  private void notifyIfFresh(long mzxid, byte[] data) {
    if (!newest.admit(mzxid)) {
      LOG.info("skipping leader information at {} older than what was told (a server behind)",
          path);
      return;
    }
    notify(ConnectionInfo.parse(data));
  }

  private void notify(LeaderInformation info) {
    if (!closed) {
      handler.notifyLeaderAddress(info);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    client.getConnectionStateListenable().removeListener(connection);
    cache.close();
  }
}
