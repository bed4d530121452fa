package io.amlease.testkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.apache.zookeeper.server.quorum.QuorumPeer.ServerState;
import org.apache.zookeeper.util.ServiceUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ZooKeeper ensemble (3 servers by default) running in this JVM, every server bound to 127.0.0.1
 * only, whose <em>peer</em> links all run through {@link FaultProxy}s, so that a server can be cut off
 * from the other servers while its own clients stay connected to it — the partition in which a
 * follower that has lost its leader goes on answering reads for up to {@code syncLimit × tickTime}.
 *
 * <p>Wiring: there is a proxy for each ordered pair of servers and each peer port. Server {@code i}'s
 * {@code zoo.cfg} lists itself at its real ports and every other server {@code j} at the proxies
 * {@code i → j}, so what {@code i} dials it dials through a proxy:
 * <ul>
 *   <li>quorum links (follower → leader, {@code Learner.findLeader} reads the follower's own
 *       configuration) need nothing more;</li>
 *   <li>election links need one change to ZooKeeper's behaviour, see {@link ProxiedQuorumPeer}: a
 *       higher server id answers a lower one by dialling back the address the lower one advertises,
 *       which is the real port it binds. The peers here dial the configured address (the proxy)
 *       instead.</li>
 * </ul>
 * So no server holds a connection to another's real quorum or election port; only proxies do
 * ({@code ZkEnsembleTest} checks this against the kernel's socket table). Clients connect to the
 * servers' real client ports; put a {@link FaultProxy} in front of one to cut a client instead.
 *
 * <p>{@link #isolate} silences a server's peer links (connections stay open, nothing crosses): a
 * follower keeps serving until its read from the leader times out after {@code syncLimit} ticks, then
 * drops its clients and looks for a leader it cannot reach; the others go on as a quorum. An isolated
 * leader likewise steps down after {@code syncLimit} ticks without a quorum.
 *
 * <p>Servers are in-process peers ({@code QuorumPeerMain.runFromConfig}), so {@link #kill} is a clean
 * shutdown, not a crash: sockets close at once, and nothing is lost that ZooKeeper had synced to disk.
 * From the first ensemble on, ZooKeeper's requests to exit the JVM (a port it cannot bind, for
 * example) are only logged, so a broken server fails a test instead of ending the test run.
 */
public final class ZkEnsemble implements AutoCloseable {

    /**
     * ZooKeeper's timing: the length of a tick and the limits, in ticks, for a follower's first sync
     * and for its silence during normal operation.
     */
    public record Timing(int tickMillis, int initLimit, int syncLimit) {
        /** ZooKeeper's {@code conf/zoo_sample.cfg}: 2 s ticks, initLimit 10, syncLimit 5. */
        public static final Timing SAMPLE = new Timing(2000, 10, 5);

        public Timing {
            if (tickMillis < 1 || initLimit < 1 || syncLimit < 1) {
                throw new IllegalArgumentException("tick, initLimit and syncLimit must be positive: " + tickMillis
                        + " ms, " + initLimit + ", " + syncLimit);
            }
        }

        /** The sample config's limits with a shorter tick, for tests that must not wait 10 s. */
        public static Timing tick(int tickMillis) {
            return new Timing(tickMillis, SAMPLE.initLimit, SAMPLE.syncLimit);
        }

        /** How long a follower goes on serving without hearing from its leader. */
        public Duration syncTimeout() {
            return Duration.ofMillis((long) tickMillis * syncLimit);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ZkEnsemble.class);

    private final Timing timing;
    private final Path baseDir;
    private final Map<Integer, EnsembleServer> servers;
    private final PeerLinks links;

    private ZkEnsemble(Timing timing, Path baseDir, Map<Integer, EnsembleServer> servers, PeerLinks links) {
        this.timing = timing;
        this.baseDir = baseDir;
        this.servers = servers;
        this.links = links;
    }

    /** Starts three servers and returns once one leads and the others follow. */
    public static ZkEnsemble start(Timing timing) throws IOException {
        return start(3, timing);
    }

    /** Starts {@code size} servers (ids 1..size) and returns once one leads and the others follow. */
    public static ZkEnsemble start(int size, Timing timing) throws IOException {
        return start(size, timing, Map.of());
    }

    /** As {@link #start(int, Timing)}, with more {@code zoo.cfg} keys for every server. */
    public static ZkEnsemble start(int size, Timing timing, Map<String, String> settings) throws IOException {
        if (size < 3 || size % 2 == 0) {
            throw new IllegalArgumentException("an ensemble that can lose a server has an odd size >= 3, not "
                    + size);
        }
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
        Path baseDir = Files.createTempDirectory("zk-ensemble-");
        Map<Integer, EnsembleServer> servers = new LinkedHashMap<>();
        PeerLinks links;
        // Held until the proxies have their own ports, so that none of them can take a server's.
        try (PortReservation ports = PortReservation.of(3 * size)) {
            for (int id = 1; id <= size; id++) {
                int i = 3 * (id - 1);
                servers.put(id, new EnsembleServer(id, ports.get(i), ports.get(i + 1), ports.get(i + 2),
                        baseDir.resolve("server-" + id)));
            }
            links = PeerLinks.start(servers.values());
        }
        ZkEnsemble ensemble = new ZkEnsemble(timing, baseDir, servers, links);
        try {
            for (EnsembleServer s : servers.values()) {
                Map<Integer, InetSocketAddress[]> peers = new LinkedHashMap<>();
                servers.keySet().stream().filter(other -> other != s.id)
                        .forEach(other -> peers.put(other, links.addressesFor(s.id, other)));
                s.configure(timing, peers, settings);
                LOG.info("server {}: client {}, quorum {}, election {}; reaches peers via {}", s.id, s.clientPort,
                        s.quorumPort, s.electionPort, describe(peers));
            }
            servers.values().forEach(EnsembleServer::start);
            ensemble.awaitServing(ensemble.ids());
        } catch (IOException | RuntimeException e) {
            ensemble.close();
            throw e;
        }
        return ensemble;
    }

    public Timing timing() {
        return timing;
    }

    /** Server ids, 1 to size. */
    public int[] ids() {
        return servers.keySet().stream().mapToInt(Integer::intValue).toArray();
    }

    /** A ZooKeeper connect string for every server. */
    public String connectString() {
        return connectString(ids());
    }

    /** A ZooKeeper connect string for these servers only (their real client ports). */
    public String connectString(int... ids) {
        return Arrays.stream(ids).mapToObj(id -> server(id).connectString()).collect(Collectors.joining(","));
    }

    /**
     * The serving leader. While an isolated leader has not yet noticed that it lost its quorum, two
     * servers say LEADING; the one with the newer epoch is the leader the quorum follows.
     */
    public OptionalInt leader() {
        return servers.values().stream()
                .filter(s -> s.serving() && s.state().orElse(null) == ServerState.LEADING)
                .max(Comparator.comparingLong(EnsembleServer::epoch))
                .map(s -> OptionalInt.of(s.id)).orElse(OptionalInt.empty());
    }

    /** The serving followers of {@link #leader()}, in id order; empty without a leader. */
    public int[] followers() {
        if (leader().isEmpty()) {
            return new int[0];
        }
        return servers.values().stream()
                .filter(s -> s.serving() && s.state().orElse(null) == ServerState.FOLLOWING)
                .mapToInt(s -> s.id).toArray();
    }

    /** The server's ZooKeeper state, empty while it is killed. */
    public Optional<ServerState> state(int id) {
        return server(id).state();
    }

    /** Whether the server is in a quorum and answering clients. */
    public boolean serving(int id) {
        return server(id).serving();
    }

    /** How many followers the leader has synced; 0 without a leader. */
    public int syncedFollowers() {
        OptionalInt leader = leader();
        return leader.isEmpty() ? 0 : server(leader.getAsInt()).syncedFollowers();
    }

    /** Waits (bounded) until each of these servers serves and one of them, or another, leads. */
    public void awaitServing(int... ids) {
        await("servers " + Arrays.toString(ids) + " serving").atMost(startTimeout())
                .until(() -> leader().isPresent() && Arrays.stream(ids).allMatch(this::serving));
    }

    /**
     * Cuts every peer link of the server silently (see {@link FaultProxy#silent()}); its clients stay
     * connected to it. Returns once the proxies hold all traffic.
     */
    public void isolate(int id) {
        server(id);
        links.isolate(id);
        LOG.info("server {}: isolated from its peers", id);
    }

    /** Reconnects the server to its peers (not to any still isolated); it rejoins by itself. */
    public void heal(int id) {
        server(id);
        links.heal(id);
        LOG.info("server {}: healed", id);
    }

    /** Stops the server; its data directory and ports are kept for {@link #restart}. */
    public void kill(int id) {
        server(id).kill();
        LOG.info("server {}: killed", id);
    }

    /** Starts a killed server again on the same ports and data; use {@link #awaitServing} to wait for it. */
    public void restart(int id) {
        server(id).start();
        LOG.info("server {}: restarted", id);
    }

    /**
     * A rolling restart's step with a new setting: stops the server, sets {@code key} in its
     * {@code zoo.cfg} (e.g. {@code maxSessionTimeout}), starts it again and waits until it serves.
     */
    public void restartWith(int id, String key, String value) throws IOException {
        EnsembleServer s = server(id);
        s.kill();
        s.set(key, value);
        s.start();
        LOG.info("server {}: restarted with {}={}", id, key, value);
        awaitServing(id);
    }

    /** The address of the server's client port, for a proxy in front of it. */
    public InetSocketAddress clientAddress(int id) {
        return new InetSocketAddress("127.0.0.1", server(id).clientPort);
    }

    /** Stops every server, starts them all again and waits until they serve. */
    public void restartAll() {
        servers.values().forEach(EnsembleServer::kill);
        servers.values().forEach(EnsembleServer::start);
        LOG.info("all servers restarted");
        awaitServing(ids());
    }

    /** The proxies leading to a server's real quorum or election port, for checks of the wiring. */
    List<FaultProxy> linksInto(int id, PeerLinks.Port port) {
        server(id);
        return links.into(id, port);
    }

    /** A server's real quorum and election ports, which only proxies should be connected to. */
    List<Integer> peerPorts(int id) {
        EnsembleServer s = server(id);
        return List.of(s.quorumPort, s.electionPort);
    }

    @Override
    public void close() {
        try {
            servers.values().forEach(s -> {
                try {
                    s.kill();
                } catch (RuntimeException e) {
                    LOG.warn("server {}: stopping", s.id, e);
                }
            });
        } finally {
            links.close();
            deleteRecursively(baseDir);
        }
    }

    private EnsembleServer server(int id) {
        EnsembleServer s = servers.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no server " + id + " in " + servers.keySet());
        }
        return s;
    }

    /** Long enough for an election and the initial sync, which may take initLimit ticks. */
    private Duration startTimeout() {
        return Duration.ofMillis(Math.max(30_000, 2L * timing.tickMillis() * timing.initLimit()));
    }

    private static String describe(Map<Integer, InetSocketAddress[]> peers) {
        return peers.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()[0].getPort() + "/" + e.getValue()[1].getPort())
                .collect(Collectors.joining(", "));
    }

    private static void deleteRecursively(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            LOG.warn("could not delete {}", dir, e);
        }
    }
}
