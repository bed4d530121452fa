package io.amlease.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Distinct free ports on 127.0.0.1, held (bound) until {@link #close()}: a server that must keep its
 * ports across restarts, and that others are configured to reach, cannot bind port 0.
 *
 * <p>The ports come from below the kernel's ephemeral range: a port of that range, freed for its
 * server, can be taken meanwhile as the local port of any outgoing connection (a CI run lost an RM
 * to this), while below it only an explicit bind can take it. Ports handed out in this JVM are never
 * handed out again, so two reservations cannot race for one port between close and bind.
 */
public final class PortReservation implements AutoCloseable {

    private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private final List<ServerSocket> sockets;

    private PortReservation(List<ServerSocket> sockets) {
        this.sockets = sockets;
    }

    public static PortReservation of(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(bindOne());
            }
        } catch (IOException e) {
            new PortReservation(sockets).close();
            throw e;
        }
        return new PortReservation(sockets);
    }

    /** One port, free once this returns (for a server started right after by someone else). */
    public static int one() throws IOException {
        try (PortReservation r = of(1)) {
            return r.get(0);
        }
    }

    public int get(int index) {
        return sockets.get(index).getLocalPort();
    }

    private static ServerSocket bindOne() throws IOException {
        int top = ephemeralLow();
        if (top - LOWEST < 1_000) {
            return bind(0); // No room below the range: the kernel's choice is all there is.
        }
        int span = top - LOWEST;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int port = LOWEST + (start + i) % span;
            synchronized (HANDED_OUT) {
                if (HANDED_OUT.contains(port)) {
                    continue;
                }
                try {
                    ServerSocket s = bind(port);
                    HANDED_OUT.add(port);
                    return s;
                } catch (IOException inUse) {
                    // Someone else's; try the next.
                }
            }
        }
        throw new IOException("no free port on 127.0.0.1 in [" + LOWEST + ", " + top + ")");
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readString(EPHEMERAL).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768; // Linux's default lower bound.
        }
    }

    /** Frees the ports for their servers. */
    @Override
    public void close() {
        for (ServerSocket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // Nothing was ever accepted on it; the port is free either way.
            }
        }
    }
}
