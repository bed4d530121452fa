package io.amlease.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.quorum.QuorumPeer.ServerState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ZkEnsembleTest {

    /** 200 ms ticks: a follower drops out 1 s after it last heard from its leader. */
    private static final ZkEnsemble.Timing FAST = ZkEnsemble.Timing.tick(200);
    private static final Duration WITHIN = Duration.ofSeconds(20);

    private ZkEnsemble ensemble;

    @BeforeEach
    void start() throws IOException {
        ensemble = ZkEnsemble.start(FAST);
    }

    @AfterEach
    void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    void startsWithOneLeaderAndTwoSyncedFollowers() {
        assertThat(ensemble.leader()).isPresent();
        assertThat(ensemble.followers()).hasSize(2).doesNotContain(ensemble.leader().getAsInt());
        await().atMost(WITHIN).until(() -> ensemble.syncedFollowers() == 2);
    }

    /**
     * What {@code ss -tn} shows, checked: every established connection to a server's real quorum or
     * election port is a proxy's, i.e. there are exactly as many as the proxies into that port hold.
     * A server that dialled a peer directly would add one more. ZooKeeper's election call-back (a
     * higher id dialling back a lower one that dialled it) happens when the lower id comes up while
     * the higher ones run: at start-up the servers start in id order, so it takes a restart of server 1.
     */
    @Test
    void peersReachEachOtherOnlyThroughTheProxies() {
        assumeThat(Path.of("/proc/net/tcp")).as("Linux socket table").exists();
        awaitOnlyProxiedPeerLinks();

        ensemble.kill(1);
        ensemble.restart(1);
        ensemble.awaitServing(ensemble.ids());
        awaitOnlyProxiedPeerLinks();
    }

    private void awaitOnlyProxiedPeerLinks() {
        await().atMost(WITHIN).untilAsserted(() -> {
            long quorumLinks = 0;
            long electionLinks = 0;
            for (int id : ensemble.ids()) {
                int quorumPort = ensemble.peerPorts(id).get(0);
                int electionPort = ensemble.peerPorts(id).get(1);
                long viaQuorumProxies = proxied(ensemble.linksInto(id, PeerLinks.Port.QUORUM));
                long viaElectionProxies = proxied(ensemble.linksInto(id, PeerLinks.Port.ELECTION));
                assertThat(established(quorumPort)).as("connections to server %d's quorum port", id)
                        .isEqualTo(viaQuorumProxies);
                assertThat(established(electionPort)).as("connections to server %d's election port", id)
                        .isEqualTo(viaElectionProxies);
                quorumLinks += viaQuorumProxies;
                electionLinks += viaElectionProxies;
            }
            // One per follower, through proxies. Election links: one per pair of servers that
            // voted to each other, at least two of the three pairs. Not always all: ZooKeeper opens
            // them lazily, and a restarted server whose first link to a peer failed (e.g. the peer's
            // call-back came before it listened) joins through the other peer and never sends on
            // that link again.
            assertThat(quorumLinks).isEqualTo(2);
            assertThat(electionLinks).isBetween(2L, 3L);
        });
    }

    @Test
    void anIsolatedFollowerServesUntilSyncLimitThenDropsOutWhileTheMajorityWrites() throws Exception {
        int leader = ensemble.leader().getAsInt();
        int follower = ensemble.followers()[0];
        int[] majority = Arrays.stream(ensemble.ids()).filter(id -> id != follower).toArray();
        try (ZooKeeper onFollower = connect(ensemble.connectString(follower));
             ZooKeeper onMajority = connect(ensemble.connectString(majority))) {
            ensemble.isolate(follower);
            long isolated = System.nanoTime();

            // The partition that matters for leases: the follower still answers from its own state.
            assertThat(onFollower.exists("/", false)).isNotNull();
            await().atMost(WITHIN).until(() -> !ensemble.serving(follower));
            Duration served = Duration.ofNanos(System.nanoTime() - isolated);

            // Its read from the leader times out syncLimit ticks after the leader's last ping (every
            // half tick), not before.
            assertThat(served).isGreaterThan(FAST.syncTimeout().minusMillis(FAST.tickMillis()));
            assertThat(ensemble.state(follower)).contains(ServerState.LOOKING);
            await().atMost(WITHIN).until(() -> ensemble.syncedFollowers() == 1);
            assertThat(ensemble.leader()).hasValue(leader);
            onMajority.create("/while-isolated", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

            ensemble.heal(follower);
            ensemble.awaitServing(follower);
            await().atMost(WITHIN).until(() -> ensemble.syncedFollowers() == 2);
        }
        try (ZooKeeper rejoined = connect(ensemble.connectString(follower))) {
            assertThat(rejoined.exists("/while-isolated", false)).isNotNull();
        }
    }

    @Test
    void aKilledLeaderIsReplacedAndRejoinsAfterRestartAndAllRestartKeepsTheData() throws Exception {
        int oldLeader = ensemble.leader().getAsInt();
        int[] others = Arrays.stream(ensemble.ids()).filter(id -> id != oldLeader).toArray();
        try (ZooKeeper zk = connect(ensemble.connectString())) {
            zk.create("/before", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }

        ensemble.kill(oldLeader);
        assertThat(ensemble.state(oldLeader)).isEmpty();
        ensemble.awaitServing(others);
        assertThat(ensemble.leader().getAsInt()).isNotEqualTo(oldLeader);
        try (ZooKeeper zk = connect(ensemble.connectString(others))) {
            zk.create("/during", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }

        ensemble.restart(oldLeader);
        ensemble.awaitServing(oldLeader);
        await().atMost(WITHIN).until(() -> ensemble.syncedFollowers() == 2);

        ensemble.restartAll();
        for (int id : ensemble.ids()) {
            try (ZooKeeper zk = connect(ensemble.connectString(id))) {
                assertThat(zk.exists("/before", false)).as("/before on server %d", id).isNotNull();
                assertThat(zk.exists("/during", false)).as("/during on server %d", id).isNotNull();
            }
        }
    }

    private static ZooKeeper connect(String connectString) throws IOException {
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> { });
        await().atMost(WITHIN).until(() -> zk.getState() == ZooKeeper.States.CONNECTED);
        return zk;
    }

    private static long proxied(List<FaultProxy> proxies) {
        return proxies.stream().mapToLong(FaultProxy::connectionCount).sum();
    }

    /** Established TCP connections, from the kernel's table, whose remote end is 127.0.0.1:port. */
    private static long established(int port) {
        // 127.0.0.1 as the table writes it, in IPv4 and in IPv4-mapped IPv6 rows alike.
        String hexPort = String.format("0100007F:%04X", port);
        return Stream.of("/proc/net/tcp", "/proc/net/tcp6").map(Path::of).filter(Files::exists)
                .flatMap(ZkEnsembleTest::lines)
                .map(line -> line.trim().split("\\s+"))
                // sl, local_address, rem_address, st: 01 is ESTABLISHED.
                .filter(f -> f.length > 3 && f[2].endsWith(hexPort) && f[3].equals("01"))
                .count();
    }

    private static Stream<String> lines(Path table) {
        try {
            return Files.readAllLines(table).stream().skip(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
