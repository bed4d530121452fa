package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.amlease.it.FieldRecords.longestGap;
import static io.amlease.it.FieldRecords.masterScript;
import static io.amlease.it.FieldRecords.median;
import static io.amlease.it.FieldRecords.stamps;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.amlease.it.FieldRecords.Term;
import io.amlease.lease.LeaderInfo;
import io.amlease.testkit.field.FieldCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The seed's failure for real (issue 25): the AM's node drops off the network. The RM really
 * expires its NodeManager and starts attempt 2 on another node, while attempt 1 goes on running
 * inside the partition, cut off from the RM and ZooKeeper alike. Outcomes come from the masters'
 * own records, stamped on the one clock every node shares.
 */
class FieldFailoverIT {
    private static final Duration T = Duration.ofSeconds(6);
    private static final Duration NODE_EXPIRY = Duration.ofSeconds(10);
    /** A ZooKeeper cut G1 must absorb at T: below grace − renewInterval, with a margin. */
    private static final Duration SHORT_CUT = Duration.ofSeconds(1);
    /** How long the ResourceManager stays down after its kill -9. */
    private static final Duration RM_DOWN = Duration.ofSeconds(5);
    private static FieldApps apps;
    private static FieldCluster cluster;
    private static CuratorFramework zk;
    private static YarnClient yarn;

    @BeforeAll
    static void start() throws Exception {
        apps = FieldApps.start(FieldApps.options(3, NODE_EXPIRY, Map.of()), "amlease-field-records-");
        cluster = apps.cluster;
        zk = apps.zk;
        yarn = apps.yarn;
    }

    @AfterAll
    static void stop() throws Exception {
        if (apps != null) {
            apps.close();
        }
    }

    @AfterEach
    void heal() throws Exception {
        cluster.heal();
    }

    private static ApplicationId submit(String... args) throws Exception {
        return apps.submit(args);
    }

    private static Path appDir(String name) throws Exception {
        return apps.appDir(name);
    }

    /**
     * Submits an application whose master records its term (pids and user) in {@code term-<epoch>}
     * and a millisecond stamp every 100 ms in {@code record-<epoch>}, and whose workers record the
     * node they started on.
     */
    private static ApplicationId submitRecordingApp(String name, Path dir, int workers) throws Exception {
        return submitRecordingApp(name, dir, workers, T);
    }

    private static ApplicationId submitRecordingApp(String name, Path dir, int workers, Duration t)
            throws Exception {
        return submitRecordingApp(name, dir, workers, t, cluster.zkConnectString());
    }

    private static ApplicationId submitRecordingApp(String name, Path dir, int workers, Duration t,
            String zkConnect) throws Exception {
        Path master = masterScript(dir);
        return submit("--name", name, "--zk", zkConnect,
                "--session-timeout", t.toSeconds() + "s", "--stop-timeout", "1s", "--am-memory", "256",
                "--workers", String.valueOf(workers), "--worker-memory", "128",
                "--worker-command", FieldRecords.workerCommand(dir),
                "--", "sh", master.toString());
    }

