package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.amlease.am.client.FlexCommand;
import io.amlease.am.client.KillCommand;
import io.amlease.am.client.StatusCommand;
import io.amlease.am.client.SubmitCommand;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.testkit.HeadlessChromium;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Submission, the first attempt's leadership, clean finish, and bad input that submits nothing. */
class SubmitIT {
  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-submit-it");

  @TempDir
  Path dir;

  record Run(int exit, String out, String err) {}

  private Run submit(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // Hadoop's generic options (-D, -conf) must come first, as on a real command line.
    List<String> all = new ArrayList<>(List.of(args));
    int firstOwn = 0;
    while (firstOwn < all.size() && all.get(firstOwn).startsWith("-D")) {
      firstOwn++;
    }
    all.addAll(firstOwn, List.of("--am-jar", YarnZkCluster.amJar().toString()));
    int exit = SubmitCommand.submit(cluster.conf(), new PrintStream(out, true),
        new PrintStream(err, true), all.toArray(String[]::new));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** A master that records "epoch holder millis" every 100 ms for {@code seconds}, then exits. */
  private Path masterScript(Path record, double seconds, int status) throws Exception {
    Path script = dir.resolve("master.sh");
    Files.writeString(script, "end=$(( $(date +%s%N) + " + (long) (seconds * 1e9) + " ))\n"
        + "while [ $(date +%s%N) -lt $end ]; do\n"
        + "  echo \"$AMLEASE_EPOCH $AMLEASE_HOLDER $(date +%s%3N)\" >> " + record + "\n"
        + "  sleep 0.1\ndone\nexit " + status + "\n");
    return script;
  }

  private ApplicationReport awaitTerminal(ApplicationId id) {
    EnumSet<YarnApplicationState> terminal = EnumSet.of(YarnApplicationState.FINISHED,
        YarnApplicationState.FAILED, YarnApplicationState.KILLED);
    return await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.yarn().getApplicationReport(id),
            r -> terminal.contains(r.getYarnApplicationState()));
  }

  @Test
  void firstAttemptLeadsRunsMasterAndWorkersAndFinishesCleanly() throws Exception {
    Path record = dir.resolve("record");
    Path script = masterScript(record, 8, 0);
    String lease = "/amlease/it-ok";
    Run run = submit("--name", "it-ok", "--zk", cluster.zkConnect(), "--lease", lease,
        "--session-timeout", "6s", "--stop-timeout", "1s", "--am-memory", "256",
        "--workers", "2", "--worker-command", "sleep 600", "--metrics-port", "0",
        "--", "sh", script.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationId id = ApplicationId.fromString(run.out().trim());

    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      LeaderInfo leader = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), java.util.Objects::nonNull);
      assertThat(leader.epoch()).isEqualTo(1);
      assertThat(leader.applicationId()).isEqualTo(id.toString());
      assertThat(leader.attemptId()).endsWith("_000001");
      assertThat(leader.holder()).isEqualTo(leader.attemptId());
      assertThat(leader.urls()).containsKey("tracking");

      // The tracking URL the RM shows goes through its web proxy to the AM's status page.
      String tracking = await().atMost(Duration.ofSeconds(30)).until(
          () -> cluster.yarn().getApplicationReport(id).getTrackingUrl(),
          u -> u.contains("/proxy/"));
      JsonNode status = Http.status(cluster.viaRmWeb(tracking));
      assertThat(status.at("/yarn/attempt").asText()).isEqualTo(leader.attemptId());
      assertThat(status.at("/lease/holder").asBoolean()).isTrue();
      assertThat(status.at("/lease/epoch").asLong()).isEqualTo(1);
      assertThat(status.at("/lease/phase").asText()).isEqualTo("HOLDING");
      assertThat(status.at("/counters/acquisitions").asLong()).isEqualTo(1);
      assertThat(Http.get(leader.urls().get("tracking"))).contains("LEADER &middot; epoch 1",
          leader.attemptId());
      // The page as a person sees it through the RM's web proxy, in a real browser.
      Optional<HeadlessChromium> browser = Http.chromium();
      String page = cluster.viaRmWeb(tracking);
      if (browser.isPresent()) {
        assertThat(browser.get().dumpDom(page)).contains("LEADER · epoch 1", leader.attemptId(),
            "GRACE_EXPIRED: 0");
        browser.get().screenshot(page, Path.of("target", "am-status-page.png"), 1000, 1100);
      }
      assertThat(Http.get(leader.urls().get("tracking") + "metrics"))
          .contains("amlease_lease_holder 1", "amlease_lease_epoch 1", "amlease_am_attempt 1");

