package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 on a secure cluster: Kerberos for HDFS and YARN (a MiniKdc), HDFS as the staging
 * filesystem, the application submitted by a user logged in from a keytab. Delegation tokens are
 * the only way a container reaches HDFS there. Runs in failsafe's "secure" execution.
 */
@EnabledIfSystemProperty(named = "amlease.test.secure", matches = "true",
    disabledReason = "runs in failsafe's secure execution, a JVM of its own (UGI is JVM-wide)")
class SecureYarnIT {
  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-secure-yarn-it", start());

  @TempDir
  Path dir;

  private static SecureHadoop secure;

  private static SecureHadoop start() {
    if (!Boolean.getBoolean("amlease.test.secure")) {
      return null;
    }
    try {
      secure = SecureHadoop.start();
      return secure;
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Item 3: a worker gets the tokens it needs, in its launch context: it localizes its shipped
   * file (staged on HDFS) and reads HDFS itself (before, workers got no tokens, and could do
   * neither: "Client cannot authenticate via:[TOKEN, KERBEROS]").
   */
  @Test
  void theMasterAndAWorkerLocalizeTheShippedFileAndReadHdfs() throws Exception {
    Path data = dir.resolve("data.txt");
    Files.writeString(data, "shipped through HDFS\n");
    Path masterSaw = dir.resolve("master-saw");
    Path workerSaw = dir.resolve("worker-saw");
    String lease = "/amlease/it-secure";
    String readHdfs = readHdfs("input-1.txt");
    ApplicationId id = secure.asUser(() -> cluster.submit("--name", "it-secure",
        "--zk", cluster.zkConnect(), "--lease", lease, "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256",
        "--am-java-opts", "-Djava.security.krb5.conf=" + secure.krb5Conf(),
        "--env", "AMLEASE_TEST_CP=" + System.getProperty("java.class.path"),
        "--file", data.toString(), "--workers", "1", "--worker-memory", "256",
        "--worker-command", "{ cat data.txt && " + readHdfs + "; } > " + workerSaw + ".tmp && mv "
            + workerSaw + ".tmp " + workerSaw + "; exec sleep 600",
        "--", "sh", "-c", "cat data.txt > " + masterSaw + ".tmp && mv " + masterSaw + ".tmp "
            + masterSaw + "; exec sleep 600"));
    assertThat(cluster.lastSubmitErr()).contains("warning: no --principal/--keytab on this secure "
        + "cluster");
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      assertThat(cluster.yarn().getApplicationReport(id).getUser()).isEqualTo(SecureHadoop.USER);
      LeaderInfo leader = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), java.util.Objects::nonNull);
      assertThat(leader.epoch()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(masterSaw)
          && Files.exists(workerSaw));
      assertThat(Files.readString(masterSaw)).isEqualTo("shipped through HDFS\n");
      assertThat(Files.readString(workerSaw)).startsWith("shipped through HDFS\n")
          .endsWith("read from HDFS\n"); // Between them, the shell's log.
    } finally {
      cluster.yarn().killApplication(id);
    }
  }

  /**
   * Items 2 and the "Done when" of issue 14, with {@code --principal/--keytab}. Past the
   * submission tokens' maximum lifetime: a worker that attempt 1 starts still reads HDFS (the AM
   * obtained fresh tokens on schedule; with the submission's alone the worker cannot even
   * localize: "Token has expired"); then the AM fails over, and the next attempt starts (YARN
   * localizes it with the tokens the RM obtained anew), obtains its own fresh tokens from the
   * keytab, acquires epoch 2 and adopts both workers; a worker it starts reads HDFS too. Each
   * worker reads a file on HDFS with Hadoop's own shell, from the tokens YARN gives its container.
   */
  @Test
  void pastTheTokensMaximumLifetimeWorkersReadHdfsAndTheNextAttemptTakesOver() throws Exception {
    String readHdfs = readHdfs("input-2.txt");
    Path workers = Files.createDirectories(dir.resolve("workers"));
    Path masters = dir.resolve("masters");
    String lease = "/amlease/it-failover";
    String principal = secure.userPrincipal();
    long submittedAt = System.nanoTime();
    ApplicationId id = secure.asUser(() -> cluster.submit(
        "-Damlease.zk.sasl-principal=" + principal, "--name", "it-failover",
        "--zk", cluster.zkConnect(), "--lease", lease, "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256",
        "--principal", principal, "--keytab", secure.userKeytab().toString(),
        // What /etc/krb5.conf and the ZooKeeper servers' principal would say on a real node.
        "--am-java-opts", "-Djava.security.krb5.conf=" + secure.krb5Conf()
            + " -Dzookeeper.server.principal=" + System.getProperty("zookeeper.server.principal"),
        "--env", "AMLEASE_TEST_CP=" + System.getProperty("java.class.path"),
        "--workers", "1", "--worker-memory", "256",
        "--worker-command", "ls -a > " + workers + "-dir-$CONTAINER_ID; " + readHdfs + " > "
            + workers + "/$CONTAINER_ID.tmp && mv " + workers + "/$CONTAINER_ID.tmp " + workers
            + "/$CONTAINER_ID; exec sleep 600",
        // The master publishes its endpoint as the README says: the publish JVM logs in to
        // ZooKeeper from the JAAS file the AM wrote for its keytab.
        "--", "sh", "-c", "echo $PPID $AMLEASE_EPOCH >> " + masters + "; $AMLEASE_PUBLISH"
            + " rpc=localhost:700$AMLEASE_EPOCH > " + dir + "/publish-$AMLEASE_EPOCH 2>&1;"
            + " exec sleep 600"));
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> seen(workers).size() == 1
          && Files.exists(masters));
      LeaderInfo first1 = await().atMost(Duration.ofSeconds(30)).until(
          () -> reader.current().orElse(null), l -> l != null && l.urls().containsKey("rpc"));
      assertThat(first1.epoch()).isEqualTo(1);
      assertThat(first1.urls()).containsEntry("rpc", "localhost:7001");

      // A Kerberos ZooKeeper (issue 14 item 4): the AM holds the lease as its principal. Everyone
      // may read the lease (this reader is anonymous); only that principal may write it.
      List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", principal)),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      for (String node : List.of(lease, lease + "/epoch", lease + "/latch", lease + "/leader")) {
        assertThat(cluster.zk().getACL().forPath(node)).as(node)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
      assertThatThrownBy(() -> cluster.zk().setData().forPath(lease + "/epoch", "9".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> cluster.zk().delete().forPath(lease + "/leader"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      // The keytab went to the AM's container only.
      try (var dirs = Files.list(dir)) {
        assertThat(dirs.filter(f -> f.getFileName().toString().startsWith("workers-dir-"))
            .toList()).singleElement().satisfies(f -> assertThat(Files.readAllLines(f))
                .contains("..").doesNotContain("amlease.keytab"));
      }
      // flex logs in as the lease's principal (from the application's settings) with the JAAS
      // login context given; without one (no Client section here) it is refused, exit 77.
      assertThat(secure.asUser(() -> org.apache.hadoop.util.ToolRunner.run(cluster.conf(),
          new io.amlease.am.client.FlexCommand(System.out, System.err),
          new String[] {id.toString(), "--workers", "2"}))).isEqualTo(77);
      // Let the submission's tokens reach their maximum lifetime (a wait for time to pass, not
      // an assertion).
      Duration past = SecureHadoop.TOKEN_MAX_LIFETIME.plusSeconds(5)
          .minusNanos(System.nanoTime() - submittedAt);
      if (!past.isNegative()) {
        Thread.sleep(past.toMillis());
      }
      flex(id, 2);
      // A worker whose localization fails makes the NodeManager's localizer thread throw: not
      // this test's outcome, which is whether the new worker wrote what it read.
      await().atMost(Duration.ofSeconds(60)).dontCatchUncaughtExceptions()
          .until(() -> seen(workers).size() == 2);
      assertThat(cluster.containerLog(org.apache.hadoop.yarn.api.records.ContainerId
          .newContainerId(org.apache.hadoop.yarn.api.records.ApplicationAttemptId
              .newInstance(id, 1), 1), "AppMaster.stderr"))
          .contains("obtained 1 delegation token");

      // The RM knows both workers run, so the next attempt gets them.
      org.apache.hadoop.yarn.api.records.ApplicationAttemptId first =
          org.apache.hadoop.yarn.api.records.ApplicationAttemptId.newInstance(id, 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> cluster.rmRunning(first) == 3);
      long am = Long.parseLong(Files.readAllLines(masters).get(0).split(" ")[0]);
      ProcessHandle.of(am).orElseThrow().destroyForcibly();

      LeaderInfo second = await().atMost(Duration.ofSeconds(90)).dontCatchUncaughtExceptions()
          .until(() -> reader.current().orElse(null), l -> l != null && l.epoch() == 2);
      assertThat(second.attemptId()).endsWith("_000002");
      await().atMost(Duration.ofSeconds(30)).until(() -> reader.current().orElseThrow().urls()
          .containsKey("rpc"));
      assertThat(reader.current().orElseThrow().urls()).containsEntry("rpc", "localhost:7002");
      String page = second.urls().get("tracking");
      await().atMost(Duration.ofSeconds(20)).until(() -> Http.status(page).at("/workers/adopted")
          .asInt() == 2);
      flex(id, 3);
      await().atMost(Duration.ofSeconds(60)).dontCatchUncaughtExceptions()
          .until(() -> seen(workers).size() == 3);
      assertThat(seen(workers)).allSatisfy(w -> assertThat(w).endsWith("read from HDFS"));
    } finally {
      cluster.yarn().killApplication(id);
    }
  }

  /**
   * A shell command that prints a file this writes on HDFS now ("read from HDFS"), with Hadoop's
   * own shell and the tokens YARN gives the container. Needs $AMLEASE_TEST_CP (--env) for the
   * class path; no double quotes (the NodeManager's launch script puts the command inside bash -c
   * "…").
   */
  private String readHdfs(String name) throws Exception {
    org.apache.hadoop.fs.Path input = new org.apache.hadoop.fs.Path(
        "/user/" + SecureHadoop.USER + "/" + name);
    secure.asUser(() -> {
      try (var o = org.apache.hadoop.fs.FileSystem.get(cluster.conf()).create(input)) {
        o.write("read from HDFS\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      return null;
    });
    // Hadoop's shell wants a core-site.xml: the cluster's client configuration, as on a node.
    Path clientConf = Files.createDirectories(dir.resolve("client-conf"));
    try (var o = Files.newOutputStream(clientConf.resolve("core-site.xml"))) {
      cluster.conf().writeXml(o);
    }
    return "$JAVA_HOME/bin/java -Djava.security.krb5.conf=" + secure.krb5Conf()
        + " -cp " + clientConf + ":$AMLEASE_TEST_CP org.apache.hadoop.fs.FsShell -cat " + input;
  }

  private static void flex(ApplicationId id, int workers) throws Exception {
    int exit = secure.asUser(() -> org.apache.hadoop.util.ToolRunner.run(cluster.conf(),
        new io.amlease.am.client.FlexCommand(System.out, System.err),
        new String[] {id.toString(), "--workers", Integer.toString(workers),
            "--sasl-login-context", SecureHadoop.USER_LOGIN_CONTEXT}));
    assertThat(exit).isZero();
  }

  /** What each worker read, one entry per worker that has written its file. */
  private static java.util.List<String> seen(Path workers) throws java.io.IOException {
    try (var files = Files.list(workers)) {
      return files.filter(f -> !f.toString().endsWith(".tmp")).map(f -> {
        try {
          return Files.readString(f).trim();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).toList();
    }
  }
}
