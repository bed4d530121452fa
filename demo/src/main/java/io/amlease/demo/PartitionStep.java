package io.amlease.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.amlease.demo.SampleApp.MasterLine;
import io.amlease.demo.SampleApp.WorkerLink;
import io.amlease.demo.SampleApp.WorkerStart;
import io.amlease.lease.LeaderInfo;
import io.amlease.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The failover: the AM of attempt 1 is cut off from ZooKeeper for good. It must revoke its lease at
 * its deadline (lastAck + grace), stop its master and exit 75, all before its session ends (≥ T after
 * the cut); YARN starts attempt 2, which leads in epoch 2 and adopts the workers. The proxy resets
 * attempt 1's connections and forwards again once attempt 2 runs: both attempts share the connect
 * string, and attempt 1 is gone by then.
 *
 * <p>Every moment is measured from the cut by looking every {@link Poll#INTERVAL}: the attempt 1
 * AM's own status page (revocation), the master's and the AM's processes, YARN's current attempt,
 * and {@code <lease>/leader} (attempt 1's ephemeral node goes when its session ends).
 */
final class PartitionStep {
  static final String NAME = "partition > grace";
  private static final Duration AT_MOST = Duration.ofSeconds(90);

  private final Narrator say;
  private final Poll poll;
  private final AppObserver observer;
  private final SampleApp app;
  private final FaultProxy proxy;
  private LeaderInfo newLeader;

  // Moments after the cut; null until seen.
  private Duration revoked;
  private String reason;
  private Duration masterStopped;
  private Duration amExited;
  private Duration attempt2;
  private Duration sessionEnded;

  PartitionStep(Narrator say, AppObserver observer, SampleApp app, FaultProxy proxy) {
    this.say = say;
    this.poll = new Poll(say);
    this.observer = observer;
    this.app = app;
    this.proxy = proxy;
  }

  /** The leader after the step (attempt 2's, when it went well). */
  LeaderInfo newLeader() {
    return newLeader;
  }

  StepResult run(LeaderInfo leader, Duration grace, List<WorkerStart> workers) throws Exception {
    MasterLine master = app.masterLines().stream().reduce((a, b) -> b).orElseThrow();
    ProcessHandle master1 = ProcessHandle.of(master.masterPid()).orElseThrow(
        () -> new StepFailed(NAME, "the master of epoch 1 is not running"));
    ProcessHandle am1 = ProcessHandle.of(master.amPid()).orElseThrow(
        () -> new StepFailed(NAME, "attempt 1's AM is not running"));
    say.say("%s: the AM's ZooKeeper path goes silent and stays so (grace %s, T %s)", NAME,
        Narrator.secs(grace), Narrator.secs(Timeline.SESSION_TIMEOUT));
    long t0 = System.nanoTime();
    long cutMillis = System.currentTimeMillis();
    proxy.silent();
    newLeader = watchUntilEpoch2(t0, leader, master1, am1);
    Duration epoch2 = since(t0);
    say.say("  +%s attempt 2 leads: epoch %d, holder %s", Narrator.secs(epoch2), newLeader.epoch(),
        newLeader.holder());

    Checks c = new Checks();
    c.check(newLeader.epoch() == 2 && newLeader.attemptId() != null
        && newLeader.attemptId().endsWith("_000002"), "the new leader is " + newLeader.toLine());
    // Its status page may be gone before a poll sees REVOKED (it closes last, on exit); the master
    // and AM checks below cover that case.
    c.check(revoked == null || revoked.compareTo(sessionEnded) < 0,
        "attempt 1 did not revoke its lease before its session ended");
    c.check(masterStopped != null && masterStopped.compareTo(sessionEnded) < 0,
        "attempt 1's master was still running when its session ended (stopped +"
            + (masterStopped == null ? "never" : Narrator.secs(masterStopped)) + ")");
    c.check(amExited != null && amExited.compareTo(sessionEnded) < 0,
        "attempt 1's AM was still running when its session ended");
    String diagnostics = observer.attempt(1).getDiagnostics();
    c.check(diagnostics.contains("75"), "attempt 1 did not exit 75: " + diagnostics);

    List<MasterLine> lines = poll.until(NAME, "the master of epoch 2", Duration.ofSeconds(30), () -> {
      List<MasterLine> all = app.masterLines();
      return all.stream().anyMatch(l -> l.epoch() == 2) ? Optional.of(all) : Optional.empty();
    });
    LeaderInfo second = newLeader;
    JsonNode status = poll.until(NAME, "attempt 2 to report its workers", Duration.ofSeconds(30),
        () -> observer.status(second).filter(s -> s.at("/workers/running").asInt() > 0
            || s.at("/lease/phase").asText().equals("HOLDING")));
    List<WorkerStart> now = app.workerStarts();
    boolean adopted = c.check(now.equals(workers) && workers.stream().allMatch(w -> alive(w.pid())),
        "the workers were not adopted: before " + workers + ", now " + now);
    c.check(status.at("/workers/running").asInt() == workers.size(),
        "attempt 2 reports " + status.at("/workers/running").asInt() + " workers running");
    long lastOfEpoch1 = lines.stream().filter(l -> l.epoch() == 1)
        .mapToLong(l -> l.at().toEpochMilli()).max().orElseThrow();
    long firstOfEpoch2 = lines.stream().filter(l -> l.epoch() == 2)
        .mapToLong(l -> l.at().toEpochMilli()).min().orElseThrow();
    Duration gap = Duration.ofMillis(firstOfEpoch2 - lastOfEpoch1);
    c.check(lastOfEpoch1 < firstOfEpoch2, "the masters of epochs 1 and 2 overlapped by "
        + (lastOfEpoch1 - firstOfEpoch2) + " ms");
    c.check(lines.stream().allMatch(l -> l.epoch() == 1 || l.epoch() == 2),
        "a master line of an unexpected epoch");
    say.say("  attempt 2 %s (it reports %d running); no master ran for %s between the epochs",
        adopted ? "adopted both workers: same containers, same pids" : "did NOT adopt the workers",
        status.at("/workers/running").asInt(), Narrator.secs(gap));

    // The workers find the new master through the leader info by themselves.
    List<WorkerLink> relinked = poll.until(NAME, "the workers to reconnect to the master of epoch 2",
        Duration.ofSeconds(60), () -> app.allLinkedTo(2, workers));
    Duration reconnected = Duration.ofMillis(relinked.stream()
        .mapToLong(l -> l.at().toEpochMilli()).max().orElseThrow() - cutMillis);
    c.check(app.workerLinks().stream().noneMatch(l -> l.epoch() == 1
        && l.at().toEpochMilli() >= firstOfEpoch2), "a worker connected to the master of epoch 1 "
            + "after the master of epoch 2 had started");
    say.say("  +%s both workers reconnected, by themselves, to the master of epoch 2 at %s=%s",
        Narrator.secs(reconnected), DemoEndpoint.NAME, observer.leader()
            .map(l -> l.urls().get(DemoEndpoint.NAME)).orElse("?"));

    String observed = String.format(Locale.ROOT, "revoked +%s, master stopped +%s, AM exit +%s, "
        + "session end +%s, epoch 2 +%s, %s, gap %s, reconnected +%s", at(revoked),
        at(masterStopped), at(amExited), at(sessionEnded), at(epoch2), adopted ? workers.size()
            + "/" + workers.size() + " adopted" : "NOT adopted", Narrator.secs(gap),
        Narrator.secs(reconnected));
    String expected = "attempt 1 quits before its session ends; epoch 2; workers adopted and "
        + "reconnected";
    if (!c.allOk()) {
      say.say("  NOT as designed: %s", c.problems());
      return StepResult.failed(NAME, expected, observed, since(t0), c.problems());
    }
    return StepResult.ok(NAME, expected, observed, since(t0));
  }

  private LeaderInfo watchUntilEpoch2(long t0, LeaderInfo leader, ProcessHandle master1,
      ProcessHandle am1) throws Exception {
    long deadline = t0 + AT_MOST.toNanos();
    long nextProgress = t0 + Duration.ofSeconds(5).toNanos();
    while (true) {
      if (revoked == null) {
        Optional<JsonNode> s = observer.status(leader);
        if (s.isPresent() && !s.get().at("/lease/phase").asText().equals("HOLDING")) {
          revoked = since(t0);
          reason = s.get().at("/lease/last_revocation").asText();
          say.say("  +%s attempt 1 revoked its lease (%s): no answer from ZooKeeper for the grace",
              Narrator.secs(revoked), reason);
        }
      }
      if (masterStopped == null && !master1.isAlive()) {
        masterStopped = since(t0);
        say.say("  +%s attempt 1 stopped its master", Narrator.secs(masterStopped));
      }
      if (amExited == null && !am1.isAlive()) {
        amExited = since(t0);
        say.say("  +%s attempt 1's AM exited", Narrator.secs(amExited));
      }
      if (attempt2 == null && observer.currentAttempt() >= 2) {
        attempt2 = since(t0);
        // Attempt 1's connections die (as a partitioned node's would) instead of delivering what
        // the proxy held: those late packets would only refresh its session on the server.
        proxy.reset();
        proxy.heal();
        say.say("  +%s YARN started attempt 2; the ZooKeeper path works again for new connections",
            Narrator.secs(attempt2));
      }
      Optional<LeaderInfo> now = observer.leader();
      if (sessionEnded == null && (now.isEmpty() || now.get().epoch() > 1)) {
        sessionEnded = since(t0);
        say.say("  +%s attempt 1's ZooKeeper session ended (its leader node is gone)",
            Narrator.secs(sessionEnded));
      }
      if (now.isPresent() && now.get().epoch() >= 2) {
        return now.get();
      }
      if (System.nanoTime() > deadline) {
        throw new StepFailed(NAME, "no epoch 2 within " + Narrator.secs(AT_MOST)
            + " (revoked " + at(revoked) + ", master stopped " + at(masterStopped) + ", AM exited "
            + at(amExited) + ", attempt 2 " + at(attempt2) + ")");
      }
      if (System.nanoTime() > nextProgress) {
        say.say("  … waiting for %s (%d s)", revoked == null ? "attempt 1 to revoke its lease"
            : masterStopped == null ? "attempt 1 to stop its master"
            : attempt2 == null ? "attempt 2" : "epoch 2", since(t0).toSeconds());
        nextProgress += Duration.ofSeconds(5).toNanos();
      }
      Thread.sleep(Poll.INTERVAL.toMillis());
    }
  }

  private static String at(Duration d) {
    return d == null ? "unseen" : Narrator.secs(d);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static Duration since(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }
}