      // Issue 14: YARN's AmIpFilter guards the page. From any host but the RM's web proxy, the
      // page, status.json and metrics at the tracking URL are not served: the AM redirects to the
      // proxy. Only --metrics-port serves /metrics to anyone, and nothing else there.
      for (String path : List.of("", "status.json", "metrics")) {
        Http.Reply direct = Http.getFromAnotherHost(leader.urls().get("tracking") + path);
        assertThat(direct.status()).as(path).isIn(302, 307);
        // To the RM's web proxy (marked as a redirect, which the proxy serves to a remote user,
        // and refuses as a loop to its own host: so the tests cannot follow it here).
        assertThat(direct.headers().get("location")).as(path).isEqualTo(
            cluster.viaRmWeb(tracking).replace("/proxy/", "/proxy/redirect/") + path);
        assertThat(direct.body()).as(path).doesNotContain("epoch", "amlease_lease");
      }
      String metrics = leader.urls().get("metrics");
      assertThat(metrics).isNotNull().endsWith("/metrics")
          .isNotEqualTo(leader.urls().get("tracking") + "metrics");
      Http.Reply scraped = Http.getFromAnotherHost(metrics);
      assertThat(scraped.status()).isEqualTo(200);
      assertThat(scraped.body()).contains("amlease_lease_holder 1", "amlease_lease_epoch 1");
      assertThat(Http.getFromAnotherHost(metrics.replace("/metrics", "/status.json")).status())
          .isEqualTo(404);
    }
    // AM + 2 workers.
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.yarn().getApplicationReport(id)
        .getApplicationResourceUsageReport().getNumUsedContainers() == 3);

    ApplicationReport end = awaitTerminal(id);
    assertThat(end.getYarnApplicationState()).isEqualTo(YarnApplicationState.FINISHED);
    assertThat(end.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(cluster.zk().checkExists().forPath(lease + "/leader")).isNull();
    List<String> lines = Files.readAllLines(record);
    assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l).startsWith("1 appattempt_"));
  }

  @Test
  void masterFailingMakesTheApplicationFail() throws Exception {
    Path script = masterScript(dir.resolve("record"), 0.5, 3);
    Run run = submit("--name", "it-fail", "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--", "sh", script.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationReport end = awaitTerminal(ApplicationId.fromString(run.out().trim()));
    assertThat(end.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.FAILED);
    assertThat(cluster.zk().checkExists().forPath("/amlease/it-fail/leader")).isNull();
  }

  /**
   * Everything after {@code --} is MASTER-COMMAND, whatever it looks like: a {@code sh -c} script,
   * JVM-style options, a {@code --} of its own, spaces and quotes. (Hadoop's generic option parser
   * drops every {@code --}, so it must never see MASTER-COMMAND.)
   */
  @Test
  void masterCommandAfterTheDashesReachesTheMasterVerbatim() throws Exception {
    Path args = dir.resolve("args");
    Run run = submit("--name", "it-argv", "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--",
        "sh", "-c", "printf '%s\\n' \"$@\" > " + args + ".tmp && mv " + args + ".tmp " + args, "sh",
        "-Xmx1g", "-jar", "--", "--name", "a b", "it's \"quoted\"", "-c");
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationReport end = awaitTerminal(ApplicationId.fromString(run.out().trim()));
    assertThat(end.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.SUCCEEDED);
    assertThat(Files.readAllLines(args)).containsExactly("-Xmx1g", "-jar", "--", "--name", "a b",
        "it's \"quoted\"", "-c");
  }

  @Test
  void statusShowsTheLeaderAndKillStopsEverything() throws Exception {
    Path masterPid = dir.resolve("master.pid");
    Path workerPid = dir.resolve("worker.pid");
    Path script = dir.resolve("forever.sh");
    Files.writeString(script, "echo $$ > " + masterPid + "\nexec sleep 600\n");
    Run run = submit("--name", "it-kill", "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--workers", "1", "--worker-memory", "128",
        // Quoted as a user would: the NodeManager's own double quotes must not break it.
        "--worker-command", "echo \"$$\" > '" + workerPid + "'; exec sleep 600", "--", "sh",
        script.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(masterPid)
        && Files.exists(workerPid) && !Files.readString(workerPid).isBlank()
        && !Files.readString(masterPid).isBlank());
    ProcessHandle master = ProcessHandle.of(Long.parseLong(Files.readString(masterPid).trim()))
        .orElseThrow();
    ProcessHandle worker = ProcessHandle.of(Long.parseLong(Files.readString(workerPid).trim()))
        .orElseThrow();

    Run status = tool(StatusCommand::new, id.toString(), "--zk",
        cluster.zkConnect());
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out()).contains("RUNNING", "_000001", "epoch=1", "/amlease/it-kill");
    // Without --zk: the application's own ZooKeeper and lease, from what submit staged.
    Run plain = tool(StatusCommand::new, id.toString());
    assertThat(plain.exit()).as(plain.err()).isZero();
    assertThat(plain.out()).contains("RUNNING", "lease /amlease/it-kill", "epoch=1");

    Path staging = staging(id);
    assertThat(Files.getPosixFilePermissions(staging)).as("staging is private")
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));

    Run kill = tool(KillCommand::new, id.toString());
    assertThat(kill.exit()).as(kill.err()).isZero();
    assertThat(kill.out()).contains("KILLED");
    assertThat(cluster.yarn().getApplicationReport(id).getYarnApplicationState())
        .isEqualTo(YarnApplicationState.KILLED);
    await().atMost(Duration.ofSeconds(30)).until(() -> !master.isAlive() && !worker.isAlive());
    assertThat(staging).as("staging of a killed application").doesNotExist();
  }

  private ApplicationId submitted(String name, Path script) throws Exception {
    Run run = submit("--name", name, "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--", "sh", script.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    return ApplicationId.fromString(run.out().trim());
  }

  /**
   * {@code --acl-credentials} names a file on the client's machine; the AM gets a private copy.
   * The client's file is gone before the AM starts, as it would be on any other node. The master
   * publishes its endpoint with {@code $AMLEASE_PUBLISH}, which carries that copy.
   */
  @Test
  void aclCredentialsReachTheAmAsItsOwnCopy() throws Exception {
    Path creds = dir.resolve("zk-creds");
    Files.writeString(creds, "amlease-it:s3cret\n");
    Path script = dir.resolve("forever.sh");
    Path published = dir.resolve("published");
    // The master publishes its endpoint as the README says, through the lease's ACL.
    Files.writeString(script, "$AMLEASE_PUBLISH rpc=127.0.0.1:7000 > " + published
        + " 2>&1\nexec sleep 600\n");
    String lease = "/amlease/it-acl";
    Run run = submit("--name", "it-acl", "--zk", cluster.zkConnect(), "--acl-credentials",
        creds.toString(), "--session-timeout", "6s", "--stop-timeout", "1s", "--am-memory", "256",
        "--", "sh", script.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    Files.delete(creds);
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      LeaderInfo leader = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), java.util.Objects::nonNull);
      assertThat(leader.epoch()).isEqualTo(1);
      LeaderInfo withEndpoint = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), l -> l != null && l.urls().containsKey("rpc"));
      assertThat(withEndpoint.urls().get("rpc")).as("%s", published).isEqualTo("127.0.0.1:7000");
      assertThat(withEndpoint.urls()).containsKey("tracking");
      assertThat(withEndpoint.epoch()).isEqualTo(1);
    }
    assertThat(cluster.zk().getACL().forPath(lease)).anySatisfy(acl -> {
      assertThat(acl.getId().getScheme()).isEqualTo("digest");
      assertThat(acl.getId().getId()).startsWith("amlease-it:");
    });
    // Issue 14 item 6: the staging directory is private, and so is every file in it.
    assertThat(Files.getPosixFilePermissions(staging(id)))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    try (var staged = Files.list(staging(id))) {
      assertThat(staged.toList()).isNotEmpty().allSatisfy(f -> assertThat(
          Files.getPosixFilePermissions(f)).as("%s", f)
          .isEqualTo(PosixFilePermissions.fromString("rw-------")));
    }
    assertThat(tool(KillCommand::new, id.toString()).exit()).isZero();
  }

  /** The staging directory of {@code id}: the default filesystem here is the local one. */
  private static Path staging(ApplicationId id) {
    return Path.of(System.getProperty("user.home"), ".amlease", id.toString());
  }

  /**
   * Killed behind amlease's back ({@code yarn application -kill}), an application leaves its
   * staging directory: the next submit removes it, and never a running application's.
   */
  @Test
  void theNextSubmitRemovesTheStagingOfAnApplicationKilledBehindItsBack() throws Exception {
    Path script = dir.resolve("forever.sh");
    Files.writeString(script, "exec sleep 600\n");
    ApplicationId first = submitted("it-swept", script);
    ApplicationId running = submitted("it-running", script);
    cluster.yarn().killApplication(first);
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.yarn().getApplicationReport(first)
        .getYarnApplicationState() == YarnApplicationState.KILLED);
    assertThat(staging(first)).as("the killed AM had no chance to remove it").exists();

    Run next = submit("--name", "it-sweeper", "--zk", cluster.zkConnect(), "--session-timeout",
        "6s", "--stop-timeout", "1s", "--am-memory", "256", "--", "sh", script.toString());
    assertThat(next.exit()).as(next.err()).isZero();
    assertThat(staging(first)).doesNotExist();
    assertThat(staging(running)).exists();
    for (ApplicationId id : List.of(running, ApplicationId.fromString(next.out().trim()))) {
      assertThat(tool(KillCommand::new, id.toString()).exit()).isZero();
      assertThat(staging(id)).doesNotExist();
    }
  }

  @Test
  void aFailedWorkerIsReplacedWhileTheMasterKeepsRunning() throws Exception {
    Path masterPid = dir.resolve("master.pid");
    Path workers = dir.resolve("workers");
    Path script = dir.resolve("forever.sh");
    Files.writeString(script, "echo $$ > " + masterPid + "\nexec sleep 600\n");
    Run run = submit("--name", "it-restart", "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--workers", "1", "--worker-memory", "128",
        "--worker-command", "echo $$ >> " + workers + "; exec sleep 600", "--", "sh",
        script.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(workers)
        && Files.readAllLines(workers).size() == 1 && Files.exists(masterPid));
    long master = Long.parseLong(Files.readString(masterPid).trim());
    ProcessHandle first = ProcessHandle.of(Long.parseLong(Files.readAllLines(workers).get(0)))
        .orElseThrow();

    first.destroyForcibly(); // the worker dies on its own, not through the AM

    await().atMost(Duration.ofSeconds(60)).until(() -> Files.readAllLines(workers).size() == 2);
    ProcessHandle second = ProcessHandle.of(Long.parseLong(Files.readAllLines(workers).get(1)))
        .orElseThrow();
    assertThat(second.isAlive()).isTrue();
    try (LeaderReader reader = new LeaderReader(cluster.zk(), "/amlease/it-restart")) {
      String page = reader.current().orElseThrow().urls().get("tracking");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> Http.status(page).at("/workers/restarts").asLong() == 1);
      assertThat(Http.get(page + "metrics")).contains("amlease_am_worker_restarts_total 1",
          "amlease_am_workers_running 1");
    }
    assertThat(ProcessHandle.of(master).map(ProcessHandle::isAlive)).contains(true);
    assertThat(cluster.currentAttempt(id))
        .isEqualTo(1);
    cluster.yarn().killApplication(id);
    await().atMost(Duration.ofSeconds(30)).until(() -> !second.isAlive());
  }

  /**
   * A worker that can never run (a missing config file) is replaced with growing delays, and the
   * failure after --worker-max-failures fails the application with a diagnostic naming the
   * worker, its exit status and its last words; it does not loop forever.
   */
  @Test
  void aCrashLoopingWorkerFailsTheApplicationWithItsLastWords() throws Exception {
    Path starts = dir.resolve("starts");
    Path script = dir.resolve("forever.sh");
    Files.writeString(script, "exec sleep 600\n");
    Run run = submit("--name", "it-crashloop", "--zk", cluster.zkConnect(), "--session-timeout",
        "6s", "--stop-timeout", "1s", "--am-memory", "256", "--workers", "1", "--worker-memory",
        "128", "--worker-max-failures", "2", "--worker-failures-validity", "10m",
        "--worker-command", "echo started >> " + starts + "; echo 'cannot open /no/such/config' >&2;"
            + " exit 3", "--", "sh", script.toString());
    assertThat(run.exit()).as(run.err()).isEqualTo(0);
    ApplicationReport end = awaitTerminal(ApplicationId.fromString(run.out().trim()));

    assertThat(end.getFinalApplicationStatus()).isEqualTo(FinalApplicationStatus.FAILED);
    assertThat(end.getDiagnostics()).contains("exited with status 3", "3 worker failures within "
        + "10m", "--worker-max-failures 2", "cannot open /no/such/config", "container_");
    // Two failures allowed, the third ends it: three starts, not a loop.
    assertThat(Files.readAllLines(starts)).hasSize(3);
  }

  /**
   * {@code flex} changes the count of a running application: the leading AM records it with a
   * fenced write and starts a worker. After an AM failover attempt 2 runs the flexed count, not the
   * submitted one, with both workers adopted; flexing down stops the newest worker.
   */
  @Test
  void flexChangesTheWorkerCountAndTheNextAttemptKeepsIt() throws Exception {
    Path workers = dir.resolve("workers");
    Path term = dir.resolve("term");
    Path script = dir.resolve("forever.sh");
    Files.writeString(script, "echo \"$PPID $AMLEASE_EPOCH\" >> " + term + "\nexec sleep 600\n");
    Run run = submit("--name", "it-flex", "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--workers", "1", "--worker-memory", "128",
        "--worker-command", "echo $$ >> " + workers + "; exec sleep 600", "--", "sh",
        script.toString());
    assertThat(run.exit()).as(run.err()).isZero();
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(workers) && Files.exists(term)
        && Files.readAllLines(workers).size() == 1 && Files.readAllLines(term).size() == 1);

    Run up = tool(FlexCommand::new, id.toString(), "--workers", "2");
    assertThat(up.exit()).as(up.err()).isZero();
    assertThat(up.out()).contains(id + " workers 2");
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.readAllLines(workers).size() == 2);
    List<ProcessHandle> started = Files.readAllLines(workers).stream()
        .map(pid -> ProcessHandle.of(Long.parseLong(pid)).orElseThrow()).toList();
    assertThat(new String(cluster.zk().getData().forPath("/amlease/it-flex/workers"),
        StandardCharsets.UTF_8)).isEqualTo("2");

    // The RM knows the new worker runs (its NodeManager said so): a container the RM still
    // counts as only handed out is killed when the attempt fails, not given to the next one. A
    // container report cannot tell the two apart (it says RUNNING for both).
    ApplicationAttemptId first = ApplicationAttemptId.newInstance(id, 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.rmRunning(first) == 3);
    // The AM's JVM dies: its master's reaper ends the session, and attempt 2 takes over.
    long am = Long.parseLong(Files.readAllLines(term).get(0).split(" ")[0]);
    ProcessHandle.of(am).orElseThrow().destroyForcibly();
    try (LeaderReader reader = new LeaderReader(cluster.zk(), "/amlease/it-flex")) {
      LeaderInfo second = await().atMost(Duration.ofSeconds(90)).until(
          () -> reader.current().orElse(null), l -> l != null && l.epoch() == 2);
      String page = second.urls().get("tracking");
      await().atMost(Duration.ofSeconds(20)).until(() -> Http.status(page).at("/workers/target")
          .asInt() == 2);
      JsonNode status = Http.status(page);
      assertThat(status.at("/workers/adopted").asInt()).isEqualTo(2);
      assertThat(status.at("/workers/running").asInt()).isEqualTo(2);
      assertThat(Files.readAllLines(workers)).as("no worker started again").hasSize(2);

      Run down = tool(FlexCommand::new, id.toString(), "--workers", "1");
      assertThat(down.exit()).as(down.err()).isZero();
      await().atMost(Duration.ofSeconds(30)).until(() -> !started.get(1).isAlive());
      await().atMost(Duration.ofSeconds(20)).until(() ->
          Http.status(page).at("/workers/running").asInt() == 1);
      assertThat(started.get(0).isAlive()).as("the older worker runs on").isTrue();
      assertThat(Http.status(page).at("/workers/restarts").asInt()).as("a stop is no restart")
          .isZero();
    }
    assertThat(cluster.currentAttempt(id)).isEqualTo(2);
    assertThat(tool(KillCommand::new, id.toString()).exit()).isZero();
  }

  @Test
  void flexRefusesBadInputAndEndedApplications() throws Exception {
    Run noCount = tool(FlexCommand::new, "application_1_0001");
    assertThat(noCount.exit()).isEqualTo(64);
    assertThat(noCount.err()).contains("--workers is missing");
    Run tooMany = tool(FlexCommand::new, "application_1_0001", "--workers", "10001");
    assertThat(tooMany.exit()).isEqualTo(64);
    assertThat(tooMany.err()).contains("--workers 10001 is not a count from 0 to 10000");
    Run unknown = tool(FlexCommand::new, "application_1_0001", "--workers", "1");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("no application application_1_0001");
  }

  /** Runs a client Tool in-process with its own captured streams. */
  private Run tool(BiFunction<PrintStream, PrintStream, Tool> command, String... args)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = ToolRunner.run(cluster.conf(), command.apply(new PrintStream(out, true),
        new PrintStream(err, true)), args);
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * {@code --archive}: YARN unpacks the zip into a directory of its name for the master and for
   * every worker, which run a script from inside it.
   */
  @Test
  void anArchiveIsUnpackedForTheMasterAndEveryWorker() throws Exception {
    Path record = dir.resolve("record");
    Path zip = dir.resolve("tools.zip");
    try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(
        Files.newOutputStream(zip))) {
      z.putNextEntry(new java.util.zip.ZipEntry("bin/hello.sh"));
      z.write(("echo \"$1 $(cat tools.zip/data.txt)\" >> " + record + "\n")
          .getBytes(StandardCharsets.UTF_8));
      z.closeEntry();
      z.putNextEntry(new java.util.zip.ZipEntry("data.txt"));
      z.write("unpacked".getBytes(StandardCharsets.UTF_8));
      z.closeEntry();
    }
    Run run = submit("--name", "it-archive", "--zk", cluster.zkConnect(), "--session-timeout",
        "6s", "--stop-timeout", "1s", "--am-memory", "256", "--workers", "1", "--worker-memory",
        "128", "--archive", zip.toString(), "--worker-command",
        "sh tools.zip/bin/hello.sh worker; exec sleep 600", "--", "sh", "-c",
        "sh tools.zip/bin/hello.sh master; exec sleep 600");
    assertThat(run.exit()).as(run.err()).isZero();
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(record)
        && Files.readAllLines(record).size() == 2);
    assertThat(Files.readAllLines(record)).containsExactlyInAnyOrder("master unpacked",
        "worker unpacked");
    assertThat(tool(KillCommand::new, id.toString()).exit()).isZero();
  }

  /**
   * {@code --node-label} puts the AM and every worker on the labelled node; {@code --am-node-label}
   * alone only the AM. The label is exclusive, so no container gets there, or elsewhere, by chance.
   */
  @Test
  void nodeLabelsPlaceTheAmAndTheWorkers() throws Exception {
    NodeId labelled = cluster.labelNode(1);
    List<ApplicationId> ids = new ArrayList<>();
    try {
      ApplicationAttemptId all = submitLabelled("it-labels", "--node-label", ids);
      List<NodeId> nodes = await().atMost(Duration.ofSeconds(60))
          .until(() -> runningNodes(all), n -> n.size() == 3);
      assertThat(nodes).as("the AM and both workers").containsOnly(labelled);
      assertThat(tool(KillCommand::new, all.getApplicationId().toString()).exit()).isZero();

      ApplicationAttemptId amOnly = submitLabelled("it-am-label", "--am-node-label", ids);
      List<NodeId> amFirst = await().atMost(Duration.ofSeconds(60))
          .until(() -> runningNodes(amOnly), n -> n.size() == 3);
      assertThat(amFirst.get(0)).as("the AM").isEqualTo(labelled);
      assertThat(amFirst.subList(1, 3)).as("the workers").doesNotContain(labelled);
      assertThat(tool(KillCommand::new, amOnly.getApplicationId().toString()).exit()).isZero();

      // A label the cluster has but the queue may not use would fail every worker request.
      cluster.addClusterLabel("gpu");
      int before = cluster.yarn().getApplications().size();
      assertRejected(64, "--node-label: queue 'default' may not use node label 'gpu' (it may use "
          + YarnZkCluster.LABEL + ")", "--name", "l", "--zk", cluster.zkConnect(),
          "--am-node-label", YarnZkCluster.LABEL, "--node-label", "gpu", "--", "true");
      assertThat(cluster.yarn().getApplications()).hasSize(before);
    } finally {
      for (ApplicationId id : ids) {
        cluster.yarn().killApplication(id);
      }
      cluster.removeLabels();
    }
  }

  private ApplicationAttemptId submitLabelled(String name, String flag, List<ApplicationId> ids)
      throws Exception {
    Run run = submit("--name", name, "--zk", cluster.zkConnect(), "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256", "--workers", "2", "--worker-memory", "128",
        flag, YarnZkCluster.LABEL, "--worker-command", "exec sleep 600", "--", "sleep", "600");
    assertThat(run.exit()).as(run.err()).isZero();
    ApplicationId id = ApplicationId.fromString(run.out().trim());
    ids.add(id);
    return ApplicationAttemptId.newInstance(id, 1);
  }

  /** The nodes of {@code attempt}'s RUNNING containers in container order, its AM's first. */
  private static List<NodeId> runningNodes(ApplicationAttemptId attempt) throws Exception {
    return cluster.yarn().getContainers(attempt).stream()
        .filter(c -> c.getContainerState() == ContainerState.RUNNING)
        .sorted(java.util.Comparator.comparing(c -> c.getContainerId()))
        .map(c -> c.getAssignedNode()).toList();
  }

  @Test
  void badInputSubmitsNothing() throws Exception {
    int before = cluster.yarn().getApplications().size();
    String zkOk = cluster.zkConnect();
    assertRejected(64, "--queue", "--name", "q", "--zk", zkOk, "--queue", "nope", "--", "true");
    assertRejected(64, "--am-memory", "--name", "m", "--zk", zkOk, "--am-memory", "999999", "--",
        "true");
    assertRejected(64, "--grace", "--name", "g", "--zk", zkOk, "--grace", "40s", "--", "true");
    assertRejected(64, "--metrics-port", "--name", "p", "--zk", zkOk, "--metrics-port", "65536",
        "--", "true");
    assertRejected(64, "amlease.am.master-command", "--name", "c", "--zk", zkOk);
    assertRejected(69, "not reachable", "-Damlease.zk.connection-timeout=1s", "--name", "z",
        "--zk", "127.0.0.1:1", "--", "true");
    Path notAnArchive = Files.writeString(dir.resolve("notes.txt"), "x");
    assertRejected(64, "--archive: amlease.am.archives: 'notes.txt' is not an archive YARN unpacks",
        "--name", "a", "--zk", zkOk, "--archive", notAnArchive.toString(), "--", "true");
    assertRejected(64, "--node-label: amlease.am.node-label: 'a&&b' is not a node label", "--name",
        "l", "--zk", zkOk, "--node-label", "a&&b", "--", "true");
    assertRejected(64, "--am-node-label: no node label 'gpu' in this cluster", "--name", "l",
        "--zk", zkOk, "--am-node-label", "gpu", "--", "true");
    // A SASL lease needs the AM's keytab; a principal needs its keytab, and that must be readable.
    assertRejected(64, "amlease.zk.sasl-principal needs amlease.am.principal and amlease.am.keytab",
        "-Damlease.zk.sasl-principal=amlease", "--name", "s", "--zk", zkOk, "--", "true");
    assertRejected(64, "--keytab: amlease.am.keytab is required with amlease.am.principal",
        "--name", "k", "--zk", zkOk, "--principal", "amlease@EXAMPLE.COM", "--", "true");
    assertRejected(64, "--keytab: " + dir.resolve("none.keytab") + " is not a readable file",
        "-Damlease.zk.sasl-principal=amlease", "--name", "k", "--zk", zkOk, "--principal", "amlease@EXAMPLE.COM", "--keytab",
        dir.resolve("none.keytab").toString(), "--", "true");
    assertThat(cluster.yarn().getApplications()).hasSize(before);
    assertThat(cluster.zk().checkExists().forPath("/amlease/q")).isNull();
  }

  private void assertRejected(int exit, String mention, String... args) throws Exception {
    Run run = submit(args);
    assertThat(run.exit()).as(run.err()).isEqualTo(exit);
    assertThat(run.err()).contains(mention);
    assertThat(run.out()).isEmpty();
  }
}
