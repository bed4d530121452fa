package io.amlease.lease;

import java.time.Duration;

/**
 * What a lease reports as it goes, for logs and metrics: give one to
 * {@code ZkLease.create(config, listener, observer)} to feed your own metrics system. The lease's
 * own log, JSON event log and {@link LeaseStats} are observers too; the state machine calls each
 * event once and knows nothing of what is done with it.
 *
 * <p>Called on the lease's threads, ZooKeeper's event thread among them, {@code granted} and
 * {@code revoked} under its lock (so that an observer sees a term's edges in order, like a
 * {@link LeaseListener}): return quickly and never block, or the session's callbacks wait too. An observer that throws is logged and skipped; it cannot break the lease. Unlike a
 * {@link LeaseListener}, an observer is not told to stop acting: it only watches.
 */
public interface LeaseObserver {

  /** Term {@code epoch} began on ZooKeeper session {@code sessionId}. */
  default void granted(Epoch epoch, long sessionId) {}

  /** Term {@code epoch} ended for {@code reason}; {@code detail} says what was seen, for people. */
  default void revoked(Epoch epoch, long sessionId, RevocationReason reason, String detail) {}

  /** A renewal ZooKeeper answered, {@code latency} after it was sent. */
  default void renewed(Duration latency) {}

  /** A renewal that could not be sent or was answered with an error (not a revocation). */
  default void renewalFailed(Epoch epoch, long sessionId, String detail) {}

  /**
   * The term's session reconnected with a shorter timeout that G2 still allows: the term goes on
   * with {@code timing}, whose grace (and so the deadline) is shorter.
   */
  default void timingChanged(Epoch epoch, long sessionId, LeaseTiming timing) {}

  /**
   * A fenced write reached ZooKeeper; {@code refused} when the epoch check failed (the write was
   * not applied and the term ends FENCED). {@code detail} is null unless refused.
   */
  default void fencedWrite(Epoch epoch, long sessionId, boolean refused, String detail) {}

  /**
   * An acquisition attempt failed (lost race, connection loss) and is retried after {@code delay}.
   * {@code failuresInARow} counts the attempts since the last success, for rate-limited logging.
   */
  default void acquisitionRetried(String why, Duration delay, int failuresInARow) {}
}
