package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.am.WorkerCountNodes;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkLease;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The worker count under the lease, on a real ZooKeeper with real leases (flex, issue 13). */
class WorkerCountIT {
  private static final String LEASE = "/amlease/flex-test";

  private TestingServer server;
  private CuratorFramework admin;

  /** A lease and its worker count, with what they reported. */
  private final class Leader implements AutoCloseable {
    final AtomicReference<Epoch> granted = new AtomicReference<>();
    final AtomicReference<RevocationReason> revoked = new AtomicReference<>();
    final List<Integer> targets = new CopyOnWriteArrayList<>();
    final ZkLease lease;
    final WorkerCount count;

    Leader(String id, int submitted) throws LeaseException {
      lease = ZkLease.create(LeaseConfig.builder().connectString(server.getConnectString())
          .leasePath(LEASE).holderId(id).sessionTimeout(Duration.ofSeconds(6)).build(),
          new LeaseListener() {
            @Override
            public void granted(Epoch e) {
              granted.set(e);
            }

            @Override
            public void revoked(Epoch e, RevocationReason reason) {
              revoked.set(reason);
            }
          });
      count = new WorkerCount(lease, server.getConnectString(), Duration.ofSeconds(5), LEASE,
          submitted, true, (epoch, n) -> targets.add(n));
      lease.start();
    }

    Epoch lead() {
      Epoch e = await().atMost(Duration.ofSeconds(10)).until(granted::get, g -> g != null);
      count.lead(e);
      return e;
    }

    @Override
    public void close() {
      count.close();
      lease.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1,
        Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
    admin = ZkClients.connectReader(server.getConnectString(), Duration.ofSeconds(5));
  }

  @AfterEach
  void stop() throws Exception {
    admin.close();
    server.close();
  }

  @Test
  void theLeaderAppliesARequestWithAFencedWriteAndTheNextLeaderRunsIt() throws Exception {
    try (Leader a = new Leader("a", 1)) {
      a.lead();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.targets.equals(List.of(1)));
      assertThat(admin.checkExists().forPath(WorkerCountNodes.applied(LEASE))).isNull();

      request("3");
      await().atMost(Duration.ofSeconds(10)).until(() -> a.targets.equals(List.of(1, 3)));
      assertThat(read(WorkerCountNodes.applied(LEASE))).isEqualTo("3");
      assertThat(admin.checkExists().forPath(WorkerCountNodes.requested(LEASE)))
          .as("the request is answered").isNull();
      a.lease.release(Duration.ofSeconds(5));
    }
    // A later attempt, submitted with 1 worker, runs the count applied before it.
    try (Leader b = new Leader("b", 1)) {
      assertThat(b.lead().value()).isEqualTo(2);
      await().atMost(Duration.ofSeconds(10)).until(() -> b.targets.equals(List.of(3)));
    }
  }

  /** Superseded behind its back, a leader neither records a request nor acts on it (G3). */
  @Test
  void aSupersededLeaderLeavesTheRequestForTheNextOne() throws Exception {
    try (Leader a = new Leader("a", 1)) {
      a.lead();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.targets.equals(List.of(1)));
      // Another holder's term: the epoch node moves on, as an acquiring multi would move it.
      admin.setData().forPath(LEASE + "/epoch", "7".getBytes(StandardCharsets.UTF_8));
      request("5");
      await().atMost(Duration.ofSeconds(10)).until(() -> a.revoked.get() != null);
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
          .until(() -> a.targets.equals(List.of(1)));
      assertThat(admin.checkExists().forPath(WorkerCountNodes.applied(LEASE))).isNull();
      assertThat(read(WorkerCountNodes.requested(LEASE))).isEqualTo("5");
    }
  }

  @Test
  void aMalformedRequestIsAnsweredWithTheCountThatRuns() throws Exception {
    try (Leader a = new Leader("a", 2)) {
      a.lead();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.targets.equals(List.of(2)));
      request("lots");
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).until(() ->
          admin.checkExists().forPath(WorkerCountNodes.requested(LEASE)) == null);
      assertThat(a.targets).containsExactly(2);
      assertThat(read(WorkerCountNodes.applied(LEASE))).isEqualTo("2");
      assertThat(admin.checkExists().forPath(WorkerCountNodes.requested(LEASE))).isNull();
    }
  }

  /** As {@code amlease flex} leaves it. */
  private void request(String count) throws Exception {
    admin.create().forPath(WorkerCountNodes.requested(LEASE),
        count.getBytes(StandardCharsets.UTF_8));
  }

  private String read(String path) throws Exception {
    return new String(admin.getData().forPath(path), StandardCharsets.UTF_8);
  }
}
