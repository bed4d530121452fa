package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.amlease.lease.LeaderInfo;
import io.amlease.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt-1 AM that YARN has given up on but that is still running: on a lost NodeManager (the
 * RM's kill never reaches it) with the RM unreachable, or paused (SIGSTOP) for longer than T. The
 * newer attempt must end up the only leader, and nothing the old one does may overwrite it.
 */
class StaleAmIT {
  private static final Duration T = Duration.ofSeconds(6);

  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-stale-am-it");

  @TempDir
  Path dir;
  private ContainerId lostAm;
  private ProcessHandle oldAm;

  @BeforeEach
  void directRmPath() throws Exception {
    cluster.writeAmSite(Map.of());
  }

  /** The old AM is outside YARN's control: the test must not leave it (or its master) behind. */
  @AfterEach
  void killLeftovers() throws Exception {
    cluster.writeAmSite(Map.of());
    if (oldAm != null) {
      oldAm.descendants().forEach(ProcessHandle::destroyForcibly);
      oldAm.destroyForcibly();
    }
    if (lostAm != null) {
      LostNodeExecutor.find(lostAm);
    }
  }

  /** What the master of a term wrote first: its own pid, the AM's pid, and its fencing token. */
  private record Term(long masterPid, long amPid, int token) {
    static Term read(Path file) throws Exception {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(file));
      String[] f = Files.readString(file).trim().split(" ");
      return new Term(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]));
    }
  }

  /**
   * Submits an application (no workers) whose master records its term in {@code dir/term-EPOCH}
   * and then "epoch holder millis" in {@code record} every 100 ms until stopped.
   */
  private ApplicationId submit(String name, Path record) throws Exception {
    Path script = dir.resolve(name + "-master.sh");
    Path term = dir.resolve("term-");
    Files.writeString(script, "echo \"$$ $PPID $AMLEASE_EPOCH_TOKEN\" > " + term + "tmp-$$\n"
        + "mv " + term + "tmp-$$ " + term + "$AMLEASE_EPOCH\n"
        + "while :; do\n"
        + "  echo \"$AMLEASE_EPOCH $AMLEASE_HOLDER $(date +%s%3N)\" >> " + record + "\n"
        + "  sleep 0.1\ndone\n");
    return cluster.submit("--name", name, "--zk", cluster.zkConnect(), "--session-timeout",
        T.toSeconds() + "s", "--stop-timeout", "1s", "--am-memory", "256", "--", "sh",
        script.toString());
  }

  private static List<long[]> lines(Path record) throws Exception {
    return Files.readAllLines(record).stream().map(l -> l.split(" ")).filter(f -> f.length == 3)
        .map(f -> new long[] {Long.parseLong(f[0]), Long.parseLong(f[2])}).toList();
  }

  private static void signal(long pid, String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0)
        .as("kill -s %s %d", name, pid).isTrue();
  }

  private static void awaitAttempt(ApplicationId id, int attempt) {
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
        cluster.currentAttempt(id) == attempt);
  }

  /**
   * Issue 3, test 4. Attempt 1 leads; then its node is lost: the RM can no longer hear it (its RM
   * path goes silent) and cannot kill it, while ZooKeeper still can. YARN gives up on it after the
   * AM liveness expiry and starts attempt 2 elsewhere. The old AM still holds a valid lease — only
   * G6 can end it: it sees attempt 2 among the contenders, stops its master, and exits 75 without
   * unregistering; attempt 2 then leads with epoch 2, and attempt 1 never writes leader info again.
   */
  @Test
  void staleAttemptOnALostNodeYieldsToTheNewerAttempt() throws Exception {
    String name = "it-stale";
    Path record = dir.resolve("record");
    try (FaultProxy rmPath = FaultProxy.start(cluster.schedulerAddress());
         LeaderHistory history = new LeaderHistory(cluster.zk(), "/amlease/" + name)) {
      cluster.writeAmSite(Map.of(YarnConfiguration.RM_SCHEDULER_ADDRESS, rmPath.connectString()));
      ApplicationId id = submit(name, record);
      LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(60));
      assertThat(first.attemptId()).endsWith("_000001");
      Term term1 = Term.read(dir.resolve("term-1"));
      oldAm = ProcessHandle.of(term1.amPid()).orElseThrow();
      // Later attempts reach the RM directly; only attempt 1's path goes through the proxy.
      cluster.writeAmSite(Map.of());

      lostAm = ContainerId.fromString(first.containerId());
      LostNodeExecutor.lose(lostAm);
      rmPath.silent();
      long cutAt = System.nanoTime();

      awaitAttempt(id, 2);
      LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(60));
      long leadAt = System.nanoTime();
      assertThat(second.attemptId()).endsWith("_000002");
      assertThat(second.holder()).isEqualTo(second.attemptId());
      await().atMost(Duration.ofSeconds(30)).until(() -> !oldAm.isAlive());
      // Attempt 2 took over no "worker": the RM hands it attempt 1's AM container as a container
      // from a previous attempt (it still believes it runs), and that must not be adopted.
      JsonNode status = Http.status(second.urls().get("tracking"));
      assertThat(status.at("/lease/epoch").asLong()).isEqualTo(2);
      assertThat(status.at("/workers/running").asInt()).isZero();
      assertThat(status.at("/workers/adopted").asInt()).isZero();
      System.out.printf("stale AM: attempt 2 led %d ms after attempt 1's node was lost%n",
          TimeUnit.NANOSECONDS.toMillis(leadAt - cutAt));

      String log = cluster.containerLog(lostAm, "AppMaster.stderr");
      assertThat(log).contains("attempt " + second.attemptId() + " contends for the lease",
          "lease lost (NEWER_ATTEMPT)", "exiting 75 without unregistering");
      assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive)).isEmpty();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> lines(record).stream().filter(l -> l[0] == 2).count() > 5);
      history.assertNoWriteFromBefore(second);

      // The stale master stopped before the new one started: the AM stopped it before its session
      // (and so its latch node) went away.
      List<long[]> all = lines(record);
      long lastOf1 = all.stream().filter(l -> l[0] == 1).mapToLong(l -> l[1]).max().orElseThrow();
      long firstOf2 = all.stream().filter(l -> l[0] == 2).mapToLong(l -> l[1]).min().orElseThrow();
      assertThat(lastOf1).isLessThan(firstOf2);
      cluster.yarn().killApplication(id);
    }
  }

  /**
   * The RM gives up on attempt 1 (its RM path is cut) while its node is fine, so the NodeManager's
   * SIGTERM reaches the AM and its master together. The AM must leave the workers running for
   * attempt 2 to adopt: a kill of the attempt is not a kill of the application.
   */
  @Test
  void attemptKilledByTheRmLeavesItsWorkersToTheNextAttempt() throws Exception {
    String name = "it-expired";
    Path workerLog = dir.resolve("workers");
    Path script = dir.resolve(name + "-master.sh");
    Files.writeString(script, "exec sleep 600\n");
    try (FaultProxy rmPath = FaultProxy.start(cluster.schedulerAddress());
         LeaderHistory history = new LeaderHistory(cluster.zk(), "/amlease/" + name)) {
      cluster.writeAmSite(Map.of(YarnConfiguration.RM_SCHEDULER_ADDRESS, rmPath.connectString()));
      ApplicationId id = cluster.submit("--name", name, "--zk", cluster.zkConnect(),
          "--session-timeout", T.toSeconds() + "s", "--stop-timeout", "1s", "--am-memory", "256",
          "--workers", "2", "--worker-memory", "128",
          "--worker-command", "echo $CONTAINER_ID >> " + workerLog + "; exec sleep 600",
          "--", "sh", script.toString());
      history.awaitEpoch(1, Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workerLog)
          && Files.readAllLines(workerLog).size() == 2);
      cluster.writeAmSite(Map.of());

      rmPath.silent();
      awaitAttempt(id, 2);
      LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(20)).until(() ->
          Http.status(second.urls().get("tracking")).at("/workers/adopted").asInt() == 2);
      JsonNode status = Http.status(second.urls().get("tracking"));
      assertThat(status.at("/workers/running").asInt()).isEqualTo(2);
      assertThat(status.at("/workers/restarts").asInt()).isZero();
      assertThat(Files.readAllLines(workerLog)).as("no worker was started again").hasSize(2);
      cluster.yarn().killApplication(id);
    }
  }

  /**
   * Issue 3, test 5. The leading AM's JVM is paused (SIGSTOP) for longer than T on a frozen node
   * (the RM's kill never arrives). Its session expires and attempt 2 takes over. The paused AM could
   * not stop its master, and its token no longer passes the fence. On SIGCONT the old AM finds its
   * deadline long past, stops its master and exits 75; attempt 2 is still the leader.
   */
  @Test
  void pausedAttemptIsFencedAndExitsWhenContinued() throws Exception {
    String name = "it-pause";
    String lease = "/amlease/" + name;
    Path record = dir.resolve("record");
    try (LeaderHistory history = new LeaderHistory(cluster.zk(), lease)) {
      ApplicationId id = submit(name, record);
      LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(60));
      Term term1 = Term.read(dir.resolve("term-1"));
      oldAm = ProcessHandle.of(term1.amPid()).orElseThrow();
      ProcessHandle oldMaster = ProcessHandle.of(term1.masterPid()).orElseThrow();
      lostAm = ContainerId.fromString(first.containerId());
      LostNodeExecutor.lose(lostAm);

      signal(oldAm.pid(), "STOP");
      awaitAttempt(id, 2);
      LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(60));
      assertThat(second.attemptId()).endsWith("_000002");
      assertThat(oldMaster.isAlive()).as("a stopped AM cannot stop its master").isTrue();

      // The old term's write, fenced with its token, is refused by ZooKeeper.
      String state = lease + "-state";
      assertThatThrownBy(() -> cluster.zk().transaction().forOperations(
              cluster.zk().transactionOp().check().withVersion(term1.token())
                  .forPath(lease + "/epoch"),
              cluster.zk().transactionOp().create().withMode(CreateMode.PERSISTENT)
                  .forPath(state, "from-paused".getBytes(StandardCharsets.UTF_8))))
          .isInstanceOf(KeeperException.BadVersionException.class);
      assertThat(cluster.zk().checkExists().forPath(state)).isNull();

      signal(oldAm.pid(), "CONT");
      await().atMost(Duration.ofSeconds(20)).until(() -> !oldAm.isAlive() && !oldMaster.isAlive());
      String log = cluster.containerLog(lostAm, "AppMaster.stderr");
      assertThat(log).contains("lease lost (", "exiting 75 without unregistering");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> lines(record).stream().filter(l -> l[0] == 2).count() > 5);
      history.assertNoWriteFromBefore(second);
      assertThat(cluster.currentAttempt(id))
          .isEqualTo(2);
      cluster.yarn().killApplication(id);
    }
  }
}
