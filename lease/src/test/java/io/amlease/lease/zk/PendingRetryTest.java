package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * At most one retry waits at a time: a failure while one is pending joins it. Before this, each
 * failed attempt armed a timer of its own, so every extra trigger under a lasting failure added a
 * retry chain and the retries outran the backoff.
 */
class PendingRetryTest {
  private static final Duration D = Duration.ofMillis(100);

  private final ManualClock clock = new ManualClock();
  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicInteger delaysAskedFor = new AtomicInteger();
  private final PendingRetry retry = new PendingRetry(clock, attempts::incrementAndGet);

  private Duration delay() {
    delaysAskedFor.incrementAndGet();
    return D;
  }

  @Test
  void aFailureWhileARetryIsPendingJoinsIt() {
    assertThat(retry.arm(this::delay)).isEqualTo(D);
    assertThat(retry.arm(this::delay)).as("second failure before the timer fired").isNull();
    assertThat(delaysAskedFor).as("the backoff did not step for the joined failure").hasValue(1);

    clock.advance(D.multipliedBy(10));
    assertThat(attempts).as("one retry ran, not two").hasValue(1);
    assertThat(retry.pending()).isFalse();

    assertThat(retry.arm(this::delay)).as("once fired, the next failure arms again").isEqualTo(D);
    clock.advance(D);
    assertThat(attempts).hasValue(2);
  }

  @Test
  void aCancelledRetryDoesNotFireAndAStaleTimerDoesNotFireTheNextOne() {
    retry.arm(() -> Duration.ofMillis(50));
    retry.cancel(); // another trigger's attempt was granted
    assertThat(retry.pending()).isFalse();
    retry.arm(() -> Duration.ofMillis(500));
    clock.advance(Duration.ofMillis(100));
    assertThat(attempts).as("neither the cancelled timer nor an early one ran").hasValue(0);
    clock.advance(Duration.ofMillis(400));
    assertThat(attempts).hasValue(1);
  }

  @Test
  void nothingIsArmedOrFiredAfterClose() {
    retry.arm(this::delay);
    retry.close();
    clock.advance(D.multipliedBy(10));
    assertThat(attempts).hasValue(0);
    assertThat(retry.arm(this::delay)).isNull();
    assertThat(delaysAskedFor).hasValue(1);
  }
}
