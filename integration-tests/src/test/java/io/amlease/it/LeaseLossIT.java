package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt that does not hold the lease never acts for the application: an older attempt that is
 * still campaigning when a newer one shows up never runs its master (G6), and a master that exits
 * once its AM's term is over is a lease loss (exit 75), not the application's end (G4).
 */
class LeaseLossIT {
  private static final Duration T = Duration.ofSeconds(6);
  private static final EnumSet<YarnApplicationState> TERMINAL = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-lease-loss-it");

  @TempDir
  Path dir;
  private final List<ApplicationId> submitted = new ArrayList<>();

  /** A test that failed half-way must not leave a campaigning AM behind for the next one. */
  @AfterEach
  void killApplications() throws Exception {
    for (ApplicationId id : submitted) {
      if (!TERMINAL.contains(cluster.yarn().getApplicationReport(id).getYarnApplicationState())) {
        cluster.yarn().killApplication(id);
      }
    }
  }

  /** A plain holder of {@code lease} that the test controls, e.g. one standing in for attempt 2. */
  private static ZkLease lease(String lease, String holderId) throws Exception {
    ZkLease l = ZkLease.create(LeaseConfig.builder().connectString(cluster.zkConnect())
        .leasePath(lease).holderId(holderId).sessionTimeout(T).build(), new LeaseListener() {
          @Override
          public void granted(Epoch epoch) {}

          @Override
          public void revoked(Epoch epoch, RevocationReason reason) {}
        });
    l.start();
    return l;
  }

