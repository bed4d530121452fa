package io.amlease.am.master;

import io.amlease.lease.Lease;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseStats;
import io.amlease.status.LeaseReport;
import io.amlease.status.PrometheusText;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ContainerId;

/**
 * What the AM reports at its tracking URL: which attempt it is, the lease (held? epoch, grace left,
 * last-ack age, session, revocation history) and its workers, as a status map and as metrics.
 * Called on the status server's thread; everything it reads is thread-safe.
 */
final class AmStatus {
  private final ContainerId container;
  private final String host;
  private final String leasePath;
  private final String holderId;
  private volatile Lease lease;
  private volatile Workers workers;

  AmStatus(ContainerId container, String host, String leasePath, String holderId) {
    this.container = container;
    this.host = host;
    this.leasePath = leasePath;
    this.holderId = holderId;
  }

  void lease(Lease l) {
    lease = l;
  }

  void workers(Workers w) {
    workers = w;
  }

  Map<String, Object> snapshot() {
    Map<String, Object> yarn = new LinkedHashMap<>();
    yarn.put("application", container.getApplicationAttemptId().getApplicationId().toString());
    yarn.put("attempt", container.getApplicationAttemptId().toString());
    yarn.put("attempt_number", container.getApplicationAttemptId().getAttemptId());
    yarn.put("container", container.toString());
    yarn.put("host", host);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("yarn", yarn);
    Lease l = lease;
    if (l == null) {
      Map<String, Object> starting = new LinkedHashMap<>();
      starting.put("path", leasePath);
      starting.put("holder_id", holderId);
      starting.put("phase", "STARTING");
      starting.put("holder", false);
      s.put("lease", starting);
    } else {
      s.putAll(LeaseReport.status(leasePath, holderId, l.state(), l.stats()));
    }
    Workers w = workers;
    Map<String, Object> ws = new LinkedHashMap<>();
    ws.put("target", w == null ? 0 : w.target());
    ws.put("running", w == null ? 0 : w.running());
    ws.put("adopted", w == null ? 0 : w.adopted());
    ws.put("restarts", w == null ? 0 : w.restarts());
    ws.put("failures", w == null ? 0 : w.failures());
    s.put("workers", ws);
    return s;
  }

  String metrics() {
    PrometheusText out = new PrometheusText();
    Lease l = lease;
    if (l != null) {
      LeaseState st = l.state();
      LeaseStats.Snapshot stats = l.stats();
      LeaseReport.metrics(out, st, stats);
    }
    Workers w = workers;
    out.gauge("amlease_am_attempt", "this AM's application attempt number",
            container.getApplicationAttemptId().getAttemptId())
        .gauge("amlease_am_workers_running", "worker containers running",
            w == null ? 0 : w.running())
        .gauge("amlease_am_workers_target", "worker containers this attempt runs (submitted or "
            + "flexed count)", w == null ? 0 : w.target())
        .counter("amlease_am_worker_restarts_total",
            "worker containers that ended by themselves and were replaced",
            w == null ? 0 : w.restarts())
        .counter("amlease_am_worker_failures_total",
            "worker ends counted against --worker-max-failures", w == null ? 0 : w.failures());
    return out.toString();
  }
}
