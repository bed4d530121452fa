package io.amlease.testkit;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {

    /** Long enough that a forwarded echo on loopback would certainly have arrived. */
    private static final int QUIET_MILLIS = 300;
    private static final int ARRIVE_MILLIS = 5_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private EchoServer echo;
    private FaultProxy proxy;

    @BeforeEach
    void setUp() throws IOException {
        echo = track(new EchoServer());
        proxy = track(FaultProxy.start(echo.address()));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void forwardsBothWays() throws IOException {
        assertThat(proxy.connectString()).isEqualTo("127.0.0.1:" + proxy.port());
        assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.FORWARDING);

        Socket client = connect();
        assertThat(roundTrip(client, "hello")).isEqualTo("hello");
        assertThat(proxy.connectionCount()).isEqualTo(1);
    }

    @Test
    void silentHoldsTrafficOnOpenConnectionsUntilHeal() throws IOException {
        Socket client = connect();
        assertThat(roundTrip(client, "before")).isEqualTo("before");
        long received = echo.bytesReceived.get();

        proxy.silent();
        assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.SILENT);
        send(client, "during");

        assertNoBytesWithin(client, QUIET_MILLIS);
        assertThat(echo.bytesReceived.get()).as("bytes that reached the server while silent").isEqualTo(received);
        assertThat(proxy.connectionCount()).isEqualTo(1);

        proxy.heal();
        assertThat(read(client, "during".length())).isEqualTo("during");
    }

    @Test
    void streamSurvivesRepeatedPartitionsIntactAndInOrder() throws Exception {
        Socket client = connect();
        byte[] sent = new byte[1 << 20];
        new Random(42).nextBytes(sent);
        AtomicLong echoed = new AtomicLong();
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
            try {
                byte[] got = new byte[sent.length];
                client.setSoTimeout(ARRIVE_MILLIS);
                for (int off = 0, n; off < got.length; off += n) {
                    n = client.getInputStream().read(got, off, Math.min(4096, got.length - off));
                    if (n < 0) {
                        throw new IOException("EOF after " + off);
                    }
                    echoed.addAndGet(n);
                }
                return got;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                for (int off = 0; off < sent.length; off += 8192) {
                    client.getOutputStream().write(sent, off, Math.min(8192, sent.length - off));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });

        for (int i = 0; i < 10 && !received.isDone(); i++) {
            long before = echoed.get();
            await().atMost(Duration.ofSeconds(5)).until(() -> echoed.get() > before || received.isDone());
            proxy.silent();
            proxy.heal();
        }

        writer.get(10, TimeUnit.SECONDS);
        assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(sent);
    }

    @Test
    void silentHoldsNewConnectionsAwayFromTheTarget() throws IOException {
        proxy.silent();
        Socket client = connect();
        send(client, "hi");

        assertNoBytesWithin(client, QUIET_MILLIS);
        assertThat(echo.accepted.get()).as("connections the server saw while silent").isZero();

        proxy.heal();
        assertThat(read(client, 2)).isEqualTo("hi");
        assertThat(echo.accepted.get()).isEqualTo(1);
    }

    @Test
    void silentHoldsACloseUntilHeal() throws IOException {
        Socket client = connect();
        assertThat(roundTrip(client, "x")).isEqualTo("x");

        proxy.silent();
        client.close();
        // The server must not learn of the close: a partitioned peer sees no FIN either.
        await().during(Duration.ofMillis(QUIET_MILLIS)).atMost(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(echo.open.get()).isEqualTo(1));

        proxy.heal();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(echo.open.get()).isZero();
            assertThat(proxy.connectionCount()).isZero();
        });
    }

    @Test
    void resetSendsRstAndRefusesConnectionsUntilHealOnTheSamePort() throws IOException {
        int port = proxy.port();
        Socket client = connect();
        assertThat(roundTrip(client, "x")).isEqualTo("x");

        proxy.reset();
        assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.RESET);
        assertThat(proxy.connectionCount()).isZero();
        client.setSoTimeout(ARRIVE_MILLIS);
        assertThatThrownBy(() -> client.getInputStream().read())
                .isInstanceOf(SocketException.class).hasMessageContaining("reset");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(echo.open.get()).isZero());

        assertRefused(port);
        assertThat(echo.accepted.get()).isEqualTo(1);

        proxy.heal();
        assertThat(proxy.port()).isEqualTo(port);
        assertThat(roundTrip(connect(), "again")).isEqualTo("again");
    }

    @Test
    void retargetSendsNewConnectionsToTheNewServer() throws IOException {
        Socket old = connect();
        assertThat(roundTrip(old, "a")).isEqualTo("a");
        EchoServer restarted = track(new EchoServer());

        proxy.retarget(restarted.address());

        assertThat(proxy.target()).isEqualTo(restarted.address());
        assertThat(roundTrip(connect(), "b")).isEqualTo("b");
        assertThat(restarted.accepted.get()).isEqualTo(1);
        assertThat(roundTrip(old, "c")).as("existing connections keep their server").isEqualTo("c");
        assertThat(echo.accepted.get()).isEqualTo(1);
    }

    /** A ZooKeeper follower dials a new leader before it listens, and expects a refused connect. */
    @Test
    void aProxyThatRetriesRefusedConnectsForwardsOnceTheTargetListens() throws Exception {
        InetSocketAddress later;
        try (EchoServer gone = new EchoServer()) {
            later = gone.address();
        }
        FaultProxy patient = track(FaultProxy.start(later, Duration.ofSeconds(5)));
        FaultProxy plain = track(FaultProxy.start(later));
        Socket early = track(new Socket("127.0.0.1", patient.port()));
        send(early, "early");
        Socket reset = track(new Socket("127.0.0.1", plain.port()));
        assertClosedByPeer(reset);

        EchoServer listening = track(new EchoServer(later.getPort()));

        assertThat(read(early, "early".length())).isEqualTo("early");
        assertThat(listening.accepted.get()).isEqualTo(1);
    }

    @Test
    void closeEndsConnectionsThreadsAndTheListener() throws IOException {
        int port = proxy.port();
        Socket forwarding = connect();
        assertThat(roundTrip(forwarding, "x")).isEqualTo("x");
        proxy.silent();
        Socket held = connect();
        send(held, "y");
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.connectionCount() == 2);

        proxy.close();
        proxy.close();

        assertThat(proxy.connectionCount()).isZero();
        assertClosedByPeer(forwarding);
        assertClosedByPeer(held);
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        assertThat(proxyThreads(port)).isEmpty();
    }

    private static List<String> proxyThreads(int port) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("fault-proxy-" + port + "-"))
                .toList();
    }

    /**
     * During RESET the kernel may complete a connect, but the proxy resets it before any byte flows;
     * the RST can even win the race with the connect call itself.
     */
    private static void assertRefused(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), ARRIVE_MILLIS);
            s.setSoTimeout(ARRIVE_MILLIS);
            assertThat(s.getInputStream().read()).as("read on a connection made during RESET").isEqualTo(-1);
        } catch (SocketException e) {
            // ConnectException (refused) or "Connection reset": both mean nothing got through
        }
    }

    private static void assertClosedByPeer(Socket s) throws IOException {
        s.setSoTimeout(ARRIVE_MILLIS);
        try {
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        } catch (SocketException e) {
            assertThat(e).hasMessageContaining("reset");
        }
    }

    private static void assertNoBytesWithin(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", proxy.port());
        resources.add(s);
        return s;
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private static String roundTrip(Socket s, String message) throws IOException {
        send(s, message);
        return read(s, message.length());
    }

    private static void send(Socket s, String message) throws IOException {
        s.getOutputStream().write(message.getBytes(US_ASCII));
    }

    private static String read(Socket s, int length) throws IOException {
        s.setSoTimeout(ARRIVE_MILLIS);
        byte[] bytes = new byte[length];
        new DataInputStream(s.getInputStream()).readFully(bytes);
        return new String(bytes, US_ASCII);
    }
}
