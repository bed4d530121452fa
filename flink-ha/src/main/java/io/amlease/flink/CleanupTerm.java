package io.amlease.flink;

import io.amlease.flink.leader.LeaderTerm;
import io.amlease.flink.leader.LeaderTerms;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The term a cleanup writes in: the one this JobManager holds, or, once its driver has released
 * the lease (Flink cleans up after its leader components stopped), a lease taken for the cleanup
 * alone and released after it. Bounded: another JobManager that still leads is waited for at most
 * a session timeout plus the connection timeout, then the cleanup fails (and Flink says so).
 */
final class CleanupTerm implements AutoCloseable {
  private final LeaderTerm term;
  private final ZkLease own;

  private CleanupTerm(LeaderTerm term, ZkLease own) {
    this.term = term;
    this.own = own;
  }

  static CleanupTerm take(LeaseConfig config, LeaderTerms terms) throws Exception {
    var current = terms.current();
    if (current.isPresent()) {
      return new CleanupTerm(current.get(), null);
    }
    CompletableFuture<Epoch> granted = new CompletableFuture<>();
    ZkLease lease = ZkLease.create(config, new LeaseListener() {
      @Override
      public void granted(Epoch epoch) {
        granted.complete(epoch);
      }

      @Override
      public void revoked(Epoch epoch, RevocationReason reason) {}

      @Override
      public void failed(LeaseException cause) {
        granted.completeExceptionally(cause);
      }
    });
    try {
      lease.start();
      Duration wait = config.sessionTimeout().plus(config.connectionTimeout());
      return new CleanupTerm(new LeaderTerm(lease,
          granted.get(wait.toMillis(), TimeUnit.MILLISECONDS)), lease);
    } catch (TimeoutException e) {
      lease.close();
      throw new LeaseException.NotLeader("cannot clean up " + config.leasePath()
          + ": another JobManager still leads it");
    } catch (Exception e) {
      lease.close();
      throw e;
    }
  }

  LeaderTerm term() {
    return term;
  }

  /** Releases a lease taken for the cleanup; a term held by the driver stays its own. */
  @Override
  public void close() {
    if (own != null) {
      own.close();
    }
  }
}
