package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseState;
import io.amlease.lease.RevocationReason;
import io.amlease.testkit.FaultProxy;
import io.amlease.testkit.ZkEnsemble;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Item 2 of issue 24: a contender's session must be renewed while it campaigns (DESIGN.md §1 G2).
 *
 * <p>The ensemble's leader hears of a session touched on a follower only from that follower's
 * answers to its pings (every tick/2). An idle contender's session is touched by its client's pings
 * alone, several seconds apart at T = 20 s. When the holder releases just before such a ping is due,
 * the contender's acquiring multi is its first request for that long; if the follower is cut off
 * from its peers right after the multi, the leader never hears of it and expires the session T
 * after the ping, while the new holder counts its deadline from the multi. With the grace G2 allows
 * for a renew interval of 0.5 s (17.5 s), that was a second or more of two holders.
 */
class IdleContenderTest {
  private static final Logger LOG = LoggerFactory.getLogger(IdleContenderTest.class);
  /** 1 s ticks allow sessions up to 20 ticks; syncLimit 2 lets the cut follower drop its clients. */
  private static final ZkEnsemble.Timing TIMING = new ZkEnsemble.Timing(1000, 4, 2);
  private static final Duration T = Duration.ofSeconds(20);
  private static final Duration RENEW = Duration.ofMillis(500);
  /** G2's most for T = 20 s, ρ = 0.05, slack 1 s and a 0.5 s renew interval: 19 − 1 − 0.5. */
  private static final Duration GRACE = Duration.ofMillis(17_500);
  /** Less than an idle client's ping interval at T = 20 s (T/3 less up to 1 s: 5.67 s or more). */
  private static final Duration QUIET = Duration.ofMillis(4_500);

  private static ZkEnsemble ensemble;

  @BeforeAll
  static void startEnsemble() throws Exception {
    ensemble = ZkEnsemble.start(TIMING);
  }

  @AfterAll
  static void stopEnsemble() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void aContenderGrantedThroughAFollowerCutOffRightAfterItsMultiStopsBeforeItsSessionExpires()
      throws Exception {
    String path = "/idle-contender/l";
    int leader = ensemble.leader().getAsInt();
    int follower = ensemble.followers()[0];
    String onLeader = ensemble.connectString(leader);
    try (Holder a = new Holder(config(onLeader, path, "a")).start();
         FaultProxy link = FaultProxy.start(ensemble.clientAddress(follower));
         Holder b = new Holder(config(link.connectString(), path, "b"))) {
      a.awaitGrant(Duration.ofSeconds(20));
      b.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> b.lease.participants().size() == 2);
      // B's next request after its campaign is set up: a ping, or (renewed) a sync.
      long settled = System.nanoTime();
      await().atMost(T).pollInterval(Duration.ofMillis(5))
          .until(() -> link.lastForwardedFromClientNanos() - settled > 0);
      long quietSince = link.lastForwardedFromClientNanos();
      long releaseAt = quietSince + QUIET.toNanos();
      Thread.sleep(Math.max(0, (releaseAt - System.nanoTime()) / 1_000_000)); // Times the fault.
      LOG.info("B's last request before the release went {} ms ago",
          (System.nanoTime() - link.lastForwardedFromClientNanos()) / 1_000_000);
      a.close();

      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
          .until(() -> !b.grants.isEmpty());
      ensemble.isolate(follower);
      Holder.Grant bGrant = b.grants.get(0);
      LeaseState held = b.lease.state();
      assertThat(held.timing().grace()).isEqualTo(GRACE);

      try (Holder c = new Holder(config(onLeader, path, "c")).start()) {
        Holder.Grant cGrant = c.awaitGrant(T.plus(Duration.ofSeconds(10)));
        Holder.Revocation bEnd = b.awaitRevocation(T);
        LOG.info("B held from its grant for {} ms; C was granted {} ms after B's revocation",
            (bEnd.atNanos() - bGrant.atNanos()) / 1_000_000,
            (cGrant.atNanos() - bEnd.atNanos()) / 1_000_000);
        assertThat(bEnd.reason()).isEqualTo(RevocationReason.GRACE_EXPIRED);
        assertThat(cGrant.epoch().value()).isEqualTo(bGrant.epoch().value() + 1);
        // G2: the leadership intervals are disjoint.
        assertThat(bEnd.atNanos()).as("B's revocation (GRACE_EXPIRED) comes before C's grant; C was"
            + " granted %d ms after it", (cGrant.atNanos() - bEnd.atNanos()) / 1_000_000)
            .isLessThan(cGrant.atNanos());
      } finally {
        ensemble.heal(follower);
        ensemble.awaitServing(ensemble.ids());
      }
    }
  }

  private static LeaseConfig config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(T).connectionTimeout(Duration.ofSeconds(5)).renewInterval(RENEW)
        .grace(GRACE).build();
  }
}
