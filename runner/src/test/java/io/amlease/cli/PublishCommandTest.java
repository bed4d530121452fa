package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.lease.Epoch;
import io.amlease.lease.zk.ZkServers;
import io.amlease.process.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code amlease publish}: COMMAND under a real {@code hold} publishes its endpoints with nothing but
 * its environment; a superseded term's publish is refused by ZooKeeper and writes nothing.
 */
class PublishCommandTest {
  private static final Duration SOON = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** README.md, "amlease publish". */
  private static final String README_LINE =
      "$AMLEASE_PUBLISH rpc=$(hostname -f):7000 http=http://$(hostname -f):8080/";

  private static TestingServer server;

  @TempDir Path dir;
  private String lease;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    server = ZkServers.standalone();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void leasePerTest(TestInfo info) {
    lease = "/cli-publish/" + info.getTestMethod().orElseThrow().getName();
  }

  @Test
  void commandUnderHoldPublishesItsEndpointsFromItsEnvironmentAlone() throws Exception {
    String marker = ProcessTable.marker();
    String host = new String(new ProcessBuilder("hostname", "-f").start().getInputStream()
        .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
    // The README's line, verbatim: $AMLEASE_PUBLISH, unquoted, is the command.
    try (HoldProcess hold = HoldProcess.start(dir, "a", "hold", "--zk",
        server.getConnectString(), "--lease", lease, "--id", "a", "--stop-timeout", "1s", "--",
        "sh", "-c", README_LINE + " > published 2>&1; echo $? > status; exec sleep " + marker)) {
      await().atMost(SOON).failFast(() -> !hold.isAlive())
          .until(() -> Files.exists(dir.resolve("status")));
      assertThat(Files.readString(dir.resolve("status")).trim())
          .as(Files.readString(dir.resolve("published"))).isEqualTo("0");
      assertThat(hold.isAlive()).as(hold::describe).isTrue();

      JsonNode info = leaderJson();
      assertThat(info.path("epoch").asLong()).isEqualTo(1);
      assertThat(info.path("holder").asText()).isEqualTo("a");
      assertThat(info.path("urls").path("rpc").asText()).isEqualTo(host + ":7000");
      assertThat(info.path("urls").path("http").asText()).isEqualTo("http://" + host + ":8080/");
    } finally {
      ProcessTable.sleeping(marker).forEach(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void aSupersededTermPublishesNothingAndExits75() throws Exception {
    Epoch first;
    try (LeaseHolder a = LeaseHolder.start(server.getConnectString(), lease, "a")) {
      first = a.awaitGrant(SOON).epoch();
      assertThat(publish(first, "rpc=a:1").exitCode()).isZero();
    }
    try (LeaseHolder b = LeaseHolder.start(server.getConnectString(), lease, "b")) {
      Epoch second = b.awaitGrant(SOON).epoch();
      assertThat(second.value()).isEqualTo(2);

      InProcess.Result stale = publish(first, "rpc=a:1");
      assertThat(stale.exitCode()).as(stale.err()).isEqualTo(ExitCodes.LEASE_LOST);
      assertThat(stale.err()).contains("epoch 1");
      // Epoch 1's token with epoch 2's number: ZooKeeper's check on <lease>/epoch refuses it.
      InProcess.Result forged = publish(new Epoch(2, first.token(), first.incarnation()),
          "rpc=a:1");
      assertThat(forged.exitCode()).as(forged.err()).isEqualTo(ExitCodes.LEASE_LOST);
      assertThat(forged.err()).contains("superseded");
      assertThat(leaderJson().path("urls").size()).as("b's leader info untouched").isZero();

      InProcess.Result current = publish(second, "rpc=b:2");
      assertThat(current.exitCode()).as(current.err()).isZero();
      assertThat(leaderJson().path("urls").path("rpc").asText()).isEqualTo("b:2");
      assertThat(leaderJson().path("epoch").asLong()).isEqualTo(2);
    }
  }

  /**
   * Item 9 of issue 24, ACLs changed under a running holder: an operator takes write access to
   * the leader node away while a term runs. The publish is refused with 77 naming the node, the
   * term goes on (an ACL is no evidence of another holder), and once the ACL is back the next
   * publish lands.
   */
  @Test
  void anAclTakenAwayUnderARunningTermRefusesThePublishWith77AndTheTermGoesOn() throws Exception {
    try (LeaseHolder a = LeaseHolder.start(server.getConnectString(), lease, "a");
        CuratorFramework admin = CuratorFrameworkFactory.newClient(server.getConnectString(),
            new RetryOneTime(100))) {
      admin.start();
      Epoch term = a.awaitGrant(SOON).epoch();
      String leader = lease + "/leader";
      admin.setACL().withACL(List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN,
          ZooDefs.Ids.ANYONE_ID_UNSAFE)))
          .forPath(leader);

      InProcess.Result denied = publish(term, "rpc=a:1");
      assertThat(denied.exitCode()).as(denied.err()).isEqualTo(ExitCodes.NO_PERMISSION);
      assertThat(denied.err()).contains(leader).doesNotContain("\tat ");
      assertThat(leaderJson().path("urls").size()).as("nothing written").isZero();
      assertThat(a.lease.state().holds(term)).as("the term goes on").isTrue();
      assertThat(a.revocations).isEmpty();

      admin.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(leader);
      InProcess.Result again = publish(term, "rpc=a:1");
      assertThat(again.exitCode()).as(again.err()).isZero();
      assertThat(leaderJson().path("urls").path("rpc").asText()).isEqualTo("a:1");
    }
  }

  @Test
  void badEndpointsAndAMissingEpochAreUsageErrorsThatNameWhatIsWrong() {
    InProcess.Result none = InProcess.run("publish", "--zk", server.getConnectString(), "--lease",
        lease, "--epoch", "1", "--token", "1");
    assertThat(none.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err()).contains("no endpoint");

    InProcess.Result noEquals = InProcess.run("publish", "--zk", server.getConnectString(),
        "--lease", lease, "--epoch", "1", "--token", "1", "rpc");
    assertThat(noEquals.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(noEquals.err()).contains("'rpc' is not NAME=URL");

    InProcess.Result noEpoch = InProcess.run("publish", "--zk", server.getConnectString(),
        "--lease", lease, "--token", "1", "rpc=x:1");
    assertThat(noEpoch.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(noEpoch.err()).contains("--epoch is required with --zk or --lease");

    InProcess.Result blank = InProcess.run("publish", "--zk", server.getConnectString(),
        "--lease", lease, "--epoch", "1", "--token", "1", "rpc= ");
    assertThat(blank.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(blank.err()).contains("'rpc= ' is not NAME=URL");

    InProcess.Result badToken = InProcess.run("publish", "--zk", server.getConnectString(),
        "--lease", lease, "--epoch", "1", "--token", "x", "rpc=x:1");
    assertThat(badToken.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badToken.err()).contains("--token");
  }

  /**
   * Tokens repeat across leases (epoch N has token N on most), so the environment's epoch and token
   * (lease A's) must never be used for another lease named on the command line.
   */
  @Test
  void theEnvironmentsTermIsNotUsedForAnotherLease() throws Exception {
    String other = lease + "-other";
    try (LeaseHolder a = LeaseHolder.start(server.getConnectString(), lease, "a");
         LeaseHolder b = LeaseHolder.start(server.getConnectString(), other, "b")) {
      Epoch ofA = a.awaitGrant(SOON).epoch();
      b.awaitGrant(SOON);
      Map<String, String> env = Map.of("AMLEASE_ZK", server.getConnectString(), "AMLEASE_LEASE",
          lease, "AMLEASE_EPOCH", Long.toString(ofA.value()), "AMLEASE_EPOCH_TOKEN",
          Integer.toString(ofA.token()), "AMLEASE_EPOCH_INCARNATION", ofA.incarnation());
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      int exit = new PublishCommand(new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
          new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8), env::get)
          .run(new String[] {"--lease", other, "rpc=a:1"});
      assertThat(exit).isEqualTo(ExitCodes.USAGE);
      assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
          .contains("--epoch is required with --zk or --lease");
      InProcess.Result r = InProcess.run("leader", "--zk", server.getConnectString(), "--lease",
          other, "--json");
      assertThat(JSON.readTree(r.out()).path("urls").size()).as("b's leader info").isZero();

      int own = new PublishCommand(new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
          new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8), env::get)
          .run(new String[] {"rpc=a:1"});
      assertThat(own).as("with its own lease, the environment is enough").isZero();
    }
  }

  private InProcess.Result publish(Epoch e, String... endpoints) {
    String[] head = {"publish", "--zk", server.getConnectString(), "--lease", lease, "--epoch",
        Long.toString(e.value()), "--token", Integer.toString(e.token()), "--incarnation",
        e.incarnation()};
    String[] args = new String[head.length + endpoints.length];
    System.arraycopy(head, 0, args, 0, head.length);
    System.arraycopy(endpoints, 0, args, head.length, endpoints.length);
    return InProcess.run(args);
  }

  private JsonNode leaderJson() throws Exception {
    InProcess.Result r = InProcess.run("leader", "--zk", server.getConnectString(), "--lease", lease,
        "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }
}
