package io.amlease.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Distinct free ports on 127.0.0.1, held (bound) until {@link #close()}: a server that must keep its
 * ports across restarts, and that others are configured to reach, cannot bind port 0.
 */
final class PortReservation implements AutoCloseable {

    private final List<ServerSocket> sockets;

    private PortReservation(List<ServerSocket> sockets) {
        this.sockets = sockets;
    }

    static PortReservation of(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket();
                sockets.add(s);
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            }
        } catch (IOException e) {
            new PortReservation(sockets).close();
            throw e;
        }
        return new PortReservation(sockets);
    }

    int get(int index) {
        return sockets.get(index).getLocalPort();
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
