package io.amlease.testkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.quorum.Leader;
import org.apache.zookeeper.server.quorum.LearnerHandler;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeer.ServerState;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One in-process server of a {@link ZkEnsemble}: its real ports on 127.0.0.1, its directory (data and
 * {@code zoo.cfg}), and while it runs, its {@link QuorumPeer}. Killing and starting again reuses both,
 * so a restarted server recovers its own log and snapshots, as a crashed process would.
 */
final class EnsembleServer {

    private static final Logger LOG = LoggerFactory.getLogger(EnsembleServer.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    final int id;
    final int clientPort;
    final int quorumPort;
    final int electionPort;
    private final Path dir;
    private volatile Run run;

    EnsembleServer(int id, int clientPort, int quorumPort, int electionPort, Path dir) {
        this.id = id;
        this.clientPort = clientPort;
        this.quorumPort = quorumPort;
        this.electionPort = electionPort;
        this.dir = dir;
    }

    String connectString() {
        return "127.0.0.1:" + clientPort;
    }

    /**
     * Writes {@code zoo.cfg}: this server at its real ports, each peer at the addresses this server
     * must use to reach it ({@code peers}: id → quorum and election address, i.e. proxies).
     */
    void configure(ZkEnsemble.Timing timing, Map<Integer, InetSocketAddress[]> peers, Map<String, String> settings)
            throws IOException {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("myid"), Integer.toString(id), StandardCharsets.US_ASCII);
        Properties p = new Properties();
        p.setProperty("tickTime", Integer.toString(timing.tickMillis()));
        p.setProperty("initLimit", Integer.toString(timing.initLimit()));
        p.setProperty("syncLimit", Integer.toString(timing.syncLimit()));
        p.setProperty("dataDir", data.toString());
        // Without clientPortAddress the client port listens on every interface.
        p.setProperty("clientPortAddress", "127.0.0.1");
        p.setProperty("clientPort", Integer.toString(clientPort));
        // Jetty's admin server would listen on 0.0.0.0:8080 wherever Hadoop puts Jetty on the classpath.
        p.setProperty("admin.enableServer", "false");
        p.setProperty("server." + id, "127.0.0.1:" + quorumPort + ":" + electionPort);
        // No client address for the peers: a client that follows /zookeeper/config (Curator's ensemble
        // tracker) must not widen a connect string a test chose on purpose.
        peers.forEach((peer, addr) -> p.setProperty("server." + peer,
                "127.0.0.1:" + addr[0].getPort() + ":" + addr[1].getPort()));
        settings.forEach(p::setProperty);
        try (var out = Files.newOutputStream(configFile())) {
            p.store(out, "ZkEnsemble server " + id);
        }
    }

    /** Starts the peer and returns once it runs (joining or electing, not necessarily serving). */
    synchronized void start() {
        if (run != null) {
            throw new IllegalStateException("server " + id + " is running");
        }
        Run r = new Run(id);
        QuorumPeerConfig config = new QuorumPeerConfig();
        try {
            config.parse(configFile().toString());
        } catch (QuorumPeerConfig.ConfigException e) {
            throw new IllegalStateException("server " + id + ": " + e.getMessage(), e);
        }
        r.thread = new Thread(() -> r.runFrom(config), "zk-ensemble-server-" + id);
        r.thread.setDaemon(true);
        r.thread.start();
        await("server " + id + " started").atMost(STOP_TIMEOUT).until(() -> {
            if (r.failure.get() != null || !r.thread.isAlive()) {
                throw new IllegalStateException("server " + id + " did not start", r.failure.get());
            }
            QuorumPeer p = r.main.peer();
            return p != null && p.isAlive();
        });
        run = r;
    }

    /** Stops the peer: its clients, quorum and election sockets close. Its data stays. */
    synchronized void kill() {
        Run r = run;
        if (r == null) {
            return;
        }
        run = null;
        r.main.close();
        try {
            r.thread.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (r.thread.isAlive()) {
            throw new IllegalStateException("server " + id + " did not stop within " + STOP_TIMEOUT);
        }
    }

    /** Sets one {@code zoo.cfg} key of a stopped server, for its next start. */
    synchronized void set(String key, String value) throws IOException {
        if (run != null) {
            throw new IllegalStateException("server " + id + " is running: kill it before changing " + key);
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(configFile())) {
            p.load(in);
        }
        p.setProperty(key, value);
        try (var out = Files.newOutputStream(configFile())) {
            p.store(out, "ZkEnsemble server " + id);
        }
    }

    boolean isRunning() {
        return run != null;
    }

    Optional<ServerState> state() {
        return peer().map(QuorumPeer::getPeerState);
    }

    /** Running, in a quorum, and answering clients. */
    boolean serving() {
        Optional<QuorumPeer> p = peer();
        if (p.isEmpty() || !p.get().isRunning()) {
            return false;
        }
        ZooKeeperServer zk = p.get().getActiveServer();
        return zk != null && zk.isRunning();
    }

    /** The epoch this peer has accepted, or -1 when down: the newer of two self-declared leaders wins. */
    long epoch() {
        return peer().map(p -> {
            try {
                return p.getCurrentEpoch();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).orElse(-1L);
    }

    /** How many followers this server, as leader, has synced and is sending proposals to. */
    int syncedFollowers() {
        Leader leader = peer().map(p -> p.leader).orElse(null);
        if (leader == null) {
            return 0;
        }
        return (int) leader.getForwardingFollowers().stream().filter(LearnerHandler::synced).count();
    }

    private Optional<QuorumPeer> peer() {
        Run r = run;
        return r == null ? Optional.empty() : Optional.ofNullable(r.main.peer());
    }

    private Path configFile() {
        return dir.resolve("zoo.cfg");
    }

    /** One life of the server, from start to kill. */
    private static final class Run {
        final Main main = new Main();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final int id;
        Thread thread;

        Run(int id) {
            this.id = id;
        }

        void runFrom(QuorumPeerConfig config) {
            try {
                main.runFromConfig(config);
            } catch (Throwable t) {
                failure.set(t);
                LOG.error("server {} failed", id, t);
            }
        }
    }

    private static final class Main extends QuorumPeerMain {
        // close() clears QuorumPeerMain's field; keep our own so state queries never see a torn peer.
        private volatile QuorumPeer peer;

        @Override
        protected QuorumPeer getQuorumPeer() throws SaslException {
            peer = new ProxiedQuorumPeer();
            return peer;
        }

        QuorumPeer peer() {
            return peer;
        }
    }
}
