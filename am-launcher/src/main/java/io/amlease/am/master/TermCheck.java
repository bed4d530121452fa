package io.amlease.am.master;

import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this AM still holds the lease in a given term: asked when the master exits, because only
 * a master that exits while its AM holds the lease ends the application; after the term it is a
 * lease loss (G4).
 *
 * <p>The lease's own state lags ZooKeeper by up to a renewal interval: a master whose fenced write
 * was refused because a newer holder moved the epoch on exits at once, while the AM's lease still
 * says HOLDING until its next renewal. So a local HOLDING is confirmed in ZooKeeper with a
 * check-only fenced write, which the quorum leader orders (G2) and which a superseded term fails
 * (G3), retried over connection losses but never waited for past the term's deadline: past it the
 * term is over whatever ZooKeeper would say. The write runs on its own thread so that the wait can
 * be bounded (a silent link surfaces as a connection loss only after 2T/3).
 */
final class TermCheck implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TermCheck.class);
  private static final Duration RETRY = Duration.ofMillis(100);

  private final Lease lease;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "amlease-term-check");
    t.setDaemon(true);
    return t;
  });

  TermCheck(Lease lease) {
    this.lease = lease;
  }

  /**
   * True only if the lease holds {@code epoch} locally and ZooKeeper confirms that epoch is still
   * current, within the term's deadline. A refused confirmation also revokes the lease (FENCED).
   */
  boolean holds(Epoch epoch) throws InterruptedException {
    LeaseState state = lease.state();
    if (!state.holds(epoch)) {
      return false;
    }
    Future<Boolean> confirmed = executor.submit(() -> confirm(epoch));
    try {
      return confirmed.get(state.timeLeft().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.warn("ZooKeeper did not confirm epoch {} before its deadline", epoch);
      return false;
    } catch (ExecutionException e) {
      LOG.warn("cannot confirm epoch {}: {}", epoch, e.getCause().toString());
      return false;
    } finally {
      confirmed.cancel(true);
    }
  }

  private boolean confirm(Epoch epoch) throws InterruptedException {
    while (true) {
      try {
        lease.fencedWrite(epoch, List.of());
        return true;
      } catch (LeaseException.Fenced | LeaseException.NotLeader e) {
        // NotLeader: revoked meanwhile, or the deadline passed (the lease refuses locally then).
        LOG.info("epoch {} is over: {}", epoch, e.getMessage());
        return false;
      } catch (LeaseException e) {
        // A connection loss: the answer is unknown, not no. The deadline ends the retries.
        LOG.debug("confirming epoch {}: {}", epoch, e.toString());
        Thread.sleep(RETRY.toMillis());
      }
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
