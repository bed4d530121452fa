package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker count's own ZooKeeper session, on a real server, reached as the AM reaches it. An AM
 * whose lease is lost exits 75 so that YARN's next attempt starts; closing its count reader must not
 * hold that exit for as long as ZooKeeper's client waits on a silent link (DemoIT once saw attempt
 * 1's AM live 11 s past its revocation, past its session's end).
 */
class WorkerCountTest {
  private static final String LEASE = "/amlease/worker-count-test";

  private TestingServer server;
  private FaultProxy proxy;
  private ZkLease lease;
  private WorkerCount count;
  private final List<Epoch> grants = new CopyOnWriteArrayList<>();
  private final List<Integer> targets = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = new TestingServer(true);
    proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", server.getPort()));
    lease = ZkLease.create(LeaseConfig.builder().connectString(server.getConnectString())
        .leasePath(LEASE).holderId("am-1").sessionTimeout(Duration.ofSeconds(10))
        .connectionTimeout(Duration.ofSeconds(5)).build(), new LeaseListener() {
          @Override
          public void granted(Epoch epoch) {
            grants.add(epoch);
          }

          @Override
          public void revoked(Epoch epoch, RevocationReason reason) {}

          @Override
          public void failed(LeaseException cause) {}
        });
    lease.start();
  }

  @AfterEach
  void stop() throws Exception {
    proxy.heal();
    if (count != null) {
      count.close();
    }
    lease.close();
    proxy.close();
    server.close();
  }

  @Test
  void closingOnASilentLinkDoesNotWaitForZooKeeper() {
    await().atMost(Duration.ofSeconds(20)).until(() -> !grants.isEmpty());
    count = new WorkerCount(lease, proxy.connectString(), Duration.ofSeconds(5), LEASE, 2, true,
        (epoch, workers) -> targets.add(workers));
    count.lead(grants.get(0));
    await().atMost(Duration.ofSeconds(20)).until(() -> !targets.isEmpty());
    assertThat(targets).as("the submitted count, read through the proxy").containsExactly(2);

    proxy.silent();
    long before = System.nanoTime();
    count.close();
    Duration took = Duration.ofNanos(System.nanoTime() - before);

    // The reader's session close is bounded (0.5 s); unbounded it took 13.3 s here, waiting for the
    // client to give up on the connection.
    assertThat(took).as("close on a silent link").isLessThan(Duration.ofSeconds(2));
  }
}
