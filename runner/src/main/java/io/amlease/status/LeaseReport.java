package io.amlease.status;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A lease's state and counters as the status page, {@code status.json} and {@code /metrics} show
 * them. Field names are the JSON contract (snake_case, times in milliseconds in JSON and seconds in
 * metrics); the README lists them.
 */
public final class LeaseReport {
  private LeaseReport() {}

  /** {@code lease}, {@code counters} and {@code revocations} sections, in that order. */
  public static Map<String, Object> status(String leasePath, String holderId, LeaseState st,
      LeaseStats.Snapshot stats) {
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("path", leasePath);
    lease.put("holder_id", holderId);
    lease.put("phase", st.phase().name());
    lease.put("holder", st.holder());
    lease.put("epoch", st.epoch().map(Epoch::value).orElse(null));
    lease.put("token", st.epoch().map(Epoch::token).orElse(null));
    lease.put("time_left_ms", st.timeLeft().toMillis());
    lease.put("last_ack_age_ms", st.lastAckAge() == null ? null : st.lastAckAge().toMillis());
    lease.put("session_id", st.sessionId() == 0 ? null : "0x" + Long.toHexString(st.sessionId()));
    LeaseTiming t = st.timing();
    if (t != null) {
      lease.put("session_timeout_ms", t.sessionTimeout().toMillis());
      lease.put("grace_ms", t.grace().toMillis());
      lease.put("renew_interval_ms", t.renewInterval().toMillis());
    }
    lease.put("last_revocation", st.lastRevocation().map(RevocationReason::name).orElse(null));

    Map<String, Object> counters = new LinkedHashMap<>();
    counters.put("acquisitions", stats.acquisitions());
    counters.put("acquisition_retries", stats.acquisitionRetries());
    Map<String, Long> byReason = new LinkedHashMap<>();
    for (RevocationReason r : RevocationReason.values()) {
      byReason.put(r.name(), stats.revocations(r));
    }
    counters.put("revocations", byReason);
    counters.put("renewals", stats.renewals());
    counters.put("renewal_failures", stats.renewalFailures());
    counters.put("renew_latency_last_ms", millis(stats.lastRenewLatency()));
    counters.put("renew_latency_max_ms", millis(stats.maxRenewLatency()));
    counters.put("fenced_writes", stats.fencedWrites());
    counters.put("fenced_write_failures", stats.fencedWriteFailures());

    List<Map<String, Object>> history = new ArrayList<>();
    for (LeaseStats.Revocation r : stats.history()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("at", r.at().toString());
      row.put("epoch", r.epoch());
      row.put("reason", r.reason().name());
      row.put("detail", r.detail());
      history.add(row);
    }

    Map<String, Object> all = new LinkedHashMap<>();
    all.put("lease", lease);
    all.put("counters", counters);
    all.put("revocations", history);
    return all;
  }

  /** The lease's metrics, named {@code amlease_lease_*}. */
  public static void metrics(PrometheusText out, LeaseState st, LeaseStats.Snapshot stats) {
    Map<String, Long> byReason = new LinkedHashMap<>();
    for (RevocationReason r : RevocationReason.values()) {
      byReason.put(r.name(), stats.revocations(r));
    }
    out.gauge("amlease_lease_holder", "1 while this process holds the lease", st.holder() ? 1 : 0)
        .gauge("amlease_lease_epoch", "epoch of the current or last term (0: none yet)",
            st.epoch().map(Epoch::value).orElse(0L))
        .gauge("amlease_lease_time_left_seconds", "time until the deadline lastAck + grace",
            seconds(st.timeLeft()))
        .gauge("amlease_lease_last_ack_age_seconds",
            "time since the send time of the last request ZooKeeper answered",
            st.lastAckAge() == null ? 0 : seconds(st.lastAckAge()))
        .counter("amlease_lease_acquisitions_total", "terms granted", stats.acquisitions())
        .counter("amlease_lease_acquisition_retries_total",
            "acquisition attempts that failed while the latch said leader, and were retried",
            stats.acquisitionRetries())
        .counter("amlease_lease_revocations_total", "terms ended, by reason", "reason", byReason)
        .summary("amlease_lease_renew_latency_seconds", "renewal round trips ZooKeeper answered",
            seconds(stats.totalRenewLatency()), stats.renewals())
        .gauge("amlease_lease_renew_latency_max_seconds", "slowest answered renewal",
            seconds(stats.maxRenewLatency()))
        .counter("amlease_lease_renewal_failures_total",
            "renewals not sent or answered with an error", stats.renewalFailures())
        .counter("amlease_lease_fenced_writes_total", "fenced writes sent", stats.fencedWrites())
        .counter("amlease_lease_fenced_write_failures_total",
            "fenced writes ZooKeeper refused because the epoch moved on",
            stats.fencedWriteFailures());
  }

  private static Long millis(Duration d) {
    return d.toMillis();
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
