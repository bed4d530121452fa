package io.amlease.cli;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;

/** A plain Curator client for looking at (and planting) lease nodes from a test. */
final class Znodes implements AutoCloseable {
  private final CuratorFramework client;

  Znodes(String connect) throws InterruptedException {
    client = CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100));
    client.start();
    if (!client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("cannot connect to " + connect);
    }
  }

  boolean exists(String path) throws Exception {
    return client.checkExists().forPath(path) != null;
  }

  /** Children of {@code path}; empty when it does not exist. */
  List<String> children(String path) throws Exception {
    try {
      return client.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  String data(String path) throws Exception {
    return new String(client.getData().forPath(path), StandardCharsets.UTF_8);
  }

  /** An ephemeral node of this client's session, as another program would leave one. */
  void createEphemeral(String path) throws Exception {
    client.create().creatingParentsIfNeeded().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
        .forPath(path);
  }

  void set(String path, String data) throws Exception {
    client.setData().forPath(path, data.getBytes(StandardCharsets.UTF_8));
  }

  /** Creates a persistent node (and its parents) holding {@code data}. */
  void create(String path, String data) throws Exception {
    client.create().creatingParentsIfNeeded().forPath(path, data.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    client.close();
  }
}
