package io.amlease.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * A real single ZooKeeper server on loopback, in this JVM. A tick of 500 ms lets sessions be
 * negotiated between 1 s and 10 s (the server clamps to [2, 20] ticks), so T = 4 s and 10 s are both
 * granted as requested.
 */
final class ZkServer implements AutoCloseable {
  static final int TICK_MS = 500;
  private static final Pattern RECEIVED = Pattern.compile("Received: (\\d+)");

  private final TestingServer server;

  private ZkServer(TestingServer server) {
    this.server = server;
  }

  static ZkServer start() throws Exception {
    // The in-process server reads its four-letter-word whitelist from this system property only;
    // "srvr" is how the scale scenario counts requests without touching the server's internals.
    System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
    // maxClientCnxns: the server's default of 60 connections per client address would refuse the
    // scale scenario's leases, which all come from 127.0.0.1 (in production, from many hosts).
    // clientPortAddress: loopback only; without it the server listens on every interface.
    InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1,
        Map.of("maxClientCnxns", "0", "clientPortAddress", "127.0.0.1"), "127.0.0.1");
    return new ZkServer(new TestingServer(spec, true));
  }

  String connectString() {
    return "127.0.0.1:" + server.getPort();
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.getPort());
  }

  /** Stops and starts the server on the same port and data (sessions survive if short enough). */
  void restart() throws Exception {
    server.restart();
  }

  /** Packets the server has received since it started (ZooKeeper's {@code srvr} "Received"). */
  long packetsReceived() throws IOException {
    try (Socket s = new Socket()) {
      s.connect(address(), 2000);
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write("srvr".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      Matcher m = RECEIVED.matcher(text);
      if (!m.find()) {
        throw new IOException("no 'Received' in srvr output: " + text);
      }
      return Long.parseLong(m.group(1));
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
