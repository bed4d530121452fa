package io.amlease.demo;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * The sample worker: finds the master through the lease's leader info (the endpoint the master
 * published), connects, and whenever the connection ends (the master of that term stopped)
 * looks the master up again and reconnects, to the next term's master after a failover. Each
 * connection's first "epoch N" is recorded as "CONTAINER_ID N MILLIS" in the file given as its
 * argument.
 */
public final class DemoWorker {
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final int READ_TIMEOUT_MS = 3_000;

  private DemoWorker() {}

  public static void main(String[] args) throws Exception {
    Path record = Path.of(args[0]);
    String container = System.getenv("CONTAINER_ID");
    try (CuratorFramework zk = ZkClients.connectReader(System.getenv("AMLEASE_ZK"),
        Duration.ofSeconds(60));
         LeaderReader reader = new LeaderReader(zk, System.getenv("AMLEASE_LEASE"))) {
      while (true) {
        Optional<String> rpc = endpoint(reader);
        if (rpc.isPresent()) {
          follow(rpc.get(), container, record);
        }
        Thread.sleep(RETRY.toMillis());
      }
    }
  }

  private static Optional<String> endpoint(LeaderReader reader) {
    try {
      return reader.current().map(LeaderInfo::urls).map(u -> u.get(DemoEndpoint.NAME));
    } catch (Exception e) {
      return Optional.empty(); // ZooKeeper unreachable for now: look again
    }
  }

  /** Stays connected to the master at {@code rpc} for as long as it talks. */
  private static void follow(String rpc, String container, Path record) {
    int colon = rpc.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(rpc.substring(0, colon),
          Integer.parseInt(rpc.substring(colon + 1))), READ_TIMEOUT_MS);
      s.setSoTimeout(READ_TIMEOUT_MS);
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
          StandardCharsets.US_ASCII));
      String first = in.readLine();
      if (first == null || !first.startsWith("epoch ")) {
        return;
      }
      Files.writeString(record, container + " " + first.substring("epoch ".length()).trim() + " "
          + System.currentTimeMillis() + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      while (in.readLine() != null) {
        // Connected to a live master.
      }
    } catch (IOException | RuntimeException e) {
      // Gone or not yet there (a stale endpoint): look it up again.
    }
  }
}
