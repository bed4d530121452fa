package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One acquisition attempt at a time, and no request lost while one runs. */
class AttemptsTest {
  private final AtomicInteger fulls = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger overlaps = new AtomicInteger();

  @Test
  void aFastAttemptInFlightHoldsBackEveryOtherUntilItEnds() throws Exception {
    try (Attempts attempts = new Attempts("test-attempts", fulls::incrementAndGet)) {
      AtomicInteger fasts = new AtomicInteger();
      attempts.request(() -> fasts.incrementAndGet() > 0); // in flight, like an async multi
      attempts.request(() -> fasts.incrementAndGet() > 0);
      attempts.request(null);
      Thread.sleep(200);
      assertThat(fasts).hasValue(1);
      assertThat(fulls).hasValue(0);

      attempts.ended(); // the fast attempt granted: the requests made meanwhile get one full attempt
      await().atMost(Duration.ofSeconds(5)).untilAtomic(fulls, org.hamcrest.Matchers.is(1));
      Thread.sleep(200);
      assertThat(fulls).hasValue(1);
    }
  }

  @Test
  void aFastAttemptThatFailsHandsOverToTheFullOneAndTheGateOpensAfterIt() throws Exception {
    try (Attempts attempts = new Attempts("test-attempts", fulls::incrementAndGet)) {
      attempts.request(() -> true);
      attempts.fastFailed();
      await().atMost(Duration.ofSeconds(5)).untilAtomic(fulls, org.hamcrest.Matchers.is(1));
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        attempts.request(() -> false); // not tried fast: the worker runs it
        return fulls.get() >= 2;
      });
    }
  }

  @Test
  void fullAttemptsNeverOverlapHoweverManyRequestsCome() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Runnable slow = () -> {
      if (running.incrementAndGet() > 1) {
        overlaps.incrementAndGet();
      }
      try {
        release.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      fulls.incrementAndGet();
      running.decrementAndGet();
    };
    try (Attempts attempts = new Attempts("test-attempts", slow)) {
      Thread[] callers = new Thread[8];
      for (int i = 0; i < callers.length; i++) {
        callers[i] = new Thread(() -> {
          for (int j = 0; j < 50; j++) {
            attempts.request(j % 2 == 0 ? null : () -> false);
          }
        });
        callers[i].start();
      }
      for (Thread t : callers) {
        t.join();
      }
      release.countDown();
      // The first attempt ran; all 399 requests made while it ran are served by one more.
      await().atMost(Duration.ofSeconds(5)).untilAtomic(fulls, org.hamcrest.Matchers.is(2));
      Thread.sleep(200);
      assertThat(fulls).hasValue(2);
      assertThat(overlaps).hasValue(0);
    }
  }
}
