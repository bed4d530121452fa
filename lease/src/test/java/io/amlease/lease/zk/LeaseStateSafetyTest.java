package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lease state in ZooKeeper that others damaged or left open, and lifecycle races: each case here let
 * two holders act at once, or a closed lease campaign, before it was fixed.
 */
class LeaseStateSafetyTest {
  private static final Duration T = Duration.ofSeconds(6);
  private static final AtomicInteger PATHS = new AtomicInteger();
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();



  private static String newPath() {
    return "/state/lease-" + PATHS.incrementAndGet();
  }

  private static LeaseConfig.Builder config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(T).connectionTimeout(Duration.ofSeconds(5));
  }

  /**
   * G3: a deleted epoch node is never re-created. Before the fix the next holder re-created it at
   * version 0, so epoch 1 / token 0 was handed out twice, and a paused old holder's check passed.
   */
  @Test
  void aDeletedEpochNodeIsRefusedNotRecreated() throws Exception {
    String path = newPath();
    Epoch first;
    try (Holder a = new Holder(config(zk.connectString(), path, "a").build()).start()) {
      first = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      zk.admin().delete().deletingChildrenIfNeeded().forPath(path + "/epoch"); // an operator "repairing" the lease
      // The holder hears of it at once (epoch watch) and its token no longer passes.
      assertThat(a.awaitRevocation(Duration.ofSeconds(5)).reason())
          .isEqualTo(RevocationReason.SUPERSEDED);
    }
    try (Holder b = new Holder(config(zk.connectString(), path, "b").build()).start()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !b.failures.isEmpty());
      assertThat(b.failures.get(0)).isInstanceOf(LeaseException.BadData.class)
          .hasMessageContaining(path + "/epoch is gone")
          .hasMessageContaining("never be re-created")
          .hasMessageContaining("deleteall " + path);
      assertThat(b.grants).isEmpty();
    }
    assertThat(zk.admin().checkExists().forPath(path + "/epoch")).isNull();
    // The old token finds nothing to pass.
    assertThatThrownBy(() -> zk.admin().transaction().forOperations(
        zk.admin().transactionOp().check().withVersion(first.token()).forPath(path + "/epoch")))
        .isInstanceOf(KeeperException.NoNodeException.class);
  }

  /**
   * Item 9 of issue 24: lease nodes of the wrong kind (ephemeral: made by hand, or another
   * session's) are refused at start, naming the node, what it breaks and the repair; nothing is
   * created under them.
   */
  @Test
  void ephemeralLeaseNodesAreRefusedAtStart() throws Exception {
    for (String node : List.of("", "/latch", "/epoch")) {
      String path = newPath();
      if (!node.isEmpty()) {
        zk.admin().create().creatingParentsIfNeeded().forPath(path);
      }
      zk.admin().create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path + node,
          "0".getBytes(StandardCharsets.UTF_8));
      try (Holder a = new Holder(config(zk.connectString(), path, "a").build())) {
        assertThatThrownBy(a::start).as(node).isInstanceOf(LeaseException.BadData.class)
            .hasMessageContaining(path + node + " is an ephemeral node")
            .hasMessageContaining("deleteall " + path);
        assertThat(a.grants).isEmpty();
      }
      assertThat(zk.admin().getChildren().forPath(path)).as(node)
          .containsExactlyInAnyOrderElementsOf(node.isEmpty() ? List.of() : List.of(node.substring(1)));
    }
  }

  /** The epoch node exists from the lease's creation: the first term's token is its version 1. */
  @Test
  void theEpochNodeIsCreatedWithTheLease() throws Exception {
    String path = newPath();
    try (Holder a = new Holder(config(zk.connectString(), path, "a").build()).start()) {
      Epoch e = a.awaitGrant(Duration.ofSeconds(10)).epoch();
      assertThat(e.value()).isEqualTo(1);
      assertThat(e.token()).isEqualTo(1);
      assertThat(new String(zk.admin().getData().forPath(path + "/epoch"), StandardCharsets.UTF_8))
          .isEqualTo("1");
    }
  }

  /**
   * ACLs: with credentials, lease nodes that others may write are refused. Before the fix a lease
   * created by a client without credentials was accepted, and that client could bump the epoch.
   */
  @Test
  void withCredentialsOpenLeaseNodesAreRefused(@TempDir Path dir) throws Exception {
    String path = newPath();
    zk.admin().create().creatingParentsIfNeeded().forPath(path + "/latch");
    zk.admin().create().forPath(path + "/epoch", "0".getBytes(StandardCharsets.UTF_8));
    Path alice = Files.writeString(dir.resolve("alice"), "alice:s3cret\n");
    try (Holder a = new Holder(config(zk.connectString(), path, "a").aclCredentials(alice)
        .build())) {
      assertThatThrownBy(a::start).isInstanceOf(LeaseException.AccessDenied.class)
          .hasMessageContaining(path + " has ACL world:anyone:cdrwa")
          .hasMessageContaining("setAcl -R " + path + " digest:alice:");
      assertThat(a.grants).isEmpty();
    }
    assertThat(zk.admin().getChildren().forPath(path + "/latch")).isEmpty();
  }

  /**
   * close() racing start(): before the fix a lease closed while it was still connecting went on to
   * create its latch node and campaign with nobody to stop it.
   */
  @Test
  void closeWhileConnectingLeavesNothingBehind() throws Exception {
    String path = newPath();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.server().getPort()))) {
      proxy.silent();
      Holder a = new Holder(config(proxy.connectString(), path, "a")
          .connectionTimeout(Duration.ofSeconds(20)).build());
      CompletableFuture<Throwable> started = CompletableFuture.supplyAsync(() -> {
        try {
          a.start();
          return null;
        } catch (Throwable e) {
          return e;
        }
      });
      await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
          .until(() -> proxy.connectionCount() > 0);
      a.close();
      proxy.heal();
      Throwable outcome = started.get(20, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOf(LeaseException.class).hasMessageContaining("closed");
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
          .until(() -> zk.admin().checkExists().forPath(path + "/latch") == null
              || zk.admin().getChildren().forPath(path + "/latch").isEmpty());
      assertThat(a.grants).isEmpty();
    }
  }

  /**
   * G2 per session: a new session after an expiry may be granted a shorter timeout (here by a server
   * with a lower maxSessionTimeout), which the grace checked at start does not fit. Before the fix
   * the lease acquired on it with its grace of 3 s against a session timeout of 3 s.
   */
  @Test
  void aNewSessionWhoseTimeoutBreaksG2IsRefused() throws Exception {
    String path = newPath();
    InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, ZkServers.TICK_MS, -1,
        Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "3000"), "127.0.0.1");
    try (TestingServer strict = new TestingServer(spec, true);
         FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.server().getPort()));
         Holder x = new Holder(config(zk.connectString(), path, "x").build()).start();
         Holder a = new Holder(config(proxy.connectString(), path, "a")
             .grace(Duration.ofSeconds(3)).build())) {
      x.awaitGrant(Duration.ofSeconds(10));
      a.start();
      // a's server is replaced by one that knows nothing of its session: a new session, at 3 s.
      proxy.retarget(new InetSocketAddress("127.0.0.1", strict.getPort()));
      proxy.reset();
      proxy.heal();
      await().atMost(Duration.ofSeconds(20)).until(() -> !a.failures.isEmpty());
      assertThat(a.failures.get(0)).hasMessageContaining(LeaseConfig.GRACE)
          .hasMessageContaining("negotiated by the server for session 0x")
          .hasMessageContaining("3s");
      assertThat(a.grants).isEmpty();
    }
  }

  /**
   * Acquisition retries back off. Before the first fix a lasting failure (here a leader node that
   * cannot be deleted) was retried every 100 ms with an INFO line each: about 30 in 3 s. Before the
   * second, each trigger (the latch's isLeader and the predecessor's deletion both fire here) armed a
   * retry chain of its own, so the retries came about twice as often as the backoff says (CI saw 5
   * in a 3 s window). With one chain, retry n+1 comes no sooner than the delays announced before it
   * add up to; the slack covers only the first announcement's own latency. A leader node with
   * children is refused at start, so it is made here under a contender already campaigning: the
   * contender waits behind another session's latch node, and one multi takes that node away and
   * leaves a leader node with a child, as a restore from a backup might.
   */
  @Test
  void failedAcquisitionsBackOff() throws Exception {
    String path = newPath();
    try (Holder y = new Holder(config(zk.connectString(), path, "y").build()).start()) {
      y.awaitGrant(Duration.ofSeconds(10));
    }
    record Retry(long atNanos, Duration delay) {}
    List<Retry> retries = new CopyOnWriteArrayList<>();
    LeaseObserver observer = new LeaseObserver() {
      @Override
      public void acquisitionRetried(String why, Duration delay, int failuresInARow) {
        retries.add(new Retry(System.nanoTime(), delay));
      }
    };
    String blocker = path + "/latch/_c_blocker-latch-0000000000";
    zk.admin().create().withMode(CreateMode.EPHEMERAL).forPath(blocker);
    try (Holder a = new Holder(config(zk.connectString(), path, "a").build(), observer).start()) {
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);
      zk.admin().transaction().forOperations(
          zk.admin().transactionOp().delete().forPath(blocker),
          zk.admin().transactionOp().create().forPath(path + "/leader"),
          zk.admin().transactionOp().create().forPath(path + "/leader/stuck"));
      int n = 5;
      await().atMost(Duration.ofSeconds(15)).until(() -> retries.size() >= n);
      List<Retry> seen = List.copyOf(retries).subList(0, n);
      assertThat(seen).extracting(Retry::delay).containsExactly(Duration.ofMillis(100),
          Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800),
          Duration.ofMillis(1600));
      long announced = seen.subList(0, n - 1).stream().mapToLong(r -> r.delay().toMillis()).sum();
      long elapsed = TimeUnit.NANOSECONDS.toMillis(seen.get(n - 1).atNanos() - seen.get(0).atNanos());
      System.out.printf("%d acquisition retries in %d ms; their delays add up to %d ms%n",
          n, elapsed, announced);
      assertThat(elapsed).as("ms from the first to the %dth retry", n)
          .isGreaterThanOrEqualTo(announced - 100);
      assertThat(a.lease.stats().acquisitionRetries()).isGreaterThanOrEqualTo(n);
      assertThat(a.grants).isEmpty();
      zk.admin().delete().deletingChildrenIfNeeded().forPath(path + "/leader");
      assertThat(a.awaitGrant(Duration.ofSeconds(10)).epoch().value()).isEqualTo(2);
    }
  }

  /**
   * A parent whose ACL lets nobody create (an operator's locked-down namespace) must not stop the
   * holders of a lease that exists below it. Before the fix every start tried to create the lease
   * and ZooKeeper answered NOAUTH before NODEEXISTS.
   */
  @Test
  void anExistingLeaseUnderAParentNobodyMayCreateInIsUsable() throws Exception {
    String parent = "/locked-" + PATHS.incrementAndGet();
    String path = parent + "/lease";
    try (Holder first = new Holder(config(zk.connectString(), path, "first").build()).start()) {
      first.awaitGrant(Duration.ofSeconds(10));
    }
    zk.admin().setACL().withACL(List.of(new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
        .forPath(parent);
    try (Holder a = new Holder(config(zk.connectString(), path, "a").build()).start()) {
      assertThat(a.awaitGrant(Duration.ofSeconds(10)).epoch().value()).isEqualTo(2);
    }
  }
}