    /** Every node back in service (a test before may have left one LOST, and healed it). */
    private static void awaitAllNodesRunning() {
        await("every NodeManager RUNNING").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> cluster.nodeStates().values().stream().filter("RUNNING"::equals).count()
                        == cluster.nodes().size());
    }

    /** Attempt 1's master stopped before attempt 2's started; returns both times after {@code cutAt}. */
    private static long[] assertHandover(Path dir, long cutAt) throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> stamps(dir.resolve("record-2")).size() > 5);
        List<Long> of1 = stamps(dir.resolve("record-1"));
        long lastOf1 = of1.get(of1.size() - 1);
        long firstOf2 = stamps(dir.resolve("record-2")).get(0);
        assertThat(lastOf1).as("attempt 1's master stopped (%d ms after the cut) before attempt 2's "
                + "started (%d ms after)", lastOf1 - cutAt, firstOf2 - cutAt).isLessThan(firstOf2);
        return new long[] {lastOf1 - cutAt, firstOf2 - cutAt};
    }

    /** The user (node) of every worker container started so far, one file per start. */
    private static List<String> workerStarts(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<String> users = new ArrayList<>();
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("worker-")).toList()) {
                String user = Files.readString(p).strip();
                if (!user.isEmpty()) {
                    users.add(user);
                }
            }
            return users;
        }
    }

    private static FieldCluster.Node nodeOf(String user) {
        return apps.nodeOf(user);
    }

    private static int currentAttempt(ApplicationId id) throws Exception {
        return yarn.getApplicationReport(id).getCurrentApplicationAttemptId().getAttemptId();
    }

    /** Waits until the RM has seen every worker started so far RUNNING ({@link FieldCluster#rmSawRunning}). */
    private static void awaitRmSawWorkersRunning(Path dir) {
        await("the RM saw every worker RUNNING").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    try (Stream<Path> files = Files.list(dir)) {
                        for (String f : files.map(p -> p.getFileName().toString())
                                .filter(f -> f.startsWith("worker-")).toList()) {
                            if (!cluster.rmSawRunning(f.substring("worker-".length()))) {
                                return false;
                            }
                        }
                        return true;
                    }
                });
    }

    /**
     * The node has expired: the RM marks it LOST within its expiry of the cut. It may have expired
     * attempt 1's AM (whose heartbeats stop with the node's, on the same interval) a moment before.
     */
    private static void awaitLost(FieldCluster.Node node) {
        await("node " + node.index() + " LOST").atMost(NODE_EXPIRY.multipliedBy(2))
                .pollInterval(Duration.ofMillis(500)).until(() -> cluster.nodeState(node).filter("LOST"::equals).isPresent());
    }

    /**
     * A partition drops what a node's closed sockets still send. The kernel sends what a socket had
     * queued, and its FIN, after its process closed it, from an orphaned socket no user owns; a
     * partitioned ZooKeeper client that gave up on its connection would so deliver its last pings
     * after all, and the server would keep the session alive for another timeout. Here a shell of
     * the node writes a line into the cut and closes the socket: the line never arrives.
     */
    @Test
    void whatAPartitionedNodeQueuedBeforeClosingItsSocketNeverArrives() throws Exception {
        FieldCluster.Node node = cluster.node(1);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<String> script = new ArrayList<>(node.user().asUser());
            script.addAll(List.of("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort()
                    + "; echo before >&3; read; echo during >&3; read; exec 3>&-; read"));
            Process shell = new ProcessBuilder(script).redirectErrorStream(true).start();
            try (Socket conn = server.accept();
                    PrintStream steps = new PrintStream(shell.getOutputStream(), true)) {
                BufferedReader in = new BufferedReader(
                        new InputStreamReader(conn.getInputStream(), StandardCharsets.UTF_8));
                assertThat(in.readLine()).isEqualTo("before");
                cluster.partition(node);
                steps.println(); // writes "during" into the cut
                Thread.sleep(1000); // the fault's length: the kernel retransmits meanwhile
                steps.println(); // closes the socket with "during" still queued
                conn.setSoTimeout(5000);
                assertThatThrownBy(in::readLine).as("what the node sent into the cut")
                        .isInstanceOf(SocketTimeoutException.class);
            } finally {
                shell.destroyForcibly();
            }
        }
    }

    /**
     * A partition cuts what others send to the node too, on connections the node accepted before
     * the cut: from a cut cable nothing arrives. Here a listener run as the node's user reads lines
     * from this JVM: the one written into the cut arrives only after the heal.
     */
    @Test
    void whatOthersSendToAPartitionedNodesServerArrivesOnlyAfterTheHeal() throws Exception {
        FieldCluster.Node node = cluster.node(1);
        Path source = Files.createTempFile(Path.of("/tmp"), "amlease-listener-", ".java");
        Files.writeString(source, """
                import java.io.*;
                import java.net.*;
                class Listener {
                    public static void main(String[] args) throws Exception {
                        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                            System.out.println(server.getLocalPort());
                            try (Socket conn = server.accept(); BufferedReader in = new BufferedReader(
                                    new InputStreamReader(conn.getInputStream()))) {
                                for (String line; (line = in.readLine()) != null; ) {
                                    System.out.println(line);
                                }
                            }
                        }
                    }
                }
                """);
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rw-r--r--"));
        List<String> cmd = new ArrayList<>(node.user().asUser());
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), source.toString()));
        Process listener = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> new BufferedReader(new InputStreamReader(listener.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(heard::add), "listener-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String port = heard.poll(60, TimeUnit.SECONDS);
            assertThat(port).as("the listener's port").isNotNull();
            try (Socket conn = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(port));
                    PrintStream out = new PrintStream(conn.getOutputStream(), true, StandardCharsets.UTF_8)) {
                out.println("before");
                assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
                cluster.partition(node);
                out.println("during");
                assertThat(heard.poll(5, TimeUnit.SECONDS)).as("what reached the partitioned node").isNull();
                cluster.heal();
                assertThat(heard.poll(60, TimeUnit.SECONDS)).as("what the kernel resent after the heal")
                        .isEqualTo("during");
            }
        } finally {
            listener.destroyForcibly();
            Files.delete(source);
        }
    }

    /**
     * The AM's node is partitioned from everything. The RM expires the NodeManager and starts
     * attempt 2 elsewhere; attempt 1, cut off from ZooKeeper, stops its master at its deadline,
     * before attempt 2's master starts; none of attempt 1's leader writes lands after attempt 2's
     * first; attempt 2 adopts the workers on the healthy nodes and replaces any lost with the node;
     * after the heal attempt 1 is gone.
     */
    @Test
    void theAmsNodeDropsOffTheNetworkAndTheNextAttemptTakesOverWithoutOverlap() throws Exception {
        awaitAllNodesRunning();
        String name = "field-seed";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 2);
            LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(120));
            assertThat(first.attemptId()).endsWith("_000001");
            Term term1 = Term.read(dir.resolve("term-1"));
            await("both workers started").atMost(Duration.ofSeconds(60))
                    .until(() -> workerStarts(dir).size() == 2);
            awaitRmSawWorkersRunning(dir);
            List<String> before = workerStarts(dir);
            FieldCluster.Node amNode = nodeOf(term1.user());
            long onHealthy = before.stream().filter(u -> !u.equals(amNode.user().name())).count();

            cluster.partition(amNode);
            long cutAt = System.currentTimeMillis();
            await("attempt 2").atMost(NODE_EXPIRY.multipliedBy(6)).pollInterval(Duration.ofMillis(500))
                    .until(() -> currentAttempt(id) == 2);
            awaitLost(amNode);
            LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(90));
            assertThat(second.attemptId()).endsWith("_000002");
            Term term2 = Term.read(dir.resolve("term-2"));
            assertThat(term2.user()).as("attempt 2 runs on another node").isNotEqualTo(term1.user());
            assertThat(ProcessHandle.of(term1.amPid()).map(ProcessHandle::isAlive).orElse(false)
                    || !stamps(dir.resolve("record-1")).isEmpty())
                    .as("attempt 1 ran inside the partition").isTrue();

            long[] handover = assertHandover(dir, cutAt);
            assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive)).isEmpty();
            history.assertNoWriteFromBefore(second);
            System.out.printf("field seed: attempt 1's master stopped %d ms after the cut, attempt 2's "
                    + "started %d ms after%n", handover[0], handover[1]);

            // Workers on healthy nodes were adopted, not started again. The AM's and the node's expiry
            // race: when the RM has not expired the node yet as attempt 2 registers, it hands over the
            // node's workers too, and reports them lost a moment later (exit -100), so more may count.
            await("healthy nodes' workers adopted").atMost(Duration.ofSeconds(60)).until(() ->
                    Http.status(second.urls().get("tracking")).at("/workers/adopted").asInt() >= onHealthy);
            // And the one lost with the AM's node, if any, replaced on a healthy node.
            long lostWithAm = before.size() - onHealthy;
            await("the workers lost with the AM's node replaced").atMost(Duration.ofSeconds(60))
                    .until(() -> workerStarts(dir).size() == before.size() + lostWithAm);
            assertThat(workerStarts(dir).stream().filter(amNode.user().name()::equals).count())
                    .as("no worker started on the lost node").isEqualTo(lostWithAm);
            System.out.printf("field seed: worker starts before the cut %s, after %s%n", before,
                    workerStarts(dir));

            cluster.heal();
            await("attempt 1 gone after the heal").atMost(Duration.ofSeconds(60))
                    .until(() -> ProcessHandle.of(term1.amPid()).filter(ProcessHandle::isAlive).isEmpty());
            assertThat(history.awaitEpoch(2, Duration.ofSeconds(5))).isEqualTo(second);
            yarn.killApplication(id);
        }
    }

    /**
     * The AM's node cut off from ZooKeeper only (the RM and HDFS it still reaches). A cut shorter
     * than grace − renewInterval (1.85 s at T = 6 s with a 1 s stop-timeout) costs nothing (G1): same
     * term, same master, no worker started again. A longer one ends attempt 1's term at its deadline
     * and its AM exits 75 without unregistering, so YARN starts attempt 2, which leads after it.
     */
    @Test
    void aZooKeeperOnlyCutShorterThanGraceCostsNothingALongerOneHandsOver() throws Exception {
        awaitAllNodesRunning();
        String name = "field-zk-cut";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 2);
            history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            await("both workers started").atMost(Duration.ofSeconds(60))
                    .until(() -> workerStarts(dir).size() == 2);
            FieldCluster.Node amNode = nodeOf(term1.user());
            Path record1 = dir.resolve("record-1");

            cluster.partitionFromZooKeeper(amNode);
            Thread.sleep(SHORT_CUT.toMillis()); // the fault's length, not a wait for an outcome
            cluster.heal();
            int afterHeal = stamps(record1).size();
            await("the master records on after the short cut").atMost(Duration.ofSeconds(10))
                    .until(() -> stamps(record1).size() > afterHeal + 30);
            assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive))
                    .as("attempt 1's master survived a %d ms ZooKeeper cut", SHORT_CUT.toMillis()).isPresent();
            assertThat(dir.resolve("term-2")).doesNotExist();
            assertThat(currentAttempt(id)).isEqualTo(1);
            assertThat(workerStarts(dir)).as("no worker started again").hasSize(2);

            cluster.partitionFromZooKeeper(amNode);
            long cutAt = System.currentTimeMillis();
            await("attempt 1 ended, attempt 2 started").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)).until(() -> currentAttempt(id) == 2);
            cluster.heal(); // attempt 2 may run on the same node
            LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(90));
            assertThat(second.attemptId()).endsWith("_000002");
            long[] handover = assertHandover(dir, cutAt);
            assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive)).isEmpty();
            history.assertNoWriteFromBefore(second);
            assertThat(yarn.getApplicationAttemptReport(ApplicationAttemptId.newInstance(id, 1)).getDiagnostics())
                    .as("attempt 1's AM exit").contains("exitCode: 75");
            String am1 = yarn.getApplicationAttemptReport(ApplicationAttemptId.newInstance(id, 1))
                    .getAMContainerId().toString();
            assertThat(amNode.containerLog(id.toString(), am1, "AppMaster.stderr"))
                    .as("attempt 1's term ended at its deadline").content()
                    .contains("revoked /amlease/" + name + " epoch 1 (token 1): GRACE_EXPIRED");
            System.out.printf("field zk-only cut: attempt 1's master stopped %d ms after the cut, attempt 2's "
                    + "started %d ms after%n", handover[0], handover[1]);
            yarn.killApplication(id);
        }
    }

    /**
     * The AM's node frozen (every process of its user SIGSTOPped, its NodeManager too, as a VM
     * paused) for longer than T and the node expiry, then thawed. While it is frozen, its session
     * expires, the RM expires the node and attempt 2 leads in epoch 2 elsewhere. Thawed, attempt 1
     * finds its deadline long past: its term ends at once and its AM and master are gone, and none of
     * its leader writes lands after attempt 2's first (G3, which holds when a pause breaks G2's
     * timing). What the thawed master may still do before it is stopped only fencing can refuse;
     * the test reports how long that was.
     */
    @Test
    void theAmsNodeFrozenLongerThanTIsFencedWhenThawed() throws Exception {
        awaitAllNodesRunning();
        String name = "field-freeze";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 1);
            history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            FieldCluster.Node amNode = nodeOf(term1.user());

            LeaderInfo second;
            long thawedAt;
            long frozenAt = System.currentTimeMillis();
            cluster.freeze(amNode);
            try {
                await("attempt 2").atMost(NODE_EXPIRY.multipliedBy(6)).pollInterval(Duration.ofMillis(500))
                        .until(() -> currentAttempt(id) == 2);
                second = history.awaitEpoch(2, Duration.ofSeconds(90));
                assertThat(second.attemptId()).endsWith("_000002");
                assertThat(Term.read(dir.resolve("term-2")).user()).as("attempt 2 runs on another node")
                        .isNotEqualTo(term1.user());
                await("attempt 2's master acting").atMost(Duration.ofSeconds(10))
                        .until(() -> stamps(dir.resolve("record-2")).size() > 5);
            } finally {
                // Stamped before the thaw: a process may write the moment its SIGCONT lands.
                thawedAt = System.currentTimeMillis();
                cluster.thaw(amNode);
            }
            long startedAfter = stamps(dir.resolve("record-2")).get(0) - frozenAt;
            await("attempt 1's AM and master gone after the thaw").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Stream.of(term1.amPid(), term1.masterPid())
                            .noneMatch(pid -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent()));
            long goneAfter = System.currentTimeMillis() - thawedAt;
            history.assertNoWriteFromBefore(second);
            String am1 = yarn.getApplicationAttemptReport(ApplicationAttemptId.newInstance(id, 1))
                    .getAMContainerId().toString();
            assertThat(amNode.containerLog(id.toString(), am1, "AppMaster.stderr"))
                    .as("attempt 1's term ended when thawed").content()
                    .contains("revoked /amlease/" + name + " epoch 1 (token 1)");
            List<Long> of1 = stamps(dir.resolve("record-1"));
            long firstOf2 = frozenAt + startedAfter;
            assertThat(of1.stream().filter(s -> s >= firstOf2 && s < thawedAt))
                    .as("the freeze held: no stamp of attempt 1 between attempt 2's first and the thaw").isEmpty();
            System.out.printf("field freeze: attempt 2's master started %d ms after the freeze; thawed %d ms "
                    + "after it, attempt 1's master recorded %d stamps more and its AM and master were gone "
                    + "%d ms after the thaw%n", startedAfter, thawedAt - frozenAt,
                    of1.stream().filter(s -> s >= thawedAt).count(), goneAfter);
            yarn.killApplication(id);
        }
    }

    /**
     * A ZooKeeper follower the AM's session is on cut off from its peers, at T = 30 s. The follower
     * goes on answering the AM's pings from its own state, but renewals ({@code sync} through the
     * leader) no longer come back; once the leader has dropped it, it drops its clients, and the AM's
     * session moves to the other follower, still alive at the leader, well within grace (20 s): the
     * same session, term and master, no worker started again (G1). After the heal the server
     * rejoins the quorum. The AM is given the two followers only, so that its session is on one.
     */
    @Test
    void aZooKeeperFollowerCutOffFromItsPeersCostsTheAmNothing() throws Exception {
        awaitAllNodesRunning();
        Duration t = Duration.ofSeconds(30);
        String name = "field-zk-follower";
        Path dir = appDir(name);
        List<String> modes = cluster.zkModes();
        String[] servers = cluster.zkConnectString().split(",");
        List<String> followers = new ArrayList<>();
        for (int i = 0; i < servers.length; i++) {
            if (modes.get(i).equals("follower")) {
                followers.add(servers[i]);
            }
        }
        assertThat(followers).as("followers among %s", modes).hasSize(2);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 1, t, String.join(",", followers));
            LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            await("the worker started").atMost(Duration.ofSeconds(60)).until(() -> workerStarts(dir).size() == 1);
            String tracking = first.urls().get("tracking");
            String sessionHex = Http.status(tracking).at("/lease/session_id").asText();
            long session = Long.parseUnsignedLong(sessionHex.substring(2), 16);
            int server = await("the AM's session on a server").atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.zkServerOf(session), OptionalInt::isPresent).getAsInt();
            assertThat(modes.get(server - 1)).isEqualTo("follower");

            cluster.isolateZooKeeper(server);
            long cutAt = System.currentTimeMillis();
            long[] longestSilence = {0};
            int movedTo;
            try {
                movedTo = await("the AM's session moved off server " + server).atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200)).until(() -> {
                            longestSilence[0] = Math.max(longestSilence[0],
                                    Http.status(tracking).at("/lease/last_ack_age_ms").asLong());
                            return cluster.zkServerOf(session);
                        }, s -> s.isPresent() && s.getAsInt() != server).getAsInt();
                assertThat(cluster.zkModes().get(server - 1)).as("the isolated server stopped serving")
                        .isNotIn("leader", "follower");
            } finally {
                cluster.heal();
            }
            long movedAfter = System.currentTimeMillis() - cutAt;
            await("server " + server + " rejoins the quorum").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> List.of("leader", "follower").contains(cluster.zkModes().get(server - 1)));
            // Past the cut by more than grace: a term that had lapsed would show by now.
            await("the same term past grace").during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(30))
                    .until(() -> System.currentTimeMillis() - cutAt > 20_000
                            && ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive).isPresent());

            JsonNode lease = Http.status(tracking).at("/lease");
            assertThat(lease.at("/session_id").asText()).as("the same session").isEqualTo(sessionHex);
            assertThat(lease.at("/epoch").asLong()).isEqualTo(1);
            assertThat(lease.at("/holder").asBoolean()).isTrue();
            assertThat(lease.at("/last_revocation").isNull()).as("no revocation: %s", lease).isTrue();
            assertThat(currentAttempt(id)).isEqualTo(1);
            assertThat(dir.resolve("term-2")).doesNotExist();
            assertThat(history.versions()).as("leader info").allSatisfy(i -> assertThat(i.epoch()).isEqualTo(1));
            assertThat(workerStarts(dir)).as("no worker started again").hasSize(1);
            long gap = longestGap(stamps(dir.resolve("record-1")));
            assertThat(gap).as("ms between two of the master's stamps").isLessThan(1000);
            System.out.printf("field zk follower isolated (T = %d s): the AM's session moved from server %d to %d "
                    + "within %d ms of the cut; the longest ZooKeeper silence the lease saw %d ms; the master's "
                    + "longest gap %d ms%n", t.toSeconds(), server, movedTo, movedAfter, longestSilence[0], gap);
            yarn.killApplication(id);
        }
    }

    /**
     * The AM's node cut off from the RM only. ZooKeeper it still reaches, so attempt 1's term never
     * lapses: only G6 can hand over. The RM expires the NodeManager and starts attempt 2 elsewhere;
     * attempt 1 yields as soon as attempt 2 campaigns, and its AM exits by itself while the node is
     * still cut off from the RM (which therefore cannot have stopped it).
     */
    @Test
    void aNodeCutOffFromTheRmOnlyYieldsToTheNewerAttempt() throws Exception {
        awaitAllNodesRunning();
        String name = "field-rm-cut";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 1);
            history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            FieldCluster.Node amNode = nodeOf(term1.user());

            cluster.partitionFromResourceManager(amNode);
            long cutAt = System.currentTimeMillis();
            await("attempt 2").atMost(NODE_EXPIRY.multipliedBy(6)).pollInterval(Duration.ofMillis(500))
                    .until(() -> currentAttempt(id) == 2);
            awaitLost(amNode);
            LeaderInfo second = history.awaitEpoch(2, Duration.ofSeconds(90));
            assertThat(second.attemptId()).endsWith("_000002");
            Term term2 = Term.read(dir.resolve("term-2"));
            assertThat(term2.user()).as("attempt 2 runs on another node").isNotEqualTo(term1.user());
            long[] handover = assertHandover(dir, cutAt);
            assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive)).isEmpty();
            history.assertNoWriteFromBefore(second);
            await("attempt 1's AM exits by itself, still cut off from the RM").atMost(Duration.ofSeconds(30))
                    .until(() -> ProcessHandle.of(term1.amPid()).filter(ProcessHandle::isAlive).isEmpty());
            // And it was G6 that ended its term, not a deadline or the lost RM.
            String am1 = yarn.getApplicationAttemptReport(ApplicationAttemptId.newInstance(id, 1))
                    .getAMContainerId().toString();
            assertThat(amNode.containerLog(id.toString(), am1, "AppMaster.stderr"))
                    .content().contains("revoked /amlease/" + name + " epoch 1 (token 1): NEWER_ATTEMPT")
                    .contains("exiting 75 without unregistering");
            System.out.printf("field rm-only cut: attempt 1's master stopped %d ms after the cut, attempt 2's "
                    + "started %d ms after%n", handover[0], handover[1]);
            cluster.heal();
            yarn.killApplication(id);
        }
    }

    /**
     * {@code kill -9} of the ResourceManager while the application runs, and a restart. Work-preserving
     * recovery keeps the attempt, so nothing of amlease's may move: same attempt, same epoch, the
     * same master recording throughout (no gap), no worker started again — watched for longer than
     * the AM expiry after the restart, so that an AM that failed to re-register would have shown.
     */
    @Test
    void aResourceManagerKilledAndRestartedChangesNothing() throws Exception {
        awaitAllNodesRunning();
        String name = "field-rm-restart";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 2);
            LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            await("both workers started").atMost(Duration.ofSeconds(60))
                    .until(() -> workerStarts(dir).size() == 2);

            cluster.killResourceManager();
            Thread.sleep(RM_DOWN.toMillis()); // the outage's length, not a wait for an outcome
            cluster.startResourceManager();
            awaitAllNodesRunning();
            await("the same attempt and master, past the AM expiry after the restart")
                    .during(NODE_EXPIRY.plusSeconds(5)).atMost(NODE_EXPIRY.plusSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> currentAttempt(id) == 1
                            && ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive).isPresent());
            assertThat(yarn.getApplicationReport(id).getYarnApplicationState()).isEqualTo(YarnApplicationState.RUNNING);
            assertThat(dir.resolve("term-2")).doesNotExist();
            assertThat(history.versions()).as("leader info").allSatisfy(i -> assertThat(i.epoch()).isEqualTo(1));
            assertThat(history.awaitEpoch(1, Duration.ofSeconds(5))).isEqualTo(first);
            assertThat(workerStarts(dir)).as("no worker started again").hasSize(2);
            List<Long> stamps = stamps(dir.resolve("record-1"));
            long longestGap = longestGap(stamps);
            assertThat(longestGap).as("ms between two of the master's stamps").isLessThan(1000);
            System.out.printf("field rm restart: %d stamps, the longest gap %d ms%n", stamps.size(), longestGap);
            yarn.killApplication(id);
        }
    }

    /**
     * A node that runs workers but not the AM crashes (every process of it SIGKILLed, its
     * NodeManager too). The RM expires the node and tells the AM its workers there ended; the AM
     * replaces them on the other nodes, and nothing of the master moves: same attempt, same epoch,
     * the same master recording throughout. The NodeManager then restarts with recovery, as after a
     * reboot, and brings no worker back twice.
     */
    @Test
    void aWorkerNodeCrashesItsWorkersAreReplacedElsewhereTheMasterIsUntouched() throws Exception {
        awaitAllNodesRunning();
        String name = "field-worker-crash";
        Path dir = appDir(name);
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            ApplicationId id = submitRecordingApp(name, dir, 3);
            LeaderInfo first = history.awaitEpoch(1, Duration.ofSeconds(120));
            Term term1 = Term.read(dir.resolve("term-1"));
            await("all workers started").atMost(Duration.ofSeconds(60)).until(() -> workerStarts(dir).size() == 3);
            List<String> before = workerStarts(dir);
            String victim = before.stream().filter(u -> !u.equals(term1.user())).findFirst()
                    .orElseThrow(() -> new AssertionError("every worker on the AM's node " + term1.user()
                            + " (containers are spread one per node heartbeat): " + before));
            long lost = before.stream().filter(victim::equals).count();
            FieldCluster.Node node = nodeOf(victim);
            String tracking = first.urls().get("tracking");

            cluster.crash(node);
            long crashAt = System.currentTimeMillis();
            long replacedAfter;
            try {
                await("the crashed node's workers replaced").atMost(NODE_EXPIRY.multipliedBy(6))
                        .pollInterval(Duration.ofMillis(500)).until(() -> workerStarts(dir).size() == 3 + lost);
                replacedAfter = System.currentTimeMillis() - crashAt;
                List<String> after = workerStarts(dir);
                assertThat(after.stream().filter(victim::equals).count())
                        .as("replacements started elsewhere than the crashed node %s: %s", victim, after)
                        .isEqualTo(lost);
                assertThat(cluster.nodeState(node)).contains("LOST");
                await("the status page counts the replacements").atMost(Duration.ofSeconds(10)).until(() -> {
                    JsonNode w = Http.status(tracking).at("/workers");
                    return w.at("/running").asInt() == 3 && w.at("/restarts").asInt() == lost;
                });
            } finally {
                // Also when an assertion fails: the tests after this one need every node back.
                cluster.restartNodeManager(node);
            }
            awaitAllNodesRunning();
            await("no worker back twice after the NodeManager's recovery").during(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                    .until(() -> Http.status(tracking).at("/workers/running").asInt() == 3
                            && workerStarts(dir).size() == 3 + lost);

            // The master never moved.
            assertThat(currentAttempt(id)).isEqualTo(1);
            assertThat(dir.resolve("term-2")).doesNotExist();
            assertThat(ProcessHandle.of(term1.masterPid()).filter(ProcessHandle::isAlive)).isPresent();
            assertThat(history.versions()).as("leader info").allSatisfy(i -> assertThat(i.epoch()).isEqualTo(1));
            long gap = longestGap(stamps(dir.resolve("record-1")));
            assertThat(gap).as("ms between two of the master's stamps").isLessThan(1000);
            System.out.printf("field worker crash: %d of 3 workers lost with %s, replaced %d ms after the "
                    + "crash; the master's longest gap %d ms%n", lost, victim, replacedAfter, gap);
            yarn.killApplication(id);
        }
    }

    /**
     * SIGKILL of the AM's JVM on a live node at the default T = 30 s. The NodeManager sees the
     * exit and the RM starts attempt 2, which supersedes attempt 1's term (G6) instead of waiting
     * for its session to expire: attempt 2 leads long before T, and attempt 1's master (killed with
     * the container's process group) stopped before attempt 2's started; the worker, which the RM
     * had seen running, is adopted and not started again.
     */
    @Test
    void theAmsJvmKilledOnALiveNodeTheNextAttemptLeadsWithoutWaitingForT() throws Exception {
        Duration t = Duration.ofSeconds(30);
        Failover f = failOver(t, false, "field-am-kill");
        assertThat(f.startedAfter()).as("attempt 2's master started (ms after the kill) before T")
                .isLessThan(t.toMillis() / 2);
        await("the worker adopted").atMost(Duration.ofSeconds(30)).until(() ->
                Http.status(f.second().urls().get("tracking")).at("/workers/adopted").asInt() == 1);
        assertThat(workerStarts(f.dir())).as("no worker started again").hasSize(1);
        System.out.printf("field am kill (T = %d s): attempt 1's master stopped %d ms after the kill, "
                + "attempt 2's started %d ms after%n", t.toSeconds(), f.stoppedAfter(), f.startedAfter());
        yarn.killApplication(f.id());
    }

    /**
     * The failover-time report of issue 25 (not part of {@code mvn verify}: about 8 minutes): at
     * T = 6 s and 30 s, {@code amlease.field.trials} trials each of a SIGKILL of the AM's JVM on a
     * live node and of the AM's node dropping off the network, each on a fresh application with one
     * worker. Every trial asserts what the IT's scenarios assert (attempt 2 leads in epoch 2, attempt
     * 1's master stopped first, no write from before attempt 2); the times go to
     * {@code target/field-failover.md}. Run it with
     * {@code mvn -B test-compile failsafe:integration-test@field -Dit.test='FieldFailoverIT#failoverTimes'
     * -Damlease.field.report=true} in {@code integration-tests}.
     */
    @Test
    @EnabledIfSystemProperty(named = "amlease.field.report", matches = "true")
    void failoverTimes() throws Exception {
        int trials = Integer.getInteger("amlease.field.trials", 5);
        StringBuilder report = new StringBuilder("| fault | T | trials | attempt 1's master stopped (ms "
                + "after the fault, median) | attempt 2's master started (median) | min | max |\n"
                + "|---|---|---|---|---|---|---|\n");
        for (Duration t : List.of(Duration.ofSeconds(6), Duration.ofSeconds(30))) {
            for (boolean nodeLost : List.of(false, true)) {
                List<Long> stopped = new ArrayList<>();
                List<Long> started = new ArrayList<>();
                for (int i = 0; i < trials; i++) {
                    Failover f = failOver(t, nodeLost,
                            "field-report-" + t.toSeconds() + (nodeLost ? "-node-" : "-kill-") + i);
                    yarn.killApplication(f.id());
                    System.out.printf("field report: %s, T = %d s, trial %d: stopped %d ms, started %d ms%n",
                            nodeLost ? "node lost" : "AM JVM killed", t.toSeconds(), i, f.stoppedAfter(),
                            f.startedAfter());
                    stopped.add(f.stoppedAfter());
                    started.add(f.startedAfter());
                }
                List<Long> sorted = started.stream().sorted().toList();
                report.append(String.format("| %s | %d s | %d | %d | %d | %d | %d |%n",
                        nodeLost ? "the AM's node partitioned" : "SIGKILL of the AM's JVM", t.toSeconds(), trials,
                        median(stopped), median(started), sorted.get(0), sorted.get(sorted.size() - 1)));
            }
        }
        Files.writeString(Path.of("target/field-failover.md"), report);
        System.out.print(report);
    }

    /** What one failover did: times in ms after the fault. */
    private record Failover(ApplicationId id, Path dir, LeaderInfo second, long stoppedAfter, long startedAfter) {}

    /**
     * One failover of a fresh application with one worker, by a SIGKILL of the AM's JVM or by its
     * node dropping off the network: attempt 2 leads in epoch 2, attempt 1's master stopped before
     * attempt 2's started, no leader write from before attempt 2 lands, and after the heal attempt
     * 1's AM is gone. The application is left running for the caller's own checks.
     */
    private static Failover failOver(Duration t, boolean nodeLost, String name) throws Exception {
        try (LeaderHistory history = new LeaderHistory(zk, "/amlease/" + name)) {
            Running app = startRecording("amlease", name, t);
            long faultAt = fault(app, nodeLost);
            LeaderInfo second = history.awaitEpoch(2, t.multipliedBy(2).plus(NODE_EXPIRY.multipliedBy(6)));
            assertThat(second.attemptId()).endsWith("_000002");
            long[] handover = assertHandover(app.dir(), faultAt);
            history.assertNoWriteFromBefore(second);
            cluster.heal();
            await("attempt 1 gone").atMost(Duration.ofSeconds(60))
                    .until(() -> ProcessHandle.of(app.term1().amPid()).filter(ProcessHandle::isAlive).isEmpty());
            return new Failover(app.id(), app.dir(), second, handover[0], handover[1]);
        }
    }

    /** A fresh application whose attempt 1 is leading, its master recording and its worker (if any) RUNNING. */
    private record Running(ApplicationId id, Path dir, Term term1) {}

    /**
     * Submits a fresh application under {@code contender}'s AM ({@code amlease}, with one worker;
     * {@code latch-standard} or {@code latch-session}: {@link LatchAm}) and waits until its first
     * master records and the RM has seen its worker RUNNING, so that a fault lands on a steady state.
     */
    private static Running startRecording(String contender, String name, Duration t) throws Exception {
        awaitAllNodesRunning();
        Path dir = appDir(name);
        ApplicationId id = contender.equals("amlease") ? submitRecordingApp(name, dir, 1, t)
                : submitLatchApp(name, dir, t, contender.equals("latch-session"));
        Term term1 = Term.read(dir.resolve("term-1"));
        await("attempt 1's master recording").atMost(Duration.ofSeconds(30))
                .until(() -> stamps(dir.resolve("record-1")).size() > 5);
        await("the worker started").atMost(Duration.ofSeconds(60)).until(() -> workerStarts(dir).size() == 1);
        awaitRmSawWorkersRunning(dir);
        return new Running(id, dir, term1);
    }

    /** The AM's node partitioned from everything, or its JVM killed; returns when (epoch ms). */
    private static long fault(Running app, boolean nodeLost) throws Exception {
        long at = System.currentTimeMillis();
        if (nodeLost) {
            cluster.partition(nodeOf(app.term1().user()));
        } else {
            ProcessHandle.of(app.term1().amPid()).orElseThrow().destroyForcibly();
        }
        return at;
    }

    /**
     * The side-by-side report of issue 25 (not part of {@code mvn verify}): the seed's fault, the
     * AM's node partitioned from everything at T = 30 s with a 10 s node expiry, under amlease's AM
     * and under an AM whose leadership is a plain Curator {@code LeaderLatch} ({@link LatchAm}:
     * Curator's default policy, and {@code SessionConnectionStateErrorPolicy} as Flink's tolerant
     * mode uses). Measured per trial from the masters' own stamps: when attempt 1's master stopped,
     * when attempt 2's started, and how long both ran at once. Writes
     * {@code target/field-side-by-side.md}. Run it with {@code mvn -B test-compile
     * failsafe:integration-test@field -Dit.test='FieldFailoverIT#sideBySide'
     * -Damlease.field.side-by-side=true} in {@code integration-tests}.
     */
    @Test
    @EnabledIfSystemProperty(named = "amlease.field.side-by-side", matches = "true")
    void sideBySide() throws Exception {
        int trials = Integer.getInteger("amlease.field.trials", 3);
        Duration t = Duration.ofSeconds(30);
        StringBuilder report = new StringBuilder("| AM | trials | attempt 1's master stopped (s after the cut, "
                + "median) | attempt 2's master started (median) | both masters acting (s, median) | max | "
                + "trials with an overlap | attempt 1's stamps after attempt 2's first (median) | "
                + "master starts after the first (total) | worker restarts (total) |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
        for (String contender : List.of("amlease", "latch-standard", "latch-session")) {
            List<Long> stopped = new ArrayList<>();
            List<Long> started = new ArrayList<>();
            List<Long> overlap = new ArrayList<>();
            List<Long> superseded = new ArrayList<>();
            long masterRestarts = 0;
            long workerRestarts = 0;
            for (int i = 0; i < trials; i++) {
                long[] r = partitionTrial(contender, t, "field-side-" + contender + "-" + i);
                System.out.printf("field side by side: %s trial %d: stopped %d ms, started %d ms, overlap %d ms, "
                        + "%d stamps of attempt 1 after attempt 2's first, %d master starts after the first, "
                        + "%d worker restarts%n", contender, i, r[0], r[1], r[2], r[3], r[4], r[5]);
                stopped.add(r[0]);
                started.add(r[1]);
                overlap.add(r[2]);
                superseded.add(r[3]);
                masterRestarts += r[4];
                workerRestarts += r[5];
            }
            report.append(String.format("| %s | %d | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %d |%n", contender, trials,
                    median(stopped) / 1000.0, median(started) / 1000.0, median(overlap) / 1000.0,
                    overlap.stream().mapToLong(Long::longValue).max().orElse(0) / 1000.0,
                    overlap.stream().filter(o -> o > 0).count(), median(superseded), masterRestarts, workerRestarts));
        }
        Files.writeString(Path.of("target/field-side-by-side.md"), report);
        System.out.print(report);
    }

    /**
     * One partition of the AM's node under {@code contender}: {attempt 1's master's last stamp,
     * attempt 2's first, how long attempt 1's went on after attempt 2's first}, in ms after the cut,
     * how many stamps attempt 1's master recorded from attempt 2's first on, how many times a master
     * started after the first (attempt 2's is the failover itself), and how many workers started
     * after the first, counted once attempt 1 is gone after the heal and a worker runs on a healthy
     * node. A worker on the partitioned node is lost with it and replaced under either AM; one on
     * a healthy node need not be.
     */
    private static long[] partitionTrial(String contender, Duration t, String name) throws Exception {
        Running app = startRecording(contender, name, t);
        Path record1 = app.dir().resolve("record-1");
        long cutAt = fault(app, true);
        try {
            await("attempt 2's master").atMost(t.multipliedBy(3)).pollInterval(Duration.ofMillis(500))
                    .until(() -> stamps(app.dir().resolve("record-2")).size() > 5);
            // Attempt 1's master stops on its own (a deadline, LOST) while still cut off: wait for it.
            await("attempt 1's master stopped").atMost(t.multipliedBy(3)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        List<Long> of1 = stamps(record1);
                        return System.currentTimeMillis() - of1.get(of1.size() - 1) > 3000;
                    });
        } finally {
            cluster.heal();
        }
        List<Long> of1 = stamps(record1);
        long lastOf1 = of1.get(of1.size() - 1);
        long firstOf2 = stamps(app.dir().resolve("record-2")).get(0);
        await("attempt 1 gone after the heal").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> ProcessHandle.of(app.term1().amPid()).filter(ProcessHandle::isAlive).isEmpty());
        // Back at one worker: adopted on a healthy node, or its replacement started on one.
        String cutUser = app.term1().user();
        await("a worker on a healthy node").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> workerStarts(app.dir()).stream().anyMatch(u -> !u.equals(cutUser)));
        long masterStarts;
        try (Stream<Path> files = Files.list(app.dir())) {
            masterStarts = files.filter(p -> p.getFileName().toString().startsWith("start-")).count();
        }
        long workerStarts = workerStarts(app.dir()).size();
        yarn.killApplication(app.id());
        return new long[] {lastOf1 - cutAt, firstOf2 - cutAt, Math.max(0, lastOf1 - firstOf2),
                of1.stream().filter(s -> s >= firstOf2).count(), masterStarts - 1, workerStarts - 1};
    }

    /** Submits {@link LatchAm} with the recording master, on the cluster's class path and this module's test classes. */
    private static ApplicationId submitLatchApp(String name, Path dir, Duration t, boolean sessionPolicy)
            throws Exception {
        Path master = masterScript(dir);
        Path worker = dir.resolve("worker.sh");
        Files.writeString(worker, FieldRecords.workerCommand(dir) + "\n");
        YarnClientApplication app = yarn.createApplication();
        ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
        ctx.setApplicationName(name);
        ctx.setMaxAppAttempts(10);
        ctx.setKeepContainersAcrossApplicationAttempts(true);
        ctx.setResource(Resource.newInstance(256, 1));
        String cp = cluster.classpath() + ":" + Path.of("target/test-classes").toAbsolutePath();
        String cmd = ApplicationConstants.Environment.JAVA_HOME.$$() + "/bin/java -Xmx128m -cp '" + cp + "' "
                + LatchAm.class.getName() + " " + cluster.zkConnectString() + " /latch/" + name + " "
                + (sessionPolicy ? "session" : "standard") + " " + t.toMillis() + " " + master + " " + worker
                + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stdout"
                + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stderr";
        ctx.setAMContainerSpec(ContainerLaunchContext.newInstance(Map.of(), Map.of(), List.of(cmd), null, null, null));
        yarn.submitApplication(ctx);
        return ctx.getApplicationId();
    }
}
