package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseState;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * G1: outages shorter than {@code grace − renewInterval} cost nothing: no revocation, same epoch,
 * same session.
 *
 * <p>T = 10 s (grace 6.67 s) with a 0.5 s renew interval: after a reset the ZooKeeper client waits a
 * random 0–1 s before each reconnect attempt, which comes on top of the outage itself.
 */
class ToleranceTest {
  private static final Duration T = Duration.ofSeconds(10);
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZkServers.standalone();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static LeaseConfig config(String connect, String id) {
    return LeaseConfig.builder().connectString(connect)
        .leasePath("/tolerance/lease-" + PATHS.incrementAndGet()).holderId(id)
        .sessionTimeout(T).renewInterval(Duration.ofMillis(500))
        .connectionTimeout(Duration.ofSeconds(5)).build();
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void outageOfHalfTheGraceKeepsTheLease(Fault fault) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", server.getPort()));
         Holder a = new Holder(config(proxy.connectString(), "a")).start()) {
      Holder.Grant grant = a.awaitGrant(Duration.ofSeconds(10));
      LeaseState before = a.lease.state();
      Duration outage = before.timing().grace().dividedBy(2);

      fault.inject(proxy);
      // Holds the fault for its whole duration and checks that nothing is revoked meanwhile.
      await().during(outage).atMost(outage.plusSeconds(1)).until(a.revocations::isEmpty);
      proxy.heal();
      long healed = System.nanoTime();

      await().atMost(before.timing().grace()).until(() -> a.lease.state().lastAckNanos() > healed);
      assertSameTerm(a, grant, before);
    }
  }

  @Test
  void restartOfAStandaloneServerWithinGraceKeepsTheLease() throws Exception {
    try (TestingServer own = ZkServers.standalone();
         Holder a = new Holder(config(own.getConnectString(), "a")).start()) {
      Holder.Grant grant = a.awaitGrant(Duration.ofSeconds(10));
      LeaseState before = a.lease.state();

      own.restart();
      long restarted = System.nanoTime();

      await().atMost(before.timing().grace()).until(() -> a.lease.state().lastAckNanos() > restarted);
      assertSameTerm(a, grant, before);
    }
  }

  /**
   * The ZooKeeper client's own host provider sleeps 1 s before every attempt once it has tried each
   * server, so a server back after 100 ms still took 1–2 s to reach; {@link PromptHostProvider}
   * leaves only ZooKeeper's random 0–1 s. Ten leases at T = 4 s with default timing (grace 2.67 s,
   * renew interval 0.67 s): every one renews within 1.6 s of the restart and none is revoked. With the
   * stock provider each lease needs 1–2 s, so all ten within 1.6 s has a chance of about 1 in 1,000.
   */
  @Test
  void afterAServerRestartEveryLeaseRenewsWithinZooKeepersReconnectJitter() throws Exception {
    Duration t = Duration.ofSeconds(4);
    List<Holder> holders = new ArrayList<>();
    try (TestingServer own = ZkServers.standalone()) {
      try {
        for (int i = 0; i < 10; i++) {
          holders.add(new Holder(LeaseConfig.builder().connectString(own.getConnectString())
              .leasePath("/tolerance/restart-" + i).holderId("h" + i).sessionTimeout(t)
              .connectionTimeout(Duration.ofSeconds(5)).build()).start());
        }
        for (Holder h : holders) {
          h.awaitGrant(Duration.ofSeconds(10));
        }
        List<LeaseState> before = holders.stream().map(h -> h.lease.state()).toList();

        own.restart();
        long restarted = System.nanoTime();

        await().atMost(Duration.ofMillis(1600)).until(() -> holders.stream()
            .allMatch(h -> h.lease.state().lastAckNanos() > restarted));
        for (int i = 0; i < holders.size(); i++) {
          assertSameTerm(holders.get(i), holders.get(i).grants.get(0), before.get(i));
        }
      } finally {
        holders.forEach(Holder::close);
      }
    }
  }

  @Test
  void killingTheServerTheHolderIsConnectedToKeepsTheLease() throws Exception {
    try (TestingCluster cluster = ZkServers.cluster(3)) {
      cluster.start();
      try (Holder a = new Holder(config(cluster.getConnectString(), "a")).start()) {
        Holder.Grant grant = a.awaitGrant(Duration.ofSeconds(20));
        LeaseState before = a.lease.state();
        InstanceSpec connected = cluster.findConnectionInstance(a.lease.zooKeeper());

        assertThat(cluster.killServer(connected)).isTrue();
        long killed = System.nanoTime();

        await().atMost(before.timing().grace()).until(() -> a.lease.state().lastAckNanos() > killed);
        assertSameTerm(a, grant, before);
        assertThat(cluster.findConnectionInstance(a.lease.zooKeeper())).isNotEqualTo(connected);
      }
    }
  }

  /**
   * G1 names an ensemble leader change: when the leader dies, the followers drop their clients until
   * a new leader is elected. The holder is connected to the followers only, so what it lives through
   * is the election, not the loss of its own server (the test above).
   */
  @Test
  void anEnsembleLeaderChangeKeepsTheLease() throws Exception {
    try (TestingCluster cluster = ZkServers.cluster(3)) {
      cluster.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> leaderOf(cluster).isPresent());
      InstanceSpec leader = leaderOf(cluster).orElseThrow();
      String followers = cluster.getInstances().stream().filter(i -> !i.equals(leader))
          .map(InstanceSpec::getConnectString).collect(Collectors.joining(","));
      try (Holder a = new Holder(config(followers, "a")).start()) {
        Holder.Grant grant = a.awaitGrant(Duration.ofSeconds(20));
        LeaseState before = a.lease.state();

        assertThat(cluster.killServer(leader)).isTrue();
        await().atMost(before.timing().grace())
            .until(() -> leaderOf(cluster).filter(l -> !l.equals(leader)).isPresent());
        long elected = System.nanoTime();

        // A read answered after the new leader is up: the follower's own answer from before it
        // noticed the loss of its leader does not count.
        await().atMost(before.timing().grace()).until(() -> a.lease.state().lastAckNanos() > elected);
        assertSameTerm(a, grant, before);
      }
    }
  }

  /** The server that says "Mode: leader" to ZooKeeper's {@code srvr} command, if one does. */
  private static Optional<InstanceSpec> leaderOf(TestingCluster cluster) {
    for (InstanceSpec i : cluster.getInstances()) {
      try {
        if (FourLetterWordMain.send4LetterWord("127.0.0.1", i.getPort(), "srvr", false, 1000)
            .contains("Mode: leader")) {
          return Optional.of(i);
        }
      } catch (Exception e) {
        // Down, or not serving yet: not the leader.
      }
    }
    return Optional.empty();
  }

  private static void assertSameTerm(Holder a, Holder.Grant grant, LeaseState before) {
    LeaseState after = a.lease.state();
    assertThat(a.revocations).isEmpty();
    assertThat(a.grants).hasSize(1);
    assertThat(after.holder()).isTrue();
    assertThat(after.epoch()).contains(grant.epoch());
    assertThat(after.sessionId()).isEqualTo(before.sessionId());
  }
}
