package io.amlease.am.master;

import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper leases for testing the AM's lease checks without YARN: a loopback server with
 * 500 ms ticks (sessions of 1–10 s), and leases that record their grants.
 */
final class Leases {
  private Leases() {}

  static TestingServer server() throws Exception {
    return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1,
        Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
  }

  /** A started lease whose grants land in {@code grants}. */
  static ZkLease start(LeaseConfig.Builder config, CopyOnWriteArrayList<Epoch> grants)
      throws Exception {
    ZkLease lease = ZkLease.create(config.build(), new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        grants.add(epoch);
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {}
    });
    lease.start();
    return lease;
  }

  static ZkLease start(String connect, String path, String holderId) throws Exception {
    return start(config(connect, path, holderId), new CopyOnWriteArrayList<>());
  }

  static LeaseConfig.Builder config(String connect, String path, String holderId) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(holderId)
        .sessionTimeout(Duration.ofSeconds(6));
  }

  /** The first grant: the listener hears of it after the lease's state already says HOLDING. */
  static Epoch awaitGrant(java.util.List<Epoch> grants) {
    await().atMost(Duration.ofSeconds(10)).until(() -> !grants.isEmpty());
    return grants.get(0);
  }

  static void awaitHolding(ZkLease lease) {
    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state().holder());
  }
}
