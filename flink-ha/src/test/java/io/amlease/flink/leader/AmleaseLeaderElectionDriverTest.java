package io.amlease.flink.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkServers;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderelection.LeaderInformationRegister;
import org.apache.flink.runtime.leaderelection.TestingListener;
import org.apache.flink.runtime.leaderretrieval.DefaultLeaderRetrievalService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour Flink's own {@code ZooKeeperLeaderElectionDriverTest} asks of its ZooKeeper driver
 * (grant at start, revoke when ZooKeeper is gone, publish and retrieve, empty information, no
 * publishing without leadership, changes reported, several drivers, node removal), asked of the
 * amlease driver with Flink's own test listeners; and what amlease adds: a blip shorter than the
 * grace costs no leadership, and the leader session id carries the epoch.
 */
class AmleaseLeaderElectionDriverTest {
  /** T = 4 s: grace 2.13 s, so losing leadership takes seconds, not half a minute. */
  private static final Duration T = Duration.ofSeconds(4);
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final AtomicInteger PATHS = new AtomicInteger();

  private TestingServer server;
  private String base;
  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = ZkServers.standalone();
    base = "/flink-ha/cluster-" + PATHS.incrementAndGet();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
    server.close();
  }

  private LeaseConfig config(String connect, String holder) {
    return config(connect, holder, T, Duration.ZERO);
  }

  private LeaseConfig config(String connect, String holder, Duration t, Duration stopTimeout) {
    return LeaseConfig.builder().connectString(connect).leasePath(base).holderId(holder)
        .sessionTimeout(t).connectionTimeout(Duration.ofSeconds(5)).stopTimeout(stopTimeout)
        .build();
  }

  private CuratorFramework client(LeaseConfig config) throws Exception {
    CuratorFramework c = ZkClients.connectOwner(config);
    closeLast.add(c);
    return c;
  }

  /** A driver on {@code connect} (the server, or a fault proxy in front of it). */
  private AmleaseLeaderElectionDriver driver(String connect, String holder,
      Events listener) throws Exception {
    return driver(config(connect, holder), listener);
  }

  private AmleaseLeaderElectionDriver driver(LeaseConfig config,
      LeaderElectionDriver.Listener listener) throws Exception {
    AmleaseLeaderElectionDriver d = new AmleaseLeaderElectionDriver(config, client(config),
        new LeaderTerms(), listener);
    closeLast.add(d);
    return d;
  }

  private AmleaseLeaderElectionDriver driver(String holder, Events listener)
      throws Exception {
    return driver(server.getConnectString(), holder, listener);
  }

  private static UUID awaitGrant(Events listener) throws Exception {
    return listener.next(Events.Granted.class, WAIT).orElseThrow().session();
  }

  private TestingListener retrieve(String componentId) throws Exception {
    CuratorFramework reader = ZkClients.connectReader(server.getConnectString(),
        Duration.ofSeconds(5));
    closeLast.add(reader);
    DefaultLeaderRetrievalService retrieval = new DefaultLeaderRetrievalService(
        new AmleaseLeaderRetrievalDriverFactory(reader, new ComponentPaths(base), componentId));
    TestingListener listener = new TestingListener();
    retrieval.start(listener);
    closeLast.add(retrieval::stop);
    return listener;
  }

  @Test
  void grantsLeadershipAtStartWithTheEpochInTheSessionId() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);

    UUID session = awaitGrant(listener);

    assertThat(LeaderSessionIds.epochOf(session)).isEqualTo(1);
    assertThat(d.hasLeadership()).isTrue();
  }

  @Test
  void losesLeadershipWhenZooKeeperIsGoneForLongerThanTheGrace() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    awaitGrant(listener);

    server.stop();

    assertThat(listener.next(Events.Revoked.class, WAIT)).isPresent();
    assertThat(d.hasLeadership()).isFalse();
  }

  @Test
  void keepsLeadershipThroughABlipShorterThanTheGrace() throws Exception {
    Events listener = new Events();
    try (FaultProxy proxy = FaultProxy.start(
        new InetSocketAddress("127.0.0.1", server.getPort()))) {
      AmleaseLeaderElectionDriver d = driver(proxy.connectString(), "a", listener);
      UUID session = awaitGrant(listener);

      proxy.silent();
      Thread.sleep(1000); // The fault's length (grace 2.13 s), not an assertion.
      proxy.heal();

      // Three renewals after the heal: had the grace run out, the revocation would have come.
      Duration renew = config(proxy.connectString(), "a").requestedTiming().renewInterval();
      assertThat(listener.nextEdge(renew.multipliedBy(3))).as("no revocation, no new grant")
          .isEmpty();
      assertThat(d.hasLeadership()).isTrue();
      d.publishLeaderInformation("rest", LeaderInformation.known(session, "http://a:8081"));
      assertThat(retrieve("rest").waitForNewLeader()).isEqualTo("http://a:8081");
    }
  }

  @Test
  void campaignsAgainAfterARevocationWithEdgesInOrder() throws Exception {
    Events listener = new Events();
    try (FaultProxy proxy = FaultProxy.start(
        new InetSocketAddress("127.0.0.1", server.getPort()))) {
      AmleaseLeaderElectionDriver d = driver(proxy.connectString(), "a", listener);
      assertThat(listener.nextEdge(WAIT)).get().isInstanceOf(Events.Granted.class);

      proxy.silent(); // Longer than T: revoked at the grace, and the session expires.
      assertThat(listener.nextEdge(WAIT)).get().isInstanceOf(Events.Revoked.class);
      assertThat(d.hasLeadership()).isFalse();
      Thread.sleep(T.toMillis()); // Until the server has expired the session: not an assertion.
      proxy.heal();

      Events.Event next = listener.nextEdge(WAIT).orElseThrow();
      assertThat(next).isInstanceOf(Events.Granted.class);
      assertThat(LeaderSessionIds.epochOf(((Events.Granted) next).session())).isEqualTo(2);
      assertThat(d.hasLeadership()).isTrue();
    }
  }

  /**
   * Flink revokes asynchronously: its JobMaster goes on suspending after onRevokeLeadership has
   * returned. A leader revoked at its grace, whose session lives on once ZooKeeper is back, keeps
   * its place in the election for the stop-timeout, so a standby leads only after the old
   * JobMaster (here one that takes 1.5 s to stop) has stopped. Before, the driver left the
   * election at once and the standby led within milliseconds of the heal.
   */
  @Test
  void aStandbyLeadsOnlyAfterTheRevokedJobMasterHasStopped() throws Exception {
    Duration t = Duration.ofSeconds(8); // grace 3.45 s with this stop-timeout
    Duration stopTimeout = Duration.ofSeconds(2);
    Duration jobMasterStops = Duration.ofMillis(1500);
    AtomicLong stoppedAt = new AtomicLong();
    AtomicLong standbyLedAt = new AtomicLong();
    Events a = new Events();
    Events b = new Events();
    try (FaultProxy proxy = FaultProxy.start(
        new InetSocketAddress("127.0.0.1", server.getPort()))) {
      driver(config(proxy.connectString(), "a", t, stopTimeout), new Delegate(a) {
        @Override
        public void onRevokeLeadership() {
          super.onRevokeLeadership();
          CompletableFuture.runAsync(() -> stoppedAt.set(System.nanoTime()),
              CompletableFuture.delayedExecutor(jobMasterStops.toMillis(), TimeUnit.MILLISECONDS));
        }
      });
      awaitGrant(a);
      driver(config(server.getConnectString(), "b", t, stopTimeout), new Delegate(b) {
        @Override
        public void onGrantLeadership(UUID session) {
          standbyLedAt.compareAndSet(0, System.nanoTime());
          super.onGrantLeadership(session);
        }
      });
      await().atMost(WAIT).until(() -> participants(2));

      proxy.silent(); // Past the grace, well short of T: the session outlives the revocation.
      assertThat(a.next(Events.Revoked.class, WAIT)).isPresent();
      proxy.heal();

      assertThat(LeaderSessionIds.epochOf(awaitGrant(b))).isEqualTo(2);
      assertThat(stoppedAt.get()).as("the old JobMaster had stopped when the standby led").isNotZero();
      assertThat(standbyLedAt.get() - stoppedAt.get()).as("the standby led after it stopped (ns)")
          .isPositive();
    }
  }

  /** A listener that passes every callback on to {@code to}. */
  private static class Delegate implements LeaderElectionDriver.Listener {
    private final Events to;

    Delegate(Events to) {
      this.to = to;
    }

    @Override
    public void onGrantLeadership(UUID session) {
      to.onGrantLeadership(session);
    }

    @Override
    public void onRevokeLeadership() {
      to.onRevokeLeadership();
    }

    @Override
    public void onLeaderInformationChange(String componentId, LeaderInformation info) {
      to.onLeaderInformationChange(componentId, info);
    }

    @Override
    public void onLeaderInformationChange(LeaderInformationRegister register) {
      to.onLeaderInformationChange(register);
    }

    @Override
    public void onError(Throwable t) {
      to.onError(t);
    }
  }

  @Test
  void informationOfAnEarlierTermIsNotPublishedUnderANewerOne() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);

    UUID earlier = new UUID(LeaderSessionIds.epochOf(session) - 1, 42);
    d.publishLeaderInformation("rest", LeaderInformation.known(earlier, "http://stale"));
    d.publishLeaderInformation("dispatcher", LeaderInformation.known(session, "http://a"));

    TestingListener dispatcher = retrieve("dispatcher");
    dispatcher.waitForNewLeader();
    assertThat(ownerClient().checkExists().forPath(new ComponentPaths(base)
        .connectionInfo("rest"))).isNull();
  }

  @Test
  void publishedInformationIsRetrieved() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);
    TestingListener retrieved = retrieve("dispatcher");

    LeaderInformation info = LeaderInformation.known(session, "pekko://flink@a:6123/user/disp");
    d.publishLeaderInformation("dispatcher", info);

    retrieved.waitForNewLeader();
    assertThat(retrieved.getLeader()).isEqualTo(info);
  }

  @Test
  void emptyInformationIsRetrievedAsEmpty() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);
    TestingListener retrieved = retrieve("dispatcher");
    d.publishLeaderInformation("dispatcher", LeaderInformation.known(session, "a:1"));
    retrieved.waitForNewLeader();

    d.publishLeaderInformation("dispatcher", LeaderInformation.empty());

    retrieved.waitForEmptyLeaderInformation();
    assertThat(retrieved.getLeader()).isEqualTo(LeaderInformation.empty());
  }

  @Test
  void aDriverWithoutLeadershipPublishesNothing() throws Exception {
    Events leaderEvents = new Events();
    AmleaseLeaderElectionDriver leader = driver("a", leaderEvents);
    UUID session = awaitGrant(leaderEvents);
    leader.publishLeaderInformation("rest", LeaderInformation.known(session, "http://a"));
    TestingListener retrieved = retrieve("rest");
    retrieved.waitForNewLeader();
    leaderEvents.next(Events.Changed.class, WAIT).orElseThrow();

    Events otherEvents = new Events();
    AmleaseLeaderElectionDriver other = driver("b", otherEvents);
    await().atMost(WAIT).until(() -> participants(2));
    assertThat(other.hasLeadership()).isFalse();
    other.publishLeaderInformation("rest", LeaderInformation.known(UUID.randomUUID(), "http://b"));
    other.deleteLeaderInformation("rest");

    assertThat(leaderEvents.next(Events.Changed.class, Duration.ofMillis(200))).isEmpty();
    assertThat(readInfo("rest")).isEqualTo(LeaderInformation.known(session, "http://a"));
  }

  @Test
  void changesToTheInformationAreReportedToTheLeader() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);
    d.publishLeaderInformation("rm", LeaderInformation.known(session, "a:1"));
    listener.next(Events.Changed.class, WAIT).orElseThrow();

    LeaderInformation changed = LeaderInformation.known(UUID.randomUUID(), "elsewhere:2");
    ownerClient().setData().forPath(new ComponentPaths(base).connectionInfo("rm"),
        ConnectionInfo.bytes(changed));

    Events.Changed event = listener.next(Events.Changed.class, WAIT).orElseThrow();
    assertThat(event.componentId()).isEqualTo("rm");
    assertThat(event.info()).isEqualTo(changed);
  }

  @Test
  void removingTheNodeIsReportedAsEmptyInformation() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);
    d.publishLeaderInformation("rm", LeaderInformation.known(session, "a:1"));
    listener.next(Events.Changed.class, WAIT).orElseThrow();

    ownerClient().delete().forPath(new ComponentPaths(base).connectionInfo("rm"));

    Events.Changed event = listener.next(Events.Changed.class, WAIT).orElseThrow();
    assertThat(event.componentId()).isEqualTo("rm");
    assertThat(event.info()).isEqualTo(LeaderInformation.empty());
  }

  @Test
  void deletedInformationIsGoneForRetrievers() throws Exception {
    Events listener = new Events();
    AmleaseLeaderElectionDriver d = driver("a", listener);
    UUID session = awaitGrant(listener);
    TestingListener retrieved = retrieve("job-1");
    d.publishLeaderInformation("job-1", LeaderInformation.known(session, "a:1"));
    retrieved.waitForNewLeader();

    d.deleteLeaderInformation("job-1");

    retrieved.waitForEmptyLeaderInformation();
    assertThat(ownerClient().checkExists().forPath(new ComponentPaths(base).component("job-1")))
        .isNull();
  }

  @Test
  void oneLeaderAtATimeAmongSeveralDriversEachInANewEpoch() throws Exception {
    List<Events> listeners = new ArrayList<>();
    List<AmleaseLeaderElectionDriver> drivers = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      Events l = new Events();
      listeners.add(l);
      drivers.add(driver(id, l));
    }
    List<Long> epochs = new ArrayList<>();
    while (!drivers.isEmpty()) {
      await().atMost(WAIT).until(() -> drivers.stream().anyMatch(
          AmleaseLeaderElectionDriver::hasLeadership));
      List<AmleaseLeaderElectionDriver> leaders = drivers.stream()
          .filter(AmleaseLeaderElectionDriver::hasLeadership).toList();
      assertThat(leaders).hasSize(1);
      int i = drivers.indexOf(leaders.get(0));
      epochs.add(LeaderSessionIds.epochOf(awaitGrant(listeners.get(i))));

      leaders.get(0).close(); // Releases: the next one leads at once, in the next epoch.

      drivers.remove(i);
      listeners.remove(i);
    }
    assertThat(epochs).containsExactly(1L, 2L, 3L);
  }

  private boolean participants(int n) throws Exception {
    return ownerClient().getChildren().forPath(base + "/latch").size() == n;
  }

  private LeaderInformation readInfo(String componentId) throws Exception {
    return ConnectionInfo.parse(ownerClient().getData().forPath(
        new ComponentPaths(base).connectionInfo(componentId)));
  }

  private CuratorFramework owner;

  private CuratorFramework ownerClient() throws Exception {
    if (owner == null) {
      owner = client(config(server.getConnectString(), "test"));
    }
    return owner;
  }
}
