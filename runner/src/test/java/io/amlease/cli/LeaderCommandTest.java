package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.lease.zk.ZkServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** {@code amlease leader}: one-shot reads in-process, {@code --watch} as a real process. */
class LeaderCommandTest {
  private static final Duration SOON = Duration.ofSeconds(15);

  private static TestingServer server;
  private static Znodes zk;

  @TempDir Path dir;
  private String lease;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    server = ZkServers.standalone();
    zk = new Znodes(server.getConnectString());
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    if (zk != null) {
      zk.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void leasePerTest(TestInfo info) {
    lease = "/cli-leader/" + info.getTestMethod().orElseThrow().getName();
  }

  @Test
  void noLeaderExits3() {
    InProcess.Result r = leader();
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.NO_LEADER);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains(lease);
  }

  @Test
  void printsTheHolderAsALineAndAsJson() throws Exception {
    try (LeaseHolder holder = LeaseHolder.start(server.getConnectString(), lease, "holder-x")) {
      holder.awaitGrant(SOON);

      InProcess.Result line = leader();
      assertThat(line.exitCode()).as(line.err()).isZero();
      assertThat(line.out().lines().toList()).singleElement().asString()
          .startsWith("epoch=1 holder=holder-x");

      InProcess.Result json = leader("--json");
      assertThat(json.exitCode()).as(json.err()).isZero();
      JsonNode node = new ObjectMapper().readTree(json.out());
      assertThat(node.get("epoch").isIntegralNumber()).isTrue();
      assertThat(node.get("epoch").asLong()).isEqualTo(1);
      assertThat(node.get("holder").asText()).isEqualTo("holder-x");
    }
  }

  @Test
  void malformedLeaderInfoExits65() throws Exception {
    zk.create(lease + "/leader", "garbage{");
    InProcess.Result r = leader();
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.DATA_ERROR);
    assertThat(r.err()).contains(lease + "/leader").contains("garbage{");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void unreachableZooKeeperExits69() throws IOException {
    String address;
    try (ServerSocket s = new ServerSocket(0)) {
      address = "127.0.0.1:" + s.getLocalPort();
    }
    InProcess.Result r = InProcess.run("leader", "--zk", address, "--lease", lease,
        "--connect-timeout", "1s");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(r.err()).contains("not reachable");
  }

  @Test
  void unexpectedArgumentIsAUsageError() {
    InProcess.Result r = InProcess.run("leader", "--zk", "127.0.0.1:1", "--lease", lease, "extra");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).contains("extra");
  }

  @Test
  void helpListsEveryFlagAndTheExitCodes() {
    InProcess.Result r = InProcess.run("leader", "--help");
    assertThat(r.exitCode()).isZero();
    for (String flag : List.of("--zk", "--lease", "--connect-timeout", "--json", "--watch", "--help")) {
      assertThat(r.out()).as("help lists %s", flag).containsPattern("(^|[\\s,])" + flag + "\\b");
    }
    for (int code : new int[] {0, 3, 64, 65, 69}) {
      assertThat(r.out()).as("help lists exit status %d", code).containsPattern("(?m)^\\s*" + code + "\\s");
    }
  }

  @Test
  void watchPrintsEveryChangeAndExits0OnSigterm() throws Exception {
    try (HoldProcess watch = HoldProcess.start(dir, "watch", "leader", "--zk",
        server.getConnectString(), "--lease", lease, "--watch")) {
      awaitLines(watch, 1);
      assertThat(watch.stdoutLines()).containsExactly("none");

      try (LeaseHolder a = LeaseHolder.start(server.getConnectString(), lease, "holder-a")) {
        assertThat(a.awaitGrant(SOON).epoch().value()).isEqualTo(1);
        awaitLines(watch, 2);
        assertThat(watch.stdoutLines().get(1)).startsWith("epoch=1 holder=holder-a");
      }
      awaitLines(watch, 3);
      assertThat(watch.stdoutLines().get(2)).isEqualTo("none");

      try (LeaseHolder b = LeaseHolder.start(server.getConnectString(), lease, "holder-b")) {
        assertThat(b.awaitGrant(SOON).epoch().value()).isEqualTo(2);
        awaitLines(watch, 4);
        assertThat(watch.stdoutLines().get(3)).startsWith("epoch=2 holder=holder-b");

        watch.signal("TERM");
        assertThat(watch.awaitExit(SOON)).as(watch::describe).isZero();
      }
      // One line per change, no repeats.
      assertThat(watch.stdoutLines()).hasSize(4);
    }
  }

  private static void awaitLines(HoldProcess watch, int n) {
    await().atMost(SOON).pollInterval(Duration.ofMillis(20)).failFast(() -> !watch.isAlive())
        .until(() -> watch.stdoutLines().size() >= n);
  }

  private InProcess.Result leader(String... extra) {
    List<String> args = new java.util.ArrayList<>(List.of("leader", "--zk", server.getConnectString(),
        "--lease", lease, "--connect-timeout", "5s"));
    args.addAll(List.of(extra));
    return InProcess.run(args.toArray(String[]::new));
  }
}
