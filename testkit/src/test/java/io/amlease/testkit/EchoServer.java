package io.amlease.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A loopback echo server that counts what reaches it, so tests can tell what crossed the proxy. */
final class EchoServer implements AutoCloseable {

    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    final AtomicInteger accepted = new AtomicInteger();
    final AtomicInteger open = new AtomicInteger();
    final AtomicLong bytesReceived = new AtomicLong();

    EchoServer() throws IOException {
        this(0);
    }

    /** An echo server on {@code port} of 127.0.0.1 (0: any free port). */
    EchoServer(int port) throws IOException {
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 50);
        Thread t = new Thread(this::acceptLoop, "echo-accept");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                accepted.incrementAndGet();
                open.incrementAndGet();
                sockets.add(s);
                Thread t = new Thread(() -> echo(s), "echo-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void echo(Socket s) {
        byte[] buffer = new byte[4096];
        try (s) {
            InputStream in = s.getInputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                bytesReceived.addAndGet(n);
                s.getOutputStream().write(buffer, 0, n);
            }
        } catch (IOException e) {
            // peer reset: just end this connection
        } finally {
            sockets.remove(s);
            open.decrementAndGet();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
