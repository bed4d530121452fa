package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.ManualClock;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A term's renewals on a real ZooKeeper session, ticked by a {@link ManualClock}: whatever one
 * renewal tick meets, the next is scheduled, so one bad tick cannot stop renewals and let the
 * watchdog end a healthy term (G1).
 */
class LivenessTest {
  @RegisterExtension
  static final StandaloneZk zk = new StandaloneZk();

  private static final Duration RENEW = Duration.ofSeconds(1);

  @Test
  void aRenewalTickThatThrowsStillSchedulesTheNext() throws Exception {
    ZooKeeper handle = zk.admin().getZookeeperClient().getZooKeeper();
    LeasePaths paths = new LeasePaths("/liveness");
    zk.admin().create().creatingParentsIfNeeded().forPath(paths.epoch(), "1".getBytes());
    ManualClock clock = new ManualClock();
    // The term asked for a longer session timeout than the handle's, so every tick re-times it;
    // the first re-timing fails with an error nobody planned for.
    AtomicInteger retimes = new AtomicInteger();
    AtomicInteger renewed = new AtomicInteger();
    List<RevocationReason> revoked = new CopyOnWriteArrayList<>();
    Term term = new Term(new Epoch(1, 0, "i-liveness"), handle.getSessionId(), "/liveness/latch/n",
        null);
    Liveness liveness = new Liveness(term, clock.nanoTime(), clock,
        new LeaseTiming(Duration.ofSeconds(60), Duration.ofSeconds(30), RENEW, Duration.ofSeconds(1)),
        t -> {
          if (retimes.incrementAndGet() == 1) {
            throw new IllegalStateException("an unplanned error in the first tick");
          }
          return new LeaseTiming(t, Duration.ofSeconds(20), RENEW, Duration.ofSeconds(1));
        },
        paths, new LeaseObserver() {
          @Override
          public void renewed(Duration latency) {
            renewed.incrementAndGet();
          }
        }, () -> handle, (reason, detail) -> revoked.add(reason));
    liveness.start();

    assertThatThrownBy(() -> clock.advance(RENEW)).isInstanceOf(IllegalStateException.class);
    assertThat(renewed).hasValue(0);
    clock.advance(RENEW);
    assertThat(retimes).as("the second tick ran").hasValue(2);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(renewed).hasValue(1));
    assertThat(revoked).isEmpty();
    liveness.stop();
  }
}
