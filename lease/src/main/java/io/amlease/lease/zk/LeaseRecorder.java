package io.amlease.lease.zk;

import io.amlease.lease.Durations;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lease reports as it goes, each event in one place: the human log (under {@link ZkLease}'s
 * logger, where operators' log configs name it), the JSON event log and the counters. The lease's
 * state machine calls one method per event and knows nothing of the three outputs.
 */
final class LeaseRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final String leasePath;
  private final LeaseStats stats;
  private final EventLog events;
  private final java.time.Clock wall;

  LeaseRecorder(String leasePath, String holderId, LeaseStats stats, java.time.Clock wall) {
    this.leasePath = leasePath;
    this.stats = stats;
    this.events = new EventLog(leasePath, holderId);
    this.wall = wall;
  }

  /** Called under the lease's lock, before HOLDING is visible, so no report shows a holder with none. */
  void counted() {
    stats.acquired();
  }

  void granted(Term t) {
    LOG.info("granted {} epoch {} (session 0x{})", leasePath, t.epoch, Long.toHexString(t.sessionId));
    events.granted(t.epoch, t.sessionId);
  }

  void revoked(Term t, RevocationReason reason, String detail) {
    if (reason == RevocationReason.RELEASED) {
      LOG.info("released {} epoch {}", leasePath, t.epoch);
    } else {
      LOG.warn("revoked {} epoch {}: {} ({})", leasePath, t.epoch, reason, detail);
    }
    stats.revoked(new LeaseStats.Revocation(wall.instant(), t.epoch.value(), reason, detail));
    events.revoked(t.epoch, t.sessionId, reason, detail);
  }

  void renewed(Duration latency) {
    stats.renewed(latency);
  }

  void renewalFailed(Term t, String detail) {
    LOG.debug("renewal failed: {}", detail);
    stats.renewalFailed();
    events.renewalFailed(t.epoch, t.sessionId, detail);
  }

  void fencedWrite() {
    stats.fencedWrite(false);
  }

  void fenced(Term t, String detail) {
    stats.fencedWrite(true);
    events.fenced(t.epoch, t.sessionId, detail);
  }

  void retrying(String why, Duration delay, RetryBackoff backoff, boolean loud) {
    stats.acquisitionRetried();
    if (loud) {
      LOG.info("{}; retrying in {} while the latch says leader ({} failures in a row; the next "
          + "ones are logged at most every {})", why, Durations.format(delay), backoff.failures(),
          Durations.format(RetryBackoff.LOG_EVERY));
    } else {
      LOG.debug("{}; retrying in {}", why, Durations.format(delay));
    }
  }
}
