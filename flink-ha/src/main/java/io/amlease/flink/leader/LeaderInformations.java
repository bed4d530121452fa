package io.amlease.flink.leader;

import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.zookeeper.KeeperException;

/** Reads a component's leader information once. */
public final class LeaderInformations {
  private LeaderInformations() {}

  /** Empty when the component has none. */
  public static LeaderInformation read(CuratorFramework client, ComponentPaths paths,
      String componentId) throws Exception {
    try {
      return ConnectionInfo.parse(client.getData().forPath(paths.connectionInfo(componentId)));
    } catch (KeeperException.NoNodeException e) {
      return LeaderInformation.empty();
    }
  }
}
