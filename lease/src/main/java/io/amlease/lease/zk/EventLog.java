package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The machine-readable side of the lease's log: one line per grant, revocation, renewal failure and
 * fencing failure on the {@value #LOGGER} logger, with the facts as MDC fields (event, lease,
 * holder, epoch, token, incarnation, session, reason, detail) so that a JSON layout (log4j2's
 * JsonTemplateLayout in {@code conf/log4j2.xml}) writes each as one JSON object. The human log
 * ({@code ZkLease}'s logger) says the same in words.
 */
final class EventLog implements LeaseObserver {
  static final String LOGGER = "amlease.events";
  private static final Logger EVENTS = LoggerFactory.getLogger(LOGGER);

  private final String lease;
  private final String holder;

  EventLog(String lease, String holder) {
    this.lease = lease;
    this.holder = holder;
  }

  @Override
  public void granted(Epoch epoch, long session) {
    emit("granted", epoch, session, null, null);
  }

  @Override
  public void revoked(Epoch epoch, long session, RevocationReason reason, String detail) {
    emit("revoked", epoch, session, reason.name(), detail);
  }

  @Override
  public void renewalFailed(Epoch epoch, long session, String detail) {
    emit("renewal_failed", epoch, session, null, detail);
  }

  @Override
  public void timingChanged(Epoch epoch, long session, io.amlease.lease.LeaseTiming timing) {
    emit("timing_changed", epoch, session, null, "session timeout "
        + io.amlease.lease.Durations.format(timing.sessionTimeout()) + ", grace "
        + io.amlease.lease.Durations.format(timing.grace()));
  }

  @Override
  public void fencedWrite(Epoch epoch, long session, boolean refused, String detail) {
    if (refused) {
      emit("fencing_failed", epoch, session, RevocationReason.FENCED.name(), detail);
    }
  }

  private void emit(String event, Epoch epoch, long session, String reason, String detail) {
    if (!EVENTS.isInfoEnabled()) {
      return;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("event", event);
    fields.put("lease", lease);
    fields.put("holder", holder);
    fields.put("epoch", Long.toString(epoch.value()));
    fields.put("token", Integer.toString(epoch.token()));
    fields.put("incarnation", epoch.incarnation());
    fields.put("session", "0x" + Long.toHexString(session));
    if (reason != null) {
      fields.put("reason", reason);
    }
    if (detail != null) {
      fields.put("detail", detail);
    }
    // MDC is per thread: set, log, and restore, so nothing leaks into the caller's other lines.
    Map<String, String> saved = MDC.getCopyOfContextMap();
    try {
      fields.forEach(MDC::put);
      EVENTS.info("{} {} epoch {}", event, lease, epoch.value());
    } finally {
      if (saved == null) {
        MDC.clear();
      } else {
        MDC.setContextMap(saved);
      }
    }
  }
}
