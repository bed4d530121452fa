package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.util.ToolRunner;
import java.nio.charset.StandardCharsets;
import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import io.amlease.am.client.FlexCommand;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The AM's ZooKeeper path goes through a fault proxy: a blip shorter than the grace costs nothing; a
 * partition longer than T makes the AM exit by itself, and YARN's next attempt takes over with the
 * next epoch and adopts the workers.
 */
class FailoverIT {
  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-failover-it", true);

  @TempDir
  Path dir;

  /**
   * Submits an app (T = {@code sessionTimeout}) whose master records "epoch holder millis" every
   * 100 ms until killed, with two workers that log their container id when they start.
   */
  private ApplicationId submit(String name, String zkConnect, String sessionTimeout, Path record,
      Path workerLog) throws Exception {
    Path script = dir.resolve(name + "-master.sh");
    Files.writeString(script, "while :; do\n"
        + "  echo \"$AMLEASE_EPOCH $AMLEASE_HOLDER $(date +%s%3N)\" >> " + record + "\n"
        + "  sleep 0.1\ndone\n");
    return cluster.submit("--name", name, "--zk", zkConnect, "--session-timeout", sessionTimeout,
        "--stop-timeout", "1s",
        "--am-memory", "256", "--workers", "2", "--worker-memory", "128",
        "--worker-command", "echo $CONTAINER_ID >> " + workerLog + "; exec sleep 600",
        "--", "sh", script.toString());
  }

