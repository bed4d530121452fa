package io.amlease.lease.zk;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One standalone ZooKeeper server ({@link ZkServers#standalone()}) per test class, and a client
 * without credentials that tests use as the operator or a reader would:
 * {@code @RegisterExtension static final StandaloneZk zk = new StandaloneZk();}.
 */
final class StandaloneZk implements BeforeAllCallback, AfterAllCallback {
  private TestingServer server;
  private CuratorFramework admin;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = ZkServers.standalone();
    admin = ZkClients.connectReader(server.getConnectString(), Duration.ofSeconds(5));
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (server != null) {
      server.close();
    }
  }

  TestingServer server() {
    return server;
  }

  String connectString() {
    return server.getConnectString();
  }

  CuratorFramework admin() {
    return admin;
  }
}
