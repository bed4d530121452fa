package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** G5: a clean release hands the lease to a waiting contender at once, not after T. */
class HandoverTest {
  private static final Duration T = Duration.ofSeconds(10);

  @Test
  void cleanReleaseHandsOverWithoutWaitingForSessionExpiry() throws Exception {
    try (TestingServer server = ZkServers.standalone();
         CuratorFramework admin = ZkClients.connectReader(server.getConnectString(),
             Duration.ofSeconds(5));
         Holder a = new Holder(config(server, "a")).start();
         Holder b = new Holder(config(server, "b"))) {
      Holder.Grant grantA = a.awaitGrant(Duration.ofSeconds(10));
      b.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);

      long releasedAt = System.nanoTime();
      a.lease.release(Duration.ofSeconds(5));
      Holder.Grant grantB = b.awaitGrant(T);

      long handoverMs = TimeUnit.NANOSECONDS.toMillis(grantB.atNanos() - releasedAt);
      System.out.printf("G5 clean handover: %d ms (T = %s)%n", handoverMs, T);
      assertThat(a.awaitRevocation(Duration.ofSeconds(1)).reason())
          .isEqualTo(RevocationReason.RELEASED);
      assertThat(a.revocations.get(0).atNanos()).isLessThan(grantB.atNanos());
      assertThat(grantB.epoch().value()).isEqualTo(grantA.epoch().value() + 1);
      // Far below T: the contender did not wait for a's session to expire.
      assertThat(handoverMs).isLessThan(T.toMillis() / 4);
      assertThat(new String(admin.getData().forPath("/handover/lease/leader"))).contains("\"b\"");
    }
  }

  private static LeaseConfig config(TestingServer server, String id) {
    return LeaseConfig.builder().connectString(server.getConnectString()).leasePath("/handover/lease")
        .holderId(id).sessionTimeout(T).build();
  }
}