  /** The ids of the contenders in {@code lease}'s election, as the latch nodes' data says. */
  private static List<String> participants(String lease) throws Exception {
    List<String> ids = new ArrayList<>();
    for (String node : cluster.zk().getChildren().forPath(lease + "/latch")) {
      try {
        ids.add(new String(cluster.zk().getData().forPath(lease + "/latch/" + node),
            StandardCharsets.UTF_8));
      } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
        // Gone between the listing and the read: no longer a contender.
      }
    }
    return ids;
  }

  /**
   * Submits an application with one attempt allowed (so that an AM exiting 75 ends it and no real
   * attempt 2 joins the election) whose master only records that it started.
   */
  private ApplicationId submitOneAttempt(String name, Path started) throws Exception {
    Path script = dir.resolve(name + "-master.sh");
    Files.writeString(script, "echo \"$AMLEASE_EPOCH $AMLEASE_HOLDER\" >> " + started
        + "\nexec sleep 600\n");
    ApplicationId id = cluster.submit("--name", name, "--zk", cluster.zkConnect(),
        "--session-timeout", T.toSeconds() + "s", "--stop-timeout", "1s", "--am-memory", "256",
        "--max-attempts", "1", "--", "sh", script.toString());
    submitted.add(id);
    return id;
  }

  private static ApplicationReport awaitTerminal(ApplicationId id) {
    return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.yarn().getApplicationReport(id),
            r -> TERMINAL.contains(r.getYarnApplicationState()));
  }

  /** What the RM says about how {@code attempt}'s AM container ended. */
  private static String diagnostics(ApplicationAttemptId attempt) throws Exception {
    return cluster.yarn().getApplicationAttemptReport(attempt).getDiagnostics();
  }

  private static String amLog(ApplicationAttemptId attempt) throws Exception {
    return cluster.containerLog(ContainerId.newContainerId(attempt, 1), "AppMaster.stderr");
  }

  /**
   * G6, the deterministic case. Attempt 1 campaigns behind another holder; a contender with attempt
   * 2's holder id joins. Attempt 1 must give up campaigning at once (its latch node goes) and exit
   * 75; when the holder then leaves, "attempt 2" leads and attempt 1 never acquired.
   */
  @Test
  void campaigningAttemptGivesUpWhenANewerAttemptContends() throws Exception {
    String name = "it-zombie";
    String lease = "/amlease/" + name;
    Path started = dir.resolve("started");
    try (LeaderHistory history = new LeaderHistory(cluster.zk(), lease);
         ZkLease holder = lease(lease, "test-holder")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> holder.state().holder());
      ApplicationId id = submitOneAttempt(name, started);
      ApplicationAttemptId attempt1 = ApplicationAttemptId.newInstance(id, 1);
      String attempt2 = ApplicationAttemptId.newInstance(id, 2).toString();
      await().atMost(Duration.ofSeconds(60))
          .until(() -> participants(lease).contains(attempt1.toString()));

      try (ZkLease newer = lease(lease, attempt2)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> participants(lease).contains(attempt2));
        await("attempt 1 leaves the election once attempt 2 contends (G6)")
            .atMost(Duration.ofSeconds(15))
            .until(() -> !participants(lease).contains(attempt1.toString()));

        holder.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> newer.state().holder());
        ApplicationReport end = awaitTerminal(id);
        assertThat(end.getYarnApplicationState()).isEqualTo(YarnApplicationState.FAILED);
        assertThat(diagnostics(attempt1)).contains("exitCode: 75");
        assertThat(history.versions()).as("leader info").extracting(LeaderInfo::holder)
            .doesNotContain(attempt1.toString());
        assertThat(started).as("attempt 1's master").doesNotExist();
        assertThat(amLog(attempt1)).contains("attempt " + attempt2 + " contends for the lease",
            "exiting 75 without unregistering");
      }
    }
  }

  /**
   * G6, the race: the holder leaves right after "attempt 2" joined, so attempt 1, next in line, is
   * granted the lease before its periodic look at the contenders can have seen attempt 2. The
   * grant must be revoked (NEWER_ATTEMPT) before the master starts: the master never runs, and
   * attempt 1 exits 75 and leaves the lease to attempt 2.
   */
  @Test
  void grantThatArrivesAfterANewerAttemptContendsNeverStartsTheMaster() throws Exception {
    String name = "it-zombie-race";
    String lease = "/amlease/" + name;
    Path started = dir.resolve("started");
    try (LeaderHistory history = new LeaderHistory(cluster.zk(), lease);
         ZkLease holder = lease(lease, "test-holder")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> holder.state().holder());
      ApplicationId id = submitOneAttempt(name, started);
      ApplicationAttemptId attempt1 = ApplicationAttemptId.newInstance(id, 1);
      String attempt2 = ApplicationAttemptId.newInstance(id, 2).toString();
      await().atMost(Duration.ofSeconds(60))
          .until(() -> participants(lease).contains(attempt1.toString()));

      try (ZkLease newer = lease(lease, attempt2)) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
            .until(() -> participants(lease).contains(attempt2));
        holder.close();

        await().atMost(Duration.ofSeconds(30)).until(() -> newer.state().holder());
        ApplicationReport end = awaitTerminal(id);
        boolean granted = history.versions().stream()
            .anyMatch(i -> attempt1.toString().equals(i.holder()));
        System.out.printf("zombie race: attempt 1 was %s%n", granted
            ? "granted the lease, and revoked it before starting the master"
            : "quicker: it saw attempt 2 before its grant");
        assertThat(started).as("attempt 1's master").doesNotExist();
        assertThat(end.getYarnApplicationState()).isEqualTo(YarnApplicationState.FAILED);
        assertThat(diagnostics(attempt1)).contains("exitCode: 75");
        if (granted) {
          assertThat(amLog(attempt1)).contains("lease lost (NEWER_ATTEMPT)");
        }
        assertThat(amLog(attempt1)).contains("exiting 75 without unregistering")
            .doesNotContainPattern("master command .* running");
      }
    }
  }

  /**
   * G4. The test supersedes attempt 1's term, as a newer holder would, by moving {@code
   * <lease>/epoch} on, and the master then exits 1 (as one whose own fenced write was refused
   * would). That is a lease loss: attempt 1 exits 75 without unregistering, its worker keeps
   * running and attempt 2 adopts it, the staging directory stays.
   */
  @Test
  void masterExitingAfterItsTermEndedIsALeaseLossNotTheApplicationsEnd() throws Exception {
    String name = "it-fenced-exit";
    String lease = "/amlease/" + name;
    Path go = dir.resolve("go");
    Path workers = dir.resolve("workers");
    Path script = dir.resolve(name + "-master.sh");
    Files.writeString(script, "echo $$ > " + dir.resolve("master-") + "$AMLEASE_EPOCH\n"
        + "if [ \"$AMLEASE_EPOCH\" = 1 ]; then\n"
        + "  while [ ! -e " + go + " ]; do sleep 0.05; done\n"
        + "  exit 1\n"
        + "fi\n"
        + "exec sleep 600\n");
    try (LeaderHistory history = new LeaderHistory(cluster.zk(), lease)) {
      // T = 10 s with a renewal every 3 s (the longest G2 allows with grace left above it): the
      // test moves the epoch on right after a renewal. The AM's epoch watch may still notice first;
      // either way the master's exit must be a lease loss (before TermCheck, with detection only
      // at the next renewal, it ended the application).
      ApplicationId id = cluster.submit("-Damlease.lease.renew-interval=3s", "--name", name,
          "--zk", cluster.zkConnect(), "--session-timeout", "10s", "--stop-timeout", "1s",
          "--am-memory", "256", "--workers", "1", "--worker-memory", "128",
          "--worker-command", "echo $CONTAINER_ID >> " + workers + "; exec sleep 600",
          "--", "sh", script.toString());
      submitted.add(id);
      ApplicationAttemptId attempt1 = ApplicationAttemptId.newInstance(id, 1);
      LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("master-1"))
          && Files.exists(workers) && Files.readAllLines(workers).size() == 1);
      String worker = Files.readAllLines(workers).get(0);

      String tracking = first.urls().get("tracking");
      long renewals = Http.status(tracking).at("/counters/renewals").asLong();
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> Http.status(tracking).at("/counters/renewals").asLong() > renewals);
      cluster.zk().setData().forPath(lease + "/epoch", "2".getBytes(StandardCharsets.UTF_8));
      Files.writeString(go, "");

      ApplicationReport report = await().atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> cluster.yarn().getApplicationReport(id), r -> TERMINAL.contains(
              r.getYarnApplicationState()) || r.getCurrentApplicationAttemptId().getAttemptId() > 1);
      assertThat(report.getYarnApplicationState()).as("%s: %s", report.getYarnApplicationState(),
          report.getDiagnostics()).isNotIn(TERMINAL);
      assertThat(diagnostics(attempt1)).contains("exitCode: 75");
      assertThat(amLog(attempt1)).contains("exiting 75 without unregistering")
          .doesNotContain("finishing the application");

      LeaderInfo second = history.awaitEpoch(3, Duration.ofSeconds(60));
      assertThat(second.attemptId()).isEqualTo(ApplicationAttemptId.newInstance(id, 2).toString());
      await().atMost(Duration.ofSeconds(20)).until(() ->
          Http.status(second.urls().get("tracking")).at("/workers/adopted").asInt() == 1);
      assertThat(Files.readAllLines(workers)).as("no worker was started again")
          .containsExactly(worker);
      FileSystem fs = FileSystem.get(cluster.conf());
      org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path(fs.getHomeDirectory(),
          ".amlease/" + id);
      assertThat(fs.exists(staging)).as("staging directory %s", staging).isTrue();
      cluster.yarn().killApplication(id);
      fs.delete(staging, true);
    }
  }
}
