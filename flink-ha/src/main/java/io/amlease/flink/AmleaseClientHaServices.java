package io.amlease.flink;

import io.amlease.flink.leader.AmleaseLeaderRetrievalDriverFactory;
import io.amlease.flink.leader.ComponentPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.leaderretrieval.DefaultLeaderRetrievalService;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalService;

/** What a Flink client needs: where the leading REST endpoint is. Reads only; no credentials. */
final class AmleaseClientHaServices implements ClientHighAvailabilityServices {
  private final CuratorFramework client;
  private final ComponentPaths components;

  AmleaseClientHaServices(CuratorFramework client, ComponentPaths components) {
    this.client = client;
    this.components = components;
  }

  @Override
  public LeaderRetrievalService getClusterRestEndpointLeaderRetriever() {
    return new DefaultLeaderRetrievalService(new AmleaseLeaderRetrievalDriverFactory(client,
        components, AmleaseHaServices.REST_SERVER));
  }

  @Override
  public void close() {
    client.close();
  }
}
