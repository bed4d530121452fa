package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * G2: a holder cut off for longer than T stops at {@code lastAck + grace}, and the contender, which
 * can only win once the server expired the holder's session, starts acting after that.
 */
class SafetyTest {
  private static final Duration T = Duration.ofSeconds(6);
  private static final Duration TOLERANCE = Duration.ofMillis(250);
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static TestingServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ZkServers.standalone();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void partitionedHolderStopsAtItsDeadlineBeforeTheContenderActs(Fault fault) throws Exception {
    String path = "/safety/lease-" + PATHS.incrementAndGet();
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", server.getPort()));
         Holder a = new Holder(config(proxy.connectString(), path, "a")).start();
         Holder b = new Holder(config(server.getConnectString(), path, "b"))) {
      Holder.Grant grantA = a.awaitGrant(Duration.ofSeconds(10));
      b.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);

      fault.inject(proxy);
      long faultAt = System.nanoTime();
      Holder.Revocation revoked = a.awaitRevocation(T);
      Holder.Grant grantB = b.awaitGrant(T.multipliedBy(2));

      LeaseTiming timing = a.lease.state().timing();
      long deadline = a.lease.state().lastAckNanos() + timing.grace().toNanos();
      assertThat(revoked.reason()).isEqualTo(RevocationReason.GRACE_EXPIRED);
      assertThat(Math.abs(revoked.atNanos() - deadline)).isLessThan(TOLERANCE.toNanos());
      assertThat(grantB.epoch().value()).isEqualTo(grantA.epoch().value() + 1);
      // Acting intervals: a from its grant to its revocation, b from its grant on. Disjoint:
      assertThat(grantB.atNanos()).isGreaterThan(revoked.atNanos());
      System.out.printf("G2 %s: a revoked %d ms after the fault (deadline error %+d ms), b acting "
              + "%d ms after the fault, gap %d ms%n", fault, ms(revoked.atNanos() - faultAt),
          ms(revoked.atNanos() - deadline), ms(grantB.atNanos() - faultAt),
          ms(grantB.atNanos() - revoked.atNanos()));
      proxy.heal();
      assertThat(a.grants).hasSize(1);
    }
  }

  private static LeaseConfig config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(T).connectionTimeout(Duration.ofSeconds(5)).build();
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
