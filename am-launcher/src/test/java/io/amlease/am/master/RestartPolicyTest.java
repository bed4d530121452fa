package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {
  private static final long S = 1_000_000_000L;

  @Test
  void delaysDoubleUpToTheMaximumAndTheLimitFailsTheApplication() {
    RestartPolicy p = new RestartPolicy(3, Duration.ofHours(1));
    assertThat(p.failed(0, "n1", true)).isEqualTo(
        new RestartPolicy.Verdict(false, Duration.ofSeconds(1), false, 1));
    assertThat(p.failed(S, "n2", true).delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(p.failed(3 * S, "n3", true).delay()).isEqualTo(Duration.ofSeconds(4));
    RestartPolicy.Verdict fourth = p.failed(7 * S, "n4", true);
    assertThat(fourth.giveUp()).isTrue();
    assertThat(fourth.failures()).isEqualTo(4);

    RestartPolicy slow = new RestartPolicy(100, Duration.ofHours(1));
    Duration last = Duration.ZERO;
    for (int i = 0; i < 10; i++) {
      last = slow.failed(i * S, "n", false).delay();
    }
    assertThat(last).isEqualTo(RestartPolicy.MAX_DELAY);
  }

  @Test
  void failuresOlderThanTheValidityWindowNoLongerCount() {
    RestartPolicy p = new RestartPolicy(2, Duration.ofMinutes(10));
    p.failed(0, "a", false);
    p.failed(60 * S, "b", false);
    RestartPolicy.Verdict v = p.failed(601 * S, "c", false); // the first one has expired
    assertThat(v.giveUp()).isFalse();
    assertThat(v.failures()).isEqualTo(2);
    assertThat(v.delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(p.failed(602 * S, "c", false).giveUp()).isTrue();
  }

  @Test
  void aNodeWithRepeatedFailuresIsAvoidedOnlyWhileWorkersRunFineElsewhere() {
    RestartPolicy p = new RestartPolicy(100, Duration.ofHours(1));
    assertThat(p.failed(0, "bad", true).avoidNode()).isFalse();
    assertThat(p.failed(S, "bad", true).avoidNode()).isTrue();
    assertThat(p.failed(2 * S, "bad", true).avoidNode()).as("already avoided").isFalse();
    // Failing everywhere: the command is at fault, not the node.
    p.failed(3 * S, "other", false);
    assertThat(p.failed(4 * S, "other", false).avoidNode()).isFalse();
    assertThat(p.failed(5 * S, "other", true).avoidNode()).as("once others run fine").isTrue();
  }
}
