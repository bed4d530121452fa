package io.amlease.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.amlease.demo.SampleApp.MasterLine;
import io.amlease.demo.SampleApp.WorkerStart;
import io.amlease.lease.LeaderInfo;
import io.amlease.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * The story the demo tells, one method per step: attempt 1 leads; blips shorter than the grace cost
 * nothing; a partition longer than the grace makes attempt 1 quit before its session ends, and
 * attempt 2 leads in the next epoch with the same workers; a clean finish. Each step checks what it
 * claims, narrates what it saw, and returns a summary row, or throws {@link StepFailed}.
 */
final class Timeline {
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
  static final Duration BLIP = Duration.ofSeconds(2);
  private static final Duration SETTLE = Duration.ofSeconds(4);

  private final Narrator say;
  private final Poll poll;
  private final AppObserver observer;
  private final SampleApp app;
  private final FaultProxy proxy;
  private final ProcessSweeper sweeper;

  private LeaderInfo leader;
  private Duration grace;
  private List<WorkerStart> workers;

  Timeline(Narrator say, AppObserver observer, SampleApp app, FaultProxy proxy,
      ProcessSweeper sweeper) {
    this.say = say;
    this.poll = new Poll(say);
    this.observer = observer;
    this.app = app;
    this.proxy = proxy;
    this.sweeper = sweeper;
  }

  /** Submits the sample application and waits for attempt 1 to lead with both workers. */
  StepResult firstLeader(Callable<ApplicationId> submit) throws Exception {
    String step = "attempt 1 leads";
    long t0 = System.nanoTime();
    ApplicationId id = submit.call();
    observer.watch(id);
    say.say("submitted %s: T %s, 2 workers; its AM reaches ZooKeeper through a fault proxy (%s)",
        id, Narrator.secs(SESSION_TIMEOUT), proxy.connectString());
    leader = poll.until(step, "attempt 1 to lead", Duration.ofSeconds(90),
        () -> observer.leader().filter(l -> l.epoch() == 1));
    expect(step, leader.attemptId() != null && leader.attemptId().endsWith("_000001"),
        "epoch 1 is held by " + leader.holder() + ", not attempt 1");
    workers = poll.until(step, "2 workers to start", Duration.ofSeconds(60), () -> {
      List<WorkerStart> w = app.workerStarts();
      return w.size() >= SampleApp.WORKERS ? Optional.of(w) : Optional.empty();
    });
    JsonNode status = poll.until(step, "the AM to report 2 workers running", Duration.ofSeconds(30),
        () -> observer.status(leader).filter(s -> s.at("/workers/running").asInt() == 2));
    List<WorkerStart> started = workers;
    poll.until(step, "both workers to connect to the master's endpoint", Duration.ofSeconds(60),
        () -> app.allLinkedTo(1, started));
    // The leader info as the blips must find it again: with the endpoint the master published.
    leader = poll.until(step, "the master's endpoint in the leader info", Duration.ofSeconds(30),
        () -> observer.leader().filter(l -> l.epoch() == 1
            && l.urls().containsKey(DemoEndpoint.NAME)));
    String rpc = leader.urls().get(DemoEndpoint.NAME);
    say.say("the master published %s=%s in the leader info; both workers found it there and "
        + "connected", DemoEndpoint.NAME, rpc);
    MasterLine master = poll.until(step, "the master's first line", Duration.ofSeconds(30),
        () -> last(app.masterLines()));
    grace = Duration.ofMillis(status.at("/lease/grace_ms").asLong());
    rememberProcesses(master);
    workers.forEach(w -> sweeper.remember(w.pid()));
    Duration took = since(t0);
    say.say("attempt 1 leads: epoch %d, holder %s, %d workers running (grace %s of T %s)",
        leader.epoch(), leader.holder(), status.at("/workers/running").asInt(), Narrator.secs(grace),
        Narrator.secs(Duration.ofMillis(status.at("/lease/session_timeout_ms").asLong())));
    return StepResult.ok(step, "epoch 1, attempt 1, 2 workers",
        "epoch 1, attempt 1, 2 workers", took);
  }

  /** The two ways a blip looks to a ZooKeeper client. */
  enum Blip {
    /** Packets stop in both directions; the connection stays open (a partition). */
    SILENT("goes silent"),
    /** The connection is reset, and new ones are refused (a server restart, a flapping link). */
    RESET("is reset and refused");

    private final String what;

    Blip(String what) {
      this.what = what;
    }

    void apply(FaultProxy proxy) {
      if (this == SILENT) {
        proxy.silent();
      } else {
        proxy.reset();
      }
    }
  }

