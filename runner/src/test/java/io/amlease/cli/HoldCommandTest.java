package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkServers;
import io.amlease.testkit.FaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code amlease hold} end to end (G4): real ZooKeeper, real {@code hold} JVMs, real child processes.
 * Flag errors and help run in-process; everything that holds a lease runs as its own process, because
 * signals and exit statuses are what is under test.
 */
class HoldCommandTest {
  private static final Duration EXIT = Duration.ofSeconds(20);
  private static final Duration SOON = Duration.ofSeconds(15);
  private static final Duration POLL = Duration.ofMillis(20);

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
    lease = "/cli-hold/" + info.getTestMethod().orElseThrow().getName();
  }

  // ---- the child's own exit -------------------------------------------------------------------

  @Test
  void childExitingZeroReleasesTheLeaseAndSawTheEpochInItsEnvironment() throws Exception {
    Path env = dir.resolve("env");
    try (HoldProcess hold = hold(server.getConnectString(), "--id", "holder-a", "--",
        "sh", "-c", "env | grep AMLEASE_ > " + q(env))) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isZero();
    }
    assertThat(Files.readAllLines(env)).contains("AMLEASE_EPOCH=1", "AMLEASE_EPOCH_TOKEN=1",
        "AMLEASE_LEASE=" + lease, "AMLEASE_HOLDER=holder-a",
        "AMLEASE_ZK=" + server.getConnectString());
    // The incarnation the token is bound to: the epoch node's one child.
    assertThat(Files.readAllLines(env)).contains("AMLEASE_EPOCH_INCARNATION="
        + zk.children(lease + "/epoch").get(0));
    assertReleased();
    // G4: shared state stays; the next holder continues from epoch 1.
    assertThat(zk.data(lease + "/epoch")).isEqualTo("1");
  }

  @Test
  void childExitStatusBecomesHoldsExitStatus() throws Exception {
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "exit 7")) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(7);
    }
    assertReleased();
  }

  // ---- revocation (G2, G4) --------------------------------------------------------------------

  @Test
  void revocationStopsTheChildBeforeAContenderCanActAndExits75() throws Exception {
    Path pidFile = dir.resolve("pid");
    try (FaultProxy proxy = FaultProxy.start(serverAddress());
         HoldProcess hold = hold(proxy.connectString(), "--session-timeout", "4s",
             "--stop-timeout", "1s", "--",
             "sh", "-c", "echo $$ > " + q(pidFile) + "; while :; do sleep 0.1; done")) {
      ProcessHandle child = awaitChild(hold, pidFile);
      assertThat(zk.exists(lease + "/leader")).isTrue();
      try (LeaseHolder contender = LeaseHolder.start(server.getConnectString(), lease, "contender")) {
        await().atMost(SOON).until(() -> zk.children(lease + "/latch").size() == 2);

        proxy.silent();
        // Watch the child closely: the point is *when* it stopped relative to the contender.
        await().atMost(SOON).pollInterval(Duration.ofMillis(10)).until(() -> !child.isAlive());
        long childGone = System.nanoTime();

        assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.LEASE_LOST);
        // The watchdog (lastAck + grace), not a session event, ended the term.
        assertThat(hold.stderr()).contains("GRACE_EXPIRED");
        LeaseHolder.Grant next = contender.awaitGrant(SOON);
        assertThat(next.epoch().value()).isEqualTo(2);
        // G2: the old child was gone before anyone else could hold the lease.
        assertThat(childGone).isLessThan(next.atNanos());
      }
    }
  }

  @Test
  void childIgnoringSigtermIsKilledAfterStopTimeout() throws Exception {
    Path pidFile = dir.resolve("pid");
    Path term = dir.resolve("term");
    try (FaultProxy proxy = FaultProxy.start(serverAddress());
         // G2 needs grace + stop-timeout + renew-interval (0.675 s: a quarter of 4.7 s − 2 s)
         // <= T·0.95 − 1s = 4.7s.
         HoldProcess hold = hold(proxy.connectString(), "--session-timeout", "6s",
             "--grace", "1.7s", "--stop-timeout", "2s", "--",
             "sh", "-c", "echo $$ > " + q(pidFile) + "; trap 'echo term >> " + dq(term)
                 + "' TERM; while :; do sleep 0.1; done")) {
      ProcessHandle child = awaitChild(hold, pidFile);
      proxy.silent();

      await().atMost(SOON).pollInterval(POLL).until(() -> Files.exists(term)
          && Files.readString(term).contains("term"));
      long termSeen = System.nanoTime();
      // Alive through most of the 2 s stop-timeout (the term line lags SIGTERM by ≤ one sleep 0.1) ...
      await().during(Duration.ofMillis(1500)).atMost(Duration.ofMillis(1900)).pollInterval(POLL)
          .until(child::isAlive);
      // ... then SIGKILLed, well before the 5 s default would have.
      await().atMost(Duration.ofMillis(2500)).pollInterval(POLL).until(() -> !child.isAlive());
      assertThat(Duration.ofNanos(System.nanoTime() - termSeen)).isGreaterThan(Duration.ofMillis(1500));
      // The link is still silent: closing the session must not hold up the exit for long.
      assertThat(hold.awaitExit(Duration.ofSeconds(4))).as(hold::describe)
          .isEqualTo(ExitCodes.LEASE_LOST);
      assertThat(Files.readAllLines(term)).as("one SIGTERM, then SIGKILL").containsExactly("term");
    }
  }

  // ---- signals to hold ------------------------------------------------------------------------

  @Test
  void sigtermIsForwardedToTheChildAndHoldExitsWithItsStatus() throws Exception {
    Path pidFile = dir.resolve("pid");
    Path got = dir.resolve("got");
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c",
        "echo $$ > " + q(pidFile) + "; trap 'echo got-term >> " + dq(got) + "; exit 42' TERM; "
            + "while :; do sleep 0.1; done")) {
      ProcessHandle child = awaitChild(hold, pidFile);
      assertThat(zk.exists(lease + "/leader")).isTrue();

      hold.signal("TERM");

      // 42 is the child's own status: neither hold's 128+15 nor a SIGKILL's 137.
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(42);
      assertThat(child.isAlive()).isFalse();
    }
    assertThat(Files.readAllLines(got)).containsExactly("got-term");
    assertReleased();
  }

  @Test
  void sigtermToAChildThatDiesOfItIsReportedAs143() throws Exception {
    Path pidFile = dir.resolve("pid");
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c",
        "echo $$ > " + q(pidFile) + "; exec sleep 600")) {
      ProcessHandle child = awaitChild(hold, pidFile);
      hold.signal("TERM");
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(128 + 15);
      assertThat(child.isAlive()).isFalse();
    }
    assertReleased();
  }

  @Test
  void sigtermWhileWaitingForTheLeaseExits143WithoutRunningCommand() throws Exception {
    Path ran = dir.resolve("ran");
    try (LeaseHolder other = LeaseHolder.start(server.getConnectString(), lease, "other")) {
      other.awaitGrant(SOON);
      try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "touch " + q(ran))) {
        // Two participants: hold is campaigning, so it has routed its signals.
        await().atMost(SOON).until(() -> zk.children(lease + "/latch").size() == 2);
        hold.signal("TERM");
        assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(128 + 15);
      }
      assertThat(ran).doesNotExist();
      assertThat(other.revocations).isEmpty();
      assertThat(zk.data(lease + "/leader")).contains("\"holder\":\"other\"");
      await().atMost(SOON).until(() -> zk.children(lease + "/latch").size() == 1);
    }
  }

  // ---- errors ---------------------------------------------------------------------------------

  @Test
  void unknownFlagIsAUsageError() throws Exception {
    // Pointed at a closed port: were the flag accepted, this would end in 69, not run anything.
    usageError("--no-such-flag", "hold", "--zk", closedPort(), "--connect-timeout", "1s",
        "--lease", "/x", "--no-such-flag", "--", "true");
  }

  @Test
  void missingZkIsAUsageError() {
    usageError("--zk", "hold", "--lease", "/x", "--", "true");
  }

  @Test
  void graceAboveTheG2BoundIsAUsageErrorWithTheNumbers() {
    // Default T = 30 s: bound = 30 s × 0.95 − 1 s = 27.5 s.
    InProcess.Result r = usageError("--grace", "hold", "--zk", "127.0.0.1:1", "--lease", "/x",
        "--grace", "40s", "--", "true");
    assertThat(r.err()).contains("40s").contains("27.5s");
  }

  @Test
  void stopTimeoutThatDoesNotFitBesideTheGraceIsAUsageError() {
    // T = 6 s: bound 4.7 s; grace 3 s + stop-timeout 2 s would let the child outlive the session.
    InProcess.Result r = usageError("--grace", "hold", "--zk", "127.0.0.1:1", "--lease", "/x",
        "--session-timeout", "6s", "--grace", "3s", "--stop-timeout", "2s", "--", "true");
    assertThat(r.err()).contains("3s").contains("2s").contains("4.7s");
    // With the default 5 s stop-timeout, T = 4 s (bound 2.8 s) leaves no room at all.
    usageError("--stop-timeout", "hold", "--zk", "127.0.0.1:1", "--lease", "/x",
        "--session-timeout", "4s", "--", "true");
  }

  @Test
  void renewIntervalNotBelowGraceIsAUsageError() {
    InProcess.Result r = usageError("--renew-interval", "hold", "--zk", "127.0.0.1:1",
        "--lease", "/x", "--renew-interval", "30s", "--grace", "10s", "--", "true");
    assertThat(r.err()).contains("30s").contains("10s");
  }

  @Test
  void durationWithoutUnitIsAUsageError() {
    InProcess.Result r = usageError("--session-timeout", "hold", "--zk", "127.0.0.1:1",
        "--lease", "/x", "--session-timeout", "10", "--", "true");
    assertThat(r.err()).contains("'10'");
  }

  @Test
  void missingCommandIsAUsageError() {
    usageError("COMMAND", "hold", "--zk", "127.0.0.1:1", "--lease", "/x");
  }

  @Test
  void unreachableZooKeeperExits69() throws Exception {
    Path ran = dir.resolve("ran");
    String address = closedPort();
    InProcess.Result r = InProcess.run("hold", "--zk", address, "--lease", "/x",
        "--connect-timeout", "1s", "--", "sh", "-c", "touch " + q(ran));
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(r.err()).contains(address).contains("not reachable");
    assertThat(ran).doesNotExist();
  }

  @Test
  void commandThatCannotStartExits127AndReleases() throws Exception {
    String missing = dir.resolve("no-such-command").toString();
    try (HoldProcess hold = hold(server.getConnectString(), "--", missing, "arg")) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.CANNOT_EXECUTE);
      assertThat(hold.stderr()).contains(missing);
    }
    assertThat(zk.data(lease + "/epoch")).as("it did acquire").isEqualTo("1");
    assertReleased();
  }

  @Test
  void malformedEpochExits65NamingTheNode() throws Exception {
    Path ran = dir.resolve("ran");
    zk.create(lease + "/epoch", "abc");
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "touch " + q(ran))) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.DATA_ERROR);
      assertThat(hold.stderr()).contains(lease + "/epoch").contains("abc");
    }
    assertThat(ran).doesNotExist();
    assertThat(zk.exists(lease + "/leader")).isFalse();
    assertThat(zk.data(lease + "/epoch")).as("left for an operator to repair").isEqualTo("abc");
  }

  /**
   * Item 9 of issue 24: a lease path that is another session's ephemeral node can have no
   * children. Before the fix hold waited forever ("still waiting for ... participants: []") and
   * logged a stack trace.
   */
  @Test
  void aLeasePathThatIsAnEphemeralNodeExits65AtOnceNamingTheRepair() throws Exception {
    Path ran = dir.resolve("ran");
    zk.createEphemeral(lease);
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "touch " + q(ran))) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.DATA_ERROR);
      assertThat(hold.stderr()).contains(lease + " is an ephemeral node", "deleteall " + lease)
          .doesNotContain("Exception", "\tat ");
    }
    assertThat(ran).doesNotExist();
  }

  /**
   * Item 9 of issue 24, foreign children: a persistent node in the latch (an operator's
   * {@code create}, a restore from a backup) is no contender's, and one that sorts before theirs
   * would hold the election forever.
   */
  @Test
  void aPersistentNodeInTheLatchExits65NamingItAndTheRepair() throws Exception {
    try (HoldProcess first = hold(server.getConnectString(), "--", "true")) {
      assertThat(first.awaitExit(EXIT)).as(first::describe).isZero();
    }
    String foreign = lease + "/latch/latch-0";
    zk.create(foreign, "");
    Path ran = dir.resolve("ran");
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "touch " + q(ran))) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.DATA_ERROR);
      assertThat(hold.stderr()).contains(foreign + " is a persistent node", "delete " + foreign)
          .doesNotContain("Exception", "\tat ");
    }
    assertThat(ran).doesNotExist();
    assertThat(zk.exists(foreign)).as("left for an operator to remove").isTrue();
    assertThat(zk.data(lease + "/epoch")).as("no term begun").isEqualTo("1");
  }

  /**
   * Item 9 of issue 24, foreign children: a child under the leader node (a restore, a tool that
   * stores its own data there) would make every acquiring multi fail on the node's delete.
   */
  @Test
  void aLeaderNodeWithChildrenExits65NamingItAndTheRepair() throws Exception {
    try (HoldProcess first = hold(server.getConnectString(), "--", "true")) {
      assertThat(first.awaitExit(EXIT)).as(first::describe).isZero();
    }
    zk.create(lease + "/leader/backup", "");
    Path ran = dir.resolve("ran");
    try (HoldProcess hold = hold(server.getConnectString(), "--", "sh", "-c", "touch " + q(ran))) {
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.DATA_ERROR);
      assertThat(hold.stderr()).contains(lease + "/leader has children (backup)",
          "zkCli.sh deleteall " + lease + "/leader").doesNotContain("Exception", "\tat ");
    }
    assertThat(ran).doesNotExist();
    assertThat(zk.exists(lease + "/leader/backup")).as("left for an operator to remove").isTrue();
    assertThat(zk.data(lease + "/epoch")).as("no term begun").isEqualTo("1");
  }

  // ---- help -----------------------------------------------------------------------------------

  private static final List<String> HOLD_FLAGS = List.of("--zk", "--lease", "--session-timeout",
      "--connect-timeout", "--grace", "--renew-interval", "--id", "--stop-timeout",
      "--acl-credentials", "--help", "-D");

  @Test
  void holdHelpListsEveryFlagAndTheExitCodes() {
    InProcess.Result r = InProcess.run("hold", "--help");
    assertThat(r.exitCode()).isZero();
    assertListsFlagsAndExitCodes(r.out());
  }

  @Test
  void amleaseHelpListsEveryFlagAndTheExitCodes() {
    InProcess.Result r = InProcess.run("--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("hold").contains("leader");
    assertListsFlagsAndExitCodes(r.out());
  }

  @Test
  void noCommandOrAnUnknownOneIsAUsageError() {
    assertThat(InProcess.run().exitCode()).isEqualTo(ExitCodes.USAGE);
    InProcess.Result r = InProcess.run("hlod");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("'hlod'");
  }

  private static void assertListsFlagsAndExitCodes(String help) {
    for (String flag : HOLD_FLAGS) {
      assertThat(help).as("help lists %s", flag).containsPattern("(^|[\\s,])" + flag + "\\b");
    }
    for (int code : new int[] {ExitCodes.USAGE, ExitCodes.UNAVAILABLE, ExitCodes.LEASE_LOST}) {
      assertThat(help).as("help lists exit status %d", code).containsPattern("(?m)^\\s*" + code + "\\s");
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private HoldProcess hold(String connect, String... rest) throws IOException {
    List<String> args = new ArrayList<>(List.of("hold", "--zk", connect, "--lease", lease));
    args.addAll(List.of(rest));
    return HoldProcess.start(dir, "hold", args.toArray(String[]::new));
  }

  /** Runs in-process; asserts 64, nothing on stdout, and exactly one stderr line naming {@code flag}. */
  private static InProcess.Result usageError(String flag, String... args) {
    InProcess.Result r = InProcess.run(args);
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errLines()).as(r.err()).filteredOn(l -> l.contains(flag)).hasSize(1);
    assertThat(r.errLines().get(0)).startsWith("amlease hold: ").contains(flag);
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
    return r;
  }

  /** The child's pid, once the child wrote it; registered to be killed with {@code hold}. */
  private static ProcessHandle awaitChild(HoldProcess hold, Path pidFile) {
    await().atMost(SOON).pollInterval(POLL).failFast(() -> !hold.isAlive())
        .until(() -> Files.exists(pidFile) && Files.readString(pidFile).endsWith("\n"));
    long pid;
    try {
      pid = Long.parseLong(Files.readString(pidFile).trim());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    hold.killOnClose(pid);
    Optional<ProcessHandle> child = ProcessHandle.of(pid);
    assertThat(child).as("child %d", pid).isPresent();
    assertThat(child.get().parent().map(ProcessHandle::pid)).contains(hold.pid());
    return child.get();
  }

  private void assertReleased() throws Exception {
    assertThat(zk.exists(lease + "/leader")).as("leader node after hold exited").isFalse();
    assertThat(zk.children(lease + "/latch")).as("latch nodes after hold exited").isEmpty();
  }

  private static InetSocketAddress serverAddress() {
    return new InetSocketAddress("127.0.0.1", server.getPort());
  }

  private static String closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return "127.0.0.1:" + s.getLocalPort();
    }
  }

  /** Single-quoted for sh. */
  private static String q(Path p) {
    return "'" + p + "'";
  }

  /** Double-quoted for sh, for use inside a single-quoted trap action. */
  private static String dq(Path p) {
    return "\"" + p + "\"";
  }
}
