package io.amlease.flink.leader;

import io.amlease.lease.LeaseConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriverFactory;

/** Makes {@link AmleaseLeaderElectionDriver}s for one cluster's lease. */
public final class AmleaseLeaderElectionDriverFactory implements LeaderElectionDriverFactory {
  private final LeaseConfig config;
  private final CuratorFramework client;
  private final LeaderTerms terms;

  /** {@code client}: started, authenticated as the lease's owner; the caller closes it. */
  public AmleaseLeaderElectionDriverFactory(LeaseConfig config, CuratorFramework client,
      LeaderTerms terms) {
    this.config = config;
    this.client = client;
    this.terms = terms;
  }

  @Override
  public LeaderElectionDriver create(LeaderElectionDriver.Listener listener) {
    return new AmleaseLeaderElectionDriver(config, client, terms, listener);
  }
}
