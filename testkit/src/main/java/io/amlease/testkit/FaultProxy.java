package io.amlease.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy that can partition or reset the path to a server (ZooKeeper, usually) on command.
 *
 * <p>Point the client at {@link #connectString()} instead of the server. Each mode switch has taken
 * effect when the method returns:
 * <ul>
 *   <li>{@link #silent()} — a network partition. Connections stay open but nothing crosses in either
 *       direction, not even an end-of-stream or a reset; new connections are accepted but not connected
 *       to the target. What was sent meanwhile is held (one buffer per direction, then TCP back-pressure)
 *       and delivered on {@link #heal()}, as TCP retransmission would after a real partition heals.</li>
 *   <li>{@link #reset()} — every open connection is closed with SO_LINGER 0, so both peers see a TCP RST;
 *       until {@link #heal()} new connections are accepted and reset at once, on the same port.</li>
 *   <li>{@link #heal()} — forward normally again.</li>
 * </ul>
 *
 * <p>"Taken effect" is about the proxy: bytes it wrote before the switch may still be in the kernel's
 * buffers, like packets already on the wire. A switch waits for in-flight writes, so a peer that stops
 * reading altogether could delay it; ZooKeeper clients and servers always read.
 */
public final class FaultProxy implements AutoCloseable {

    /** What the proxy currently does with traffic. */
    public enum Mode { FORWARDING, SILENT, RESET }

    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final long JOIN_MILLIS = 2_000;

    private final ServerSocket listener;
    private final String name;
    private final Gate gate = new Gate();
    private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong lastUpstream = new AtomicLong();
    private final Thread acceptor;
    private final Duration retryRefused;
    private volatile InetSocketAddress target;

    private FaultProxy(ServerSocket listener, InetSocketAddress target, Duration retryRefused) {
        this.listener = listener;
        this.target = target;
        this.retryRefused = retryRefused;
        this.name = "fault-proxy-" + listener.getLocalPort();
        this.acceptor = new Thread(this::acceptLoop, name + "-accept");
        this.acceptor.setDaemon(true);
    }

    /** Listens on an ephemeral port of 127.0.0.1 and forwards every connection to {@code target}. */
    public static FaultProxy start(InetSocketAddress target) throws IOException {
        return start(target, Duration.ZERO);
    }

    /**
     * Like {@link #start(InetSocketAddress)}, but a connection whose target refuses it is retried for
     * up to {@code retryRefused} before it is reset. A client that dials the target directly sees a
     * refused connect and may retry it (a ZooKeeper follower dialling a new leader does, every 100 ms
     * until initLimit); through a proxy it would see a connection accepted and then reset, which a
     * follower takes as the leader failing. Retrying here keeps the proxy as transparent as a cable.
     */
    public static FaultProxy start(InetSocketAddress target, Duration retryRefused)
            throws IOException {
        Objects.requireNonNull(target, "target");
        ServerSocket listener = new ServerSocket();
        try {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        FaultProxy proxy = new FaultProxy(listener, target, retryRefused);
        proxy.acceptor.start();
        LOG.info("{}: forwarding 127.0.0.1:{} -> {}", proxy.name, proxy.port(), target);
        return proxy;
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** {@code "127.0.0.1:PORT"}, ready for a ZooKeeper connect string. */
    public String connectString() {
        return "127.0.0.1:" + port();
    }

    public InetSocketAddress target() {
        return target;
    }

    /** Sends connections made from now on to {@code newTarget}, e.g. a server restarted on another port. */
    public void retarget(InetSocketAddress newTarget) {
        target = Objects.requireNonNull(newTarget, "newTarget");
        LOG.info("{}: target is now {}", name, newTarget);
    }

    /** Partitions: nothing crosses in either direction until {@link #heal()}. */
    public void silent() {
        gate.switchTo(Mode.SILENT, () -> { });
        LOG.info("{}: SILENT ({} connections held)", name, connections.size());
    }

    /** Resets every connection (TCP RST) and resets new ones until {@link #heal()}. */
    public void reset() {
        // Closing under the gate: no write can be half-way through while the sockets go away, and a
        // connection accepted concurrently is either in this snapshot or sees RESET and is refused.
        int[] count = new int[1];
        gate.switchTo(Mode.RESET, () -> {
            List<ProxyConnection> open = List.copyOf(connections);
            open.forEach(ProxyConnection::abort);
            count[0] = open.size();
        });
        LOG.info("{}: RESET ({} connections reset)", name, count[0]);
    }

    /** Forwards again; what was held while silent flows now. */
    public void heal() {
        gate.switchTo(Mode.FORWARDING, () -> { });
        LOG.info("{}: FORWARDING", name);
    }

    public Mode mode() {
        return gate.mode();
    }

    /**
     * {@code System.nanoTime()} when bytes from a client last reached the target, or 0: a test that
     * must act at a known time after a client's last request (an idle ZooKeeper client's ping).
     */
    public long lastForwardedFromClientNanos() {
        return lastUpstream.get();
    }

    /** Connections accepted and not yet closed, including those held back by a partition. */
    public int connectionCount() {
        return connections.size();
    }

    /** Closes the listener and every connection (with RST) and waits for the proxy's threads to end. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("{}: closing listener", name, e);
        }
        gate.close();
        try {
            // Once the acceptor is gone no connection can be added behind the snapshot below.
            acceptor.join(JOIN_MILLIS);
            List<ProxyConnection> open = List.copyOf(connections);
            open.forEach(ProxyConnection::abort);
            for (ProxyConnection c : open) {
                c.join(JOIN_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("{}: closed", name);
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket socket;
            try {
                socket = listener.accept();
                socket.setTcpNoDelay(true);
            } catch (IOException e) {
                if (closed.get() || listener.isClosed()) {
                    return;
                }
                LOG.warn("{}: accept failed", name, e);
                continue;
            }
            ProxyConnection c = new ProxyConnection(name + "-conn-" + connectionIds.incrementAndGet(),
                    socket, gate, () -> target, retryRefused, connections::remove, lastUpstream::set);
            boolean admitted = gate.withMode(mode -> {
                if (mode == Mode.RESET || closed.get()) {
                    return false;
                }
                connections.add(c);
                return true;
            });
            if (admitted) {
                c.start();
            } else {
                LOG.debug("{}: refusing {} (reset)", name, socket.getRemoteSocketAddress());
                ProxyConnection.closeQuietly(socket, true);
            }
        }
    }
}
