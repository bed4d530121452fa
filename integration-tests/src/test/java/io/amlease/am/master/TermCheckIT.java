package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseState;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkLease;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** G4 on real ZooKeeper leases: when a master's exit may count as the application's end. */
class TermCheckIT {
  private static TestingServer zk;
  private static CuratorFramework client;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zk = Leases.server();
    client = ZkClients.connectReader(zk.getConnectString(), Duration.ofSeconds(5));
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    client.close();
    zk.close();
  }

  private static String path(TestInfo test) {
    return "/amlease/" + test.getTestMethod().orElseThrow().getName();
  }

  @Test
  void aCurrentTermHolds(TestInfo test) throws Exception {
    CopyOnWriteArrayList<Epoch> grants = new CopyOnWriteArrayList<>();
    try (ZkLease lease = Leases.start(Leases.config(zk.getConnectString(), path(test), "am"),
            grants);
         TermCheck check = new TermCheck(lease)) {
      Epoch epoch = Leases.awaitGrant(grants);
      assertThat(check.holds(epoch)).isTrue();
      assertThat(check.holds(new Epoch(epoch.value() + 1, epoch.token() + 1,
          epoch.incarnation())))
          .as("another epoch").isFalse();
    }
  }

  /**
   * A newer holder moved the epoch on and the master exited (its own fenced write refused): the
   * term does not hold, whether the lease's epoch watch noticed first or the check's fenced write
   * finds out in ZooKeeper.
   */
  @Test
  void aSupersededTermDoesNotHold(TestInfo test) throws Exception {
    CopyOnWriteArrayList<Epoch> grants = new CopyOnWriteArrayList<>();
    // T = 10 s, renewals 3 s apart: the test's few milliseconds fall between two renewals. The
    // lease's epoch watch may notice the new epoch within those milliseconds (SUPERSEDED); if it
    // has not, the check's fenced write must (FENCED). Either way the term does not hold.
    try (ZkLease lease = Leases.start(Leases.config(zk.getConnectString(), path(test), "am")
            .sessionTimeout(Duration.ofSeconds(10)).renewInterval(Duration.ofSeconds(3)), grants);
         TermCheck check = new TermCheck(lease)) {
      Epoch epoch = Leases.awaitGrant(grants);
      client.setData().forPath(path(test) + "/epoch",
          Long.toString(epoch.value() + 1).getBytes(StandardCharsets.UTF_8));

      assertThat(check.holds(epoch)).isFalse();
      assertThat(lease.state().lastRevocation().orElseThrow())
          .isIn(RevocationReason.FENCED, RevocationReason.SUPERSEDED);
    }
  }

  @Test
  void aRevokedTermDoesNotHold(TestInfo test) throws Exception {
    CopyOnWriteArrayList<Epoch> grants = new CopyOnWriteArrayList<>();
    try (ZkLease lease = Leases.start(Leases.config(zk.getConnectString(), path(test), "am"),
            grants);
         TermCheck check = new TermCheck(lease)) {
      Epoch epoch = Leases.awaitGrant(grants);
      lease.revoke(RevocationReason.NEWER_ATTEMPT);
      assertThat(check.holds(epoch)).isFalse();
    }
  }

  /**
   * ZooKeeper unreachable when the master exits: no confirmation, so no application end — and the
   * answer comes by the term's deadline, not after ZooKeeper's own timeouts (G2).
   */
  @Test
  void anUnconfirmedTermDoesNotHoldAndTheAnswerComesByTheDeadline(TestInfo test)
      throws Exception {
    CopyOnWriteArrayList<Epoch> grants = new CopyOnWriteArrayList<>();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.getPort()));
         ZkLease lease = Leases.start(Leases.config(proxy.connectString(), path(test), "am"),
             grants);
         TermCheck check = new TermCheck(lease)) {
      Epoch epoch = Leases.awaitGrant(grants);
      proxy.silent();
      LeaseState before = lease.state();
      long start = System.nanoTime();

      boolean holds = check.holds(epoch);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(holds).isFalse();
      assertThat(took).as("time to answer, with %s left before the deadline", before.timeLeft())
          .isLessThanOrEqualTo(before.timeLeft().plusMillis(500));
    }
  }
}
