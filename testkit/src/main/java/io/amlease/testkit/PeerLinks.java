package io.amlease.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault proxies between the servers of a {@link ZkEnsemble}: one per ordered pair of servers and
 * per port (quorum, election), so that cutting one server's links touches no link between two others.
 */
final class PeerLinks implements AutoCloseable {

    /** Which of a server's two peer ports a link leads to. */
    enum Port { QUORUM, ELECTION }

    private record Key(int from, int to, Port port) {}

    /** Well under initLimit × tickTime, the follower's own budget for reaching its leader. */
    private static final Duration RETRY_REFUSED = Duration.ofSeconds(1);

    private final Map<Key, FaultProxy> proxies = new LinkedHashMap<>();
    private final Set<Integer> isolated = new HashSet<>();

    /** Starts a proxy from every server to every other one's real quorum and election ports. */
    static PeerLinks start(Collection<EnsembleServer> servers) throws IOException {
        PeerLinks links = new PeerLinks();
        try {
            for (EnsembleServer from : servers) {
                for (EnsembleServer to : servers) {
                    if (from != to) {
                        links.add(from.id, to.id, Port.QUORUM, to.quorumPort);
                        links.add(from.id, to.id, Port.ELECTION, to.electionPort);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            links.close();
            throw e;
        }
        return links;
    }

    private void add(int from, int to, Port port, int targetPort) throws IOException {
        // A follower dials a newly elected leader at once, often before the leader listens: without
        // the retry every such race would cost an election round (initLimit ticks) and could leave
        // the ensemble leaderless for longer than a lease's grace.
        proxies.put(new Key(from, to, port), FaultProxy.start(
            new InetSocketAddress("127.0.0.1", targetPort), RETRY_REFUSED));
    }

    /** What server {@code from} must dial to reach {@code to}: quorum address, then election address. */
    InetSocketAddress[] addressesFor(int from, int to) {
        return new InetSocketAddress[] {
            address(proxy(from, to, Port.QUORUM)), address(proxy(from, to, Port.ELECTION))};
    }

    FaultProxy proxy(int from, int to, Port port) {
        FaultProxy p = proxies.get(new Key(from, to, port));
        if (p == null) {
            throw new IllegalArgumentException("no link " + from + " -> " + to + " (" + port + ")");
        }
        return p;
    }

    /** Every proxy that leads to {@code to}'s given port. */
    List<FaultProxy> into(int to, Port port) {
        List<FaultProxy> result = new ArrayList<>();
        proxies.forEach((k, p) -> {
            if (k.to == to && k.port == port) {
                result.add(p);
            }
        });
        return result;
    }

    /** Silences every link to and from {@code id}, in both directions, for both ports. */
    synchronized void isolate(int id) {
        isolated.add(id);
        proxies.forEach((k, p) -> {
            if (k.from == id || k.to == id) {
                p.silent();
            }
        });
    }

    /** Lets {@code id}'s links forward again, except those to a server that is still isolated. */
    synchronized void heal(int id) {
        isolated.remove(id);
        proxies.forEach((k, p) -> {
            if ((k.from == id || k.to == id) && !isolated.contains(k.from) && !isolated.contains(k.to)) {
                p.heal();
            }
        });
    }

    synchronized boolean isIsolated(int id) {
        return isolated.contains(id);
    }

    @Override
    public void close() {
        proxies.values().forEach(FaultProxy::close);
    }

    private static InetSocketAddress address(FaultProxy p) {
        return new InetSocketAddress("127.0.0.1", p.port());
    }
}
