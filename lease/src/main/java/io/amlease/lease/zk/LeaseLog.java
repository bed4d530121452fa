package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Durations;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease's human log, as an observer, under {@link ZkLease}'s logger (where operators' log
 * configs name it). Acquisition retries are logged at INFO at most once per {@link #RETRY_EVERY}
 * while they last, so that a lasting failure does not flood the log.
 */
final class LeaseLog implements LeaseObserver {
  static final Duration RETRY_EVERY = Duration.ofSeconds(30);
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final String leasePath;
  private final Clock clock;
  private long lastRetryLogged;

  LeaseLog(String leasePath, Clock clock) {
    this.leasePath = leasePath;
    this.clock = clock;
  }

  @Override
  public void granted(Epoch epoch, long sessionId) {
    LOG.info("granted {} epoch {} (session 0x{})", leasePath, epoch, Long.toHexString(sessionId));
  }

  @Override
  public void revoked(Epoch epoch, long sessionId, RevocationReason reason, String detail) {
    if (reason == RevocationReason.RELEASED) {
      LOG.info("released {} epoch {}", leasePath, epoch);
    } else {
      LOG.warn("revoked {} epoch {}: {} ({})", leasePath, epoch, reason, detail);
    }
  }

  @Override
  public void renewalFailed(Epoch epoch, long sessionId, String detail) {
    LOG.debug("renewal failed: {}", detail);
  }

  @Override
  public void timingChanged(Epoch epoch, long sessionId, io.amlease.lease.LeaseTiming timing) {
    LOG.warn("epoch {}: the session reconnected with a shorter timeout, {}: grace now {}, renew "
        + "every {} (G2)", epoch, io.amlease.lease.Durations.format(timing.sessionTimeout()),
        io.amlease.lease.Durations.format(timing.grace()),
        io.amlease.lease.Durations.format(timing.renewInterval()));
  }

  @Override
  public synchronized void acquisitionRetried(String why, Duration delay, int failuresInARow) {
    long now = clock.nanoTime();
    if (failuresInARow == 1 || now - lastRetryLogged >= RETRY_EVERY.toNanos()) {
      lastRetryLogged = now;
      LOG.info("{}; retrying in {} while the latch says leader ({} failures in a row; the next "
          + "ones are logged at most every {})", why, Durations.format(delay), failuresInARow,
          Durations.format(RETRY_EVERY));
    } else {
      LOG.debug("{}; retrying in {}", why, Durations.format(delay));
    }
  }
}
