package io.amlease.lease.zk;

import static org.awaitility.Awaitility.await;

import io.amlease.lease.Clock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A lease under test plus everything its listener saw, stamped with {@link System#nanoTime()} so that
 * acting intervals of holders in one JVM can be compared.
 */
final class Holder implements AutoCloseable {
  record Grant(Epoch epoch, long atNanos) {}

  record Revocation(Epoch epoch, RevocationReason reason, long atNanos) {}

  final ZkLease lease;
  final List<Grant> grants = new CopyOnWriteArrayList<>();
  final List<Revocation> revocations = new CopyOnWriteArrayList<>();
  final List<LeaseException> failures = new CopyOnWriteArrayList<>();

  Holder(LeaseConfig config) {
    this(config, (Clock) null);
  }

  Holder(LeaseConfig config, Clock clock) {
    this(config, clock, null);
  }

  Holder(LeaseConfig config, LeaseObserver observer) {
    this(config, null, observer);
  }

  private Holder(LeaseConfig config, Clock clock, LeaseObserver observer) {
    LeaseListener listener = new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        grants.add(new Grant(epoch, System.nanoTime()));
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {
        revocations.add(new Revocation(epoch, reason, System.nanoTime()));
      }

      @Override
      public void failed(LeaseException cause) {
        failures.add(cause);
      }
    };
    lease = clock != null ? ZkLease.create(config, listener, clock)
        : observer != null ? ZkLease.create(config, listener, observer)
        : ZkLease.create(config, listener);
  }

  Holder start() throws LeaseException {
    lease.start();
    return this;
  }

  Grant awaitGrant(Duration within) {
    await().atMost(within).until(() -> !grants.isEmpty());
    return grants.get(0);
  }

  Revocation awaitRevocation(Duration within) {
    await().atMost(within).until(() -> !revocations.isEmpty());
    return revocations.get(0);
  }

  @Override
  public void close() {
    lease.close();
  }
}
