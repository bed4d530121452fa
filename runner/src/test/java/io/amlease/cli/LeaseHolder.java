package io.amlease.cli;

import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ZkLease} in the test JVM: the "other" holder or contender a CLI process competes with. Grants
 * are stamped with {@link System#nanoTime()} so they can be ordered against what a test observed.
 */
final class LeaseHolder implements AutoCloseable {
  record Grant(Epoch epoch, long atNanos) {}

  final ZkLease lease;
  final List<Grant> grants = new CopyOnWriteArrayList<>();
  final List<RevocationReason> revocations = new CopyOnWriteArrayList<>();
  final List<LeaseException> failures = new CopyOnWriteArrayList<>();

  private LeaseHolder(LeaseConfig config) {
    lease = ZkLease.create(config, new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        grants.add(new Grant(epoch, System.nanoTime()));
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {
        revocations.add(reason);
      }

      @Override
      public void failed(LeaseException cause) {
        failures.add(cause);
      }
    });
  }

  /** Campaigns for {@code leasePath} directly on {@code connect} (10 s, the test server's maximum). */
  static LeaseHolder start(String connect, String leasePath, String id) throws LeaseException {
    LeaseHolder h = new LeaseHolder(LeaseConfig.builder().connectString(connect).leasePath(leasePath)
        .holderId(id).sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5))
        .build());
    h.lease.start();
    return h;
  }

  Grant awaitGrant(Duration within) {
    await().atMost(within).until(() -> !grants.isEmpty() || !failures.isEmpty());
    if (grants.isEmpty()) {
      throw new AssertionError("lease failed: " + failures);
    }
    return grants.get(0);
  }

  @Override
  public void close() {
    lease.close();
  }
}
