package io.amlease.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied TCP connection: the accepted client socket, the socket to the target, and a pump thread
 * for each direction. Every byte, end-of-stream and peer reset crosses the {@link Gate}, so while the
 * proxy is silent neither peer observes anything at all from the other.
 */
final class ProxyConnection {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final long RETRY_EVERY_MS = 100;
    private static final int BUFFER_BYTES = 16 * 1024;
    private static final int EOF = -1;
    private static final int BROKEN = -2;

    private final String name;
    private final Socket client;
    private final Gate gate;
    private final Supplier<InetSocketAddress> target;
    private final Duration retryRefused;
    private final Consumer<ProxyConnection> onClosed;
    private final LongConsumer forwardedUp;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AtomicInteger finishedDirections = new AtomicInteger();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private Socket server; // guarded by this: close() may race with the connect in upstream()

    ProxyConnection(String name, Socket client, Gate gate, Supplier<InetSocketAddress> target,
                    Duration retryRefused, Consumer<ProxyConnection> onClosed, LongConsumer forwardedUp) {
        this.name = name;
        this.client = client;
        this.gate = gate;
        this.target = target;
        this.retryRefused = retryRefused;
        this.onClosed = onClosed;
        this.forwardedUp = forwardedUp;
    }

    void start() {
        spawn("up", this::upstream);
    }

    boolean isOpen() {
        return open.get();
    }

    /** Closes both sockets with SO_LINGER 0, so each peer sees a TCP RST rather than an orderly FIN. */
    void abort() {
        close(true);
    }

    void join(long millis) throws InterruptedException {
        // By index, not by iterator: the upstream thread may still add the downstream one.
        for (int i = 0; i < threads.size(); i++) {
            threads.get(i).join(millis);
        }
    }

    private void upstream() {
        try {
            // Connecting only once forwarding means a server that is down (or restarting) during a
            // partition is not revealed to the client as a refused connection until the partition heals.
            if (!gate.awaitForwarding(open::get)) {
                return;
            }
            Socket s = connectTarget();
            if (!adopt(s)) {
                return;
            }
            LOG.debug("{}: connected {} -> {}", name, client.getRemoteSocketAddress(), s.getRemoteSocketAddress());
            spawn("down", () -> pump(s, client, t -> { }));
            pump(client, s, forwardedUp);
        } catch (IOException e) {
            LOG.debug("{}: cannot reach target {}: {}", name, target.get(), e.toString());
            abort();
        } catch (InterruptedException e) {
            abort();
        }
    }

    /** Connects to the target, retrying a refused connect for up to {@code retryRefused}. */
    private Socket connectTarget() throws IOException, InterruptedException {
        long until = System.nanoTime() + retryRefused.toNanos();
        while (true) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            try {
                s.connect(target.get(), CONNECT_TIMEOUT_MS);
                return s;
            } catch (ConnectException e) {
                s.close();
                if (!open.get() || System.nanoTime() - until >= 0) {
                    throw e;
                }
                Thread.sleep(RETRY_EVERY_MS);
            }
        }
    }

    private synchronized boolean adopt(Socket s) {
        if (!open.get()) {
            closeQuietly(s, true);
            return false;
        }
        server = s;
        return true;
    }

    /** Copies {@code from} to {@code to}, telling {@code wrote} the time of each write. */
    private void pump(Socket from, Socket to, LongConsumer wrote) {
        byte[] buffer = new byte[BUFFER_BYTES];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            while (true) {
                int n;
                try {
                    n = in.read(buffer);
                } catch (IOException e) {
                    n = BROKEN; // a peer's RST, or our own close(); the gate tells which by open::get
                }
                int len = n;
                boolean forwarded = gate.forward(open::get, () -> {
                    try {
                        if (len > 0) {
                            out.write(buffer, 0, len);
                            wrote.accept(System.nanoTime());
                        } else if (len == EOF) {
                            to.shutdownOutput(); // keep half-close semantics: the other direction may still flow
                        } else {
                            abort();
                        }
                    } catch (IOException e) {
                        abort(); // done under the gate so a silent() cannot start in between
                    }
                });
                if (!forwarded || len < 0 || !open.get()) {
                    if (forwarded && len == EOF && finishedDirections.incrementAndGet() == 2) {
                        close(false);
                    }
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            abort();
        }
    }

    private void close(boolean abortive) {
        Socket s;
        synchronized (this) {
            if (!open.compareAndSet(true, false)) {
                return;
            }
            s = server;
        }
        closeQuietly(client, abortive);
        if (s != null) {
            closeQuietly(s, abortive);
        }
        LOG.debug("{}: closed ({})", name, abortive ? "reset" : "orderly");
        onClosed.accept(this);
        gate.wakeAll(); // a pump parked on a silent gate must notice its connection is gone
    }

    private void spawn(String direction, Runnable body) {
        Thread t = new Thread(body, name + "-" + direction);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    static void closeQuietly(Socket s, boolean abortive) {
        try {
            if (abortive && !s.isClosed()) {
                s.setSoLinger(true, 0);
            }
            s.close();
        } catch (IOException e) {
            LOG.trace("close failed", e);
        }
    }
}
