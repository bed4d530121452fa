package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * One acquisition attempt at a time, and no request lost while one runs. A fast attempt (sent from
 * the latch's callback) and a full one (on the worker) must never be in flight together: the
 * second multi would bump the epoch over the first one's fresh term.
 */
class AttemptsTest {
  private static final Duration SOON = Duration.ofSeconds(5);
  /** How long "nothing more happens" is watched for. */
  private static final long QUIET_MS = 300;

  private final AtomicInteger fulls = new AtomicInteger();
  private final AtomicInteger fasts = new AtomicInteger();

  @Test
  void aFastAttemptInFlightHoldsBackEveryOtherUntilItEnds() throws Exception {
    try (Attempts attempts = new Attempts("test-attempts", fulls::incrementAndGet)) {
      attempts.request(this::fastInFlight);
      attempts.request(this::fastInFlight);
      attempts.request(null);
      Thread.sleep(QUIET_MS);
      assertThat(fasts).as("fast attempts started").hasValue(1);
      assertThat(fulls).as("full attempts started").hasValue(0);

      attempts.ended(); // the fast attempt granted: the requests made meanwhile get one full attempt
      await().atMost(SOON).untilAtomic(fulls, Matchers.is(1));
      Thread.sleep(QUIET_MS);
      assertThat(fulls).hasValue(1);
      assertThat(fasts).hasValue(1);
    }
  }

  /** The race the class exists for: the full attempt that takes over a failed fast one. */
  @Test
  void theFullAttemptAfterAFailedFastOneStillHoldsTheSlot() throws Exception {
    CountDownLatch inFull = new CountDownLatch(1);
    CountDownLatch finishFull = new CountDownLatch(1);
    Runnable blockingFull = () -> {
      fulls.incrementAndGet();
      inFull.countDown();
      awaitLatch(finishFull);
    };
    try (Attempts attempts = new Attempts("test-attempts", blockingFull)) {
      attempts.request(this::fastInFlight);
      attempts.fastFailed();
      assertThat(inFull.await(SOON.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

      attempts.request(this::fastInFlight); // isLeader again while the full attempt blocks
      Thread.sleep(QUIET_MS);
      assertThat(fasts).as("no fast multi beside the full one").hasValue(1);

      finishFull.countDown();
      // The request made meanwhile is served by exactly one more full attempt, not a fast one.
      await().atMost(SOON).untilAtomic(fulls, Matchers.is(2));
      Thread.sleep(QUIET_MS);
      assertThat(fulls).hasValue(2);
      assertThat(fasts).hasValue(1);
    }
  }

  @Test
  void aFastAttemptThatThrowsDoesNotWedgeTheSlot() throws Exception {
    try (Attempts attempts = new Attempts("test-attempts", fulls::incrementAndGet)) {
      try {
        attempts.request(() -> {
          throw new IllegalStateException("fast attempt broke");
        });
      } catch (IllegalStateException expected) {
        // Reaches the latch's callback thread; the slot must not stay taken.
      }
      await().atMost(SOON).untilAtomic(fulls, Matchers.is(1));
      attempts.request(this::fastInFlight);
      assertThat(fasts).as("the slot was free again").hasValue(1);
    }
  }

  @Test
  void requestsDuringAFullAttemptAreServedByOneMore() throws Exception {
    CountDownLatch finish = new CountDownLatch(1);
    Runnable slow = () -> {
      fulls.incrementAndGet();
      awaitLatch(finish);
    };
    try (Attempts attempts = new Attempts("test-attempts", slow)) {
      attempts.request(null);
      await().atMost(SOON).untilAtomic(fulls, Matchers.is(1));
      Thread[] callers = new Thread[8];
      for (int i = 0; i < callers.length; i++) {
        callers[i] = new Thread(() -> {
          for (int j = 0; j < 50; j++) {
            attempts.request(j % 2 == 0 ? null : this::fastInFlight);
          }
        });
        callers[i].start();
      }
      for (Thread t : callers) {
        t.join();
      }
      finish.countDown();
      await().atMost(SOON).untilAtomic(fulls, Matchers.is(2));
      Thread.sleep(QUIET_MS);
      assertThat(fulls).hasValue(2);
      assertThat(fasts).as("no fast attempt while the slot was taken").hasValue(0);
    }
  }

  /** A fast attempt whose multi is now in flight: it holds the slot until ended or failed. */
  private boolean fastInFlight() {
    fasts.incrementAndGet();
    return true;
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(SOON.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
