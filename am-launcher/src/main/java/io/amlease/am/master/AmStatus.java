package io.amlease.am.master;

import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseState;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ContainerId;

/**
 * What the AM reports about itself at its tracking URL: which attempt it is, whether it holds the
 * lease (epoch, time left before its deadline, age of the last ZooKeeper answer, session), and its
 * workers. Read from the status server's thread; the parts it reads are thread-safe.
 */
final class AmStatus {
  private final ContainerId container;
  private final String leasePath;
  private volatile Lease lease;
  private volatile Workers workers;

  AmStatus(ContainerId container, String leasePath) {
    this.container = container;
    this.leasePath = leasePath;
  }

  void lease(Lease l) {
    lease = l;
  }

  void workers(Workers w) {
    workers = w;
  }

  Map<String, Object> snapshot() {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("application", container.getApplicationAttemptId().getApplicationId().toString());
    s.put("attempt", container.getApplicationAttemptId().toString());
    s.put("container", container.toString());
    s.put("lease", leasePath);
    Lease l = lease;
    if (l == null) {
      s.put("phase", "STARTING");
    } else {
      LeaseState st = l.state();
      s.put("phase", st.phase().name());
      s.put("holder", st.holder());
      s.put("epoch", st.epoch().map(Epoch::value).orElse(null));
      s.put("time_left_ms", st.timeLeft().toMillis());
      s.put("last_ack_age_ms", st.lastAckAge() == null ? null : st.lastAckAge().toMillis());
      s.put("session_id", "0x" + Long.toHexString(st.sessionId()));
      s.put("session_timeout_ms", millis(st.timing() == null ? null : st.timing().sessionTimeout()));
      s.put("grace_ms", millis(st.timing() == null ? null : st.timing().grace()));
      s.put("last_revocation", st.lastRevocation().map(RevocationReason::name).orElse(null));
    }
    Workers w = workers;
    s.put("workers_running", w == null ? 0 : w.running());
    return s;
  }

  private static Long millis(Duration d) {
    return d == null ? null : d.toMillis();
  }
}
