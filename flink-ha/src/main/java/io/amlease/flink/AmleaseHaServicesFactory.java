package io.amlease.flink;

import io.amlease.flink.leader.ComponentPaths;
import io.amlease.flink.leader.LeaderTerms;
import io.amlease.lease.zk.ZkClients;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.BlobStoreService;
import org.apache.flink.runtime.blob.BlobUtils;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesFactory;

/**
 * The class to name in {@code high-availability.type}: Flink HA on the amlease lease. Flink loads
 * it by name with a no-argument constructor, so the jar goes into Flink's {@code lib/}.
 */
public final class AmleaseHaServicesFactory implements HighAvailabilityServicesFactory {

  @Override
  public HighAvailabilityServices createHAServices(Configuration conf, Executor executor)
      throws Exception {
    AmleaseHaSettings settings = AmleaseHaSettings.from(conf);
    BlobStoreService blobs = BlobUtils.createBlobStoreFromConfig(conf);
    CuratorFramework client = ZkClients.connectOwner(settings.lease());
    try {
      return new AmleaseHaServices(settings, client, conf, executor, blobs, new LeaderTerms());
    } catch (Exception | Error e) {
      client.close();
      blobs.close();
      throw e;
    }
  }

  @Override
  public ClientHighAvailabilityServices createClientHAServices(Configuration conf)
      throws Exception {
    AmleaseHaSettings settings = AmleaseHaSettings.from(conf);
    return new AmleaseClientHaServices(ZkClients.connectReader(settings.lease().connectString(),
        settings.lease().connectionTimeout()), new ComponentPaths(settings.base()));
  }
}
