package io.amlease.it;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import io.amlease.lease.zk.ZkClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * One MiniYARNCluster (1 RM, 2 NMs) and one real ZooKeeper, shared by a test class (starting the
 * cluster takes ~7 s and stopping it ~15 s here), with a YARN client and a ZooKeeper client for
 * looking at both.
 */
final class YarnZkCluster implements AutoCloseable {
  final TestingServer zk;
  final MiniYARNCluster yarn;
  final YarnClient yarnClient;
  final CuratorFramework zkClient;

  YarnZkCluster(String name) throws Exception {
    // 500 ms ticks: ZooKeeper grants sessions of 1–10 s, so session expiry is quick to test.
    zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1, Map.of(),
        "127.0.0.1"), true);
    YarnConfiguration conf = new YarnConfiguration();
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 2048);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 4);
    // 3.5.0's default is 15 min; a lost AM must be noticed within the test.
    conf.setInt(YarnConfiguration.RM_AM_EXPIRY_INTERVAL_MS, 10_000);
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    yarn = new MiniYARNCluster(name, 2, 1, 1);
    yarn.init(conf);
    yarn.start();
    yarn.waitForNodeManagersToConnect(Duration.ofSeconds(30).toMillis());
    // The AM container finds the RM only through a yarn-site.xml on its class path (the client adds
    // the test class path in mini-cluster mode). Written through a buffer: the cluster's
    // Configuration must not read the file while it is being written.
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    yarn.getConfig().writeXml(buf);
    Path site = Path.of("target", "test-classes", "yarn-site.xml");
    Files.createDirectories(site.getParent());
    Files.write(site, buf.toByteArray());
    yarnClient = YarnClient.createYarnClient();
    yarnClient.init(conf());
    yarnClient.start();
    zkClient = ZkClients.connectReader(zk.getConnectString(), Duration.ofSeconds(5));
  }

  Configuration conf() {
    return new YarnConfiguration(yarn.getConfig());
  }

  String zkConnect() {
    return zk.getConnectString();
  }

  static Path amJar() {
    Path target = Path.of("..", "am-launcher", "target").toAbsolutePath().normalize();
    try (var files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().endsWith("-am.jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no shaded AM jar in " + target
              + "; run mvn package"));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws Exception {
    zkClient.close();
    yarnClient.stop();
    yarn.stop();
    zk.close();
  }
}
