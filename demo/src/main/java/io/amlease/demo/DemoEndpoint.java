package io.amlease.demo;

import io.amlease.lease.Epoch;
import io.amlease.lease.zk.Endpoints;
import io.amlease.lease.zk.ZkClients;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;

/**
 * The sample master's endpoint, started by its script: listens on loopback, publishes
 * {@code rpc=127.0.0.1:PORT} into the leader info of its term (fenced by the token in its
 * environment), and tells every worker that connects "epoch N" twice a second. It dies with the
 * master: the AM stops the master's whole process group.
 */
public final class DemoEndpoint {
  static final String NAME = "rpc";
  private static final Duration TELL_EVERY = Duration.ofMillis(500);

  private DemoEndpoint() {}

  public static void main(String[] args) throws Exception {
    Epoch epoch = new Epoch(Long.parseLong(System.getenv("AMLEASE_EPOCH")),
        Integer.parseInt(System.getenv("AMLEASE_EPOCH_TOKEN")));
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      try (CuratorFramework zk = ZkClients.connectReader(System.getenv("AMLEASE_ZK"),
          Duration.ofSeconds(15))) {
        Endpoints.publish(zk, System.getenv("AMLEASE_LEASE"), epoch,
            Map.of(NAME, "127.0.0.1:" + server.getLocalPort()));
      }
      System.out.println("endpoint: epoch " + epoch.value() + " serves " + NAME + "=127.0.0.1:"
          + server.getLocalPort());
      while (true) {
        Socket worker = server.accept();
        Thread t = new Thread(() -> tell(worker, epoch.value()), "endpoint-" + worker.getPort());
        t.setDaemon(true);
        t.start();
      }
    }
  }

  private static void tell(Socket worker, long epoch) {
    try (worker; OutputStream out = worker.getOutputStream()) {
      byte[] line = ("epoch " + epoch + "\n").getBytes(StandardCharsets.US_ASCII);
      while (true) {
        out.write(line);
        out.flush();
        Thread.sleep(TELL_EVERY.toMillis());
      }
    } catch (IOException | InterruptedException e) {
      // The worker went away: nothing to do.
    }
  }
}