  private static LeaderInfo awaitLeader(String lease, long epoch) {
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      return await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> reader.current().orElse(null), i -> i != null && i.epoch() == epoch);
    }
  }

  private static List<String[]> lines(Path record) throws Exception {
    return Files.readAllLines(record).stream().map(l -> l.split(" ")).filter(f -> f.length == 3)
        .toList();
  }

  @Test
  void blipShorterThanGraceCostsNothing() throws Exception {
    Path record = dir.resolve("record");
    Path workerLog = dir.resolve("workers");
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", cluster.zkPort()))) {
      // T = 10 s: grace 6.67 s, renewals every 1.67 s. A reset costs its own length plus up to 1 s
      // of the ZooKeeper client's random reconnect delay, on top of the age of the last ack.
      ApplicationId id = submit("it-blip", proxy.connectString(), "10s", record, workerLog);
      LeaderInfo leader = awaitLeader("/amlease/it-blip", 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workerLog)
          && Files.readAllLines(workerLog).size() == 2);

      // Each blip is held for 2 s (0.3 × grace), and followed by 4 s of healthy link so that the
      // next blip starts from a fresh ack (G1 is about one outage at a time); attempt 1 must stay the
      // current attempt throughout.
      for (Runnable fault : List.<Runnable>of(proxy::silent, proxy::reset)) {
        fault.run();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() ->
            cluster.currentAttempt(id) == 1);
        proxy.heal();
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() ->
            cluster.currentAttempt(id) == 1);
      }

      // Still attempt 1, epoch 1, master writing, no worker restarted, a while after the blips.
      int before = lines(record).size();
      await().atMost(Duration.ofSeconds(10)).until(() -> lines(record).size() > before + 20);
      ApplicationReport report = cluster.yarn().getApplicationReport(id);
      assertThat(report.getCurrentApplicationAttemptId().getAttemptId()).isEqualTo(1);
      assertThat(new LeaderReader(cluster.zk(), "/amlease/it-blip").current()).contains(leader);
      assertThat(lines(record)).allSatisfy(f -> assertThat(f[0]).isEqualTo("1"));
      assertThat(Files.readAllLines(workerLog)).hasSize(2);
      // The AM's own account agrees: no revocation of any kind, no worker restarted.
      JsonNode status = Http.status(leader.urls().get("tracking"));
      assertThat(status.at("/counters/revocations")).allSatisfy(n -> assertThat(n.asLong()).isZero());
      assertThat(status.at("/counters/acquisitions").asLong()).isEqualTo(1);
      assertThat(status.at("/workers/restarts").asLong()).isZero();
      cluster.yarn().killApplication(id);
    }
  }

  @Test
  void partitionLongerThanTFailsOverToTheNextAttemptWithoutOverlap() throws Exception {
    Path record = dir.resolve("record");
    Path workerLog = dir.resolve("workers");
    String lease = "/amlease/it-failover";
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", cluster.zkPort()))) {
      ApplicationId id = submit("it-failover", proxy.connectString(), "6s", record, workerLog);
      LeaderInfo first = awaitLeader(lease, 1);
      assertThat(first.attemptId()).endsWith("_000001");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workerLog)
          && Files.readAllLines(workerLog).size() == 2);
      NodeId firstNode = cluster.amNode(ApplicationAttemptId.newInstance(id, 1));

      long cutAt = System.currentTimeMillis();
      proxy.silent();
      // The AM exits by itself; YARN starts attempt 2, which must reach ZooKeeper to campaign.
      await().atMost(Duration.ofSeconds(60)).until(() ->
          cluster.currentAttempt(id) == 2);
      ApplicationAttemptId attempt1 = ApplicationAttemptId.newInstance(id, 1);
      String diagnostics =
          cluster.yarn().getApplicationAttemptReport(attempt1).getDiagnostics();
      assertThat(diagnostics).contains("75");
      proxy.heal();

      LeaderInfo second = awaitLeader(lease, 2);
      assertThat(second.attemptId()).endsWith("_000002");
      // Issue 13 item 6: exit 75 counts towards YARN's AM node blacklisting (enabled in this
      // cluster, as the README recommends), so the attempt that lost the lease on its node does
      // not come back to it.
      // Where attempt 2 lands could be luck with two nodes; the RM's own blacklist is not.
      assertThat(cluster.amBlacklist(id)).containsExactly(firstNode.getHost() + ":"
          + firstNode.getPort());
      assertThat(cluster.amNode(ApplicationAttemptId.newInstance(id, 2)))
          .as("attempt 2's node").isNotEqualTo(firstNode);
      await().atMost(Duration.ofSeconds(10)).until(() -> lines(record).stream()
          .filter(f -> f[0].equals("2")).count() > 5);

      List<String[]> all = lines(record);
      long lastOfEpoch1 = all.stream().filter(f -> f[0].equals("1"))
          .mapToLong(f -> Long.parseLong(f[2])).max().orElseThrow();
      long firstOfEpoch2 = all.stream().filter(f -> f[0].equals("2"))
          .mapToLong(f -> Long.parseLong(f[2])).min().orElseThrow();
      System.out.printf("failover: master of epoch 1 last wrote %d ms before epoch 2's first line%n",
          firstOfEpoch2 - lastOfEpoch1);
      assertThat(lastOfEpoch1).isLessThan(firstOfEpoch2);
      // G2 itself, not just "no overlap" (YARN starts attempt 2 only once attempt 1 has exited, so
      // that alone cannot fail): the epoch-1 master stopped before attempt 1's session could
      // expire, which is no earlier than lastAck + T ≥ cut − renewInterval + T ≈ cut + 5.1 s here.
      System.out.printf("failover: master of epoch 1 last wrote %d ms after the cut%n",
          lastOfEpoch1 - cutAt);
      assertThat(lastOfEpoch1 - cutAt).isLessThan(5_000);
      assertThat(all).allSatisfy(f -> assertThat(f[0]).isIn("1", "2"));
      // The workers of attempt 1 were adopted: still the same two, none started again.
      assertThat(Files.readAllLines(workerLog)).hasSize(2);
      assertThat(Objects.requireNonNull(second.holder())).isEqualTo(second.attemptId());
      cluster.yarn().killApplication(id);
    }
  }

  /**
   * Issue 13 item 8. A work-preserving RM restart, and then an RM HA failover, while the application
   * runs cost it nothing: the same attempt, epoch and master process, no worker started again, and
   * the AM, which re-registers by itself, gets containers from the new RM (a flex adds a worker
   * after each).
   */
  @Test
  void rmRestartAndFailoverCostTheApplicationNothing() throws Exception {
    String lease = "/amlease/it-rm-restart";
    Path masterPid = dir.resolve("master.pid");
    Path workerLog = dir.resolve("workers");
    Path script = dir.resolve("rm-restart-master.sh");
    Files.writeString(script, "echo \"$$ $AMLEASE_EPOCH\" >> " + masterPid + "\nexec sleep 600\n");
    ApplicationId id = cluster.submit("--name", "it-rm-restart", "--zk", cluster.zkConnect(),
        "--session-timeout", "6s", "--stop-timeout", "1s", "--am-memory", "256", "--workers", "2",
        "--worker-memory", "128", "--worker-command",
        "echo $CONTAINER_ID >> " + workerLog + "; exec sleep 600", "--", "sh", script.toString());
    LeaderInfo leader = awaitLeader(lease, 1);
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(workerLog)
        && Files.readAllLines(workerLog).size() == 2 && Files.exists(masterPid));
    List<String> masters = Files.readAllLines(masterPid);
    ProcessHandle master = ProcessHandle.of(Long.parseLong(masters.get(0).split(" ")[0]))
        .orElseThrow();

    try {
      cluster.restartResourceManager();
      flexAndAwait(id, 3, workerLog);
      cluster.failOverResourceManager();
      flexAndAwait(id, 4, workerLog);
      assertNothingLost(id, lease, leader, master, masters, masterPid);
    } finally {
      cluster.yarn().killApplication(id);
    }
  }

  private static void assertNothingLost(ApplicationId id, String lease, LeaderInfo leader,
      ProcessHandle master, List<String> masters, Path masterPid) throws Exception {
    assertThat(cluster.currentAttempt(id)).isEqualTo(1);
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      assertThat(reader.current()).contains(leader);
    }
    assertThat(master.isAlive()).as("the master runs on").isTrue();
    assertThat(Files.readAllLines(masterPid)).as("no master started again").isEqualTo(masters);
    JsonNode status = Http.status(leader.urls().get("tracking"));
    assertThat(status.at("/workers/running").asInt()).isEqualTo(4);
    assertThat(status.at("/workers/restarts").asInt()).isZero();
    assertThat(status.at("/counters/revocations")).allSatisfy(n -> assertThat(n.asLong()).isZero());
  }

  /**
   * Once the (new) RM runs the application, flexes it to {@code workers}: only an AM that has
   * re-registered with that RM gets the container for the new worker.
   */
  private static void flexAndAwait(ApplicationId id, int workers, Path workerLog)
      throws Exception {
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> cluster.yarn()
        .getApplicationReport(id).getYarnApplicationState() == YarnApplicationState.RUNNING);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int flex = ToolRunner.run(cluster.conf(), new FlexCommand(new PrintStream(out, true),
        new PrintStream(err, true)), new String[] {id.toString(), "--workers", "" + workers});
    assertThat(flex).as(err.toString(StandardCharsets.UTF_8)).isZero();
    await().atMost(Duration.ofSeconds(60))
        .until(() -> Files.readAllLines(workerLog).size() == workers);
  }

}
