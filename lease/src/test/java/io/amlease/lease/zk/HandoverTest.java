package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseState;
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
      assertHoldsAlone(admin, b, grantB);
    }
  }

  /**
   * The fast first attempt fails (a's leader node is still there: an operator removed a's latch
   * node, not its session), and the full attempt that takes over replaces it: b leads in epoch 2,
   * once, and a is superseded.
   */
  @Test
  void aFailedFastAttemptFallsBackToTheFullOneAndGrantsOnce() throws Exception {
    try (TestingServer server = ZkServers.standalone();
         CuratorFramework admin = ZkClients.connectReader(server.getConnectString(),
             Duration.ofSeconds(5));
         Holder a = new Holder(config(server, "a")).start();
         Holder b = new Holder(config(server, "b"))) {
      Holder.Grant grantA = a.awaitGrant(Duration.ofSeconds(10));
      b.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> a.lease.participants().size() == 2);

      admin.delete().forPath(a.lease.latchPathForTest());
      Holder.Grant grantB = b.awaitGrant(T);

      assertThat(grantB.epoch().value()).isEqualTo(grantA.epoch().value() + 1);
      assertThat(a.awaitRevocation(T).reason()).isEqualTo(RevocationReason.SUPERSEDED);
      assertThat(new String(admin.getData().forPath("/handover/lease/leader"))).contains("\"b\"");
      assertHoldsAlone(admin, b, grantB);
    }
  }

  /** A moment later b still holds its grant, granted once, and the epoch's version is its token. */
  private static void assertHoldsAlone(CuratorFramework admin, Holder b, Holder.Grant grant)
      throws Exception {
    Thread.sleep(500);
    assertThat(b.grants).as("grants of b").hasSize(1);
    assertThat(b.lease.state().phase()).isEqualTo(LeaseState.Phase.HOLDING);
    assertThat(admin.checkExists().forPath("/handover/lease/epoch").getVersion())
        .as("the epoch's version: b's token, not bumped again").isEqualTo(grant.epoch().token());
  }

  private static LeaseConfig config(TestingServer server, String id) {
    return LeaseConfig.builder().connectString(server.getConnectString()).leasePath("/handover/lease")
        .holderId(id).sessionTimeout(T).build();
  }
}
