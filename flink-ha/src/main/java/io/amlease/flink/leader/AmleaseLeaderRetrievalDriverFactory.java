package io.amlease.flink.leader;

import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalDriver;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalDriverFactory;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalEventHandler;
import org.apache.flink.runtime.rpc.FatalErrorHandler;

/** Makes {@link AmleaseLeaderRetrievalDriver}s for one component of one cluster. */
public final class AmleaseLeaderRetrievalDriverFactory implements LeaderRetrievalDriverFactory {
  private final CuratorFramework client;
  private final String connectionInfoPath;

  public AmleaseLeaderRetrievalDriverFactory(CuratorFramework client, ComponentPaths paths,
      String componentId) {
    this.client = client;
    this.connectionInfoPath = paths.connectionInfo(componentId);
  }

  @Override
  public LeaderRetrievalDriver createLeaderRetrievalDriver(LeaderRetrievalEventHandler handler,
      FatalErrorHandler fatal) {
    return new AmleaseLeaderRetrievalDriver(client, connectionInfoPath, handler, fatal);
  }
}
