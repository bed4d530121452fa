package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells each of a lease's observers of each event, in order. An observer that throws is logged and
 * skipped: watching the lease must never break it (a revocation not reported to the stats still
 * reaches the listener, which was told first).
 */
final class Observers implements LeaseObserver {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final List<LeaseObserver> all;

  Observers(List<LeaseObserver> all) {
    this.all = List.copyOf(all);
  }

  private void each(Consumer<LeaseObserver> event) {
    for (LeaseObserver o : all) {
      try {
        event.accept(o);
      } catch (RuntimeException | LinkageError e) {
        // A LinkageError too (an observer compiled against another version): close() must
        // still get through its release and session close.
        LOG.warn("lease observer {} failed; ignored", o.getClass().getName(), e);
      }
    }
  }

  @Override
  public void granted(Epoch epoch, long sessionId) {
    each(o -> o.granted(epoch, sessionId));
  }

  @Override
  public void revoked(Epoch epoch, long sessionId, RevocationReason reason, String detail) {
    each(o -> o.revoked(epoch, sessionId, reason, detail));
  }

  @Override
  public void renewed(Duration latency) {
    each(o -> o.renewed(latency));
  }

  @Override
  public void renewalFailed(Epoch epoch, long sessionId, String detail) {
    each(o -> o.renewalFailed(epoch, sessionId, detail));
  }

  @Override
  public void timingChanged(Epoch epoch, long sessionId, io.amlease.lease.LeaseTiming timing) {
    each(o -> o.timingChanged(epoch, sessionId, timing));
  }

  @Override
  public void fencedWrite(Epoch epoch, long sessionId, boolean refused, String detail) {
    each(o -> o.fencedWrite(epoch, sessionId, refused, detail));
  }

  @Override
  public void acquisitionRetried(String why, Duration delay, int failuresInARow) {
    each(o -> o.acquisitionRetried(why, delay, failuresInARow));
  }
}
