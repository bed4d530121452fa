package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.SystemClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The predecessor deduction on a real server, with latch nodes named as Curator's {@code
 * LeaderLatch} names them: ours is taken for the lowest only when the one node before it goes.
 */
class PredecessorTest {
  private static final String LATCH = "/p/latch";

  private TestingServer server;
  private CuratorFramework zk;
  private SystemClock clock;
  private final AtomicReference<String> ours = new AtomicReference<>();
  private final AtomicBoolean campaigning = new AtomicBoolean(true);
  private final List<String> lowest = new CopyOnWriteArrayList<>();
  private Predecessor predecessor;

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.standalone();
    zk = ZkClients.connectReader(server.getConnectString(), Duration.ofSeconds(5));
    clock = new SystemClock("predecessor-test");
    predecessor = new Predecessor(LATCH, ours::get, campaigning::get,
        () -> zk.getZookeeperClient().getZooKeeper(), clock, lowest::add);
  }

  @AfterEach
  void stop() throws Exception {
    campaigning.set(false);
    clock.close();
    zk.close();
    server.close();
  }

  @Test
  void theOnlyNodeBeforeOursGoneMakesOursTheLowest() throws Exception {
    String a = node();
    ours.set(node());
    predecessor.arm();
    zk.delete().forPath(a);
    await().atMost(Duration.ofSeconds(5)).until(() -> !lowest.isEmpty());
    assertThat(lowest).containsExactly(ours.get());
  }

  /** The node just before ours goes, one before it stays: ours is not the lowest (G2). */
  @Test
  void withTwoBeforeOursTheDeletionOfTheNearerOneDeducesNothing() throws Exception {
    String a = node();
    String b = node();
    ours.set(node());
    predecessor.arm();
    zk.delete().forPath(b);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
        .until(lowest::isEmpty);
    zk.delete().forPath(a); // Now the watch is on a, the only one before ours.
    await().atMost(Duration.ofSeconds(5)).until(() -> !lowest.isEmpty());
    assertThat(lowest).containsExactly(ours.get());
  }

  /** A change of the node's data fires the watch too: it is set again, or its deletion is missed. */
  @Test
  void aDataChangeOfTheNodeBeforeOursDoesNotLoseTheWatch() throws Exception {
    String a = node();
    ours.set(node());
    predecessor.arm();
    await().atMost(Duration.ofSeconds(5)).until(() -> watches(a) == 1);
    zk.setData().forPath(a, new byte[] {1});
    await().atMost(Duration.ofSeconds(5)).until(() -> watches(a) == 1);
    zk.delete().forPath(a);
    await().atMost(Duration.ofSeconds(5)).until(() -> !lowest.isEmpty());
    assertThat(lowest).containsExactly(ours.get());
  }

  /** Data watches this client holds on {@code path} (the predecessor's is one). */
  @SuppressWarnings("unchecked")
  private int watches(String path) throws Exception {
    java.lang.reflect.Method m = org.apache.zookeeper.ZooKeeper.class
        .getDeclaredMethod("getDataWatches");
    m.setAccessible(true); // Protected: ZooKeeper's own tests read it so.
    List<String> paths = (List<String>) m.invoke(zk.getZookeeperClient().getZooKeeper());
    return (int) paths.stream().filter(path::equals).count();
  }

  @Test
  void nothingIsDeducedOnceTheLeaseStoppedCampaigning() throws Exception {
    String a = node();
    ours.set(node());
    predecessor.arm();
    campaigning.set(false);
    zk.delete().forPath(a);
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
        .until(lowest::isEmpty);
  }

  /** A latch node as Curator's LeaderLatch makes it (protected, ephemeral, sequential). */
  private String node() throws Exception {
    return zk.create().creatingParentContainersIfNeeded().withProtection()
        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(LATCH + "/latch-", new byte[0]);
  }
}
