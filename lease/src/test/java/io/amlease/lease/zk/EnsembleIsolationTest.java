package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaseConfig;
import io.amlease.testkit.ZkEnsemble;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G2 in an ensemble: a holder whose only server is a follower cut off from the quorum leader stops
 * acting before a contender connected to the majority acquires.
 *
 * <p>At ZooKeeper's sample timing (2 s ticks, syncLimit 5) the isolated follower goes on answering
 * reads and pings from its own state for up to 10 s, while the leader, no longer told of the holder's
 * touches, expires its session T = 10 s after the last one it heard of. A renewal answered by such a
 * follower proves nothing (DESIGN.md G2: only an answer that went through the quorum leader may set
 * {@code lastAck}); a holder that counts it keeps acting until about 10 s + grace, long after the
 * contender took over.
 */
class EnsembleIsolationTest {
  private static final Duration T = Duration.ofSeconds(10);
  private static final Duration GRACE = Duration.ofSeconds(6);
  /** Both edges come by about 2T even when the holder wrongly trusts the follower. */
  private static final Duration BOTH_EDGES = T.multipliedBy(3);
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static final Logger LOG = LoggerFactory.getLogger(EnsembleIsolationTest.class);
  private static ZkEnsemble ensemble;

  @BeforeAll
  static void startEnsemble() throws Exception {
    ensemble = ZkEnsemble.start(ZkEnsemble.Timing.SAMPLE);
  }

  @AfterAll
  static void stopEnsemble() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @RepeatedTest(2)
  void aHolderOnAnIsolatedFollowerStopsBeforeTheMajoritysContenderAcquires(RepetitionInfo trial)
      throws Exception {
    int[] followers = ensemble.followers();
    // Each trial isolates another follower, so that no one server's quirks decide the outcome.
    int follower = followers[(trial.getCurrentRepetition() - 1) % followers.length];
    int[] majority = Arrays.stream(ensemble.ids()).filter(id -> id != follower).toArray();
    String path = "/ensemble-isolation/lease-" + PATHS.incrementAndGet();
    try (Holder a = new Holder(config(ensemble.connectString(follower), path, "a")).start();
         Holder b = new Holder(config(ensemble.connectString(majority), path, "b"))) {
      Holder.Grant grantA = a.awaitGrant(Duration.ofSeconds(10));
      b.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> a.lease.participants().size() == 2);

      ensemble.isolate(follower);
      long isolated = System.nanoTime();
      try {
        await().atMost(BOTH_EDGES).until(() -> !a.revocations.isEmpty() && !b.grants.isEmpty());
      } finally {
        ensemble.heal(follower);
      }
      Holder.Revocation revokedA = a.revocations.get(0);
      Holder.Grant grantB = b.grants.get(0);
      long lastAckA = a.lease.state().lastAckNanos();
      LOG.info("G2 ensemble, trial {} (leader {}, isolated follower {}): a's last ack {} ms, "
              + "a revoked ({}) {} ms, b granted {} ms after isolation; b - a = {} ms",
          trial.getCurrentRepetition(), ensemble.leader().orElse(-1), follower, ms(lastAckA - isolated),
          revokedA.reason(), ms(revokedA.atNanos() - isolated), ms(grantB.atNanos() - isolated),
          ms(grantB.atNanos() - revokedA.atNanos()));

      assertThat(grantA.epoch().value()).isEqualTo(1);
      assertThat(grantB.epoch().value()).isEqualTo(2);
      assertThat(revokedA.atNanos())
          .as("a revoked %d ms after isolation, b granted %d ms after: a must stop first (G2)",
              ms(revokedA.atNanos() - isolated), ms(grantB.atNanos() - isolated))
          .isLessThan(grantB.atNanos());
    } finally {
      // The next trial needs the whole quorum back: its own isolation must leave a majority.
      ensemble.heal(follower);
      ensemble.awaitServing(ensemble.ids());
      await().atMost(Duration.ofSeconds(30)).until(() -> ensemble.syncedFollowers() == 2);
    }
  }

  private static LeaseConfig config(String connect, String path, String id) {
    return LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(T).grace(GRACE).connectionTimeout(Duration.ofSeconds(5)).build();
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
