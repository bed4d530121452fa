package io.amlease.demo;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseException;
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
 * master: the master's script kills it on exit, and the AM stops the master's whole process group.
 * Its argument, the demo's work directory, is only there for the demo's leak check to find it.
 */
public final class DemoEndpoint {
  static final String NAME = "rpc";
  private static final Duration TELL_EVERY = Duration.ofMillis(500);
  private static final Duration PUBLISH_WITHIN = Duration.ofSeconds(60);

  private DemoEndpoint() {}

  public static void main(String[] args) throws Exception {
    Epoch epoch = new Epoch(Long.parseLong(System.getenv("AMLEASE_EPOCH")),
        Integer.parseInt(System.getenv("AMLEASE_EPOCH_TOKEN")),
        System.getenv("AMLEASE_EPOCH_INCARNATION"));
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      publish(epoch, server.getLocalPort());
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

  /** Retries while ZooKeeper is unreachable; gives up (and exits) once the term is over. */
  private static void publish(Epoch epoch, int port) throws Exception {
    long deadline = System.nanoTime() + PUBLISH_WITHIN.toNanos();
    while (true) {
      try (CuratorFramework zk = ZkClients.connectReader(System.getenv("AMLEASE_ZK"),
          Duration.ofSeconds(5))) {
        Endpoints.publish(zk, System.getenv("AMLEASE_LEASE"), epoch,
            Map.of(NAME, "127.0.0.1:" + port));
        return;
      } catch (LeaseException.Unavailable e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        System.err.println("endpoint: cannot publish yet (" + e.getMessage() + "); retrying");
        Thread.sleep(500);
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