  /**
   * Applies {@code kind} to the AM's ZooKeeper path for {@link #BLIP}, heals it, and checks that
   * nothing happened: same attempt, same term (epoch and session), same master and workers.
   */
  StepResult blip(Blip kind) throws Exception {
    String step = "blip: " + kind.name().toLowerCase(java.util.Locale.ROOT) + " "
        + Narrator.secs(BLIP);
    MasterLine master = last(app.masterLines()).orElseThrow();
    say.say("blip: the AM's ZooKeeper connection %s for %s (grace %s)", kind.what,
        Narrator.secs(BLIP), Narrator.secs(grace));
    long t0 = System.nanoTime();
    kind.apply(proxy);
    Watch during = watchLease(step, BLIP);
    proxy.heal();
    long healed = System.nanoTime();
    say.say("  healed after %s; lease time left went down to %s", Narrator.secs(since(t0)),
        Narrator.secs(during.minTimeLeft));
    Duration renewed = poll.until(step, "a renewal after the heal", grace, () ->
        observer.status(leader).filter(s -> !s.at("/lease/last_ack_age_ms").isNull()
            && s.at("/lease/last_ack_age_ms").asLong() < since(healed).toMillis())
            .map(s -> since(healed)));
    Duration took = since(t0);
    Watch after = watchLease(step, SETTLE);

    int restarts = app.workerStarts().size() - workers.size();
    expect(step, restarts == 0, restarts + " worker(s) restarted");
    expect(step, workers.stream().allMatch(w -> alive(w.pid())), "a worker process is gone");
    expect(step, observer.currentAttempt() == 1, "YARN moved to attempt " + observer.currentAttempt());
    Optional<LeaderInfo> now = observer.leader();
    expect(step, now.equals(Optional.of(leader)), "the leader changed: " + now.map(LeaderInfo::toLine));
    MasterLine latest = last(app.masterLines()).orElseThrow();
    expect(step, latest.masterPid() == master.masterPid() && latest.epoch() == 1,
        "the master was restarted (pid " + master.masterPid() + " -> " + latest.masterPid() + ")");
    Duration minLeft = during.minTimeLeft.compareTo(after.minTimeLeft) < 0 ? during.minTimeLeft
        : after.minTimeLeft;
    say.say("  survived: renewed %s after the heal; attempt 1, epoch 1, same session, same master "
        + "(pid %d), 0 worker restarts", Narrator.secs(renewed), latest.masterPid());
    return StepResult.ok(step, "0 restarts, epoch 1, attempt 1",
        "0 restarts, epoch 1, attempt 1; time left >= " + Narrator.secs(minLeft), took);
  }

  /** The failover: see {@link PartitionStep}. */
  StepResult partition() throws Exception {
    PartitionStep step = new PartitionStep(say, observer, app, proxy);
    StepResult result = step.run(leader, grace, workers);
    leader = step.newLeader();
    last(app.masterLines()).ifPresent(this::rememberProcesses);
    return result;
  }

  /** Asks the master to finish: the AM stops the workers, releases the lease and unregisters. */
  StepResult finish() throws Exception {
    String step = "clean finish";
    say.say("%s: asking the master to finish (it exits 0)", step);
    long t0 = System.nanoTime();
    app.finish();
    var report = poll.until(step, "the application to finish", Duration.ofSeconds(60),
        () -> Optional.of(observer.report()).filter(r -> Terminal.is(r.getYarnApplicationState())));
    expect(step, report.getFinalApplicationStatus().name().equals("SUCCEEDED"),
        "the application ended " + report.getYarnApplicationState() + "/"
            + report.getFinalApplicationStatus() + ": " + report.getDiagnostics());
    poll.until(step, "the workers to stop", Duration.ofSeconds(30), () ->
        workers.stream().noneMatch(w -> alive(w.pid())) ? Optional.of(true) : Optional.empty());
    Optional<LeaderInfo> after = observer.leader();
    expect(step, after.isEmpty(), "the lease was not released: " + after.map(LeaderInfo::toLine));
    Duration took = since(t0);
    say.say("  %s/%s; workers stopped; lease released", report.getYarnApplicationState(),
        report.getFinalApplicationStatus());
    return StepResult.ok(step, "SUCCEEDED, workers stopped, lease released",
        report.getYarnApplicationState() + "/" + report.getFinalApplicationStatus()
            + ", workers stopped, lease released", took);
  }

  /** The current leader's direct status URL (for --keep-running). */
  LeaderInfo leader() {
    return leader;
  }

  /** The lowest "time left" the AM reported while watched, and whether it ever stopped holding. */
  private static final class Watch {
    Duration minTimeLeft = Duration.ofDays(1);
  }

  private Watch watchLease(String step, Duration length) throws Exception {
    Watch w = new Watch();
    long end = System.nanoTime() + length.toNanos();
    while (System.nanoTime() < end) {
      Optional<JsonNode> s = observer.status(leader);
      if (s.isPresent()) {
        expect(step, s.get().at("/lease/phase").asText().equals("HOLDING"),
            "the AM stopped holding the lease: " + s.get());
        Duration left = Duration.ofMillis(s.get().at("/lease/time_left_ms").asLong());
        if (left.compareTo(w.minTimeLeft) < 0) {
          w.minTimeLeft = left;
        }
      }
      Thread.sleep(Poll.INTERVAL.toMillis());
    }
    return w;
  }

  private void rememberProcesses(MasterLine master) {
    sweeper.remember(master.masterPid());
    sweeper.remember(master.amPid());
  }

  private static <T> Optional<T> last(List<T> list) {
    return list.isEmpty() ? Optional.empty() : Optional.of(list.get(list.size() - 1));
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static Duration since(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }

  private static void expect(String step, boolean ok, String otherwise) throws StepFailed {
    if (!ok) {
      throw new StepFailed(step, otherwise);
    }
  }
}
