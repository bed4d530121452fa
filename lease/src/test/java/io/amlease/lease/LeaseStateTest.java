package io.amlease.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a runner asks before its child may act: held, in that term, with time left. */
class LeaseStateTest {

  private static final Epoch TERM = new Epoch(3, 2, "i-a");
  private static final LeaseTiming TIMING = new LeaseTiming(Duration.ofSeconds(30),
      Duration.ofSeconds(20), Duration.ofSeconds(5), Duration.ofSeconds(2));

  private static LeaseState state(LeaseState.Phase phase, Epoch epoch, Duration left) {
    return new LeaseState(phase, Optional.of(epoch), left, Duration.ZERO, 1, 7, TIMING,
        Optional.empty());
  }

  @Test
  void holdingTheTermWithTimeLeftHoldsIt() {
    LeaseState s = state(LeaseState.Phase.HOLDING, TERM, Duration.ofMillis(1));
    assertThat(s.holds(TERM)).isTrue();
    assertThat(s.timeLeftIn(TERM)).contains(Duration.ofMillis(1));
  }

  @Test
  void anotherTermIsNotHeldEvenWithTheSameNumber() {
    LeaseState s = state(LeaseState.Phase.HOLDING, TERM, Duration.ofSeconds(5));
    assertThat(s.holds(new Epoch(4, 3, "i-a"))).isFalse();
    // The same number and token on another incarnation: the lease was deleted and made again.
    assertThat(s.holds(new Epoch(3, 2, "i-b"))).isFalse();
    assertThat(s.timeLeftIn(new Epoch(3, 2, "i-b"))).isEmpty();
  }

  @Test
  void aDeadlineReachedOrPassedEndsTheTermBeforeTheRevocationIsSeen() {
    assertThat(state(LeaseState.Phase.HOLDING, TERM, Duration.ZERO).holds(TERM)).isFalse();
    assertThat(state(LeaseState.Phase.HOLDING, TERM, Duration.ofMillis(-1)).timeLeftIn(TERM))
        .isEmpty();
  }

  @Test
  void onlyTheHoldingPhaseHolds() {
    for (LeaseState.Phase p : LeaseState.Phase.values()) {
      assertThat(state(p, TERM, Duration.ofSeconds(5)).holds(TERM)).as(p.name())
          .isEqualTo(p == LeaseState.Phase.HOLDING);
    }
  }
}
