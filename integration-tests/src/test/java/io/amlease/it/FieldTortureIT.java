package io.amlease.it;

import static io.amlease.it.FieldRecords.masterScript;
import static io.amlease.it.FieldRecords.median;
import static io.amlease.it.FieldRecords.stamps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.it.FieldRecords.Term;
import io.amlease.lease.LeaderInfo;
import io.amlease.testkit.field.FieldCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The YARN torture run of issue 25 (not part of {@code mvn verify}; about 30 s a trial): one
 * long-running application with a master and workers on the field cluster, and a seeded random
 * sequence of the field faults, one per trial, each healed before the next. After every trial the
 * application must be back in a steady state (every node RUNNING, the application RUNNING, one
 * master recording, every worker running and seen RUNNING by the RM), and the history must show
 * none of these violations:
 * <ul>
 *   <li>two masters acting: a stamp of an older term's master at or after the first stamp of a newer
 *       one (a frozen master's stamps after its thaw are counted apart: a thawed machine acts before
 *       anything on it can stop it, and only fencing refuses its writes);
 *   <li>a superseded write applied: leader info of an older epoch written after a newer one;
 *   <li>a worker started without cause: more workers started in a trial than the fault's node lost;
 *   <li>a term lost without cause: a new epoch after a fault that must cost nothing (G1, G6's absence);
 *   <li>the application ended, or not back in its steady state within 2 minutes.
 * </ul>
 * Writes {@code target/field-torture.md}. Run it with {@code mvn -B test-compile
 * failsafe:integration-test@field -Dit.test=FieldTortureIT -Damlease.field.torture=true
 * -Damlease.torture.trials=50 -Damlease.torture.seed=1} in {@code integration-tests}.
 */
@EnabledIfSystemProperty(named = "amlease.field.torture", matches = "true")
class FieldTortureIT {
    private static final Duration T = Duration.ofSeconds(6);
    private static final Duration NODE_EXPIRY = Duration.ofSeconds(10);
    private static final int WORKERS = 2;
    private static final Duration STEADY_WITHIN = Duration.ofSeconds(120);
    private static FieldApps apps;
    private static FieldCluster cluster;
    private static YarnClient yarn;

    /** The faults, each on a node chosen for it; whether it must hand the term over, or cost nothing. */
    enum Fault {
        AM_JVM_KILLED(true, true, false),
        AM_NODE_PARTITIONED(true, true, true),
        OTHER_NODE_PARTITIONED(false, false, true),
        AM_NODE_ZK_CUT_1S(true, false, false),
        AM_NODE_ZK_CUT_PAST_T(true, true, false),
        AM_NODE_RM_CUT(true, true, true), // The RM expires a node it cannot hear from, with its workers.
        AM_NODE_FROZEN(true, true, true),
        OTHER_NODE_CRASHED(false, false, true),
        RM_RESTARTED(false, false, false); // on no node; the line names one all the same

        /** Whether it strikes the node of the AM in charge, or one of the others. */
        final boolean onAmNode;
        final boolean handsOver;
        /** Whether the node is lost to the RM, so that its workers are replaced elsewhere. */
        final boolean losesNode;

        Fault(boolean onAmNode, boolean handsOver, boolean losesNode) {
            this.onAmNode = onAmNode;
            this.handsOver = handsOver;
            this.losesNode = losesNode;
        }
    }

    /** A worker as it recorded its start: its container, node (user) and pid. */
    private record Worker(String container, String user, long pid) {
        boolean alive() {
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent();
        }
    }

    /** The application between two trials: its leader's term, master and live workers. */
    private record Steady(LeaderInfo leader, Term term, List<Worker> live, int workerStarts) {}

    @BeforeAll
    static void start() throws Exception {
        // Failovers enough for every trial: YARN caps an application's attempts at this.
        apps = FieldApps.start(FieldApps.options(3, NODE_EXPIRY,
                Map.of("yarn.resourcemanager.am.max-attempts", "1000")), "amlease-field-torture-");
        cluster = apps.cluster;
        yarn = apps.yarn;
    }

    @AfterAll
    static void stop() throws Exception {
        if (apps != null) {
            apps.close();
        }
    }

    /** What the run found so far. */
    private static final class Tally {
        final List<String> violations = new ArrayList<>();
        final List<String> lines = new ArrayList<>();
        final Map<Fault, List<Long>> failoverMs = new EnumMap<>(Fault.class);
        final Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
        /** Epoch → when its frozen master was thawed. */
        final Map<Long, Long> thawedAt = new LinkedHashMap<>();
        int workerStarts;

        /** The report: one line of totals, a table of handover times by fault, violations, trials. */
        String report(long seed, int trials, long tookS, String thawedStamps) {
            StringBuilder report = new StringBuilder(String.format("YARN torture: seed %d, %d trials, %d s, "
                    + "T = %d s, node expiry %d s, %d workers; %d violations, %d worker replacements; thawed "
                    + "masters' stamps after their thaw: %s%n%n"
                    + "| fault | trials | handed over in (ms, median) | min | max |%n|---|---|---|---|---|%n",
                    seed, trials, tookS, T.toSeconds(), NODE_EXPIRY.toSeconds(), WORKERS, violations.size(),
                    workerStarts, thawedStamps));
            for (Fault f : Fault.values()) {
                List<Long> ms = failoverMs.getOrDefault(f, List.of());
                report.append(String.format("| %s | %d | %s | %s | %s |%n", f, counts.getOrDefault(f, 0),
                        ms.isEmpty() ? "–" : median(ms), ms.isEmpty() ? "–" : ms.stream().min(Long::compare).get(),
                        ms.isEmpty() ? "–" : ms.stream().max(Long::compare).get()));
            }
            report.append("\n");
            violations.forEach(v -> report.append("VIOLATION ").append(v).append("\n"));
            lines.forEach(l -> report.append("    ").append(l).append("\n"));
            return report.toString();
        }
    }

    @Test
    void yarnTorture() throws Exception {
        int trials = Integer.getInteger("amlease.torture.trials", 50);
        long seed = Long.getLong("amlease.torture.seed", 1);
        Random random = new Random(seed);
        String name = "field-torture-" + seed;
        Path dir = apps.appDir(name);
        Tally tally = new Tally();
        long began = System.currentTimeMillis();
        try (LeaderHistory history = new LeaderHistory(apps.zk, "/amlease/" + name)) {
            ApplicationId id = submit(name, dir);
            history.awaitEpoch(1, Duration.ofSeconds(120));
            for (int n = 1; n <= trials; n++) {
                try {
                    trial(n, random, id, history, dir, tally);
                } catch (NotSteady | ConditionTimeoutException e) {
                    // The run cannot go on from a state it does not know.
                    tally.violations.add("trial " + n + ": " + e.getMessage());
                    System.out.println("field torture: trial " + n + ": " + e.getMessage());
                    break;
                }
            }
            tally.violations.addAll(overlaps(dir, tally.thawedAt));
            List<Long> epochs = history.versions().stream().map(LeaderInfo::epoch).toList();
            for (int i = 1; i < epochs.size(); i++) {
                if (epochs.get(i) < epochs.get(i - 1)) {
                    tally.violations.add("leader info of epoch " + epochs.get(i) + " written after epoch "
                            + epochs.get(i - 1));
                }
            }
            yarn.killApplication(id);
        }
        long tookS = (System.currentTimeMillis() - began) / 1000;
        String report = tally.report(seed, trials, tookS, thawedStamps(dir, tally.thawedAt));
        Files.writeString(Path.of("target/field-torture.md"), report);
        System.out.print(report);
        assertThat(tally.violations).as("violations").isEmpty();
    }

    /**
     * One trial from a steady state: a fault drawn from {@code random} on a node drawn for it, its
     * outcome waited for and healed, the steady state again, and what changed checked.
     */
    private static void trial(int n, Random random, ApplicationId id, LeaderHistory history, Path dir, Tally tally)
            throws Exception {
        Steady before = awaitSteady(id, history, dir);
        Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
        FieldCluster.Node amNode = apps.nodeOf(before.term().user());
        List<FieldCluster.Node> others = cluster.nodes().stream().filter(x -> x != amNode).toList();
        FieldCluster.Node node = fault.onAmNode ? amNode : others.get(random.nextInt(others.size()));
        long epoch = before.leader().epoch();
        long faultAt = System.currentTimeMillis();
        inflict(fault, node, epoch, history, dir, tally.thawedAt);
        Steady after = awaitSteady(id, history, dir);

        long newEpoch = after.leader().epoch();
        tally.counts.merge(fault, 1, Integer::sum);
        String line = String.format("trial %d: %s on node %d, epoch %d → %d", n, fault, node.index(), epoch,
                newEpoch);
        if (fault.handsOver && newEpoch > epoch) {
            long took = stamps(dir.resolve("record-" + newEpoch)).get(0) - faultAt;
            tally.failoverMs.computeIfAbsent(fault, f -> new ArrayList<>()).add(took);
            line += String.format(", the new master's first stamp %d ms after the fault", took);
        } else if (!fault.handsOver && newEpoch != epoch) {
            tally.violations.add(line + ": a term lost without cause");
        }
        long lostWithNode = fault.losesNode
                ? before.live().stream().filter(w -> w.user().equals(node.user().name())).count() : 0;
        int started = after.workerStarts() - before.workerStarts();
        tally.workerStarts += started;
        line += ", workers started " + started + " (lost with the node " + lostWithNode + ")";
        if (started > lostWithNode) {
            tally.violations.add(line + ": a worker started without cause");
        }
        tally.lines.add(line);
        System.out.println("field torture: " + line);
    }

    /** Inflicts {@code fault} on {@code node}, waits for what it must cause, and heals it. */
    private static void inflict(Fault fault, FieldCluster.Node node, long epoch, LeaderHistory history, Path dir,
            Map<Long, Long> thawedAt) throws Exception {
        Duration handover = T.multipliedBy(2).plus(NODE_EXPIRY.multipliedBy(6));
        switch (fault) {
            case AM_JVM_KILLED -> {
                Term term = Term.read(dir.resolve("term-" + epoch));
                ProcessHandle.of(term.amPid()).ifPresent(ProcessHandle::destroyForcibly);
                awaitNewMaster(history, dir, epoch, handover);
            }
            case AM_NODE_PARTITIONED -> {
                cluster.partition(node);
                try {
                    awaitNewMaster(history, dir, epoch, handover);
                } finally {
                    cluster.heal();
                }
            }
            case AM_NODE_RM_CUT -> {
                cluster.partitionFromResourceManager(node);
                try {
                    awaitNewMaster(history, dir, epoch, handover);
                } finally {
                    cluster.heal();
                }
            }
            case AM_NODE_ZK_CUT_PAST_T -> {
                cluster.partitionFromZooKeeper(node);
                try {
                    // The term ends at its deadline and the AM exits; attempt 2 may come to this node.
                    await("a new attempt").atMost(handover).pollInterval(Duration.ofMillis(500))
                            .until(() -> Files.exists(dir.resolve("term-" + (epoch + 1)))
                                    || !ProcessHandle.of(Term.read(dir.resolve("term-" + epoch)).amPid())
                                            .map(ProcessHandle::isAlive).orElse(false));
                } finally {
                    cluster.heal();
                }
                awaitNewMaster(history, dir, epoch, handover);
            }
            case AM_NODE_FROZEN -> {
                cluster.freeze(node);
                try {
                    awaitNewMaster(history, dir, epoch, handover);
                } finally {
                    thawedAt.put(epoch, System.currentTimeMillis()); // before: it may act as SIGCONT lands
                    cluster.thaw(node);
                }
            }
            case OTHER_NODE_PARTITIONED -> {
                cluster.partition(node);
                try {
                    awaitLost(node);
                } finally {
                    cluster.heal();
                }
            }
            case OTHER_NODE_CRASHED -> {
                cluster.crash(node);
                try {
                    awaitLost(node);
                } finally {
                    cluster.restartNodeManager(node);
                }
            }
            case AM_NODE_ZK_CUT_1S -> {
                cluster.partitionFromZooKeeper(node);
                Thread.sleep(1000); // the fault's length, not a wait for an outcome
                cluster.heal();
            }
            case RM_RESTARTED -> {
                cluster.killResourceManager();
                Thread.sleep(5000); // the outage's length
                cluster.startResourceManager();
            }
        }
    }

    private static void awaitNewMaster(LeaderHistory history, Path dir, long epoch, Duration atMost) {
        await("a master of a newer term than " + epoch + " recording").atMost(atMost)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    long now = history.current().map(LeaderInfo::epoch).orElse(0L);
                    return now > epoch && stamps(dir.resolve("record-" + now)).size() > 5;
                });
    }

    /** A node without the AM lost: the RM expires it (the AM then replaces its workers elsewhere). */
    private static void awaitLost(FieldCluster.Node node) {
        await("node " + node.index() + " LOST").atMost(NODE_EXPIRY.multipliedBy(3)).pollInterval(Duration.ofMillis(500))
                .until(() -> cluster.nodeState(node).filter("LOST"::equals).isPresent());
    }

    /**
     * Waits until the application is steady again: every node RUNNING, the application RUNNING,
     * the leader's master recording, {@link #WORKERS} workers alive (none more) and seen RUNNING by
     * the RM, as its status page counts them too. Says what it last waited for when it times out.
     */
    private static Steady awaitSteady(ApplicationId id, LeaderHistory history, Path dir) throws Exception {
        AtomicReference<String> waiting = new AtomicReference<>("");
        try {
            return await("the application steady").atMost(STEADY_WITHIN).pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions().until(() -> steady(id, history, dir, waiting), s -> s != null);
        } catch (ConditionTimeoutException e) {
            throw new NotSteady("not steady within " + STEADY_WITHIN.toSeconds() + " s: " + waiting.get());
        }
    }

    private static Steady steady(ApplicationId id, LeaderHistory history, Path dir, AtomicReference<String> waiting)
            throws Exception {
        YarnApplicationState state = yarn.getApplicationReport(id).getYarnApplicationState();
        if (state != YarnApplicationState.RUNNING) {
            waiting.set("the application " + state);
            return null;
        }
        Map<String, String> nodes = cluster.nodeStates();
        if (nodes.values().stream().filter("RUNNING"::equals).count() != cluster.nodes().size()) {
            waiting.set("every node RUNNING: " + nodes);
            return null;
        }
        LeaderInfo leader = history.current().orElse(null);
        if (leader == null) {
            waiting.set("a leader");
            return null;
        }
        List<Long> own = stamps(dir.resolve("record-" + leader.epoch()));
        if (own.isEmpty() || System.currentTimeMillis() - own.get(own.size() - 1) > 1000) {
            waiting.set("epoch " + leader.epoch() + "'s master recording");
            return null;
        }
        List<Worker> started = workers(dir);
        List<Worker> live = started.stream().filter(Worker::alive).toList();
        if (live.size() != WORKERS) {
            waiting.set(WORKERS + " workers alive: " + live);
            return null;
        }
        for (Worker w : live) {
            if (!cluster.rmSawRunning(w.container())) {
                waiting.set("the RM to see " + w.container() + " RUNNING");
                return null;
            }
        }
        int running = Http.status(leader.urls().get("tracking")).at("/workers/running").asInt();
        if (running != WORKERS) {
            waiting.set("the status page to count " + WORKERS + " workers running, not " + running);
            return null;
        }
        return new Steady(leader, Term.read(dir.resolve("term-" + leader.epoch())), live, started.size());
    }

    /** The run could not go on: the application did not come back to its steady state. */
    private static final class NotSteady extends RuntimeException {
        NotSteady(String message) {
            super(message);
        }
    }

    /** Every older term's stamps at or after a newer term's first, but a thawed master's after its thaw. */
    private static List<String> overlaps(Path dir, Map<Long, Long> thawedAt) throws Exception {
        List<String> found = new ArrayList<>();
        for (long newer = 2; Files.exists(dir.resolve("record-" + newer)); newer++) {
            long first = stamps(dir.resolve("record-" + newer)).get(0);
            for (long older = 1; older < newer; older++) {
                long thaw = thawedAt.getOrDefault(older, Long.MAX_VALUE);
                long o = older;
                List<Long> acting = stamps(dir.resolve("record-" + older)).stream()
                        .filter(s -> s >= first && s < thaw).toList();
                if (!acting.isEmpty()) {
                    found.add(String.format("two masters acting: epoch %d's master stamped %d times at or after "
                            + "epoch %d's first stamp (%d), the last %d ms after it", o, acting.size(), newer, first,
                            acting.get(acting.size() - 1) - first));
                }
            }
        }
        return found;
    }

    private static String thawedStamps(Path dir, Map<Long, Long> thawedAt) throws Exception {
        List<String> each = new ArrayList<>();
        for (Map.Entry<Long, Long> e : thawedAt.entrySet()) {
            long n = stamps(dir.resolve("record-" + e.getKey())).stream().filter(s -> s >= e.getValue()).count();
            each.add("epoch " + e.getKey() + ": " + n);
        }
        return each.isEmpty() ? "none frozen" : String.join(", ", each);
    }

    private static List<Worker> workers(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Worker> all = new ArrayList<>();
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("worker-")).toList()) {
                String[] f = Files.readString(p).strip().split(" ");
                if (f.length == 2) {
                    all.add(new Worker(p.getFileName().toString().substring("worker-".length()), f[0],
                            Long.parseLong(f[1])));
                }
            }
            return all;
        }
    }

    private static ApplicationId submit(String name, Path dir) throws Exception {
        Path master = masterScript(dir);
        return apps.submit("--name", name, "--zk", cluster.zkConnectString(),
                "--session-timeout", T.toSeconds() + "s", "--stop-timeout", "1s", "--am-memory", "256",
                "--max-attempts", "1000", "--workers", String.valueOf(WORKERS), "--worker-memory", "128",
                // Written to a temporary file and renamed: a reader never sees half a line.
                "--worker-command", "echo $(id -un) $$ > " + dir + "/tmp-$CONTAINER_ID; mv " + dir
                        + "/tmp-$CONTAINER_ID " + dir + "/worker-$CONTAINER_ID; exec sleep 1000000",
                "--", "sh", master.toString());
    }
}
